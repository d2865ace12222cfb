"""What the turn-reading tests share: evidence drawn exactly from a bot game's true pieces
(the decoder's tests), random evidence over one brick's board (the scorer's), and a
staircase rendered on the set-up palace and read (the picture's)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.evidence import BoardLocation
from rules import Kind, Palace, Piece, load_map, simulate_game
from rules.moves import Hand
from rules.pieces import ANIMAL_KINDS, pieces_added, place_key
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision import confidence, read_turn
from vision.candidates import shapes_at
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.evidence import Evidence, hot_cells
from vision.reading import UNCERTAIN_BELOW, TurnReading
from vision.silhouettes import View
from vision.views import board_box, working_scale

SHOWN, UNSEEN, BARE = 0.75, 0.0, -0.75
"""Evidence per pixel: a new piece in full view, a pixel that says nothing, no change."""


FIGURE = 0.6
"""Evidence on an animal's pixels where the staircase's own do not cover them: fainter
than a piece's, yet enough to pay for a brick there."""



def turns_with(arches: int, seed: int = 31) -> list[tuple[Palace, list[Piece]]]:
    """Turns of a seeded bot game whose staircase has at least ``arches`` arches."""
    ground = load_map("1")
    record = simulate_game(3, seed=seed, map_name=ground)
    out = []
    for i, turn in enumerate(record.turns):
        if turn.report is None or turn.report.passed or not turn.report.legal:
            continue
        added = [p for p in pieces_added(record.scenes[i].pieces, record.scenes[i + 1].pieces)
                 if p.kind not in ANIMAL_KINDS]
        if sum(p.kind is Kind.ARCH for p in added) >= arches:
            out.append((Palace(ground, record.scenes[i].pieces), added))
    return out



def decoder_for(before: Palace, added: list[Piece], unseen: list[Piece],
                unseen_weight: float = UNSEEN) -> tuple[Decoder, set[tuple[int, int, int]]]:
    """A decoder on evidence where ``added`` show in full view except ``unseen``."""
    camera, pose = random_camera(np.random.default_rng(7), 1280, 720,
                                 elevation_deg=(50.0, 55.0), fill=(0.8, 0.9))
    top = max((p.top for p in before), default=0)
    box = board_box(camera, pose, top + 6)
    assert box is not None
    view = View(camera, pose, box, working_scale(camera, pose))
    view.paint_old(before.pieces)
    weight = np.full(view.shape[0] * view.shape[1], BARE, np.float32)
    for piece in unseen:
        weight[view.piece_pixels(piece)] = unseen_weight
    for piece in added:
        if piece not in unseen:
            weight[view.piece_pixels(piece)] = SHOWN
    evidence = Evidence(view, weight, weight > 0, np.zeros_like(weight))
    return Decoder(before, [evidence]), hot_cells([evidence], top)



def doubted_by_rule(monkeypatch: pytest.MonkeyPatch, module: object, switch: str,
                    decoder: Decoder, pieces: list[Piece], at: int) -> bool | None:
    """Whether the reading's piece ``at`` is doubted with the rule ``module.switch`` on,
    where it is trusted with the rule off; None where it is doubted either way, a case
    that says nothing of the rule. The hand-made confidence is asked: the rule is one of
    its caps, and the fitted confidence (:mod:`vision.confidence_fit`) weighs each cap
    among the others rather than obeying it."""
    with pytest.MonkeyPatch.context() as hand:
        hand.setattr(confidence, "FITTED_CONFIDENCE", False)
        monkeypatch.setattr(module, switch, False)
        alone = rate_pieces(decoder, pieces, legal=True)[at].confidence
        monkeypatch.undo()
        if alone < UNCERTAIN_BELOW:
            return None
        return rate_pieces(decoder, pieces, legal=True)[at].confidence < UNCERTAIN_BELOW



def keys(pieces: list[Piece]) -> list[tuple[object, ...]]:
    """Place keys with the decoration read as the 1x1 piece it looks like: which end
    piece is the decoration, and its colour, the rules name afterwards
    (:func:`vision.finish.name_decoration`)."""
    return sorted((place_key(p.moved(kind=Kind.BRICK, color="")
                             if p.kind is Kind.DECORATION else p) for p in pieces), key=repr)



def two_staircases() -> list[tuple[Palace, list[Piece]]]:
    """The first two turns of :func:`turns_with`'s game that built two arches or more:
    the staircases several decoder tests read."""
    found = turns_with(2)
    assert len(found) >= 2
    return found[:2]



def read_on_setup(added: list[Piece], options: RenderOptions,
                  old: list[Piece] | None = None, hand: Hand | None = None) -> TurnReading:
    """``added`` built on the set-up palace (with ``old`` pieces placed on it before the
    turn), read from one view near a stack at (14, 13) (the same webcam and light before
    and after: a settled table), knowing the builder's ``hand`` if given."""
    before = Palace.setup(load_map("1"))
    for piece in old or []:
        before.place(piece)
    camera, pose = random_camera(np.random.default_rng(11), elevation_deg=(35.0, 45.0),
                                 fill=(0.7, 0.8))
    before_frame = render(before, camera, pose, options, seed=4).image
    after = before.copy()
    for piece in added:
        after.place(piece)
    frame = render(after, camera, pose, options, seed=4).image
    where = BoardLocation(True, pose=pose, rotation=0, camera=camera)
    return read_turn([frame], camera, before, before_frame=before_frame, locations=[where],
                     hand=hand)



def evidence() -> Evidence:
    """Random evidence over the region of a board with one brick on it, so that some
    pixels pay and some cost, and the old brick hides some voxels."""
    camera, pose = random_camera(np.random.default_rng(3), 1280, 720,
                                 elevation_deg=(45.0, 50.0), fill=(0.8, 0.9))
    before = Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0)])
    box = board_box(camera, pose, 8)
    assert box is not None
    view = View(camera, pose, box, working_scale(camera, pose))
    view.paint_old(before.pieces)
    rng = np.random.default_rng(5)
    weight = rng.uniform(-0.75, 0.75, view.shape[0] * view.shape[1]).astype(np.float32)
    return Evidence(view, weight, weight > 0, np.maximum(weight, 0) * 0.5)



def pieces() -> list[Piece]:
    return list(dict.fromkeys(p for x in range(8, 14) for y in range(8, 14) for z in (0, 1)
                              for p in shapes_at(x, y, z)))
