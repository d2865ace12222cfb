"""Telling a column from three bricks in a whole reading, as often as it pays.

A column and a run of three bricks have one outline; only the levels' colours tell them
apart (:meth:`vision.colours.LevelColours.steps`). The moves build the fewest pieces
under a leg (a column first, and bricks alone only up to four levels), so a stack of
six bricks is read as two columns, and the staircase search and the supports bring in
stacks of their own after the greedy growth. So each stack of the reading is told the
other way, one swap at a time, for as long as a swap judges better (the bricks given
what their prices charge twice, and a hidden stack's prior: :func:`owed_to_bricks`);
every swap changes the pieces' ids (the reading is taken again from the palace before),
so the stacks are found again after each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rules.formats import BOX_COUNTS
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import Kind, Piece
from vision.candidates import replaced, stack_reordered, stack_swap
from vision.scored_piece import PIECE_FLOOR

if TYPE_CHECKING:
    from vision.scoring import Scorer

FINAL_RESTACK = True
"""Whether the chosen reading (after the staircase search and the edits) is restacked
too, judged with the rules' word in it; off only to measure what it brings."""


TRAY_COUNTS = True
"""Whether restacking keeps a reading within the pieces the game's box holds
(:data:`rules.formats.BOX_COUNTS`: 16 columns, 80 bricks): where the palace before the
turn already holds the box's columns, three bricks cannot be a column, whatever their
colours, and the other way round. Off only to measure what it brings; the development
games never come near either count (at most 3 columns and 40 bricks before a turn)."""


HAND_COUNTS = True
"""Whether a stack's rival told the other way is left out where it needs more bricks or
columns than the hand of the player who built, where the game knows it
(:meth:`rules.game.Game.hand`: their bricks and columns, and one column more where they
may take the Frog for it). Restacking itself weighs the hand by its price
(:data:`vision.decode.BEYOND_HAND_PRICE`), not as a bound: a stack whose sides no view
shows cannot be told by its colours, and the box's odds made it three bricks
(:data:`HIDDEN_STACKS_AS_BRICKS`), but a player builds from a hand of a few bricks,
often too few for three (of the 14 stacks told the wrong way on development games
9000-12000, 240 turns, 12 needed more bricks or columns than the player held); where the
game's record of a hand is wrong, three bricks in plain view of three colours still
read as bricks. As a bound in restacking too, development turns read the same with the
right hands, and 14 fewer exactly of 240 with hands one arch and one brick short."""

REORDER_STACKS = True
"""Whether a column with a run of three bricks on or under it is also tried in the other
order. A six-level stack read as six bricks where the hand held three is restacked into
a column and three bricks, and which run becomes the column was the first found, not
the likelier (development games 9000 turn 16, the Cycles pair 019: the column read on top
of the bricks, confidently, with no rival to doubt it)."""

STACKS_PRICED_ONCE = True
"""Whether a swap is weighed with the pixels a stack's bricks pay for twice given back.
A piece's price is a share of its own outline, and a lower brick's top is in its outline
though the brick on it covers it: seen from above, three bricks of a column's outline
paid 13 to 21 units more than the column (development games 10000 turns 11, 44, 56),
three to five times the two floors that were meant to be all between them, so stacks of
bricks of three colours whose sides hardly show were read as columns."""

HIDDEN_STACKS_AS_BRICKS = True
"""Whether a stack whose levels no view shows is read as three bricks rather than a
column where nothing else decides (fewer than two of its levels seen,
:meth:`~vision.colours.LevelColours.levels_seen`). Neither its colours nor its seams can
be read there (slivers of a few pixels take their neighbours' tints: true columns hidden
so read hues 100 apart), so the reading takes the commoner: the box holds 80 bricks and
16 columns, and the twin's games add runs of three bricks twice as often as columns (82
against 38 over six sets of turns). Of the stacks with fewer than two levels seen on
development games 9000 and 10000, 12 were bricks and 5 columns. It makes 7 more turns
exact on the four development sets (200 turns) and 1 more on the two held out (100); a
phantom stack under a misread step now counts as three wrong pieces instead of one, so
the pieces' F1 moves less (docs/vision-log.md, "Hidden stacks: three bricks or a
column")."""
HIDDEN_STACK_BRICKS = 2 * PIECE_FLOOR + 1.0
"""What three bricks are owed over a column in a hidden stack: their two floors more,
and a margin (not tuned) so that they win where the evidence is even."""


BUILDING = (Kind.ARCH, Kind.BRICK, Kind.COLUMN)
"""The kinds a player's hand holds (decorations come from the tray)."""


@dataclass(frozen=True)
class Supply:
    """Where a turn's pieces come from: the game's box, less what the palace before the
    turn holds, and the hand of the player who built, where the game knows it (None:
    a photo read with no game, as ``palace reconstruct`` reads one)."""

    held: Counter[Kind]
    hand: Hand | None = None

    @classmethod
    def of(cls, before: Palace, hand: Hand | None = None) -> Supply:
        return cls(Counter(p.kind for p in before), hand)

    def beyond_box(self, pieces: Sequence[Piece]) -> int:
        """How many columns and bricks ``pieces`` need beyond what the box holds
        (:data:`TRAY_COUNTS`): 0 where they fit. Restacking keeps a reading from going
        further."""
        if not TRAY_COUNTS:
            return 0
        counts = self.held + Counter(p.kind for p in pieces)
        return sum(max(counts[kind] - BOX_COUNTS[kind], 0)
                   for kind in (Kind.COLUMN, Kind.BRICK))

    def beyond(self, pieces: Sequence[Piece]) -> int:
        """:meth:`beyond_box`, and how many columns and bricks ``pieces`` need beyond the
        hand (:data:`HAND_COUNTS`): a stack's rival that goes further than the reading
        is no rival."""
        over = self.beyond_box(pieces)
        if HAND_COUNTS:
            over += self.beyond_hand(pieces, (Kind.COLUMN, Kind.BRICK))
        return over

    def beyond_hand(self, pieces: Sequence[Piece],
                    kinds: Sequence[Kind] = BUILDING) -> int:
        """How many pieces of ``kinds`` (arches, bricks and columns) ``pieces`` need
        beyond the hand (0 where it is not known)."""
        if self.hand is None:
            return 0
        used = Counter(p.kind for p in pieces)
        have = {Kind.ARCH: self.hand.arches, Kind.BRICK: self.hand.bricks,
                Kind.COLUMN: self.hand.columns}
        return sum(max(used[kind] - have[kind], 0) for kind in kinds)


class Reading(Protocol):
    """What restacking needs of the decoder: where its pieces come from, its reading
    and its one way to change it."""

    supply: Supply
    added: list[Piece]

    def take(self, pieces: Sequence[Piece]) -> bool: ...


def owed_to_bricks(scorer: Scorer, column: Piece) -> float:
    """What three bricks in a column's place are owed when the two are weighed: the
    pixels they pay for twice (:data:`STACKS_PRICED_ONCE`) and, where no view shows the
    stack's levels, :data:`HIDDEN_STACK_BRICKS` (:data:`HIDDEN_STACKS_AS_BRICKS`)."""
    owed = 0.0
    if STACKS_PRICED_ONCE:
        owed += scorer.priced_twice([Piece(Kind.BRICK, column.x, column.y, column.z + i)
                                     for i in range(3)])
    if HIDDEN_STACKS_AS_BRICKS and scorer.colours.levels_seen(column) < 2:
        owed += HIDDEN_STACK_BRICKS
    return owed


def restack(reading: Reading, judge: Callable[[Sequence[Piece]], float],
            owed: Callable[[Piece], float] | None = None) -> int:
    """Swaps a column of the reading for three bricks, or a run of three bricks for a
    column, while one swap judges better by ``judge`` without needing more pieces than
    the box holds, or needs fewer beyond it (:meth:`Supply.beyond_box`), whatever it
    judges; returns how many were made. The builder's hand is the judge's to weigh.

    ``owed`` says what the bricks' side of a swap is owed over a column
    (:func:`owed_to_bricks`); nothing without it. Each swap raises the judged score less
    what each column of the reading would owe its bricks, or brings the reading nearer
    the box, so this ends."""
    swaps = 0
    supply = reading.supply
    while True:
        current = list(reading.added)
        score = judge(current)
        over = supply.beyond_box(current)
        for olds, instead in _swaps(current):
            trial = replaced(current, olds, instead)
            trial_over = supply.beyond_box(trial)
            if trial_over > over:
                continue
            if trial_over == over:
                gained = judge(trial) - score
                if owed is not None:
                    gained += (sum(owed(p) for p in olds if p.kind is Kind.COLUMN)
                               - sum(owed(p) for p in instead if p.kind is Kind.COLUMN))
                if gained <= 0:
                    continue
            if reading.take(trial):
                swaps += 1
                break
        else:
            return swaps


def _swaps(pieces: Sequence[Piece]) -> Iterator[tuple[list[Piece], list[Piece]]]:
    """Each stack of ``pieces`` told the other way (:func:`stack_swap`), and each column
    with three bricks on or under it in the other order (:func:`stack_reordered`,
    :data:`REORDER_STACKS`): the pieces replaced and those instead."""
    for piece in pieces:
        found = stack_swap(piece, pieces)
        if found is not None:
            yield found
        if REORDER_STACKS:
            found = stack_reordered(piece, pieces)
            if found is not None:
                yield found
