"""Pose refinement by pulling projected model edges onto the image's edges, and edge evidence.

A coarse pose from a downscaled image is many pixels off. The plate's rim is the one
long edge that stands between board and table, so each refinement round projects
sample points along it, looks along each edge's normal for the outermost strong
intensity step (inside the rim lie rows of studs with steps as strong), and re-solves
the pose on the found points. Searching only along the normal makes every residual a
distance to the edge (points may slide along it freely), the classic model-based
tracker. The same sampling tells how much of the rim and of each corner brick's outline
the image shows at a given pose, which is evidence for or against that pose.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, FloatArray, Pose, project
from rules.pieces import STUD_DIAMETER_MM, STUD_HEIGHT_MM, STUD_MM

MAX_EDGE_PX = 5000.0
BASEPLATE_THICKNESS_MM = 1.6
RIM_PROFILES = (
    (0.0, -BASEPLATE_THICKNESS_MM),
    (STUD_MM / 2 - STUD_DIAMETER_MM / 2, STUD_HEIGHT_MM),
)
"""Rims that may stand out beyond the card's edge: (mm inwards, mm up)."""


@dataclass(frozen=True)
class EdgeModel:
    """Model segments (board mm) and the group each belongs to (for reporting support)."""

    starts: FloatArray  # S x 3
    ends: FloatArray  # S x 3
    groups: NDArray[np.int32]  # S
    outermost: NDArray[np.bool_]  # S: take the outermost strong step, not the strongest

    def outward(self) -> FloatArray:
        """Unit vectors pointing out of each segment's polygon (polygons run CCW from above)."""
        d = self.ends - self.starts
        out = np.stack([d[:, 1], -d[:, 0], np.zeros(len(d))], axis=1)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@dataclass
class EdgeFit:
    """Refined pose with the evidence behind it."""

    pose: Pose
    rms_px: float
    inliers: int
    samples: int
    group_support: dict[int, float]  # group -> fraction of its samples that found an edge


def sample_edges(
    camera: Camera, pose: Pose, model: EdgeModel, spacing_px: float
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int32], NDArray[np.bool_]]:
    """3-D sample points along the model edges, projections, normals, segment, rim flag.

    Samples are spaced evenly in the image, and the last 12% of each end is skipped
    because corners are where neighbouring edges pull the search off course.
    """
    ends = project(camera, pose, np.concatenate([model.starts, model.ends]))
    a, b = ends[: len(model.starts)], ends[len(model.starts) :]
    lengths = np.linalg.norm(b - a, axis=1)
    # A wild pose can throw an edge across thousands of pixels: it has no edge to find.
    lengths = np.where(np.isfinite(lengths) & (lengths < MAX_EDGE_PX), lengths, 0.0)
    counts = (lengths * 0.76 / spacing_px).astype(np.int64)
    counts[counts < 1] = 0
    if counts.sum() == 0:
        empty = np.zeros((0, 3))
        return empty, np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int32), np.zeros(0, bool)
    # All segments at once: sample k of a segment with n samples sits at
    # 0.12 + 0.76 k / (n - 1) along it (0.12 when n is 1).
    g = np.repeat(np.arange(len(a), dtype=np.int32), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    k = np.arange(len(g)) - first
    n = counts[g]
    t = (0.12 + 0.76 * k / np.maximum(n - 1, 1))[:, None]
    p3 = model.starts[g] * (1 - t) + model.ends[g] * t
    direction3 = model.ends[g] - model.starts[g]
    out3 = model.outward()[g]
    outer = model.outermost[g]
    # One projection for the samples, a tiny step along each sample's own segment (its
    # normal then respects distortion) and half a millimetre outwards (to orient it).
    m = len(p3)
    both = project(camera, pose, np.concatenate([p3, p3 + 1e-2 * direction3, p3 + 0.5 * out3]))
    px, px2, px3 = both[:m], both[m : 2 * m], both[2 * m :]
    tangent = px2 - px
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    # Point every normal outwards so that "outermost" means away from the polygon.
    flip = np.sum((px3 - px) * normal, axis=1) < 0
    normal[flip] *= -1
    if outer.any():
        # The board's silhouette against the table is whichever of three rims lies
        # furthest out in the image: the plate's bottom edge (its side faces the camera
        # on the near side), the card's edge, or, seen from the far side, the rim row
        # of studs whose tops stand 1.7 mm up and only 1.6 mm in.
        sel = np.flatnonzero(outer)
        best = np.zeros(len(sel))
        for inset, dz in RIM_PROFILES:
            cand = p3[sel] - inset * out3[sel] + np.array([0.0, 0.0, dz])
            cand_px = project(camera, pose, cand)
            reach = np.sum((cand_px - px[sel]) * normal[sel], axis=1)
            better = reach > best
            p3[sel[better]] = cand[better]
            px[sel[better]] = cand_px[better]
            best = np.where(better, reach, best)
    return p3, px, normal, g, outer


def profiles(
    gray: NDArray[np.float32], px: FloatArray, normal: FloatArray, radius: int
) -> NDArray[np.float32]:
    """Grey levels along each normal at whole-pixel offsets -radius..radius (bilinear)."""
    offsets = np.arange(-radius, radius + 1, dtype=np.float32)
    xs = (px[:, 0:1] + normal[:, 0:1] * offsets).astype(np.float32)
    ys = (px[:, 1:2] + normal[:, 1:2] * offsets).astype(np.float32)
    chunk = 16000  # remap takes at most 32767 rows
    return np.concatenate(
        [
            cv2.remap(
                gray,
                xs[i : i + chunk],
                ys[i : i + chunk],
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
            for i in range(0, max(len(xs), 1), chunk)
        ]
    )


def search_edges(
    gray: NDArray[np.float32],
    px: FloatArray,
    normal: FloatArray,
    radius: int,
    min_step: float,
    outermost: NDArray[np.bool_] | None = None,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Sub-pixel offset along each normal to the strongest step, and whether it is trusted.

    A step is trusted when it is at least ``min_step`` grey levels and clearly stronger
    than the second-best one away from it (a doubled edge, like the plate's top and
    bottom rims, is skipped rather than guessed).
    """
    profile = profiles(gray, px, normal, radius)
    offsets = np.arange(-radius, radius + 1, dtype=np.float32)
    step = np.abs(profile[:, 2:] - profile[:, :-2]) / 2  # centred derivative at offsets[1:-1]
    best = np.argmax(step, axis=1)
    rows = np.arange(len(step))
    if outermost is not None and outermost.any():
        # The rim is the board's outermost edge: inside it lie rows of studs whose own
        # steps can be as strong, outside it only the table.
        strong = step >= 0.5 * step[rows, best][:, None]
        local = np.zeros_like(strong)
        local[:, 1:-1] = (step[:, 1:-1] >= step[:, :-2]) & (step[:, 1:-1] >= step[:, 2:])
        cand = strong & local
        last = step.shape[1] - 1 - np.argmax(cand[:, ::-1], axis=1)
        use = outermost & cand.any(axis=1)
        best = np.where(use, last, best)
    peak = step[rows, best]
    masked = step.copy()
    for d in (-2, -1, 0, 1, 2):
        idx = np.clip(best + d, 0, step.shape[1] - 1)
        masked[rows, idx] = 0
    second = masked.max(axis=1)
    left = step[rows, np.clip(best - 1, 0, step.shape[1] - 1)]
    right = step[rows, np.clip(best + 1, 0, step.shape[1] - 1)]
    denom = left - 2 * peak + right
    sub = np.where(np.abs(denom) > 1e-6, 0.5 * (left - right) / np.where(denom == 0, 1, denom), 0.0)
    sub = np.clip(sub, -0.5, 0.5)
    offset = offsets[1:-1][best] + sub
    interior = (best > 0) & (best < step.shape[1] - 1)
    ambiguous = second >= 0.85 * peak
    if outermost is not None:
        ambiguous &= ~outermost
    ok = interior & (peak >= min_step) & ~ambiguous
    return offset.astype(np.float64), ok


def refine_pose(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    model: EdgeModel,
    radii: tuple[int, ...] = (6, 4, 3, 2),
    spacing_px: float = 6.0,
    min_step: float = 4.0,
) -> EdgeFit:
    """Iteratively re-solve the pose on edge points found near the projected model."""
    h, w = gray.shape
    current = pose
    rms = float("inf")
    inliers = 0
    n = 0
    support: dict[int, float] = {}
    for radius in radii:
        p3, px, normal, segments, outer = sample_edges(camera, current, model, spacing_px)
        inside = (
            (px[:, 0] > radius + 2)
            & (px[:, 0] < w - radius - 3)
            & (px[:, 1] > radius + 2)
            & (px[:, 1] < h - radius - 3)
        )
        p3, px, normal, segments, outer = (
            p3[inside],
            px[inside],
            normal[inside],
            segments[inside],
            outer[inside],
        )
        n = len(p3)
        if n < 12:
            break
        offset, ok = search_edges(gray, px, normal, radius, min_step, outer)
        if ok.sum() < 12:
            break
        # Robust trim: drop found offsets far from the bulk (occluders, clutter edges).
        ok &= _straight_inliers(offset, ok, segments)
        if ok.sum() < 12:
            break
        found = px + normal * offset[:, None]
        obj = p3[ok].reshape(-1, 1, 3)
        img = found[ok].reshape(-1, 1, 2)
        rvec, tvec = cv2.solvePnPRefineLM(
            obj,
            img,
            camera.camera_matrix,
            camera.dist_coeffs,
            current.rvec.reshape(3, 1).copy(),
            current.tvec.reshape(3, 1).copy(),
        )
        current = Pose(rvec.reshape(3), tvec.reshape(3))
        reproj = project(camera, current, obj.reshape(-1, 3))
        err = np.abs(np.sum((reproj - img.reshape(-1, 2)) * normal[ok], axis=1))
        rms = float(np.sqrt(np.mean(err**2)))
        inliers = int(ok.sum())
    support = edge_support(gray, camera, current, model, spacing_px, min_step)
    return EdgeFit(current, rms, inliers, n, support)


def _straight_inliers(
    offset: FloatArray, ok: NDArray[np.bool_], segments: NDArray[np.int32], tol: float = 1.5
) -> NDArray[np.bool_]:
    """Samples whose offsets lie on a straight line along their own model edge.

    A pose error moves each projected edge by a shift and a slight turn, so the true
    offsets along one edge are linear in the position; a hand or a card lying over the
    rim breaks off a run of samples that this robust line fit leaves out.
    """
    keep = np.zeros(len(offset), bool)
    for seg in np.unique(segments[ok]):
        idx = np.flatnonzero((segments == seg) & ok)
        if len(idx) < 4:
            keep[idx] = True
            continue
        t = np.linspace(-1.0, 1.0, len(idx))
        y = offset[idx]
        inl = np.ones(len(idx), bool)
        for _ in range(3):
            if inl.sum() < 2:
                break
            slope, intercept = _line_fit(t[inl], y[inl])
            resid = np.abs(slope * t + intercept - y)
            scale = max(1.4826 * float(np.median(resid[inl])), 0.5)
            inl = resid < max(tol, 2.5 * scale) if _ < 2 else resid < tol
        keep[idx[inl]] = True
    return keep


def _line_fit(t: FloatArray, y: FloatArray) -> tuple[float, float]:
    """Least-squares slope and intercept of ``y`` over ``t`` (``np.polyfit`` of degree 1).

    Written out: a frame fits a few hundred such short lines, where polyfit's general
    solver costs ten times the arithmetic.
    """
    tm, ym = float(t.mean()), float(y.mean())
    dt = t - tm
    var = float(dt @ dt)
    slope = float(dt @ (y - ym)) / var if var > 0 else 0.0
    return slope, ym - slope * tm


def edge_support(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    model: EdgeModel,
    spacing_px: float,
    min_step: float,
) -> dict[int, float]:
    """Per group, the fraction of in-image samples with an intensity step within 1.5 px.

    Groups whose samples all fall outside the image are left out: not seen is not the
    same as seen and absent.
    """
    h, w = gray.shape
    _, px, normal, segments, _ = sample_edges(camera, pose, model, spacing_px)
    groups = model.groups[segments]
    inside = (px[:, 0] > 6) & (px[:, 0] < w - 7) & (px[:, 1] > 6) & (px[:, 1] < h - 7)
    px, normal, groups = px[inside], normal[inside], groups[inside]
    if len(px) == 0:
        return {}
    radius = 4
    profile = profiles(gray, px, normal, radius)
    step = np.abs(profile[:, 2:] - profile[:, :-2]) / 2
    near = step[:, radius - 2 : radius + 1].max(axis=1)  # offsets -1.5 .. +1.5 (centred)
    ok = near >= min_step
    return {int(g): float(ok[groups == g].mean()) for g in np.unique(groups)}
