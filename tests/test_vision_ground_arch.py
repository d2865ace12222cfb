"""The confidence of a brick read under the next step where a ground arch stood."""

from __future__ import annotations

import pytest

from rules import Kind, Palace, Piece
from rules.staircase import analyse_added
from tests.turn_fixtures import decoder_for, doubted_by_rule, turns_with
from vision import confidence, decode
from vision.candidates import built_on
from vision.confidence import rate_pieces
from vision.reading import UNCERTAIN_BELOW

FAINT = -0.12
"""Evidence on the pixels of the arch's far half: they barely deny a piece (the palace
or the step above in the way), far less than a bare board does."""


def ground_arch_as_brick() -> list[tuple[Palace, Piece, Piece, list[Piece]]]:
    """Staircases whose ground arch carries the next step's leg, each with the reading
    that has a brick under that leg instead (and still stands, and is legal)."""
    out = []
    for before, added in turns_with(2, seed=35):
        for ground in (p for p in added if p.kind is Kind.ARCH and p.z == 0):
            step = next((a for a in added if a.kind is Kind.ARCH and a.z == ground.top
                         and set(a.legs()) & set(ground.knobs())), None)
            if step is None:
                continue
            x, y = next(iter(set(step.legs()) & set(ground.knobs())))
            brick = Piece(Kind.BRICK, x, y, 0)
            wrong = [p for p in added if p is not ground] + [brick]
            if built_on(before, wrong) is not None and analyse_added(before, wrong).legal:
                out.append((before, ground, brick, wrong))
    return out


def test_a_brick_read_under_the_next_step_where_a_ground_arch_stood_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show the brick's near end in full view and the rest of the ground
    arch barely denied: the brick wins by a margin the size of its own outline, which is
    not one on the pixels that tell it from the arch (the arch's far half). Where no
    other rival doubts the brick already, the arch now does. The first-step prior
    (:data:`vision.decode.GROUND_STEP_BONUS`) is held off here: with it the arch's
    reading wins outright (the next test), which would leave this rule nothing to do."""
    checked = 0
    with pytest.MonkeyPatch.context() as prior:
        prior.setattr(decode, "GROUND_STEP_BONUS", 0.0)
        for before, ground, brick, wrong in ground_arch_as_brick():
            decoder, _ = decoder_for(before, wrong, [ground], FAINT)
            at = wrong.index(brick)
            doubted = doubted_by_rule(monkeypatch, confidence, "GROUND_ARCH_OUTLINE",
                                      decoder, wrong, at)
            if doubted is None:
                continue
            assert doubted
            checked += 1
    assert checked >= 2


def test_with_the_first_step_prior_the_brick_under_the_next_step_is_doubted_anyway() -> None:
    """The rulebook's first step (an arch on the plate under the next arch's leg) is
    worth :data:`vision.decode.GROUND_STEP_BONUS` to a reading: the brick read in its
    place is doubted by the arch itself, whatever the outline rule says."""
    cases = ground_arch_as_brick()
    assert len(cases) >= 2
    for before, ground, brick, wrong in cases:
        decoder, _ = decoder_for(before, wrong, [ground], FAINT)
        reading = rate_pieces(decoder, wrong, legal=True)
        assert reading[wrong.index(brick)].confidence < UNCERTAIN_BELOW
