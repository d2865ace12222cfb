"""The close bound of a round's moves: what an arch with a way under each leg gains at
most, asked of a stretch of the round's ranking at once.

The move loop (:meth:`vision.moves.Moves.best`) scores moves from the highest bound down;
most of the arches' pairings it reaches cannot beat its floor, and this bound, from sums
kept per arch and per (way, arch) pair, rules them out without uniting their pixels. It
is asked of many moves together (:meth:`CloseBounds.passing`): the ranking's ways and
starts are index arrays (:class:`vision.rounds.Ranking`), each pair's sums are looked up
once a round, and the bound of every move is added up with numpy, in the very order a
move's own (:meth:`CloseBounds.cannot_beat`) adds it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from vision.rounds import Ranking
from vision.scored_piece import Candidate
from vision.scoring import Scorer
from vision.ways import Way

SUM_ERROR = 128 * 2.0 ** -24
"""How far numpy's float32 sum of pixels' evidence (pairwise, over blocks of 128) can
be from the true sum, at most, per unit of the summed values' magnitudes: a few dozen
roundings of 2**-24 for the sizes a move has, taken with room to spare."""


FIRST_PART = 128
"""Moves bounded together first (:meth:`CloseBounds.passing`), then twice as many each
time."""


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
        self._empty = (None, 0.0, [0.0] * len(scorer.evidence), 0.0)
        """An empty way's sums."""

    def cannot_beat(self, first: Way, second: Way, cand: Candidate, price: float,
                    floor: float) -> bool:
        """Whether the move (its pieces' free pixels, less ``price``) surely gains no
        more than ``floor``. Its pixels' evidence is the arch's, plus each way's off the
        arch, less what the two ways share, which takes back at most the smaller of
        their evidence against.

        The move loop asks :meth:`ruled_out` of a stretch of moves at once; this, the
        same bound one move at a time, is the definition that its answers are checked
        against, move by move (``tests/test_rounds.py``)."""
        _, gain, size = self._alone_sums(cand)
        one, two = self._beside_sums(first, cand), self._beside_sums(second, cand)
        most = gain + one[1] + two[1] - price
        for a, b in zip(one[2], two[2], strict=True):
            most += a if a < b else b
        size += one[3] + two[3]
        return most + SUM_ERROR * size + 1e-9 * (size + abs(price) + 1.0) <= floor

    def passing(self, ranking: Ranking, ks: NDArray[np.intp], floor: float) -> Iterator[int]:
        """The moves ``ks`` of ``ranking`` the close bound does not rule out against
        ``floor`` (:meth:`ruled_out`), in their order. They are bounded in parts of
        doubling length, as the loop goes: it stops at the first it keeps, often among
        the first few, and what the bound keeps of the moves beyond is asked only when
        they are reached."""
        lo, size = 0, FIRST_PART
        while lo < len(ks):
            part = ks[lo:lo + size]
            yield from part[~self.ruled_out(ranking, part, floor)].tolist()
            lo += size
            size *= 2

    def ruled_out(self, ranking: Ranking, ks: NDArray[np.intp], floor: float
                  ) -> NDArray[np.bool_]:
        """For each of the moves ``ks`` of ``ranking``, whether :meth:`cannot_beat` says
        it surely gains no more than ``floor`` (False for the moves it is not asked of):
        the same sums, added up in the same order, for all the moves at once. The kept
        sums are looked up once per start and per (way, start) pair among them, not once
        per move, and a pair's once a round: the round's stretches and parts ask the same
        pairs again and again (62 500 asked over games 6000's first 8 turns, 8 800 of
        them new to their round)."""
        out = np.zeros(len(ks), bool)
        sel = ks[ranking.closed[ks]]
        if not len(sel):
            return out
        start = ranking.starts_at[sel]
        n = len(ranking.starts)
        keys = np.concatenate([ranking.firsts[sel] * n + start,
                               ranking.seconds[sel] * n + start])
        pairs, inv = np.unique(keys, return_inverse=True)
        starts, at = np.unique(start, return_inverse=True)
        views = len(self.scorer.evidence)
        alone = np.empty((2, len(starts)))
        for j, s in enumerate(starts.tolist()):
            _, alone[0, j], alone[1, j] = self._alone_sums(ranking.starts[s][1])
        # What earlier stretches of the round looked up is kept on the ranking (the
        # arches' free pixels stay as they are for the round): only pairs new to it are
        # looked up one by one.
        known, table = ranking.pair_keys, ranking.pair_sums
        place = np.searchsorted(known, pairs)
        have = place < len(known)
        have[have] = known[place[have]] == pairs[have]
        new = pairs[~have]
        sums = np.empty((len(new), views + 2))
        beside, ways, cands = self._beside, ranking.ways, ranking.starts
        empty = self._empty
        got: list[tuple[object, float, list[float], float]] = []
        missing: list[tuple[Way, Candidate]] = []
        for r, s in zip((new // n).tolist(), (new % n).tolist(), strict=True):
            way = ways[r]
            if way.cands:
                cand = cands[s][1]
                found = beside.get((way, cand))
                if found is None or found[0] is not cand.free:
                    missing.append((way, cand))
                    found = None
            else:
                found = empty
            got.append(found)  # type: ignore[arg-type]
        if missing:
            made = iter(self._beside_many(missing))
            got = [next(made) if found is None else found for found in got]
        for j, found in enumerate(got):
            row = sums[j]
            row[0] = found[1]
            row[1] = found[3]
            row[2:] = found[2]
        if len(new):
            ranking.pair_keys = known = np.insert(known, place[~have], new)
            ranking.pair_sums = table = np.insert(table, place[~have], sums, axis=0)
        rows = np.searchsorted(known, pairs)[inv]
        one, two = table[rows[:len(sel)]], table[rows[len(sel):]]
        price = ranking.price[sel]
        # As cannot_beat adds them up, element by element.
        most = alone[0, at] + one[:, 0] + two[:, 0] - price
        for i in range(views):
            most += np.minimum(one[:, 2 + i], two[:, 2 + i])
        size = alone[1, at] + (one[:, 1] + two[:, 1])
        out[ranking.closed[ks]] = (most + SUM_ERROR * size
                                   + 1e-9 * (size + np.abs(price) + 1.0) <= floor)
        return out

    def _alone_sums(self, cand: Candidate) -> tuple[object, float, float]:
        """The arch's own free pixels' evidence over the views and its magnitude, kept
        while those pixels are."""
        found = self._alone.get(cand)
        if found is None or found[0] is not cand.free:
            gain = size = 0.0
            for i, ev in enumerate(self.scorer.evidence):
                g, against = _sums(ev.weight[cand.free[i]])  # type: ignore[index]
                gain += g
                size += g + 2 * against
            found = self._alone[cand] = (cand.free, gain, size)
        return found

    def _beside_sums(self, way: Way, cand: Candidate
                     ) -> tuple[object, float, list[float], float]:
        """One (way, arch) pair's sums (:meth:`_beside_many`), kept while the arch's free
        pixels are; an empty way's are nothing."""
        if not way.cands:
            return self._empty
        found = self._beside.get((way, cand))
        if found is None or found[0] is not cand.free:
            found = self._beside_many([(way, cand)])[0]
        return found

    def _beside_many(self, pairs: list[tuple[Way, Candidate]]
                     ) -> list[tuple[object, float, list[float], float]]:
        """The sums of each (way, arch) pair's pixels off the arch (the way's free pixels,
        each once, that are not the arch's), kept while the arch's free pixels are: their
        evidence over the views, their evidence against per view, and their magnitude.
        Each pair's pixels are picked out on the scorer's scratch stamp (the way's
        pixels stamped with their places, the arch's over them: a way's pixel is kept
        where its own place is still there), and all the pairs' sums are taken together
        (float64 sums: a bound, their rounding far below the slack
        :meth:`cannot_beat` allows)."""
        stamp, order = self.scorer._stamp, self.scorer._order
        n = len(pairs)
        gain = np.zeros(n)
        size = np.zeros(n)
        against = np.zeros((len(self.scorer.evidence), n))
        for i, ev in enumerate(self.scorer.evidence):
            frees = [way.free(i) for way, _ in pairs]
            keeps = []
            for (_, cand), free in zip(pairs, frees, strict=True):
                m = len(free)
                at = order[:m] if m <= len(order) else np.arange(m, dtype=np.int64)
                stamp[free] = at
                stamp[cand.free[i]] = -1  # type: ignore[index]
                keeps.append(stamp[free] == at)
            keep = np.concatenate(keeps)
            w = ev.weight[np.concatenate(frees)[keep]].astype(np.float64)
            counts = np.array([np.count_nonzero(k) for k in keeps], np.intp)
            firsts = np.cumsum(counts) - counts
            # Each pair's stretch summed (an empty one sums to nothing).
            g = np.add.reduceat(np.append(w, 0.0), firsts)
            pos = np.add.reduceat(np.append(np.maximum(w, 0.0), 0.0), firsts)
            g[counts == 0] = 0.0
            pos[counts == 0] = 0.0
            gain += g
            against[i] = pos - g
            size += g + 2 * (pos - g)
        out = []
        beside = self._beside
        for j, (way, cand) in enumerate(pairs):
            found = beside[(way, cand)] = (cand.free, float(gain[j]), against[:, j].tolist(),
                                           float(size[j]))
            out.append(found)
        return out


def _sums(weight: NDArray[np.float32]) -> tuple[float, float]:
    """The evidence's sum and its sum against (of the negative values, as a positive
    number), added up in float64: the sum against is the positive values' sum less the
    sum, a float64 rounding apart from adding the negatives (and the magnitude the sum
    and twice the sum against), far below what the close bound allows."""
    total = float(np.add.reduce(weight, dtype=np.float64))
    return total, float(np.add.reduce(np.maximum(weight, 0), dtype=np.float64)) - total
