"""Telling a column from three bricks in a whole reading, as often as it pays.

A column and a run of three bricks have one outline; only the levels' colours tell them
apart (:meth:`vision.colours.LevelColours.steps`). The moves build the fewest pieces
under a leg (a column first, and bricks alone only up to four levels), so a stack of
six bricks is read as two columns, and the staircase search and the supports bring in
stacks of their own after the greedy growth. So each stack of the reading is told the
other way, one swap at a time, for as long as a swap judges better; every swap changes
the pieces' ids (the reading is taken again from the palace before), so the stacks are
found again after each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from rules.formats import BOX_COUNTS
from rules.palace import Palace
from rules.pieces import Kind, Piece
from vision.candidates import stack_swap

FINAL_RESTACK = True
"""Whether the chosen reading (after the staircase search and the edits) is restacked
too, judged with the rules' word in it; off only to measure what it brings."""


TRAY_COUNTS = True
"""Whether restacking keeps a reading within the pieces the game's box holds
(:data:`rules.formats.BOX_COUNTS`: 16 columns, 80 bricks): where the palace before the
turn already holds the box's columns, three bricks cannot be a column, whatever their
colours, and the other way round. Off only to measure what it brings; the development
games never come near either count (at most 3 columns and 40 bricks before a turn)."""


class Reading(Protocol):
    """What restacking needs of the decoder: the palace before the turn, its reading and
    its one way to change it."""

    before: Palace
    added: list[Piece]

    def take(self, pieces: Sequence[Piece]) -> bool: ...


def beyond_box(before: Counter[Kind], pieces: Sequence[Piece]) -> int:
    """How many columns and bricks ``pieces`` need beyond what the box holds, on a palace
    holding ``before`` of each kind (0 where they fit, always 0 without
    :data:`TRAY_COUNTS`)."""
    if not TRAY_COUNTS:
        return 0
    counts = before + Counter(p.kind for p in pieces)
    return sum(max(counts[kind] - BOX_COUNTS[kind], 0) for kind in (Kind.COLUMN, Kind.BRICK))


def restack(reading: Reading, judge: Callable[[Sequence[Piece]], float]) -> int:
    """Swaps a column of the reading for three bricks, or a run of three bricks for a
    column, while one swap judges better by ``judge`` without needing more pieces than
    the box holds, or needs fewer beyond it (:func:`beyond_box`), whatever it judges;
    returns how many were made. Each swap raises the score or brings the reading nearer
    the box, so this ends."""
    swaps = 0
    held = Counter(p.kind for p in reading.before)
    while True:
        current = list(reading.added)
        score = judge(current)
        over = beyond_box(held, current)
        for piece in current:
            found = stack_swap(piece, current)
            if found is None:
                continue
            olds, instead = found
            trial = [p for p in current if not any(p is o for o in olds)] + instead
            trial_over = beyond_box(held, trial)
            if trial_over > over or (trial_over == over and judge(trial) <= score):
                continue
            if reading.take(trial):
                swaps += 1
                break
        else:
            return swaps
