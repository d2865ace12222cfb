"""Full mode's ceiling: the pixels each view shows of each true piece, from the twin's own
labels, and the tally of pieces no view shows."""

from __future__ import annotations

import numpy as np

from bench.full_seen import FAINT_PX, SeenTally, seen_keys, shown_pixels
from calibration.board_model import turned_pose
from rules.pieces import Kind, Piece, place_key
from rules.scene import Scene
from twin import RenderOptions, render
from twin.cameras import random_camera

HIDDEN = Piece(Kind.BRICK, 15, 15, 0)
LONE = Piece(Kind.BRICK, 5, 5, 0)
TOWER = 6
"""Bricks in each tower round the hidden one: six bricks (57.6 mm) a stud away hide a
brick's top up to a view 71 degrees up, and the twin's cameras stand 45-55 degrees up."""


def _ring() -> list[Piece]:
    """Towers on the eight cells round :data:`HIDDEN`, :data:`TOWER` bricks each."""
    return [Piece(Kind.BRICK, 15 + dx, 15 + dy, z)
            for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy for z in range(TOWER)]


def _shown(pieces: list[Piece], views: int = 4) -> dict[tuple[object, ...], tuple[int, ...]]:
    cam, pose = random_camera(np.random.default_rng(3), elevation_deg=(45.0, 55.0))
    scene = Scene.of(pieces)
    return shown_pixels([render(scene, cam, turned_pose(pose, k), RenderOptions(clutter=False),
                                seed=k) for k in range(views)])


def test_a_brick_walled_in_by_towers_is_counted_hidden_in_every_view() -> None:
    pieces = [HIDDEN, LONE, *_ring()]
    shown = _shown(pieces)
    assert shown[place_key(HIDDEN)] == (0, 0, 0, 0)
    assert min(shown[place_key(LONE)]) >= FAINT_PX
    top = place_key(Piece(Kind.BRICK, 14, 14, TOWER - 1))
    assert max(shown[top]) >= FAINT_PX
    want = {place_key(p) for p in pieces}
    assert place_key(HIDDEN) not in seen_keys(shown)
    tally = SeenTally()
    tally.add(want, shown)
    assert tally.truth == len(pieces)
    assert tally.level_kind_unseen == {(0, "brick"): 1}
    assert tally.level_seen[0] == tally.level_truth[0] - 1
    assert tally.oracle_f1() < 1.0


def test_without_the_towers_the_same_brick_is_seen() -> None:
    shown = _shown([HIDDEN, LONE], views=1)
    assert shown[place_key(HIDDEN)][0] >= FAINT_PX
    tally = SeenTally()
    tally.add({place_key(HIDDEN), place_key(LONE)}, shown)
    assert tally.seen == 2 and tally.one_view == 2 and tally.oracle_f1() == 1.0


def test_a_sliver_counts_as_faint_and_one_view() -> None:
    key = place_key(HIDDEN)
    tally = SeenTally()
    tally.add({key}, {key: (0, FAINT_PX - 1, 0, 0)})
    assert (tally.seen, tally.one_view, tally.faint) == (1, 1, 1)
    assert tally.oracle_f1(faint_too=False) == 0.0
