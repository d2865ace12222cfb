"""A closer bound on a whole staircase's score, asked before the score itself.

The staircase search (:mod:`vision.staircases`) orders its proposals by a bound summed
from each piece's own evidence, and scores them (:meth:`vision.scoring.Scorer.whole`)
from the highest bound down. The lower steps of a proposal stand under its final arch,
and in the picture mostly behind or below it: much of what their bound counts is pixels
the top already covers, counted twice. Nearly every proposal scored then falls short,
and scoring one (the pixels of a dozen pieces gathered, each once, and summed) is the
dearest step of the search. The closer bound counts a lower piece's pixels only where
the top does not cover them, less what the lower pieces' pixels there surely cost; it
rules a proposal out only where the score could not have passed either, so the
proposals judged, and their order, stay the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Piece
from vision.scored_piece import Candidate
from vision.scoring import Scorer
from vision.stair_ways import LegWays

SLACK = 1e-4
"""Share of the evidence's magnitude (the sum of its pixels' absolute values) by which
the closer bound is raised: the scores are float32 sums, each off by far less than a
millionth of that magnitude, and the bound must stay above the score as summed."""


Signs = list[tuple[NDArray[np.float32], NDArray[np.float32]]]
"""Each view's weights' positive and negative parts."""


_Beyond = tuple[float, float, float]
_Top = tuple[list[NDArray[np.bool_]], float, dict[int, _Beyond],
             dict[tuple[int, int], _Beyond]]
"""A top's pixels (a mask per view), its pieces' magnitude, and each lower piece's and
each way's evidence beyond them."""


class CloserBound:
    """Closer bounds on proposals, each top's pieces' pixels marked once and each lower
    piece's evidence beyond them summed once per top."""

    def __init__(self, scorer: Scorer, signs: Signs,
                 signed: dict[int, tuple[float, float]]) -> None:
        """``signed``: each piece's positive evidence less its price, and its negative
        evidence, by the piece's id (all the pieces asked about)."""
        self.scorer = scorer
        self.signs = signs
        self.signed = signed
        self._tops: dict[int, _Top] = {}
        self._located: dict[tuple[int, int], tuple[LegWays | None, int, tuple[Piece, ...]]] = {}
        """Where each way comes from (:meth:`LegWays.locate`: the ways below it and which of
        them, and its own pieces), the same for every top."""
        self._open = any(float(ev.leaf.min(initial=0.0)) < 0 for ev in scorer.evidence)
        """Leaves' evidence below zero breaks the bound's premise: then it rules out
        nothing."""

    def bound(self, top: Sequence[Piece], ways: LegWays, i: int, head: float) -> float:
        """The most the proposal of the ``i``-th of ``ways`` under ``top`` can score,
        given ``head`` (the top's own score, with whatever the caller adds to every
        score): the top's score, each lower piece's positive evidence outside the top's
        pixels less its price (leaves' evidence is never negative, and a lower piece
        covering a leaf only takes it away), and the most negative lower piece's negative
        evidence there (the pixels the lower pieces add hold each one's); raised by
        :data:`SLACK` of the evidence's magnitude."""
        if self._open:
            return math.inf
        hit = self._tops.get(id(top))
        if hit is None:
            cands = [self.scorer.candidate(p) for p in top]
            size = sum(self._magnitude(p, c) for p, c in zip(top, cands, strict=True))
            hit = self._tops[id(top)] = (self._covered(cands), size, {}, {})
        gain, worst, size = self._way(hit, ways, i)
        return head + gain + worst + SLACK * (hit[1] + size)

    def _way(self, top: _Top, ways: LegWays, i: int) -> tuple[float, float, float]:
        """A way's pieces' evidence beyond the top (the sum of their positive evidence
        less their prices, the most negative one's negative, the sum of their magnitudes),
        kept per way: the ways scored share their lower parts."""
        covered, _, pieces, made = top
        key = (id(ways), i)
        hit = made.get(key)
        if hit is not None:
            return hit
        at = self._located.get(key)
        if at is None:
            part, below, far = ways.locate(i)
            if isinstance(part, list):
                at = self._located[key] = (None, -1, tuple(part))
            else:
                at = self._located[key] = (part.below, below,
                                           (*part.fars[far], part.lower, *part.brick))
        lower, below, rest = at
        if lower is None:
            gain, worst, size = 0.0, 0.0, 0.0
        else:
            gain, worst, size = self._way(top, lower, below)
        for piece in rest:
            got = pieces.get(id(piece))
            if got is None:
                got = pieces[id(piece)] = self._beyond(covered, piece)
            gain += got[0]
            if got[1] < worst:  # what min(worst, got[1]) keeps
                worst = got[1]
            size += got[2]
        made[key] = hit = (gain, worst, size)
        return hit

    def _covered(self, top: list[Candidate]) -> list[NDArray[np.bool_]]:
        """The top's pixels marked, per view, once for all the lower pieces asked
        under it (what :meth:`vision.scoring.Scorer.outside` marks and clears again for
        each)."""
        masks = []
        for i, (positive, _) in enumerate(self.signs):
            mask = np.zeros(len(positive), bool)
            for c in top:
                mask[c.pixels[i]] = True
            masks.append(mask)
        return masks

    def _beyond(self, covered: list[NDArray[np.bool_]], piece: Piece) -> _Beyond:
        """A lower piece's positive evidence outside the top's pixels (``covered``)
        less its price, its negative evidence there, and its evidence's magnitude."""
        cand = self.scorer.candidate(piece)
        gain, loss = -cand.price, 0.0
        for i, (positive, negative) in enumerate(self.signs):
            idx = cand.pixels[i]
            px = idx[~covered[i][idx]]
            gain += float(positive[px].sum())
            loss += float(negative[px].sum())
        return gain, loss, self._magnitude(piece, cand)

    def _magnitude(self, piece: Piece, cand: Candidate) -> float:
        """The sum of the absolute evidence of a piece's pixels and leaves, over the
        views."""
        gain, loss = self.signed[id(piece)]
        return gain + cand.price - loss
