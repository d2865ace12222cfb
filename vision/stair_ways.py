"""The ways to hold a staircase step's start leg up to the ground, kept as a tree.

The staircase search (:mod:`vision.staircases`) hangs each proposal's lower steps from
its final arch's start leg: the leg on the ground, on a stack, or on the end knob of a
step one level lower whose own start leg is held the same way. The ways under one leg
share their lower parts: a step's ways are the ways under its start leg, each with the
step and its far leg's stack after it. Kept as that tree, the ways are never listed one
by one (a turn has hundreds of thousands), their pieces are the tree's own, and each
way's bound (its pieces' evidence summed in their order) is the bound of the way below
it plus the step's pieces: the same additions in the same order, made once per branch
and for a whole branch's ways at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rules.moves import DIRECTIONS, arch_from
from rules.palace import Palace
from rules.pieces import Kind, Piece
from vision.candidates import stacks_under

Signed = dict[int, tuple[float, float]]
"""Each piece's positive evidence less its price, and its pixels' negative evidence,
by the piece's id."""


def far_ways(palace: Palace, x: int, y: int, z: int) -> list[list[Piece]]:
    """Ways to give an arch's far leg a knob at level ``z``: an open knob, or a stack."""
    if palace.is_open_knob(x, y, z):
        return [[]]
    if z == 0 or palace.occupant(x, y, z) is not None:
        return []
    return stacks_under(palace, x, y, z)


def span_free(palace: Palace, arch: Piece) -> bool:
    """Whether the palace leaves the arch's four cells free."""
    return all(palace.occupant(x, y, arch.z) is None for x, y in arch.footprint())


@dataclass
class Step:
    """The ways through one lower step: each way under its start leg (``below``), then
    each way to hold its far leg, the step, and the brick lifting the leg above it."""

    below: LegWays
    fars: list[list[Piece]]
    lower: Piece
    brick: list[Piece]


def pieces_bound(signed: Signed, pieces: Sequence[Piece]) -> tuple[float, float]:
    """The pieces' positive evidence (less their prices) summed in their order from
    nothing, and the most negative piece's negative evidence (none is above zero): the
    bound of a proposal's top, and of each way a branch lists."""
    gain, worst = 0.0, 0.0
    for p in pieces:
        g, n = signed[id(p)]
        gain += g
        if n < worst:
            worst = n
    return gain, worst


class LegWays:
    """The ways (pieces bottom-up) to hold one start leg, in the order the rules' path
    down gives them: the leg on the ground, then on each stack standing on the ground,
    then on each lower step (lift, direction), its ways below before its far legs'."""

    def __init__(self) -> None:
        self.parts: list[list[Piece] | Step] = []
        """A whole way (the ground's, empty, or a stack), or a step's ways."""
        self.count = 0
        self._bounds: tuple[list[float], list[float]] | None = None
        self._made: dict[int, list[Piece]] = {}
        self._span = (0.0, 0.0)
        """The least and the most of the ways' worst pieces' evidence, with the bounds."""

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[list[Piece]]:
        for part in self.parts:
            if isinstance(part, list):
                yield part
                continue
            for below in part.below:
                for far in part.fars:
                    yield [*below, *far, part.lower, *part.brick]

    def locate(self, i: int) -> tuple[list[Piece] | Step, int, int]:
        """Where the ``i``-th way comes from: a whole way (and -1, -1), or a step and the
        indices of the way below it and of its far leg's way."""
        for part in self.parts:
            if isinstance(part, list):
                if i == 0:
                    return part, -1, -1
                i -= 1
                continue
            n = part.below.count * len(part.fars)
            if i < n:
                below, far = divmod(i, len(part.fars))
                return part, below, far
            i -= n
        raise IndexError(i)

    def way(self, i: int) -> list[Piece]:
        """The ``i``-th way, made alone (and kept: the ways scored share their lower
        parts, and several tops share one leg's ways)."""
        made = self._made.get(i)
        if made is None:
            part, below, far = self.locate(i)
            if isinstance(part, list):
                made = part
            else:
                made = [*part.below.way(below), *part.fars[far], part.lower, *part.brick]
            self._made[i] = made
        return made

    def pieces(self, out: dict[int, Piece], seen: set[int]) -> None:
        """Adds the pieces of every way (by id) to ``out``, each branch visited once."""
        if id(self) in seen:
            return
        seen.add(id(self))
        for part in self.parts:
            if isinstance(part, list):
                out.update((id(p), p) for p in part)
                continue
            part.below.pieces(out, seen)
            for far in part.fars:
                out.update((id(p), p) for p in far)
            out.update((id(p), p) for p in (part.lower, *part.brick))

    def bounds(self, signed: Signed) -> tuple[list[float], list[float]]:
        """Each way's pieces' positive evidence summed in their order (from nothing, one
        piece after the other), and its most negative piece's negative evidence (none is
        above zero): worked out once per branch, and kept: a tree belongs to one search
        (:class:`SearchMemo`), so ``signed`` is the same at every call. Plain lists: most
        branches hold a few ways, where arrays cost more than they save."""
        if self._bounds is None:
            gains: list[float] = []
            worsts: list[float] = []
            for part in self.parts:
                if isinstance(part, list):
                    gain, worst = pieces_bound(signed, part)
                    gains.append(gain)
                    worsts.append(worst)
                    continue
                below_gain, below_worst = part.below.bounds(signed)
                least, most = part.below._span
                tail = [signed[id(p)] for p in (part.lower, *part.brick)]
                cols: list[tuple[list[float], list[float]]] = []
                for far in part.fars:
                    col = below_gain
                    low = 0.0
                    for g, n in (*(signed[id(p)] for p in far), *tail):
                        col = [c + g for c in col]
                        low = min(low, n)
                    # The step's worst piece is mostly worse than every way's below it.
                    if low <= least:
                        worst = [low] * len(col)
                    elif low >= most:
                        worst = below_worst
                    else:
                        worst = [min(w, low) for w in below_worst]
                    cols.append((col, worst))
                if len(cols) == 1:
                    gains += cols[0][0]
                    worsts += cols[0][1]
                    continue
                # Ways below outer, far legs inner: the order the ways are listed in.
                f = len(cols)
                gain_out = [0.0] * (f * len(below_gain))
                worst_out = [0.0] * len(gain_out)
                for j, (col, worst) in enumerate(cols):
                    gain_out[j::f] = col
                    worst_out[j::f] = worst
                gains += gain_out
                worsts += worst_out
            self._bounds = (gains, worsts)
            self._span = (min(worsts), max(worsts)) if worsts else (0.0, 0.0)
        return self._bounds


class SearchMemo:
    """What one search has worked out of the palace before: each leg's ways (the same
    branch for every step over it), and at each knob the lower steps that can arrive
    there and the ways to hold their far legs (the same at every depth)."""

    def __init__(self, palace: Palace) -> None:
        self.palace = palace
        self.ways: dict[tuple[int, int, int, int], LegWays] = {}
        self._steps: dict[tuple[int, int, int], tuple[list[tuple[int, int, Piece]],
                                                      list[list[Piece]]]] = {}

    def steps(self, x: int, y: int, level: int
              ) -> tuple[list[tuple[int, int, Piece]], list[list[Piece]]]:
        """The steps at ``level`` whose end knob is (x, y) and whose four cells are free,
        each with the direction it arrives along, and the ways to hold its far leg (none
        asked where no step can arrive)."""
        hit = self._steps.get((x, y, level))
        if hit is None:
            lowers = []
            for dx, dy in DIRECTIONS:
                # The lower step arrives at (x, y) from 3 studs back along (dx, dy).
                lower = arch_from(x - 3 * dx, y - 3 * dy, level, (dx, dy))
                if lower is not None and span_free(self.palace, lower):
                    lowers.append((dx, dy, lower))
            fars = far_ways(self.palace, x, y, level) if lowers else []
            hit = self._steps[(x, y, level)] = (lowers, fars)
        return hit


def start_ways(palace: Palace, x: int, y: int, z: int, depth: int,
               known: SearchMemo | None = None) -> LegWays:
    """Ways (pieces bottom-up) to hold a step's start leg at (x, y), level ``z``, by the
    rules' path down to the ground: the leg on the ground itself, on a stack standing on
    the ground, or on the end knob of a step one level lower (or two, with a brick on
    that knob), whose far leg stands on an open knob or a stack and whose own start leg
    is held the same way, ``depth`` steps down at most, and a first step on the ground
    below those. ``known``: what the search has worked out already, of this palace."""
    known = SearchMemo(palace) if known is None else known
    hit = known.ways.get((x, y, z, depth))
    if hit is None:
        hit = known.ways[(x, y, z, depth)] = _start_ways(palace, x, y, z, depth, known)
    return hit


def _start_ways(palace: Palace, x: int, y: int, z: int, depth: int, known: SearchMemo) -> LegWays:
    ways = LegWays()
    if z == 0:
        if palace.is_open_knob(x, y, 0):
            ways.parts.append([])
            ways.count = 1
        return ways
    if palace.occupant(x, y, z - 1) is None:
        for stack in stacks_under(palace, x, y, z):
            if stack[0].z == 0:
                ways.parts.append(stack)
                ways.count += 1
    for lift in (0, 1):
        level = z - 1 - lift
        if level < 0 or (lift and palace.occupant(x, y, level + 1) is not None):
            continue
        # A step on the ground needs nothing under it (both legs on the map), so it is
        # tried whatever depth is left: a first step one below the depth was read as a
        # stack under the next step's leg.
        if depth <= 0 and level > 0:
            continue
        lowers, fars = known.steps(x, y, level)
        if not fars:
            continue
        brick = [Piece(Kind.BRICK, x, y, level + 1)] if lift else []
        for dx, dy, lower in lowers:
            below = start_ways(palace, x - 3 * dx, y - 3 * dy, level, depth - 1, known)
            if below.count:
                ways.parts.append(Step(below, fars, lower, brick))
                ways.count += below.count * len(fars)
    return ways
