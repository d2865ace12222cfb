"""Pixel scores of the new-piece network against the classical change evidence.

Both are read at 0.5 on the same held-out region pairs, against the pixels that pieces
added this turn cover at least half of; the counts are pooled over every pair, so a big
turn weighs more than a small one, as it does for the decoder. The model's chance is also
scored at every threshold at once (the area under its ROC curve, pooled), which tells
how well it ranks pieces above the rest whatever cut a reader makes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from training.dataset import RegionPair, load
from vision.change import change_evidence
from vision.new_pieces import MODEL, new_piece_maps
from vision.surface import wants_geometry

THRESHOLD = 0.5


@dataclass
class PixelScore:
    """Pooled pixel counts of one kind of evidence."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, evidence: NDArray[np.float32], truth: NDArray[np.bool_]) -> None:
        hot = evidence > THRESHOLD
        self.tp += int(np.count_nonzero(hot & truth))
        self.fp += int(np.count_nonzero(hot & ~truth))
        self.fn += int(np.count_nonzero(~hot & truth))

    @property
    def precision(self) -> float:
        return self.tp / max(self.tp + self.fp, 1)

    @property
    def recall(self) -> float:
        return self.tp / max(self.tp + self.fn, 1)

    @property
    def f1(self) -> float:
        return 2 * self.tp / max(2 * self.tp + self.fp + self.fn, 1)

    @property
    def iou(self) -> float:
        return self.tp / max(self.tp + self.fp + self.fn, 1)

    def line(self, name: str) -> str:
        return (f"{name:<22} precision {self.precision:.3f}  recall {self.recall:.3f}  "
                f"F1 {self.f1:.3f}  IoU {self.iou:.3f}")


def roc_area(chance: NDArray[np.float32], truth: NDArray[np.bool_]) -> float:
    """The area under the ROC curve of ``chance`` against ``truth`` (the chance that a
    pixel of a piece scores above one that is not, ties counting half); NaN when either
    class is empty."""
    positives = int(np.count_nonzero(truth))
    negatives = truth.size - positives
    if not positives or not negatives:
        return float("nan")
    order = np.argsort(chance, kind="stable")
    ranked = chance[order]
    ranks = np.empty(len(ranked), dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    ends = np.r_[starts[1:], len(ranked)]
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return float((ranks[truth].sum() - positives * (positives + 1) / 2) / positives / negatives)


def score_pairs(pairs: list[RegionPair], model: str = MODEL
                ) -> tuple[dict[str, PixelScore], list[float], list[float],
                           NDArray[np.float32] | None, float]:
    """Scores of the model and the classical evidence, the seconds each pair took each of
    them, the height map's error (levels) on every pixel that new pieces cover at least
    half of and that has a label, pooled (None when the model has no height map or the
    pairs no labels), and the area under the model chance's ROC curve, pooled. A model
    that takes the view's geometry is fed the channels the pairs carry."""
    scores = {"model": PixelScore(), "classical": PixelScore()}
    model_s: list[float] = []
    classical_s: list[float] = []
    errors: list[NDArray[np.float32]] = []
    chances: list[NDArray[np.float32]] = []
    truths: list[NDArray[np.bool_]] = []
    two_maps = True
    geometry = wants_geometry(model)
    for pair in pairs:
        if geometry and pair.geometry is None:
            raise ValueError(f"{model}: the model takes the view's geometry and the pairs "
                             "carry none (make them with create_full_dataset)")
        before = pair.before.astype(np.float32)
        after = pair.after.astype(np.float32)
        truth = pair.mask >= 0.5
        t = time.perf_counter()
        learned, height = new_piece_maps(after, before, model=model,
                                         extra=pair.geometry if geometry else None)
        model_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        classical = change_evidence(after, before)
        classical_s.append(time.perf_counter() - t)
        scores["model"].add(learned, truth)
        scores["classical"].add(classical, truth)
        chances.append(learned.ravel())
        truths.append(truth.ravel())
        two_maps = two_maps and height is not None
        if height is not None and pair.height is not None:
            known = truth & np.isfinite(pair.height)
            errors.append(np.abs(height[known] - pair.height[known]))
    heights = np.concatenate(errors) if two_maps and errors else None
    area = roc_area(np.concatenate(chances), np.concatenate(truths)) if pairs else float("nan")
    return scores, model_s, classical_s, heights, area


def evaluate(data: Path, model: str = MODEL) -> str:
    """The report for the pairs under ``data`` (one line per kind of evidence)."""
    pairs = [load(p) for p in sorted(data.glob("pair_*.npz"))]
    if not pairs:
        raise ValueError(f"{data}: no pair_*.npz files")
    scores, model_s, classical_s, errors, area = score_pairs(pairs, model)
    lines = [f"{data}: {len(pairs)} pairs, mean region "
             f"{np.mean([p.mask.shape[0] for p in pairs]):.0f}x"
             f"{np.mean([p.mask.shape[1] for p in pairs]):.0f}"]
    lines += [s.line(name) for name, s in scores.items()]
    lines.append(f"model chance: area under the ROC curve {area:.4f}")
    if errors is not None and len(errors):
        lines.append(f"height (levels) on new pixels: mean error {errors.mean():.3f}, median "
                     f"{np.median(errors):.3f}, within 0.5 {np.mean(errors <= 0.5):.3f}, "
                     f"within 1 {np.mean(errors <= 1.0):.3f}")
    lines.append(f"seconds per region (median): model {np.median(model_s):.4f}, "
                 f"classical {np.median(classical_s):.4f} (ratio "
                 f"{np.median(model_s) / max(np.median(classical_s), 1e-9):.2f})")
    return "\n".join(lines)
