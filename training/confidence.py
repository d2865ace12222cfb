"""The fitted confidence's recipe: each read piece's row, right or wrong, and the fit.

Twin turns (the bench's look: :func:`training.pairs.twin_turns`) are read as the camera
loop reads them, the true pose given; every piece read is a row of
:mod:`vision.confidence_fit` labelled right when the truth holds a piece in its place. A
logistic regression with an L2 penalty on standardised rows is fitted by Newton's method
(a few hundred rows of twenty columns: exact in a dozen steps). The threshold, the chance
of being right under which a piece is flagged, is the fit's one choice beside the
penalty; both were chosen on the development sets (docs/vision-log.md, "A fitted
confidence (issue #12)").

Seeds: the fit takes 60000 to 69999; the development sets are 6000-16000 and 21000, the
bench's 5000-5999, the tests' 100-199, the fresh check's games 70000 onwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.pieces import ANIMAL_KINDS, place_key
from training.pairs import TurnPair, webcam_views
from vision import read_turn
from vision.confidence_fit import FEATURES, ConfidenceModel, recorded_rows

FIT_SEED = 60000
"""First seed the fitted confidence may fit on."""


def rows_of(turns: Iterable[TurnPair]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Each piece read on ``turns`` as a row, and whether it is right. A turn seen by a
    second webcam too (``TurnPair.second``) is read twice, from its first view alone and
    from both, as a table with one webcam and a table with two would read it."""
    rows: list[list[float]] = []
    right: list[bool] = []
    for turn in turns:
        truth = {place_key(p) for p in turn.added if p.kind not in ANIMAL_KINDS}
        for views in webcam_views(turn):
            with recorded_rows() as rated:
                reading = read_turn(views.frames, turn.camera, turn.before,
                                    before_frame=views.befores, locations=views.locations,
                                    hand=turn.hand)
            for r in reading.added:
                # The last rating of the piece is the one the turn kept.
                row = next(row for piece, row in reversed(rated) if piece == r.piece)
                rows.append(row)
                right.append(place_key(r.piece) in truth)
    return np.asarray(rows, float).reshape(-1, len(FEATURES)), np.asarray(right, bool)


MAX_STEPS = 50
CONVERGED_STEP = 1e-8
"""The largest change of any standardised weight at which the fit has converged."""


@dataclass(frozen=True)
class Fitted:
    """A fitted model and how its Newton steps ended: a step still large after
    :data:`MAX_STEPS` means the rows leave some weight unbounded (a feature that
    separates right from wrong outright, under too small a penalty)."""

    model: ConfidenceModel
    steps: int
    last_step: float

    @property
    def converged(self) -> bool:
        return self.last_step < CONVERGED_STEP


def fit(rows: NDArray[np.float64], right: NDArray[np.bool_], l2: float, threshold: float,
        fitted_on: str) -> Fitted:
    """The logistic regression of ``right`` on standardised ``rows``, penalised by
    ``l2`` times the squared weights (the bias free)."""
    mean = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(rows - mean) / scale, np.ones((len(rows), 1))])
    y = right.astype(float)
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    steps, last = 0, float("inf")
    while steps < MAX_STEPS and last >= CONVERGED_STEP:
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        steps, last = steps + 1, float(np.abs(step).max())
    model = ConfidenceModel(fitted_on=fitted_on, features=FEATURES, mean=tuple(mean),
                            scale=tuple(scale), weights=tuple(w[:-1]), bias=float(w[-1]),
                            l2=l2, threshold=threshold)
    return Fitted(model, steps, last)
