"""Refinement on the stud grid: a thousand small bright discs at known places.

The plate's edges pin the pose well only while all four are in view; a board cropped
by the image border or half hidden by a hand leaves the far side free to swing by
several pixels. The studs fill the whole plate, so every visible part of the board
constrains the pose. Each stud top is a bright disc ringed by the darker hole in the
card, which a difference-of-Gaussians filter turns into a peak at the disc's centre.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, FloatArray, Pose, project
from rules.pieces import STUD_DIAMETER_MM, STUD_MM

STUDS = stud_centres()
MIN_STUDS = 40


@dataclass
class StudFit:
    """Pose fitted on the stud grid, how many studs matched and their RMS residual (px)."""

    pose: Pose
    matched: int
    rms_px: float
    visible: int


def _stud_scale(camera: Camera, pose: Pose, px: FloatArray) -> float:
    """Median projected stud pitch (px) over the board: sets the filter and search sizes."""
    right = project(camera, pose, STUDS + np.array([STUD_MM, 0, 0]))
    up = project(camera, pose, STUDS + np.array([0, STUD_MM, 0]))
    pitch = np.minimum(np.linalg.norm(right - px, axis=1), np.linalg.norm(up - px, axis=1))
    return float(np.median(pitch))


def refine_on_studs(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, rounds: int = 2
) -> StudFit | None:
    """The pose re-solved on detected stud centres near their projections, or None."""
    h, w = gray.shape
    current = pose
    fit: StudFit | None = None
    response: NDArray[np.float32] | None = None
    origin = (0, 0)
    for _ in range(rounds):
        px = project(camera, current, STUDS)
        inside = (px[:, 0] > 8) & (px[:, 0] < w - 9) & (px[:, 1] > 8) & (px[:, 1] < h - 9)
        if inside.sum() < MIN_STUDS:
            return None
        pitch = _stud_scale(camera, current, px)
        if pitch < 4.0:
            return None  # studs under four pixels apart are not resolved
        radius_px = pitch * STUD_DIAMETER_MM / 2 / STUD_MM
        if response is None:
            response, origin = _dog(gray, px[inside], radius_px)
        found, strength = _peaks(response, px[inside] - origin, max(2, round(pitch * 0.3)))
        found += origin
        # Keep studs whose peak is clearly positive (a stud, not a hand or a brick face).
        good = strength > max(1.0, 0.35 * float(np.median(strength)))
        idx = np.flatnonzero(inside)[good]
        if len(idx) < MIN_STUDS:
            return None
        obj = STUDS[idx].reshape(-1, 1, 3)
        img = found[good].reshape(-1, 1, 2)
        # Two passes: the second without the worst matches (studs under overhangs, pieces).
        for keep in (None, 0):
            rvec, tvec = cv2.solvePnPRefineLM(
                obj, img, camera.camera_matrix, camera.dist_coeffs,
                current.rvec.reshape(3, 1).copy(), current.tvec.reshape(3, 1).copy(),
            )
            current = Pose(rvec.reshape(3), tvec.reshape(3))
            err = np.linalg.norm(project(camera, current, obj.reshape(-1, 3)) - img.reshape(-1, 2), axis=1)
            if keep is None:
                limit = max(3.0 * float(np.median(err)), 0.6)
                sel = err < limit
                if sel.sum() < MIN_STUDS:
                    break
                obj, img = obj[sel], img[sel]
        fit = StudFit(current, len(obj), float(np.sqrt(np.mean(err**2))), int(inside.sum()))
    return fit


def _dog(
    gray: NDArray[np.float32], px: FloatArray, radius_px: float
) -> tuple[NDArray[np.float32], tuple[float, float]]:
    """Difference of Gaussians tuned to the stud top, over the board's bounding box."""
    h, w = gray.shape
    pad = int(3 * radius_px) + 4
    x0 = max(int(px[:, 0].min()) - pad, 0)
    y0 = max(int(px[:, 1].min()) - pad, 0)
    x1 = min(int(px[:, 0].max()) + pad, w)
    y1 = min(int(px[:, 1].max()) + pad, h)
    roi = gray[y0:y1, x0:x1]
    sigma = max(0.8, 0.55 * radius_px)
    narrow = cv2.GaussianBlur(roi, (0, 0), sigma)
    wide = cv2.GaussianBlur(roi, (0, 0), 1.8 * sigma)
    return np.abs(narrow - wide), (float(x0), float(y0))


def _peaks(
    response: NDArray[np.float32], px: FloatArray, reach: int
) -> tuple[FloatArray, NDArray[np.float32]]:
    """The strongest response within ``reach`` px of each point, to a tenth of a pixel."""
    offsets = np.arange(-reach, reach + 1, dtype=np.float32)
    oy, ox = np.meshgrid(offsets, offsets, indexing="ij")
    ox, oy = ox.ravel(), oy.ravel()
    base = np.round(px).astype(np.float32)
    xs = base[:, 0:1] + ox[None]
    ys = base[:, 1:2] + oy[None]
    vals = cv2.remap(response, xs, ys, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    best = np.argmax(vals, axis=1)
    rows = np.arange(len(px))
    peak = base + np.stack([ox[best], oy[best]], axis=1)
    # Quadratic fit through the 3x3 neighbourhood for the sub-pixel position.
    c = response
    hgt, wid = c.shape
    xi = np.clip(peak[:, 0].astype(int), 1, wid - 2)
    yi = np.clip(peak[:, 1].astype(int), 1, hgt - 2)
    v0 = c[yi, xi]
    dx = (c[yi, xi + 1] - c[yi, xi - 1]) / 2
    dy = (c[yi + 1, xi] - c[yi - 1, xi]) / 2
    dxx = c[yi, xi + 1] - 2 * v0 + c[yi, xi - 1]
    dyy = c[yi + 1, xi] - 2 * v0 + c[yi - 1, xi]
    sx = np.where(dxx < -1e-6, -dx / np.where(dxx < -1e-6, dxx, -1), 0)
    sy = np.where(dyy < -1e-6, -dy / np.where(dyy < -1e-6, dyy, -1), 0)
    sub = np.stack([np.clip(sx, -0.5, 0.5), np.clip(sy, -0.5, 0.5)], axis=1)
    strength = vals[rows, best]
    return (np.stack([xi, yi], axis=1) + sub).astype(np.float64), strength
