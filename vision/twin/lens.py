"""Lens distortion by resampling an undistorted render.

Every pixel of the distorted picture looks up where its ray lands in a pinhole image
(``cv2.undistortPointsIter`` with a tight tolerance, so the result agrees with
``cv2.projectPoints`` to well under a hundredth of a pixel). The pinhole canvas is made
large enough to hold every such point, which for barrel distortion is larger than the
picture itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import Camera

GRID_STEP = 8  # the map is smooth: solve on a coarse grid, interpolate the rest


@dataclass(frozen=True)
class Canvas:
    """The pinhole image to render into and how the picture samples it."""

    width: int
    height: int
    camera_matrix: np.ndarray
    map_x: np.ndarray | None  # None: no distortion, canvas == picture
    map_y: np.ndarray | None


def canvas_for(camera: Camera, distort: bool = True) -> Canvas:
    dist = np.asarray(camera.dist_coeffs, float).reshape(-1)
    if not distort or not np.any(dist):
        return Canvas(camera.width, camera.height, camera.camera_matrix, None, None)
    key = (camera.width, camera.height, tuple(camera.camera_matrix.ravel()), tuple(dist))
    return _distorted_canvas(key)


@lru_cache(maxsize=32)
def _distorted_canvas(key: tuple) -> Canvas:
    width, height, k_flat, dist_t = key
    k = np.array(k_flat, float).reshape(3, 3)
    dist = np.array(dist_t, float)
    # Solve at pixel positions GRID_STEP * j + (GRID_STEP - 1) / 2 for j = -1, 0, 1, ...:
    # cv2.resize by GRID_STEP then interpolates exactly at integer pixels (offset by
    # one cell), with float weights.
    step = GRID_STEP
    gx = np.arange(-1, width // step + 3) * step + (step - 1) / 2
    gy = np.arange(-1, height // step + 3) * step + (step - 1) / 2
    mx, my = np.meshgrid(gx, gy)
    pts = np.stack([mx.ravel(), my.ravel()], 1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    ideal = cv2.undistortPoints(pts, k, dist, P=k, criteria=criteria).reshape(len(gy), len(gx), 2)
    lo = np.maximum(np.floor(ideal.reshape(-1, 2).min(0)) - 2, [-width * 0.6, -height * 0.6])
    hi = np.minimum(np.ceil(ideal.reshape(-1, 2).max(0)) + 2, [width * 1.6, height * 1.6])
    fine = cv2.resize(ideal.astype(np.float32), (len(gx) * step, len(gy) * step),
                      interpolation=cv2.INTER_LINEAR)[step:step + height, step:step + width]
    fine_x, fine_y = fine[:, :, 0], fine[:, :, 1]
    kc = k.copy()
    kc[0, 2] -= lo[0]
    kc[1, 2] -= lo[1]
    size = (hi - lo).astype(int) + 1
    return Canvas(int(size[0]), int(size[1]), kc,
                  np.ascontiguousarray(fine_x - np.float32(lo[0])),
                  np.ascontiguousarray(fine_y - np.float32(lo[1])))


def distort(canvas: Canvas, image: np.ndarray, nearest: bool = False) -> np.ndarray:
    """The picture the lens makes of a canvas image (labels: ``nearest=True``)."""
    if canvas.map_x is None:
        return image
    mode = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
    return cv2.remap(image, canvas.map_x, canvas.map_y, mode, borderMode=cv2.BORDER_REPLICATE)
