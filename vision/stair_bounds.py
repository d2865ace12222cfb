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

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Piece
from vision.scoring import Candidate, Scorer

SLACK = 1e-4
"""Share of the evidence's magnitude (the sum of its pixels' absolute values) by which
the closer bound is raised: the scores are float32 sums, each off by far less than a
millionth of that magnitude, and the bound must stay above the score as summed."""


Signs = list[tuple[NDArray[np.float32], NDArray[np.float32]]]
"""Each view's weights' positive and negative parts."""


class Beyond:
    """Closer bounds on proposals, each top's pieces' pixels marked once and each lower
    piece's evidence beyond them summed once per top."""

    def __init__(self, scorer: Scorer, signs: Signs,
                 signed: dict[int, tuple[float, float]]) -> None:
        """``signed``: each piece's positive evidence less its price, and its negative
        evidence, by the piece's id (all the pieces asked about)."""
        self.scorer = scorer
        self.signs = signs
        self.signed = signed
        self._tops: dict[int, tuple[list[Candidate], float,
                                    dict[int, tuple[float, float, float]]]] = {}

    def bound(self, top: Sequence[Piece], way: Sequence[Piece], head: float) -> float:
        """The most the proposal ``way`` + ``top`` can score, given ``head`` (the top's own
        score, with whatever the caller adds to every score): the top's score, each lower
        piece's positive evidence outside the top's pixels less its price (leaves'
        evidence is never negative, and a lower piece covering a leaf only takes it
        away), and the most negative lower piece's negative evidence there (the pixels
        the lower pieces add hold each one's); raised by :data:`SLACK` of the evidence's
        magnitude."""
        hit = self._tops.get(id(top))
        if hit is None:
            cands = [self.scorer.candidate(p) for p in top]
            size = sum(self._magnitude(p, c) for p, c in zip(top, cands, strict=True))
            hit = self._tops[id(top)] = (cands, size, {})
        cands, size, known = hit
        total, worst = head, 0.0
        for piece in way:
            got = known.get(id(piece))
            if got is None:
                got = known[id(piece)] = self._beyond(cands, piece)
            total += got[0]
            worst = min(worst, got[1])
            size += got[2]
        return total + worst + SLACK * size

    def _beyond(self, top: list[Candidate], piece: Piece) -> tuple[float, float, float]:
        """A lower piece's positive evidence outside the top's pixels less its price, its
        negative evidence there, and its evidence's magnitude."""
        scorer = self.scorer
        cand = scorer.candidate(piece)
        gain, loss = -cand.price, 0.0
        for i, (positive, negative) in enumerate(self.signs):
            px = scorer.outside(cand.pixels[i], [c.pixels[i] for c in top])
            gain += float(positive[px].sum())
            loss += float(negative[px].sum())
        return gain, loss, self._magnitude(piece, cand)

    def _magnitude(self, piece: Piece, cand: Candidate) -> float:
        """The sum of the absolute evidence of a piece's pixels and leaves, over the
        views."""
        gain, loss = self.signed[id(piece)]
        return gain + cand.price - loss
