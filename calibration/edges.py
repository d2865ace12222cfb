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
from functools import cached_property

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
    """Model segments (board mm) and the group each belongs to (for reporting support).

    Vectors derived from the segments are cached on first use: every refinement round
    and every support check samples the same few segments again.
    """

    starts: FloatArray  # S x 3
    ends: FloatArray  # S x 3
    groups: NDArray[np.int32]  # S, non-negative
    outermost: NDArray[np.bool_]  # S: take the outermost strong step, not the strongest

    @cached_property
    def endpoints(self) -> FloatArray:
        """Starts, then ends (2S x 3), so that one projection places every segment."""
        return np.concatenate([self.starts, self.ends])

    @cached_property
    def directions(self) -> FloatArray:
        return self.ends - self.starts

    @cached_property
    def outward(self) -> FloatArray:
        """Unit vectors pointing out of each segment's polygon (polygons run CCW from above)."""
        d = self.directions
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
    n_segments = len(model.starts)
    ends = project(camera, pose, model.endpoints)
    lengths = np.linalg.norm(ends[n_segments:] - ends[:n_segments], axis=1)
    # A wild pose can throw an edge across thousands of pixels: it has no edge to find.
    lengths = np.where(np.isfinite(lengths) & (lengths < MAX_EDGE_PX), lengths, 0.0)
    counts = (lengths * 0.76 / spacing_px).astype(np.int64)
    if counts.sum() == 0:
        empty = np.zeros((0, 3))
        return empty, np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int32), np.zeros(0, bool)
    # All segments at once: sample k of a segment with n samples sits at
    # 0.12 + 0.76 k / (n - 1) along it (0.12 when n is 1).
    g = np.repeat(np.arange(n_segments, dtype=np.int32), counts)
    k = np.arange(len(g)) - np.repeat(np.cumsum(counts) - counts, counts)
    t = (0.12 + 0.76 * k / np.repeat(np.maximum(counts - 1, 1), counts))[:, None]
    p3 = model.starts[g] * (1 - t) + model.ends[g] * t
    out3 = model.outward[g]
    outer = model.outermost[g]
    sel = np.flatnonzero(outer)
    rims = _rim_candidates(p3[sel], out3[sel])
    # One projection for the samples, a tiny step along each sample's own segment (its
    # normal then respects distortion), half a millimetre outwards (to orient it) and
    # the rims that may stand out beyond it: each call has a fixed cost far above its
    # cost per point.
    m = len(p3)
    both = project(
        camera, pose, np.concatenate([p3, p3 + 1e-2 * model.directions[g], p3 + 0.5 * out3, *rims])
    )
    px, px2, px3 = both[:m], both[m : 2 * m], both[2 * m : 3 * m]
    tangent = px2 - px
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    # Point every normal outwards so that "outermost" means away from the polygon.
    flip = np.sum((px3 - px) * normal, axis=1) < 0
    normal[flip] *= -1
    if len(sel):
        rims_px = both[3 * m :].reshape(len(rims), len(sel), 2)
        p3[sel], px[sel] = _outermost_rim(p3[sel], px[sel], normal[sel], rims, rims_px)
    return p3, px, normal, g, outer


def _rim_candidates(p3: FloatArray, out3: FloatArray) -> list[FloatArray]:
    """The rims of ``RIM_PROFILES`` at each sample, as :func:`_outermost_rim` takes them.

    They are the first rim, the second from the sample and the second from the first:
    the second rim is placed from wherever the first left the sample, and both places
    are made up front so that all go through the samples' one projection.
    """
    (inset_a, dz_a), (inset_b, dz_b) = RIM_PROFILES
    first = p3 - inset_a * out3 + np.array([0.0, 0.0, dz_a])
    second = [q - inset_b * out3 + np.array([0.0, 0.0, dz_b]) for q in (p3, first)]
    return [first, *second]


def _outermost_rim(
    p3: FloatArray,
    px: FloatArray,
    normal: FloatArray,
    rims: list[FloatArray],
    rims_px: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Each rim sample moved to whichever rim lies furthest out in the image.

    The board's silhouette against the table is one of three rims: the plate's bottom
    edge (its side faces the camera on the near side), the card's edge, or, seen from
    the far side, the rim row of studs whose tops stand 1.7 mm up and only 1.6 mm in.
    The rims are weighed in turn, each against the best so far, the second measured
    from where the first left the sample.
    """
    first, second_from_sample, second_from_first = rims
    first_px, second_from_sample_px, second_from_first_px = rims_px
    reach = np.sum((first_px - px) * normal, axis=1)
    took = reach > 0
    best = np.where(took, reach, 0.0)
    p3 = np.where(took[:, None], first, p3)
    px = np.where(took[:, None], first_px, px)
    second = np.where(took[:, None], second_from_first, second_from_sample)
    second_px = np.where(took[:, None], second_from_first_px, second_from_sample_px)
    better = (np.sum((second_px - px) * normal, axis=1) > best)[:, None]
    return np.where(better, second, p3), np.where(better, second_px, px)


def profiles(
    gray: NDArray[np.float32], px: FloatArray, normal: FloatArray, radius: int
) -> NDArray[np.float32]:
    """Grey levels along each normal at whole-pixel offsets -radius..radius (bilinear)."""
    offsets = np.arange(-radius, radius + 1, dtype=np.float32)[:, None]
    xy = (px[:, None, :] + normal[:, None, :] * offsets).astype(np.float32)
    chunk = 16000  # remap takes at most 32767 rows
    return np.concatenate(
        [
            cv2.remap(
                gray, xy[i : i + chunk], None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
            for i in range(0, max(len(xy), 1), chunk)
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
    near = np.abs(np.arange(step.shape[1]) - best[:, None]) <= 2
    second = np.where(near, 0, step).max(axis=1)
    left = step[rows, np.maximum(best - 1, 0)]
    right = step[rows, np.minimum(best + 1, step.shape[1] - 1)]
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
    n = 0
    fitted: tuple[FloatArray, FloatArray, FloatArray] | None = None  # the last round's points
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
        fitted = obj.reshape(-1, 3), img.reshape(-1, 2), normal[ok]
    rms, inliers = float("inf"), 0
    if fitted is not None:
        # Only the last round's residuals are reported, so only they are projected.
        obj, img, normals = fitted
        err = np.abs(np.sum((project(camera, current, obj) - img) * normals, axis=1))
        rms, inliers = float(np.sqrt(np.mean(err**2))), len(obj)
    support = edge_support(gray, camera, current, model, spacing_px, min_step)
    return EdgeFit(current, rms, inliers, n, support)


def _straight_inliers(
    offset: FloatArray, ok: NDArray[np.bool_], segments: NDArray[np.int32], tol: float = 1.5
) -> NDArray[np.bool_]:
    """Samples whose offsets lie on a straight line along their own model edge.

    A pose error moves each projected edge by a shift and a slight turn, so the true
    offsets along one edge are linear in the position; a hand or a card lying over the
    rim breaks off a run of samples that this robust line fit leaves out. An edge with
    fewer than four found samples is kept whole. Three rounds of least squares, each on
    the previous round's inliers (an edge left with fewer than two stops where it is),
    with a tolerance widened to 2.5 robust sigmas in the first two.

    All edges are fitted at once, every per-edge sum and median taken over runs of one
    array: edge by edge, the fixed cost of numpy's calls outweighed the arithmetic.
    """
    keep = ok.copy()
    idx = np.flatnonzero(ok)
    idx = idx[np.argsort(segments[idx], kind="stable")]
    seg = segments[idx]
    first = np.flatnonzero(np.diff(seg, prepend=-1))  # where each edge's run starts
    count = np.diff(first, append=len(seg))
    fit = count >= 4
    if not fit.any():
        return keep
    # The found samples of the edges to fit, in runs of one edge each (in order along it).
    first, count = first[fit], count[fit]
    edges = len(count)
    run = np.repeat(np.arange(edges), count)
    run_start = np.cumsum(count) - count
    pos = np.arange(len(run)) - run_start[run]
    idx = idx[first[run] + pos]
    # Each edge's position runs over [-1, 1] exactly as np.linspace makes it.
    t = pos * (2.0 / (count - 1))[run] - 1.0
    t[run_start + count - 1] = 1.0
    y = offset[idx]
    inl = np.ones(len(idx), bool)
    live = np.ones(edges, bool)
    for round_ in range(3):
        n_in = np.bincount(run, weights=inl, minlength=edges).astype(np.int64)
        live &= n_in >= 2
        if not live.any():
            break
        tm = np.bincount(run, weights=t * inl, minlength=edges) / np.maximum(n_in, 1)
        ym = np.bincount(run, weights=y * inl, minlength=edges) / np.maximum(n_in, 1)
        dt = (t - tm[run]) * inl
        var = np.bincount(run, weights=dt * dt, minlength=edges)
        cov = np.bincount(run, weights=dt * (y - ym[run]), minlength=edges)
        slope = np.divide(cov, var, out=np.zeros(edges), where=var > 0)
        intercept = ym - slope * tm
        resid = np.abs(slope[run] * t + intercept[run] - y)
        if round_ < 2:
            # Per-edge median of the inliers' residuals: sorted within each run (the
            # others last), the middle one or the mean of the middle two.
            ranked = np.where(inl, resid, np.inf)
            ranked = ranked[np.lexsort((ranked, run))]
            lo, hi = run_start + (n_in - 1) // 2, run_start + n_in // 2
            scale = np.maximum(1.4826 * ((ranked[lo] + ranked[hi]) / 2), 0.5)
            within = resid < np.maximum(tol, 2.5 * scale)[run]
        else:
            within = resid < tol
        inl = np.where(live[run], within, inl)
    keep[idx] = inl
    return keep


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
    seen = np.bincount(groups)
    found = np.bincount(groups, weights=ok)
    return {int(g): float(found[g] / seen[g]) for g in np.flatnonzero(seen)}
