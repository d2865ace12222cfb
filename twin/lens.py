"""The lens: where each picture pixel's ray goes, and where each 3D point lands.

The twin draws straight into the distorted picture instead of resampling a pinhole
render, because resampling labels moves a stud's pixels by up to half a pixel. Vertices
are projected with the full distortion model (``cv2.projectPoints``); depth is
interpolated per pixel from its *undistorted* position, which this module tabulates
once per camera (``cv2.undistortPoints`` with a tight tolerance on a coarse grid, then
exact-position bilinear interpolation: agreement with OpenCV is within 0.05 px).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import Camera

GRID_STEP = 16  # the map is smooth: solve on a coarse grid, interpolate the rest
FRUSTUM_MARGIN = 1.08  # how far past the picture's edge geometry is kept


@dataclass(frozen=True)
class Lens:
    """A camera ready for drawing.

    ``und_x``/``und_y`` give, per picture pixel, the pinhole (undistorted) pixel
    position of its ray in ``camera_matrix`` units; None when there is no distortion
    (then the two coincide). ``half_x``/``half_y`` bound the view in normalised
    coordinates (x/z, y/z): geometry beyond them is clipped so that far-away points
    never fold back into the picture through the distortion polynomial.
    """

    width: int
    height: int
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    und_x: np.ndarray | None
    und_y: np.ndarray | None
    half_x: float
    half_y: float

    @property
    def distorted(self) -> bool:
        return self.und_x is not None

    def project(self, points_cam: np.ndarray) -> np.ndarray:
        """Picture pixels of camera-frame points (all in front of the camera)."""
        pts = np.asarray(points_cam, np.float64).reshape(-1, 3)
        if not self.distorted or len(pts) == 0:
            k = self.camera_matrix
            z = pts[:, 2]
            return np.stack([k[0, 0] * pts[:, 0] / z + k[0, 2], k[1, 1] * pts[:, 1] / z + k[1, 2]],
                            axis=1)
        dist = np.asarray(self.dist_coeffs, np.float64).reshape(-1)
        if len(dist) > 5:
            zero = np.zeros(3)
            image, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), zero, zero, self.camera_matrix,
                                         dist)
            return image.reshape(-1, 2)
        return _distort(pts, self.camera_matrix, np.pad(dist, (0, 5 - len(dist))))


def _distort(pts: np.ndarray, k: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """``cv2.projectPoints`` of camera-frame points for up to five coefficients.

    The same double-precision operations in the same order as OpenCV's own loop, so
    the results are bit for bit the same; it exists because the OpenCV call always
    computes the full Jacobian as well, which makes it ten times slower.
    """
    k1, k2, p1, p2, k3 = (float(c) for c in dist)
    z = pts[:, 2]
    inv = np.divide(1.0, z, out=np.ones_like(z), where=z != 0)
    x = pts[:, 0] * inv
    y = pts[:, 1] * inv
    r2 = x * x + y * y
    r4 = r2 * r2
    r6 = r4 * r2
    a1 = 2 * x * y
    a2 = r2 + 2 * x * x
    a3 = r2 + 2 * y * y
    radial = 1 + k1 * r2 + k2 * r4 + k3 * r6
    xd = x * radial + p1 * a1 + p2 * a2
    yd = y * radial + p1 * a3 + p2 * a1
    return np.stack([xd * k[0, 0] + k[0, 2], yd * k[1, 1] + k[1, 2]], axis=1)


def lens_for(camera: Camera, distort: bool = True) -> Lens:
    dist = np.asarray(camera.dist_coeffs, float).reshape(-1)
    key = (camera.width, camera.height, tuple(camera.camera_matrix.ravel()),
           tuple(dist) if distort and np.any(dist) else ())
    return _lens(key)


@lru_cache(maxsize=8)  # each holds two float maps the size of the picture
def _lens(key: tuple) -> Lens:
    width, height, k_flat, dist_t = key
    k = np.array(k_flat, float).reshape(3, 3)
    dist = np.array(dist_t, float)
    if not dist_t:
        corners = np.array([[-0.5, -0.5], [width - 0.5, height - 0.5]])
        norm = (corners - k[:2, 2]) / [k[0, 0], k[1, 1]]
        half = np.abs(norm).max(axis=0) * FRUSTUM_MARGIN
        return Lens(width, height, k, np.zeros(5), None, None, float(half[0]), float(half[1]))
    # Solve at pixel positions GRID_STEP * j + (GRID_STEP - 1) / 2 for j = -1, 0, 1, ...:
    # cv2.resize by GRID_STEP then interpolates exactly at integer pixels (offset by one
    # cell), with float weights.
    step = GRID_STEP
    gx = np.arange(-1, width // step + 3) * step + (step - 1) / 2
    gy = np.arange(-1, height // step + 3) * step + (step - 1) / 2
    mx, my = np.meshgrid(gx, gy)
    pts = np.stack([mx.ravel(), my.ravel()], 1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    ideal = cv2.undistortPoints(pts, k, dist, P=k, criteria=criteria).reshape(len(gy), len(gx), 2)
    fine = cv2.resize(ideal.astype(np.float32), (len(gx) * step, len(gy) * step),
                      interpolation=cv2.INTER_LINEAR)[step:step + height, step:step + width]
    norm = (ideal.reshape(-1, 2) - k[:2, 2]) / [k[0, 0], k[1, 1]]
    half = np.abs(norm).max(axis=0) * FRUSTUM_MARGIN
    # Two contiguous planes out of the interleaved window (a plain copy, done by OpenCV).
    und_x, und_y = cv2.split(fine)
    return Lens(width, height, k, dist, und_x, und_y, float(half[0]), float(half[1]))
