"""Confidence: the scales its doubts are measured on (docs/vision.md, the confidence's
calibration on the development sets)."""

from __future__ import annotations

from rules import Kind, Piece
from tests.test_decoder_rules import decoder_for, turns_with
from vision.confidence import _nothing_cap, _sureness, rate_pieces
from vision.reading import UNCERTAIN_BELOW


def _reading() -> tuple[object, list[Piece]]:
    before, added = turns_with(2)[0]
    decoder, hot = decoder_for(before, added, [])
    return decoder, decoder.run(hot)


def test_a_runner_up_reading_well_behind_doubts_no_piece() -> None:
    """Another reading the decoder grew, 40 behind the best (more than
    :data:`~vision.confidence.RIVAL_GAP`), leaves the piece it drops as trusted as no
    runner-up does: on the development sets such runner-ups were other staircases
    altogether, and the pieces they doubted right ones. One close behind still doubts."""
    decoder, read = _reading()
    clear = rate_pieces(decoder, read)
    best = max(score for score, _ in decoder.readings)
    dropped = max(read, key=lambda p: p.z)
    at = read.index(dropped)
    assert clear[at].confidence >= UNCERTAIN_BELOW
    rest = tuple(p for p in read if p is not dropped)
    decoder.readings = [(best, tuple(read)), (best - 40.0, rest)]
    assert rate_pieces(decoder, read)[at].confidence == clear[at].confidence
    decoder.readings = [(best, tuple(read)), (best - 25.0, rest)]
    assert rate_pieces(decoder, read)[at].confidence < UNCERTAIN_BELOW


def test_a_piece_that_wins_over_nothing_by_a_fraction_of_its_outline_is_doubted() -> None:
    """A margin of a third of the piece's outline over a rival in which nothing stands
    for it (the reading without it, or with its level taken out) is doubted; the same
    margin over a rival that puts another piece there is trusted, as before. On the
    development sets the wrong pieces with such a rival won by at most half their
    outline, the right ones trusted by more than their whole outline."""
    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    brick = Piece(Kind.BRICK, 5, 5, 0)
    size = decoder.view_area(brick)
    margin = size / 3
    assert _nothing_cap(decoder, brick, 0.0, [(-margin, None)]) < UNCERTAIN_BELOW
    moved = brick.moved(x=6)
    assert _nothing_cap(decoder, brick, 0.0, [(-margin, moved)]) == 1.0
    assert _sureness(decoder, margin, brick) >= UNCERTAIN_BELOW
    assert _nothing_cap(decoder, brick, 0.0, [(-margin, moved), (-2 * size, None)]) > 0.9
