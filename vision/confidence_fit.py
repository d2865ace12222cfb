"""The fitted confidence: a logistic regression over what the hand-made rule measures.

:func:`vision.confidence.rate_pieces` weighs each piece against its rivals and caps the
result by a table of doubts, each chosen by hand on a few development sets. Those
measures (the margin over the best rival, each cap, the rival readings' gap, the
piece's kind and level, how much of its outline is seen and what evidence lies there,
whether the rules accept the reading) are here one row per piece, and a logistic
regression fitted on twin turns no bench or test reads (``python3 -m training
fit_confidence``) turns the row into the chance the piece is right. The file holds
standardised weights and the threshold chosen on the development sets; the confidence
is the chance shifted so that the threshold falls on
:data:`vision.reading.UNCERTAIN_BELOW`, so that "flagged" keeps its meaning for every
consumer.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from rules.pieces import Kind, Piece
from vision.decode import Decoder
from vision.reading import UNCERTAIN_BELOW, PieceReading

MODEL_FILE = Path(__file__).with_name("confidence_model.json")

PARTS = ("hand", "sure", "margin_share", "outline_cap", "ground_arch_cap", "rival_cap",
         "rival_gap", "legal", "shade", "column_cap", "end_doubt", "start_colour_cap")
"""What :func:`vision.confidence.rate_pieces` measures of each piece (0..1, but the
margin's share of the outline): the hand-made confidence and each of its parts."""
FEATURES = (*PARTS, "brick", "column", "arch", "decoration", "level", "pieces_read",
            "others_least", "others_flagged", "seen_share", "log_outline", "evidence_share")
"""A row's columns: :data:`PARTS`, then what the reading and the picture say of the
piece (:func:`feature_row`)."""
MARGIN_CLIP = (-2.0, 4.0)
"""The margin's share of the outline is clipped to this: a piece in full view wins by
about its outline (1), and beyond a few outlines more says nothing more."""


class ConfidenceModelError(RuntimeError):
    """The fitted confidence's file is missing or broken (the message is one line)."""


class ConfidenceModel(BaseModel):
    """The fitted model (``palace-confidence/1``): standardised logistic weights."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    format: Literal["palace-confidence/1"] = "palace-confidence/1"
    fitted_on: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    l2: float
    threshold: float
    """The chance of being right under which a piece is flagged."""

    @model_validator(mode="after")
    def _consistent(self) -> ConfidenceModel:
        if self.features != FEATURES:
            raise ValueError(f"features {list(self.features)} are not this reader's "
                             f"{list(FEATURES)}")
        if not len(self.mean) == len(self.scale) == len(self.weights) == len(FEATURES):
            raise ValueError("mean, scale and weights must hold one value a feature")
        if not all(s > 0 and math.isfinite(s) for s in self.scale):
            raise ValueError("every scale must be positive")
        if not all(math.isfinite(v) for v in (*self.mean, *self.weights, self.bias)):
            raise ValueError("weights, means and bias must be finite")
        if not 0.0 < self.threshold < 1.0:
            raise ValueError(f"threshold {self.threshold} is not between 0 and 1")
        return self

    def chance(self, rows: np.ndarray) -> np.ndarray:
        """The chance each row's piece is right."""
        z = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.weights) + self.bias)))

    def confidence(self, row: Sequence[float]) -> float:
        """A piece's confidence: its chance, shifted so that :attr:`threshold` falls on
        :data:`~vision.reading.UNCERTAIN_BELOW`. A row whose chance is not a number (a
        piece and its best rival both unexplained, -inf against -inf) is doubted: NaN
        would compare as trusted."""
        chance = float(self.chance(np.asarray([row], float))[0])
        if math.isnan(chance):
            return 0.0
        p = float(np.clip(chance, 1e-9, 1 - 1e-9))
        z = _logit(p) - _logit(self.threshold) + _logit(UNCERTAIN_BELOW)
        return 1.0 / (1.0 + math.exp(-z))

    def save(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=1) + "\n")


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


@functools.lru_cache(maxsize=4)
def fitted_model(path: Path = MODEL_FILE) -> ConfidenceModel:
    """The committed model, read and validated once."""
    try:
        return ConfidenceModel.model_validate_json(path.read_text())
    except OSError as exc:
        raise ConfidenceModelError(f"{path}: cannot be read ({exc.strerror}); make it with "
                                   "python3 -m training fit_confidence") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfidenceModelError(f"{path}: not a confidence model "
                                   f"({'.'.join(map(str, first['loc']))}: {first['msg']})"
                                   ) from None


def feature_row(decoder: Decoder, outline: Piece, parts: Mapping[str, float],
                others: Sequence[float]) -> list[float]:
    """One piece's row (:data:`FEATURES`): ``parts`` as rated, its kind and level, the
    reading's size, the least hand-made confidence of the reading's ``others`` and how
    many of them it flags (a misread piece drags its neighbours' margins down with it),
    the share of its outline the old palace leaves in view, its outline's size, and the
    evidence on its visible pixels against their number."""
    cand = decoder.scorer.candidate(outline)
    seen = float(sum(len(px) for px in cand.pixels))
    evidence = float(sum(ev.weight[px].sum() for ev, px in zip(decoder.evidence, cand.pixels,
                                                               strict=True)))
    size = max(decoder.view_area(outline), 1.0)
    row = [float(parts[name]) for name in PARTS]
    row[PARTS.index("margin_share")] = float(np.clip(row[PARTS.index("margin_share")],
                                                     *MARGIN_CLIP))
    kinds = [float(outline.kind is k) for k in (Kind.BRICK, Kind.COLUMN, Kind.ARCH,
                                                Kind.DECORATION)]
    return [*row, *kinds, float(outline.z), float(len(others) + 1), min(others, default=1.0),
            float(sum(c < UNCERTAIN_BELOW for c in others)), min(seen / size, 1.0),
            math.log(size), evidence / max(seen, 1.0)]


_RECORD: ContextVar[list[tuple[Piece, list[float]]] | None] = ContextVar(
    "confidence_rows", default=None)


@contextmanager
def recorded_rows() -> Iterator[list[tuple[Piece, list[float]]]]:
    """Collects each rated piece (as read, its id cleared) with its row, for the fit."""
    rows: list[tuple[Piece, list[float]]] = []
    token = _RECORD.set(rows)
    try:
        yield rows
    finally:
        _RECORD.reset(token)


def record(piece: Piece, row: list[float]) -> bool:
    """Keeps ``row`` where :func:`recorded_rows` asks for them; whether it did. Rows
    for a fit are read without the fitted model (the hand-made confidence is kept), so
    that a missing or broken file can be made again."""
    rows = _RECORD.get()
    if rows is not None:
        rows.append((piece, row))
    return rows is not None


def rated_by_fit(decoder: Decoder, shape: Sequence[Piece], rated: Sequence[PieceReading],
                 parts: Sequence[Mapping[str, float]], fitted: bool
                 ) -> tuple[PieceReading, ...]:
    """The pieces (``shape``: as the decoder scores them) with the fitted confidence in
    place of the hand-made one where ``fitted``, their alternatives as rated; each row
    is kept where :func:`recorded_rows` asks."""
    hands = [r.confidence for r in rated]
    out = []
    for i, (outline, reading, part) in enumerate(zip(shape, rated, parts, strict=True)):
        row = feature_row(decoder, outline, {**part, "hand": reading.confidence},
                          hands[:i] + hands[i + 1:])
        if not record(reading.piece, row) and fitted:
            reading = replace(reading, confidence=round(fitted_model().confidence(row), 4))
        out.append(reading)
    return tuple(out)
