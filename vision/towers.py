"""Towers read whole: the stack on one cell rebuilt as one unit, judged by the pictures.

The large palaces stand on towers: on a cell where an arch's leg stands, arch on arch
up to eight levels (their axes alternating, each one's end knob the next one's leg
cell), or bricks up to seven high with an arch on top. The local search
(:mod:`vision.pick`) moves a piece or two at a time; a tower read wrong at one level (an
arch a stud or a quarter turn off, which the saturated carving scores as high as the
true one) keeps every level above it out, since no single swap there stands or pays.
So each tower is offered again as a whole: from a level of it up, the reading's pieces
on that cell are taken away and the stack is rebuilt level by level from the carving's
arch candidates with a leg on the cell (either axis, either way round), each level's
piece the one whose whole rebuilt tower the pictures weigh best
(:class:`vision.agreement.Search`), an arch's other leg held up by the bricks the carving
allows (:data:`vision.parse.PROP_DEPTH`); its height is where the next level no longer
pays. The best rebuilt tower is kept where it gains more than the reading's.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Kind, Piece, place_key
from vision.agreement import MOVE_PRICE, Near, Search
from vision.parse import LEAST, PROP_DEPTH

Cell = tuple[int, int]

def _standing(search: Search) -> list[Piece]:
    """The read pieces a tower is made of: all but decorations (the corner bricks are
    never the search's own, :meth:`~vision.agreement.Search.pieces`)."""
    return [p for p in search.pieces() if p.kind is not Kind.DECORATION]


def tower_cells(search: Search) -> list[Cell]:
    """The cells a tower can stand on: every read arch's leg cell and every read brick's
    or column's cell, highest stacks first (they hold the most unread levels)."""
    top: dict[Cell, int] = {}
    for p in _standing(search):
        for c in p.legs():
            top[c] = max(top.get(c, -1), p.z + p.height - 1)
    return sorted(top, key=lambda c: -top[c])


def rebuilt_towers(search: Search, near: Near, score: NDArray[np.float32], started: float,
                   time_limit: float) -> None:
    """Offers each tower cell's stack again as a whole (:func:`_best_tower`), from each
    read level on it up, keeping the best rebuild that gains more than
    :data:`~vision.agreement.MOVE_PRICE`, as any move of the search; stops once
    ``time_limit`` seconds of thread time have passed since ``started``."""
    for cell in tower_cells(search):
        if time.thread_time() - started > time_limit:
            break
        levels = sorted({p.z for p in _standing(search) if cell in p.legs()})
        best: tuple[float, list[int], list[Piece]] | None = None
        for z0 in levels:
            got = _best_tower(search, near, score, cell, z0)
            if got is not None and (best is None or got[0] > best[0]):
                best = got
        if best is not None and best[0] > MOVE_PRICE:
            search.gain(best[1], best[2], commit=True)


def _best_tower(search: Search, near: Near, score: NDArray[np.float32], cell: Cell, z0: int
                ) -> tuple[float, list[int], list[Piece]] | None:
    """The best stack on ``cell`` from level ``z0`` up, built level by level (each
    level's candidate the one whose rebuilt tower gains most; the tower ends where no
    candidate adds to the gain), as (gain, slots taken away, pieces put)."""
    x, y = cell
    slot_at = {v: s for s, p in search.slots.items() for v in p.voxels()}
    old = sorted({s for (vx, vy, vz), s in slot_at.items()
                  if (vx, vy) == cell and vz >= z0})
    if any(search.fixed(s) for s in old):
        return None
    put: list[Piece] = []
    out: set[int] = set(old)
    best: tuple[float, list[int], list[Piece]] | None = None
    level_gain = None
    level = z0
    while (x, y, level) in near:
        choice = None
        placed = {v for p in put for v in p.voxels()}
        for cand in near[(x, y, level)]:
            if cand.z != level or cand.kind is not Kind.ARCH or cell not in cand.legs():
                continue
            trial_put = [*put, *_props(cand, slot_at, out, placed, score), cand]
            trial_out = set(out)
            for p in trial_put:
                for w in p.voxels():
                    s = slot_at.get(w)
                    if s is not None:
                        trial_out.add(s)
            if any(search.fixed(s) for s in trial_out - set(old)):
                continue
            move = search.rebuilt(sorted(trial_out), trial_put)
            if move is None:
                continue
            g = search.gain(*move)
            if choice is None or g > choice[0]:
                choice = (g, trial_out, trial_put, move)
        if choice is None or (level_gain is not None and choice[0] <= level_gain):
            break
        level_gain, out, put, move = choice[0], choice[1], choice[2], choice[3]
        if best is None or level_gain > best[0]:
            best = (level_gain, move[0], move[1])
        level += put[-1].height
    if best is not None and _same(search, best[1], best[2]):
        return None
    return best


def _same(search: Search, out: list[int], put: list[Piece]) -> bool:
    """Whether the rebuild puts back exactly what it takes away."""
    return Counter(place_key(search.slots[s]) for s in out) == Counter(
        place_key(p) for p in put)


def _props(arch: Piece, slot_at: dict[tuple[int, int, int], int], out: set[int],
           placed: set[tuple[int, int, int]], score: NDArray[np.float32]) -> list[Piece]:
    """Bricks under ``arch``'s legs where nothing (left standing) holds them, down to a
    knob, at most :data:`PROP_DEPTH` deep and each voxel carved at least
    :data:`vision.parse.LEAST`; none where no such stack reaches a knob (the move then
    fails to stand and is not tried)."""
    bricks: list[Piece] = []
    for lx, ly in arch.legs():
        level = arch.z - 1
        stack: list[Piece] = []
        while level >= 0:
            s = slot_at.get((lx, ly, level))
            if (lx, ly, level) in placed or (s is not None and s not in out):
                break
            if len(stack) >= PROP_DEPTH or score[lx, ly, level] < LEAST:
                return []
            stack.append(Piece(Kind.BRICK, lx, ly, level))
            level -= 1
        bricks.extend(reversed(stack))
    return bricks
