"""Confidence: the scale a margin over nothing is measured on (docs/vision-log.md, "The
doubts measured as one test (issue #12)")."""

from __future__ import annotations

from rules import Kind, Piece
from tests.turn_fixtures import decoder_for, turns_with
from vision.confidence import _outline_cap, _sureness
from vision.reading import UNCERTAIN_BELOW


def test_a_piece_that_wins_over_nothing_by_a_fraction_of_its_outline_is_doubted() -> None:
    """A margin of a third of the piece's outline over a rival in which nothing stands
    for it (the reading without it, or with its level taken out) is doubted; the same
    margin over a rival that puts another piece there is trusted, as before. On the
    development sets the wrong pieces with such a rival won by at most half their
    outline; the right ones won by more than their whole outline, but for 7 that won by
    0 to 0.37 of it (all but one doubted already: see NOTHING_SHARE)."""
    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    brick = Piece(Kind.BRICK, 5, 5, 0)
    size = decoder.view_area(brick)
    margin = size / 3
    assert _outline_cap(decoder, brick, 0.0, [(-margin, None)]) < UNCERTAIN_BELOW
    moved = brick.moved(x=6)
    assert _outline_cap(decoder, brick, 0.0, [(-margin, moved)]) == 1.0
    assert _sureness(decoder, margin, brick) >= UNCERTAIN_BELOW
    assert _outline_cap(decoder, brick, 0.0, [(-margin, moved), (-2 * size, None)]) > 0.9
