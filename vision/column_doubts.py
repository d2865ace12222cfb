"""A column or three bricks: when the reading's choice between them is a guess.

Three bricks of one colour stacked in a run look like a column, and a column whose levels
a shadow darkens one by one prices like three bricks. What tells them apart is a seam at
the joints (:mod:`vision.seams`) and, failing that, the levels' hue; where neither does,
the margin between the two readings is the colours' price, not evidence. These are the
two doubts :mod:`vision.confidence` asks of each brick read in such a run: both leave the
reading alone and only cap how far it is trusted.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.pieces import Kind, Piece
from vision.colours import HUE_DARK_BELOW
from vision.decode import Decoder
from vision.rival_readings import restacked

SHADE_DOUBT = True
"""Whether three bricks read where a column could stand are doubted when their levels
differ only in light and no seam shows (:func:`shade_only`), trusted no more than
:data:`vision.confidence.ILLEGAL_CONFIDENCE`. On eight development sets of 40 turns
(games 6000, 7000, 8000, 10000, 11000, 12000 with seams, 9000 under deep shadows with and
without) it flags 15 more of 143 wrong pieces (111 to 126) and 13 more of 1531 right ones
(151 to 164); the readings are the same. On the bench's 200 twin turns, measured after
it was chosen, it flags no more wrong piece and 12 more right ones; on the Cycles turns
none either way."""
COLUMN_PRICE_SHARE = 0.16
"""A brick whose rival is a column in its place (three bricks in a run told as one,
:func:`vision.rival_readings.restacked`) with no seam seen at the joints is doubted
(:func:`column_price_doubted`) when it wins by less than this share of its outline. The
column covers the bricks' pixels, so the margin is the colours' price alone, and a
shadow's edge or a coloured light moves that price as much as a brick's own colour does;
the hue doubt (:data:`SHADE_DOUBT`) misses a column whose levels a tinted light or a
shadow's grain make differ in hue. On the seven development sets 0.13 / 0.14 / 0.16 /
0.18 flag 0 / 2 / 4 / 6 more of 164 wrong pieces and 2 / 5 / 9 / 22 more of 2029 right
ones (docs/vision-log.md, "Where flagging fails off the twin (issue #12, second
round)")."""
HUE_WITHIN = 20.0
"""Chromaticity (:meth:`vision.colours.LevelColours.hue_spread`) within which three
bricks' levels count as one hue. On those sets the true columns read as three bricks
whose levels differ only in light (a shadow across one or two) spread 11.6-16.3, right
stacks of bricks 22-106 but for four with a reddish-brown brick in shade, its hue washed
towards grey (10-17); tan and dark tan are 5 apart. At 25 as many wrong pieces and 5
more right ones are flagged."""
HUE_DARK = HUE_DARK_BELOW
"""Levels darker than :data:`vision.colours.HUE_DARK_BELOW` tell no hue here either.
Without it the doubt flags 3 fewer wrong pieces and 7 fewer right ones on those sets."""
SEAM_SEEN = 0.5
"""How surely a seam must show at a run's joints (:meth:`vision.seams.SeamLines.seen`)
for the seams, not the colours, to have told the column from the bricks."""


def shade_only(decoder: Decoder, pieces: Sequence[Piece], i: int) -> bool:
    """Whether brick ``i`` is in a run of three that could as well be a column in shade:
    its levels differ in light but hardly in hue (:data:`HUE_WITHIN`), and the seams
    did not show at its joints. A column whose levels a shadow darkens one by one prices
    as three bricks of different colours do, and three bricks of tan and dark tan price
    so too; only a seam tells them apart, and where none shows the reading is a guess
    (the colours' price, not the evidence's margin, made it). A column whose levels' hue
    no view shows (hidden, or too dark) is doubted too: its colours cannot have told it."""
    if pieces[i].kind is not Kind.BRICK:
        return False
    scorer = decoder.scorer
    for _, column in restacked(decoder.supply, pieces, i):
        if (scorer.colours.hue_spread(column, HUE_DARK) < HUE_WITHIN
                and scorer.seams.seen(column) < SEAM_SEEN):
            return True
    return False


def column_price_doubted(decoder: Decoder, shape: Sequence[Piece], i: int, whole: float,
                         rivals: Sequence[tuple[float, Piece | None]]) -> bool:
    """Whether brick ``i`` beats a column in its place by less than
    :data:`COLUMN_PRICE_SHARE` of its outline where no seam shows (``whole`` the
    reading's score, ``rivals`` the scored rival readings with the piece each puts in its
    place). Where a seam showed, the seams told the two apart, not the colours' price."""
    if shape[i].kind is not Kind.BRICK:
        return False
    columns = [column for _, column in restacked(decoder.supply, shape, i)]
    if not columns or max(decoder.scorer.seams.seen(c) for c in columns) >= SEAM_SEEN:
        return False
    size = max(decoder.view_area(shape[i]), 1.0)
    return any(alt is not None and alt.kind is Kind.COLUMN
               and whole - score < COLUMN_PRICE_SHARE * size for score, alt in rivals)
