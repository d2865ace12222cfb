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

from collections.abc import Callable, Sequence
from typing import Protocol

from rules.pieces import Piece
from vision.candidates import stack_swap

FINAL_RESTACK = True
"""Whether the chosen reading (after the staircase search and the edits) is restacked
too, judged with the rules' word in it; off only to measure what it brings."""


class Reading(Protocol):
    """What restacking needs of the decoder: its reading and its one way to change it."""

    added: list[Piece]

    def take(self, pieces: Sequence[Piece]) -> bool: ...


def restack(reading: Reading, judge: Callable[[Sequence[Piece]], float]) -> int:
    """Swaps a column of the reading for three bricks, or a run of three bricks for a
    column, while one swap judges better by ``judge``; returns how many were made.
    Each swap raises the score, so this ends."""
    swaps = 0
    while True:
        current = list(reading.added)
        score = judge(current)
        for piece in current:
            found = stack_swap(piece, current)
            if found is None:
                continue
            olds, instead = found
            trial = [p for p in current if not any(p is o for o in olds)] + instead
            if judge(trial) > score and reading.take(trial):
                swaps += 1
                break
        else:
            return swaps
