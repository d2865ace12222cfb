"""Two readings the picture cannot tell apart, a wholly hidden arch on the plate or the
wholly hidden brick under the brick on its end knob, are decided for the one with less
unseen volume (:data:`vision.decode.HIDDEN_CELL_PRICE`), as game 10000 turn 59 was not."""

from __future__ import annotations

import numpy as np
import pytest

from rules import Kind, Palace, Piece
from rules.pieces import Axis
from tests.turn_fixtures import decoder_for, turns_with
from vision import decode
from vision.candidates import built_on, is_legal_turn
from vision.decode import Decoder
from vision.refine import refine

CASES = 3
HIDDEN = decode.HIDDEN_CELL_PRICE


def stacks_as_plate_arches() -> list[tuple[Palace, list[Piece], Piece, Piece]]:
    """Seeded staircases with two bricks stacked on the plate, each with an arch on the
    plate under the upper brick that makes a legal staircase too."""
    out = []
    for before, added in turns_with(2, seed=35):
        for low in (p for p in added if p.kind is Kind.BRICK and p.z == 0):
            if not any(p.kind is Kind.BRICK and (p.x, p.y, p.z) == (low.x, low.y, 1)
                       for p in added):
                continue
            for axis, (dx, dy) in ((Axis.X, (1, 0)), (Axis.Y, (0, 1))):
                for back in (0, 3):
                    arch = Piece(Kind.ARCH, low.x - back * dx, low.y - back * dy, 0, axis=axis)
                    reading = [p for p in added if p is not low] + [arch]
                    if (arch.on_plate() and built_on(before, reading) is not None
                            and is_legal_turn(before, reading)):
                        out.append((before, added, low, arch))
    return out


def _hidden(decoder: Decoder, pieces: list[Piece]) -> None:
    """Makes ``pieces`` show no pixel in any view, as behind the palace."""
    for piece in pieces:
        cand = decoder.scorer.candidate(piece)
        cand.pixels = [np.zeros(0, np.intp) for _ in cand.pixels]
        cand.size = 0
        cand._price = None


def test_a_wholly_hidden_arch_ties_with_the_brick_and_the_brick_wins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for before, added, low, arch in stacks_as_plate_arches():
        high = next(p for p in added if (p.kind, p.x, p.y, p.z) == (Kind.BRICK, low.x, low.y, 1))
        decoder, _ = decoder_for(before, added, [low, high])
        _hidden(decoder, [low, high, arch])
        reading = [p for p in added if p is not low] + [arch]
        kept = {}
        for price in (0.0, HIDDEN):
            monkeypatch.setattr(decode, "HIDDEN_CELL_PRICE", price)
            trial = decoder.fork()
            assert trial.take(reading)
            refine(trial, trial.judged(trial.added))
            kept[price] = any(p.kind is Kind.ARCH and p.z == 0 for p in trial.added)
        # Without the price the two tie and the arch read stays; with it the brick wins.
        assert kept == {0.0: True, HIDDEN: False}
        checked += 1
        if checked == CASES:
            break
    assert checked == CASES
