"""A player's card laid over the board's edge between the pictures is no piece."""

from __future__ import annotations

import numpy as np
import pytest

import vision.turn
from calibration.evidence import BoardLocation
from rules.pieces import built_keys
from training.pairs import TurnPair, turn_pairs
from twin import RenderOptions, orbit_pose
from twin.cameras import random_camera
from vision import read_turn
from vision.evidence import Evidence, changed_at_all, off_board_set_aside
from vision.silhouettes import View
from vision.views import board_box, board_space


def _evidence(view: View, hot: np.ndarray) -> Evidence:
    flat = hot.ravel()
    weight = np.where(flat, 2.0, -1.0).astype(np.float32)
    return Evidence(view, weight, flat.copy(), np.where(flat, 0.5, 0.0).astype(np.float32))


def test_a_patch_running_out_of_the_boards_space_is_set_aside_and_one_inside_is_kept():
    camera, _ = random_camera(np.random.default_rng(2), 640, 360)
    pose = orbit_pose(50.0, 20.0, 520.0)
    box = board_box(camera, pose, 6)
    assert box is not None
    view = View(camera, pose, box, 1.0)
    space = board_space(view, 6)
    ys, xs = np.nonzero(space)
    middle = (int(np.median(ys)), int(np.median(xs)))
    hot = np.zeros(view.shape, bool)
    hot[middle[0] - 5:middle[0] + 5, middle[1] - 5:middle[1] + 5] = True  # a piece
    kept = off_board_set_aside(_evidence(view, hot), space)
    assert kept.hot.sum() == hot.sum() and (kept.weight > 0).sum() == hot.sum()
    # A card from the region's bottom edge (clear of the frame's) onto the board.
    card = hot.copy()
    card[middle[0]:, middle[1] - 12:middle[1] + 12] = True
    assert box[3] < camera.height
    aside = off_board_set_aside(_evidence(view, card), space)
    assert not aside.hot.any()
    assert np.all(aside.weight[card.ravel()] == 0.0)
    assert np.all(aside.weight[~card.ravel()] == -1.0)  # the rest says what it said


def test_fragments_the_model_leaves_of_a_card_are_set_aside_with_the_card_s_change():
    """The model denies most of a card and leaves its rim in fragments, each within the
    board's space; the classical change of the whole card (``changed``) joins them to
    the part that runs out, and all are set aside. A piece elsewhere stays, and the
    change joins nothing when no patch runs out."""
    camera, _ = random_camera(np.random.default_rng(2), 640, 360)
    pose = orbit_pose(50.0, 20.0, 520.0)
    box = board_box(camera, pose, 6)
    assert box is not None and box[3] < camera.height
    view = View(camera, pose, box, 1.0)
    space = board_space(view, 6)
    ys, xs = np.nonzero(space)
    my, mx = int(np.median(ys)), int(np.median(xs))
    card = np.zeros(view.shape, bool)
    card[my:, mx - 12:mx + 12] = True  # from the region's bottom edge onto the board
    rim = np.zeros(view.shape, bool)
    rim[my:my + 3, mx - 12:mx + 12] = True  # the card's inner edge, the model's only trace
    piece = np.zeros(view.shape, bool)
    piece[my - 40:my - 30, mx - 5:mx + 5] = True
    assert (rim & space).sum() == rim.sum() and (piece & space).sum() == piece.sum()
    alone = off_board_set_aside(_evidence(view, rim | piece), space)
    assert alone.hot.sum() == (rim | piece).sum()  # each fragment stays inside
    joined = off_board_set_aside(_evidence(view, rim | piece), space, card | piece)
    assert joined.hot.sum() == piece.sum() and joined.hot[piece.ravel()].all()
    inside = card & space & (np.arange(view.shape[0])[:, None] < my + 10)
    kept = off_board_set_aside(_evidence(view, rim | piece), space, inside | piece)
    assert kept.hot.sum() == (rim | piece).sum()


def test_the_change_at_all_is_the_classical_change_at_half_the_scale():
    rng = np.random.default_rng(4)
    before = rng.normal(120, 2, (120, 160, 3)).astype(np.float32)
    after = before * 1.3  # re-exposed: nothing changed
    after[40:80, 60:100] = (30.0, 200.0, 40.0)
    changed = changed_at_all(after, before)
    assert changed.shape == (120, 160)
    assert changed[44:76, 64:96].all()
    assert changed.sum() < 1.3 * 40 * 40


def test_a_patch_at_an_edge_the_frame_cut_is_kept():
    """A board running off the picture takes its pieces with it: a piece at the frame's
    edge is no card."""
    camera, _ = random_camera(np.random.default_rng(2), 640, 360)
    pose = orbit_pose(50.0, 20.0, 420.0)  # near enough that the board runs off the frame
    box = board_box(camera, pose, 6)
    assert box is not None and box[3] == camera.height
    view = View(camera, pose, box, 1.0)
    space = board_space(view, 6)
    hot = np.zeros(view.shape, bool)
    column = int(np.nonzero(space[-1])[0].mean())
    hot[-20:, column - 10:column + 10] = True  # a piece cut by the frame's bottom edge
    assert (hot & space).sum() == hot.sum()
    kept = off_board_set_aside(_evidence(view, hot), space)
    assert kept.hot.sum() == hot.sum()
    opened = View(camera, pose, (box[0], box[1], box[2], box[3] - 1), 1.0)
    assert not off_board_set_aside(_evidence(opened, hot[:-1]),
                               board_space(opened, 6)).hot.any()


@pytest.fixture(scope="module")
def carded() -> list[TurnPair]:
    return list(turn_pairs(1, 100, max_turns=2, elevation_deg=(45.0, 60.0),
                           options=RenderOptions(clutter=False), card_over_edge=True))


def test_turns_with_a_card_laid_over_a_near_edge_are_read_exactly(carded, monkeypatch):
    """The short game's first two turns, each with a card laid over the board's edge
    on the webcam's side before the picture after: read exactly, by the model and by the
    classical change alone. The classical change lights the whole card up, and without
    the rule reads it as a wall of phantom bricks."""
    def read(pair: TurnPair, model: bool) -> list[object]:
        location = BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)
        reading = read_turn([pair.after_frame], pair.camera, pair.before,
                            before_frame=pair.before_frame, locations=[location],
                            model=model)
        return sorted(map(repr, built_keys(reading.pieces)))

    for pair in carded:
        truth = sorted(map(repr, built_keys(pair.added)))
        assert read(pair, True) == truth, pair.turn
        assert read(pair, False) == truth, pair.turn
    monkeypatch.setattr(vision.turn, "off_board_set_aside", lambda ev, space, changed=None: ev)
    for pair in carded:
        assert len(read(pair, False)) > 2 * len(pair.added), pair.turn


def test_a_card_laid_down_with_nothing_built_is_asked_about_as_such(carded):
    """The palace after the first turn, pictured without the card and then with it:
    nothing new is read, and the players are asked with the card named as what changed
    (a staircase may still hide behind the palace, as with any reading of nothing)."""
    from vision.turn import NOTHING_BUT_LAID

    pair = carded[0]
    plain = next(iter(turn_pairs(1, 100, max_turns=1, elevation_deg=(45.0, 60.0),
                                 options=RenderOptions(clutter=False))))
    palace = pair.before.copy()
    for piece in pair.added:
        palace.place(piece)
    location = BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)
    reading = read_turn([pair.after_frame], pair.camera, palace,
                        before_frame=plain.after_frame, locations=[location])
    assert reading.found and not reading.added
    assert reading.reason == NOTHING_BUT_LAID
