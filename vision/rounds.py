"""A round's moves, bounded and ranked together as arrays.

Each round the decoder (:mod:`vision.decode`) bounds every move on the changed voxels:
an arch with a way to hold up each leg (every pairing of a way under the first leg with
one under the second), or a piece alone. A round makes thousands of such pairings and
scores only the few whose bounds come first, so the pairings are made here as index
arrays, their bounds added up as numpy sums (the very additions, in the very order, a
move's own sum makes: the first way's bound, then the second way's pieces' bounds one by
one, then the piece's own), and ranked with a stable sort: the moves come out in the
order sorting the list of every move by bound would give, and only those asked for are
made into Python objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Voxel
from vision.scored_piece import Candidate, Pixels
from vision.scoring import Scorer
from vision.ways import NO_WAY, Way

Start = tuple[float, Candidate, bool, bool]
"""A move's piece: its bound, its candidate, whether it joins the pieces read so far,
and whether it is an arch whose legs need ways (else it is a piece alone)."""
Ranked = tuple[float, float, Way, Way, Candidate]
"""A move: its bound; its bound less the most evidence against one of its pieces
(what it gains at most, when it has more than one piece); its two ways; its piece."""


class Ranking:
    """A round's moves (:func:`rank_moves`), highest bound first, as arrays: the move
    loop (:meth:`vision.moves.Moves.best`) stops at the first bound not above
    its floor and passes over every move but a piece alone whose reach is not above it,
    and the floor changes only when a move is kept, so the moves it would look at are
    found with numpy, a stretch of the ranking at a time, rather than one by one in
    Python."""

    __slots__ = ("_bound", "_drop", "_neg", "_reach", "first", "second", "start", "starts",
                 "ways")

    def __init__(self, bound: NDArray[np.float64], reach: NDArray[np.float64],
                 alone: NDArray[np.bool_], first: NDArray[np.intp], second: NDArray[np.intp],
                 start: NDArray[np.intp], ways: list[Way], starts: Sequence[Start]) -> None:
        self._bound = bound
        self._neg = -bound
        """The bounds negated (exactly): ascending, for a binary search."""
        self._reach = reach
        self._drop = ~alone
        """The moves a reach not above the floor passes over: all but pieces alone."""
        # The loop indexes these one move at a time: Python lists are the faster there.
        self.first: list[int] = first.tolist()
        self.second: list[int] = second.tolist()
        self.start: list[int] = start.tolist()
        self.ways = ways
        self.starts = starts

    def __len__(self) -> int:
        return len(self._bound)

    def move(self, k: int) -> Ranked:
        """The ``k``-th move."""
        return (float(self._bound[k]), float(self._reach[k]), self.ways[self.first[k]],
                self.ways[self.second[k]], self.starts[self.start[k]][1])

    def worth(self, at: int, floor: float) -> list[int]:
        """The moves from the ``at``-th on that the loop would look at while its floor is
        ``floor``: those before the first whose bound is not above it (where the loop
        stops), less those a reach not above it passes over; in their order."""
        stop = at + int(np.searchsorted(self._neg[at:], -floor, side="left"))
        passed = self._drop[at:stop] & (self._reach[at:stop] <= floor)
        return (np.flatnonzero(~passed) + at).tolist()


def rank_moves(starts: Sequence[Start], legs: Sequence[tuple[Voxel, Voxel]],
               kept: dict[Voxel, list[Way]], halo: set[Voxel]) -> Ranking:
    """The moves of ``starts`` (an arch's legs are its entry of ``legs``, a piece alone's
    is ignored) whose bounds are above zero, highest bound first, ties in the order of
    ``starts`` and, for an arch, of its first leg's ways, then its second's. An arch's
    pairing is a move when a way has a piece (both empty leave the arch alone, which the
    rules refused) and the arch or one of its ways joins ``halo``."""
    # Every way of the round once, in one table; row 0 is the empty way.
    ways: list[Way] = [NO_WAY]
    row: dict[Voxel, int] = {}
    count: dict[Voxel, int] = {}
    for leg, options in kept.items():
        row[leg] = len(ways)
        count[leg] = len(options)
        ways += options
    n = len(starts)
    none = np.zeros(0, np.intp)
    if not n:
        return Ranking(np.zeros(0), np.zeros(0), np.zeros(0, bool), none, none, none, ways,
                       starts)
    first_row = np.zeros(n, np.intp)
    second_row = np.zeros(n, np.intp)
    first_n = np.ones(n, np.intp)
    second_n = np.ones(n, np.intp)
    arch = np.zeros(n, bool)
    for k, ((_, _, _, is_arch), (a, b)) in enumerate(zip(starts, legs, strict=True)):
        if is_arch:
            arch[k] = True
            first_row[k], second_row[k] = row[a], row[b]
            first_n[k], second_n[k] = count[a], count[b]
    # Each start's pairings, first leg's ways outer: start, then the two ways' rows.
    pairs = first_n * second_n
    total = int(pairs.sum())
    start = np.repeat(np.arange(n), pairs)
    local = np.arange(total) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    across = second_n[start]
    i = local // across
    first = first_row[start] + i
    second = second_row[start] + (local - i * across)
    # The bound as a move adds it up: the first way's, the second way's pieces' one by
    # one (an empty place adds 0.0, which changes no sum), the piece's: the additions
    # sum(second.uppers, first.upper) + up makes (on Python 3.11; from 3.12 sum()
    # compensates float rounding, which these bounds need not).
    depth = max(len(w.uppers) for w in ways)
    uppers = np.zeros((len(ways), depth + 1))
    for r, w in enumerate(ways):
        uppers[r, 0] = w.upper
        uppers[r, 1:1 + len(w.uppers)] = w.uppers
    bound = uppers[first, 0]
    for d in range(depth):
        bound = bound + uppers[second, 1 + d]
    ups = np.array([s[0] for s in starts], np.float64)
    bound = bound + ups[start]
    keep = bound > 0
    is_arch = arch[start]
    has = np.array([bool(w.cands) for w in ways])
    if is_arch.any():
        keep &= ~is_arch | has[first] | has[second]
        joined = np.array([s[2] for s in starts], bool)
        apart = keep & is_arch & ~joined[start]
        if apart.any():
            # Only the ways such moves pair are asked (each once): the rest never are.
            joins = np.zeros(len(ways), bool)
            for r in np.union1d(first[apart], second[apart]).tolist():
                joins[r] = ways[r].joins(halo)
            keep &= ~apart | joins[first] | joins[second]
    chosen = np.flatnonzero(keep)
    order = chosen[np.argsort(-bound[chosen], kind="stable")]
    # What a move gains at most: its bound less the most evidence against one piece.
    slack = np.array([w.slack for w in ways], np.float64)
    against = np.array([c.upper - c.fresh for _, c, _, _ in starts],  # type: ignore[operator]
                       np.float64)
    reach = bound[order] - np.maximum(np.maximum(slack[first[order]], slack[second[order]]),
                                      against[start[order]])
    first, second = first[order], second[order]
    return Ranking(bound[order], reach, ~(has[first] | has[second]), first, second,
                   start[order], ways, starts)


SUM_ERROR = 128 * 2.0 ** -24
"""How far numpy's float32 sum of pixels' evidence (pairwise, over blocks of 128) can
be from the true sum, at most, per unit of the summed values' magnitudes: a few dozen
roundings of 2**-24 for the sizes a move has, taken with room to spare."""


class CloseBounds:
    """What an arch with a way under each leg gains at most, from the arch's own free
    pixels and each way's free pixels off the arch's, kept while those pixels are (a
    way is kept while it is not stale, a piece's free pixels while they are the same
    list): an arch is tried with every pairing of its legs' ways, and this
    bound is the move's gain up to the pixels its two ways share, so it rules out most
    pairings at a handful of sums per way rather than one pixel union per pairing.

    It is a bound on the very number :meth:`vision.scoring.Scorer.free_gain` gives (its
    float32 sums' rounding counted), so a move it rules out is one that could not have
    beaten the floor: the moves kept, and so the readings, are the same."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self._alone: dict[Candidate, tuple[object, float, float]] = {}
        self._beside: dict[tuple[Way, Candidate], tuple[object, float, list[float], float]] = {}
        self._distinct: dict[tuple[Way, int], tuple[Pixels, NDArray[np.float32], float, float]] = {}
        self._empty = (None, 0.0, [0.0] * len(scorer.evidence), 0.0)
        """An empty way's sums."""

    def cannot_beat(self, first: Way, second: Way, cand: Candidate, price: float,
                    floor: float) -> bool:
        """Whether the move (its pieces' free pixels, less ``price``) surely gains no
        more than ``floor``. Its pixels' evidence is the arch's, plus each way's off the
        arch, less what the two ways share, which takes back at most the smaller of
        their evidence against."""
        # The kept sums are looked up here rather than through the methods below: this
        # runs for thousands of moves a round.
        free = cand.free
        alone = self._alone.get(cand)
        if alone is None or alone[0] is not free:
            alone = self._alone_sums(cand)
        _, gain, size = alone
        if first.cands:
            one = self._beside.get((first, cand))
            if one is None or one[0] is not free:
                one = self._beside_sums(first, cand)
        else:
            one = self._empty
        if second.cands:
            two = self._beside.get((second, cand))
            if two is None or two[0] is not free:
                two = self._beside_sums(second, cand)
        else:
            two = self._empty
        most = gain + one[1] + two[1] - price
        for a, b in zip(one[2], two[2], strict=True):
            most += a if a < b else b
        size += one[3] + two[3]
        return most + SUM_ERROR * size + 1e-9 * (size + abs(price) + 1.0) <= floor

    def _alone_sums(self, cand: Candidate) -> tuple[object, float, float]:
        found = self._alone.get(cand)
        if found is None or found[0] is not cand.free:
            gain = size = 0.0
            for i, ev in enumerate(self.scorer.evidence):
                g, against = _sums(ev.weight[cand.free[i]])  # type: ignore[index]
                gain += g
                size += g + 2 * against
            found = self._alone[cand] = (cand.free, gain, size)
        return found

    def _beside_sums(self, way: Way, cand: Candidate) -> tuple[object, float, list[float], float]:
        key = (way, cand)
        found = self._beside.get(key)
        if found is None or found[0] is not cand.free:
            mark = self.scorer._mark
            gain = size = 0.0
            against = []
            for i in range(len(self.scorer.evidence)):
                idx, w, way_gain, way_against = self._way_pixels(way, i)
                own = cand.free[i]  # type: ignore[index]
                mark[own] = True
                shared = mark[idx]
                mark[own] = False
                size += way_gain + 2 * way_against
                # The way's own sums less those of the pixels it shares with the arch:
                # a bound, so float64 rounding of the difference (far below the slack
                # :meth:`cannot_beat` allows) does not matter.
                if shared.any():
                    g, a = _sums(w[shared])
                    way_gain -= g
                    way_against -= a
                gain += way_gain
                against.append(way_against)
            found = self._beside[key] = (cand.free, gain, against, size)
        return found

    def _way_pixels(self, way: Way, view: int
                    ) -> tuple[Pixels, NDArray[np.float32], float, float]:
        """The way's free pixels in a view, each once, their evidence, its sum and its
        sum against (:func:`_sums`)."""
        key = (way, view)
        found = self._distinct.get(key)
        if found is None:
            free = way.free(view)
            # One piece's free pixels are distinct already.
            idx = free if len(way.cands) == 1 else self.scorer._distinct(free)
            weight = self.scorer.evidence[view].weight[idx]
            found = self._distinct[key] = (idx, weight, *_sums(weight))
        return found


def _sums(weight: NDArray[np.float32]) -> tuple[float, float]:
    """The evidence's sum and its sum against (of the negative values, as a positive
    number), added up in float64: the sum against is the positive values' sum less the
    sum, a float64 rounding apart from adding the negatives (and the magnitude the sum
    and twice the sum against), far below what the close bound allows."""
    total = float(np.add.reduce(weight, dtype=np.float64))
    return total, float(np.add.reduce(np.maximum(weight, 0), dtype=np.float64)) - total
