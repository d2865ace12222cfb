"""A whole staircase turned about its middle, or slid one stud aslant, judged whole.

One view of an L-shaped staircase (a step along x on a step along y) shows nearly what
the same L turned a quarter round does: the two arches' outlines cross near the
corner, and only the ends tell. The greedy search takes the L whose first move gained
most and never takes it back; :func:`vision.refine.refine` slides a reading one stud
along an axis, not aslant and not turned. Game 10000 turn 10 (the development set of
games 10000 on, its 11th turn, on the evidence of the model of that round): the true
staircase, judged whole, scores 249.9, the one read 212.3, and is the read one turned a
quarter about its middle and slid one stud aslant; no edit the refinement knew reached
it. (The models trained since lead the search elsewhere on that turn; the pass's test
puts the old misreading in the search's place.)

So the decoder's final reading is tried once more, turned a quarter, a half and three
quarters about the middle of its footprint, each turn (and the unturned reading) slid
by up to one stud along each axis, the decoration in both outlines (its colour follows
the staircase's start, :func:`vision.candidates.both_outlines`); a trial that cannot
stand is no trial, and one is taken only when the decoder's own judge
(:meth:`vision.decode.Decoder.judged`) scores it higher. The same last pass tries a
stack under a step's leg as the staircase going on down
(:func:`vision.refine.stacks_as_steps`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from rules.pieces import Axis, Kind, Piece
from vision.candidates import both_outlines, built_on
from vision.refine import Reading, refine, stacks_as_steps

QUARTERS = (0, 1, 2, 3)
"""Quarter turns tried (0: slid aslant only, the unslid reading left out)."""
SHIFTS = (-1, 0, 1)
"""Studs a trial is slid along each axis after turning: turning about the footprint's
middle lands a quarter turn on a half stud when the footprint is odd by even, and a
read staircase is off by a stud as often as turned."""


def turned_readings(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """``pieces`` turned by each of :data:`QUARTERS` about their footprint's middle and
    slid by :data:`SHIFTS` each way (the reading itself and the four straight slides,
    which :mod:`vision.refine` already tries, left out), each with its decoration in both
    outlines."""
    if not any(p.kind is Kind.ARCH for p in pieces):
        return
    cells = [c for p in pieces for c in p.footprint()]
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    # Twice the middle, so that the arithmetic stays in whole numbers.
    mx, my = min(xs) + max(xs), min(ys) + max(ys)
    for quarter in QUARTERS:
        for dx in SHIFTS:
            for dy in SHIFTS:
                if quarter == 0 and (dx == 0 or dy == 0):
                    continue
                trial = [_turned(p, quarter, mx, my, dx, dy) for p in pieces]
                if all(p.on_plate() for p in trial):
                    yield from both_outlines(trial)


def _turned(piece: Piece, quarter: int, mx: int, my: int, dx: int, dy: int) -> Piece:
    """``piece`` turned ``quarter`` quarters (counter-clockwise seen from above) about the
    point (mx / 2, my / 2), then slid (dx, dy) studs; its level kept."""
    moved = [_cell_turned(c, quarter, mx, my) for c in piece.footprint()]
    x = min(c[0] for c in moved) + dx
    y = min(c[1] for c in moved) + dy
    axis = piece.axis
    if piece.kind is Kind.ARCH and quarter % 2:
        axis = Axis.Y if axis is Axis.X else Axis.X
    return piece.moved(x=x, y=y, axis=axis, id="")


def _cell_turned(cell: tuple[int, int], quarter: int, mx: int, my: int) -> tuple[int, int]:
    """The cell whose centre lands nearest where ``cell``'s centre goes, turned
    ``quarter`` quarters about (mx / 2, my / 2) (a cell's centre is (x + 1/2, y + 1/2))."""
    # Doubled coordinates of the centre, relative to the doubled middle.
    u, v = 2 * cell[0] + 1 - mx - 1, 2 * cell[1] + 1 - my - 1
    for _ in range(quarter):
        u, v = -v, u
    # Back to a cell: centre at (u + mx + 1) / 2, floored for the odd-by-even footprint.
    return (u + mx) // 2, (v + my) // 2


def turn_whole(reading: Reading, score: float) -> float | None:
    """Takes the best of :func:`turned_readings` of ``reading`` (and of
    :func:`vision.refine.stacks_as_steps`: its lowest steps read as one stack) where the
    decoder's judge scores it above ``score``, then edits it as
    :func:`vision.refine.refine` does; the new score, or None where no trial scored
    higher (the reading left as it was)."""
    best: tuple[float, list[Piece]] | None = None
    for trial in itertools.chain(turned_readings(reading.added),
                                 stacks_as_steps(reading.added)):
        floor = score if best is None else best[0]
        if built_on(reading.before, trial) is None:
            continue
        judged = reading.judged(trial, floor)
        if judged > floor:
            best = (judged, trial)
    if best is None or not reading.take(best[1]):
        return None
    return refine(reading, best[0])
