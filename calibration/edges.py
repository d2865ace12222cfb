"""Pose refinement by pulling projected model edges onto the image's edges.

A coarse pose from a downscaled image is a few pixels off. The board's long straight
edges and the corner bricks' outlines are where the image knows the board to a fraction
of a pixel, so each refinement round projects sample points along those model edges,
looks along each edge's normal for the strongest intensity step, and re-solves the pose
on the found points. Searching only along the normal makes every residual a distance
to the edge (points may slide along it freely), the classic model-based tracker.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, FloatArray, Pose, project


@dataclass(frozen=True)
class EdgeModel:
    """Model segments (board mm) and the group each belongs to (for reporting support)."""

    starts: FloatArray  # S x 3
    ends: FloatArray  # S x 3
    groups: NDArray[np.int32]  # S


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
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int32]]:
    """3-D sample points along the model edges, their projections, normals and groups.

    Samples are spaced evenly in the image, and the last 12% of each end is skipped
    because corners are where neighbouring edges pull the search off course.
    """
    a = project(camera, pose, model.starts)
    b = project(camera, pose, model.ends)
    lengths = np.linalg.norm(b - a, axis=1)
    pts3: list[FloatArray] = []
    dirs: list[FloatArray] = []
    groups: list[NDArray[np.int32]] = []
    for i in range(len(a)):
        n = int(lengths[i] * 0.76 / spacing_px)
        if n < 1:
            continue
        t = np.linspace(0.12, 0.88, n)[:, None]
        pts3.append(model.starts[i] * (1 - t) + model.ends[i] * t)
        dirs.append(np.repeat((model.ends[i] - model.starts[i])[None], n, 0))
        groups.append(np.full(n, model.groups[i], dtype=np.int32))
    if not pts3:
        empty = np.zeros((0, 3))
        return empty, np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int32)
    p3 = np.concatenate(pts3)
    g = np.concatenate(groups)
    # Normals from a tiny step along each sample's own segment, so distortion is respected.
    direction3 = np.concatenate(dirs)
    px = project(camera, pose, p3)
    px2 = project(camera, pose, p3 + 1e-2 * direction3)
    tangent = px2 - px
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    return p3, px, normal, g


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
            cv2.remap(gray, xs[i : i + chunk], ys[i : i + chunk], cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
            for i in range(0, max(len(xs), 1), chunk)
        ]
    )


def search_edges(
    gray: NDArray[np.float32], px: FloatArray, normal: FloatArray, radius: int, min_step: float
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
    ok = interior & (peak >= min_step) & (second < 0.85 * peak)
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
        p3, px, normal, groups = sample_edges(camera, current, model, spacing_px)
        inside = (
            (px[:, 0] > radius + 2)
            & (px[:, 0] < w - radius - 3)
            & (px[:, 1] > radius + 2)
            & (px[:, 1] < h - radius - 3)
        )
        p3, px, normal, groups = p3[inside], px[inside], normal[inside], groups[inside]
        n = len(p3)
        if n < 12:
            break
        offset, ok = search_edges(gray, px, normal, radius, min_step)
        if ok.sum() < 12:
            break
        # Robust trim: drop found offsets far from the bulk (occluders, clutter edges).
        med = np.median(offset[ok])
        mad = np.median(np.abs(offset[ok] - med)) + 0.3
        ok &= np.abs(offset - med) < max(3.0 * 1.4826 * mad, 1.0) + abs(med)
        found = px + normal * offset[:, None]
        obj = p3[ok].reshape(-1, 1, 3)
        img = found[ok].reshape(-1, 1, 2)
        rvec, tvec = cv2.solvePnPRefineLM(
            obj, img, camera.camera_matrix, camera.dist_coeffs,
            current.rvec.reshape(3, 1).copy(), current.tvec.reshape(3, 1).copy(),
        )
        current = Pose(rvec.reshape(3), tvec.reshape(3))
        reproj = project(camera, current, obj.reshape(-1, 3))
        err = np.abs(np.sum((reproj - img.reshape(-1, 2)) * normal[ok], axis=1))
        rms = float(np.sqrt(np.mean(err**2)))
        inliers = int(ok.sum())
    support = edge_support(gray, camera, current, model, spacing_px, min_step)
    return EdgeFit(current, rms, inliers, n, support)


def edge_support(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, model: EdgeModel, spacing_px: float,
    min_step: float,
) -> dict[int, float]:
    """Per group, the fraction of in-image samples with an intensity step within 1.5 px.

    Groups whose samples all fall outside the image are left out: not seen is not the
    same as seen and absent.
    """
    h, w = gray.shape
    p3, px, normal, groups = sample_edges(camera, pose, model, spacing_px)
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
