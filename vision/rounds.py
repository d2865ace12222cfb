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

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Voxel
from vision.scored_piece import Candidate
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

    __slots__ = ("_bound", "_drop", "_neg", "_reach", "closed", "first", "firsts",
                 "pair_keys", "pair_sums", "price", "second", "seconds", "start", "starts",
                 "starts_at", "ways")

    def __init__(self, bound: NDArray[np.float64], reach: NDArray[np.float64],
                 alone: NDArray[np.bool_], first: NDArray[np.intp], second: NDArray[np.intp],
                 start: NDArray[np.intp], ways: list[Way], starts: Sequence[Start],
                 price: NDArray[np.float64], closed: NDArray[np.bool_]) -> None:
        self._bound = bound
        self._neg = -bound
        """The bounds negated (exactly): ascending, for a binary search."""
        self._reach = reach
        self._drop = ~alone
        """The moves a reach not above the floor passes over: all but pieces alone."""
        self.firsts, self.seconds, self.starts_at = first, second, start
        """The ways' rows and the starts, as arrays: the close bound is asked of many
        moves at once (:meth:`vision.close_bounds.CloseBounds.ruled_out`)."""
        self.price = price
        """Each move's price as the move loop adds it up (the first way's, the second
        way's pieces' one by one, the piece's)."""
        self.closed = closed
        """The moves the close bound is asked of: an arch with a piece in a way, no
        decoration."""
        views = len(starts[0][1].pixels) if len(starts) else 0
        self.pair_keys = np.zeros(0, np.int64)
        """The (way row, start) pairs whose close-bound sums the round has looked up,
        ascending (way row times the starts' count plus the start), and their sums
        (:meth:`vision.close_bounds.CloseBounds.ruled_out`)."""
        self.pair_sums = np.zeros((0, views + 2))
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

    def stretch(self, at: int, floor: float) -> NDArray[np.intp]:
        """The moves from the ``at``-th on that the loop would look at while its floor is
        ``floor``: those before the first whose bound is not above it (where the loop
        stops), less those a reach not above it passes over; in their order."""
        stop = at + int(np.searchsorted(self._neg[at:], -floor, side="left"))
        passed = self._drop[at:stop] & (self._reach[at:stop] <= floor)
        return np.flatnonzero(~passed) + at


def rank_moves(starts: Sequence[Start], legs: Sequence[tuple[Voxel, Voxel]],
               kept: dict[Voxel, list[Way]], halo: set[Voxel],
               clash: NDArray[np.bool_] | None = None) -> Ranking:
    """The moves of ``starts`` (an arch's legs are its entry of ``legs``, a piece alone's
    is ignored) whose bounds are above zero, highest bound first, ties in the order of
    ``starts`` and, for an arch, of its first leg's ways, then its second's. An arch's
    pairing is a move when a way has a piece (both empty leave the arch alone, which the
    rules refused) and the arch or one of its ways joins ``halo``. ``clash``: for every
    pairing in that order (a piece alone's one included), whether its two ways fill a
    voxel both (such a move cannot stand, so it is no move)."""
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
                       starts, np.zeros(0), np.zeros(0, bool))
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
    bound = _ways_added([w.upper for w in ways], [w.uppers for w in ways], first, second)
    ups = np.array([s[0] for s in starts], np.float64)
    bound = bound + ups[start]
    keep = bound > 0
    if clash is not None:
        keep &= ~clash
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
    first, second, start = first[order], second[order], start[order]
    # The price as the move loop adds it up: sum(second.prices, first.price) + cand.price.
    price = _ways_added([w.price for w in ways], [w.prices for w in ways], first, second)
    price = price + np.array([c.price for _, c, _, _ in starts], np.float64)[start]
    paired = has[first] | has[second]
    decoration = np.array([c.decoration for _, c, _, _ in starts], bool)
    return Ranking(bound[order], reach, ~paired, first, second, start, ways, starts,
                   price, paired & ~decoration[start])


def _ways_added(whole: Sequence[float], per_piece: Sequence[Sequence[float]],
                first: NDArray[np.intp], second: NDArray[np.intp]) -> NDArray[np.float64]:
    """Per move, the first way's ``whole`` value, then the second way's ``per_piece``
    values one by one: the additions ``sum(second_values, first_value)`` makes, in its
    order (an empty place adds 0.0, which changes no sum)."""
    # The table of values (a row per way, zeros after its last) filled at once: a slice
    # assignment per way costs more than the few values it writes.
    lengths = np.fromiter(map(len, per_piece), np.intp, len(per_piece))
    depth = int(lengths.max(initial=0))
    table = np.zeros((len(per_piece), depth))
    if depth:
        rows = np.repeat(np.arange(len(per_piece)), lengths)
        cols = np.arange(len(rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        table[rows, cols] = np.fromiter(itertools.chain.from_iterable(per_piece), np.float64,
                                        len(rows))
    out = np.asarray(whole, np.float64)[first]
    for d in range(depth):
        out = out + table[second, d]
    return out
