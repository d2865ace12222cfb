"""Confidence: the decoration's colour as sure as its start, a piece's height as sure as
its margin over the same piece a level lower, and three bricks against a column by more
than the colours' price (docs/vision-log.md, "Where flagging fails off the twin (issue
#12, second round)")."""

from __future__ import annotations

import pytest

from rules import Kind, Piece
from rules.staircase import analyse_added
from tests.turn_fixtures import decoder_for, doubted_by_rule, turns_with
from vision import confidence
from vision.confidence import _outline_cap, _probed
from vision.reading import UNCERTAIN_BELOW
from vision.rival_readings import rival_readings


def test_a_decoration_whose_start_the_evidence_did_not_fix_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show the start piece and, beside it, a rival start on ground of
    another colour, about as well: the decoration's own rivals (its other knob, a step
    shorter or longer) do not change its colour, so without the rule it is trusted;
    with it, it is doubted where the start wins by little (on the seeded games' turns,
    at least three such starts)."""
    checked = 0
    for before, added in turns_with(1) + turns_with(1, seed=32):
        report = analyse_added(before, added)
        end = next((i for i, p in enumerate(added) if p.kind is Kind.DECORATION), None)
        if end is None or report.start is None or report.start_color is None:
            continue
        shape = [confidence._outline(p) for p in added]
        for i, piece in enumerate(added):
            if piece.z != 0 or report.start not in piece.footprint():
                continue
            for trial, alt in rival_readings(before, shape, i, end):
                if alt is None or analyse_added(before, _probed(trial)).start_color in (
                        None, report.start_color):
                    continue
                decoder, _ = decoder_for(before, [*added, alt], [])
                doubted = doubted_by_rule(monkeypatch, confidence, "START_COLOUR_DOUBT",
                                          decoder, added, end)
                checked += bool(doubted)
    assert checked >= 3


def test_the_start_colour_leaves_a_decoration_alone_when_the_start_shows() -> None:
    """The same turns with every piece in full view: the start wins over its rivals by
    its outline's evidence, and the decoration keeps the trust its own rivals give."""
    for before, added in turns_with(1)[:3]:
        end = next((i for i, p in enumerate(added) if p.kind is Kind.DECORATION), None)
        if end is None or not analyse_added(before, added).legal:
            continue
        decoder, _ = decoder_for(before, added, [])
        shape = [confidence._outline(p) for p in added]
        whole = decoder.judged(shape)
        scored = [[(decoder.judged(t), t) for t, _ in rival_readings(before, shape, i, end)]
                  for i in range(len(added))]
        assert confidence._start_colour_cap(decoder, added, shape, whole, scored) > 0.9


def test_a_piece_that_wins_over_itself_a_level_lower_by_a_fraction_of_its_outline_is_doubted(
        ) -> None:
    """A margin of a third of the outline over the same piece a level lower is doubted;
    the same margin over the piece a stud over, or a level higher, is left to the usual
    scale, and a margin of twice the outline over the lower one is trusted."""
    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    arch = Piece(Kind.ARCH, 5, 5, 2)
    size = decoder.view_area(arch)
    lower, over, higher = arch.moved(z=1), arch.moved(x=6), arch.moved(z=3)
    assert _outline_cap(decoder, arch, 0.0, [(-size / 3, lower)]) < UNCERTAIN_BELOW
    assert _outline_cap(decoder, arch, 0.0, [(-size / 3, over), (-size / 3, higher)]) == 1.0
    assert _outline_cap(decoder, arch, 0.0, [(-2 * size, lower)]) > 0.9


def test_a_brick_whose_column_wins_by_the_colours_price_alone_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three bricks in a run, a column in their place as the rival: with no seam seen,
    a margin of a tenth of the outline (the colours' price, which a shadow or a tinted
    light moves) is doubted, and a third of it is not; where a seam showed, the seams
    told them and the margin is left to the usual scale. A rival that is no column is
    no concern of this doubt."""
    from vision.column_doubts import column_price_doubted
    from vision.seams import SeamLines

    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    bricks = [Piece(Kind.BRICK, 5, 5, z) for z in range(3)]
    column = Piece(Kind.COLUMN, 5, 5, 0)
    size = decoder.view_area(bricks[0])
    monkeypatch.setattr(SeamLines, "seen", lambda self, piece: 0.0)
    assert column_price_doubted(decoder, bricks, 0, 0.0, [(-size / 10, column)])
    assert not column_price_doubted(decoder, bricks, 0, 0.0, [(-size / 3, column)])
    assert not column_price_doubted(decoder, bricks, 0, 0.0, [(-size / 10, bricks[0].moved(x=6))])
    monkeypatch.setattr(SeamLines, "seen", lambda self, piece: 1.0)
    assert not column_price_doubted(decoder, bricks, 0, 0.0, [(-size / 10, column)])
