"""The camera model in OpenCV's conventions, shared by the twin and by calibration.

The board frame: origin at the top surface of the baseplate at the outer corner of stud
(0, 0); x and y run along the stud rows, z points up, units are millimetres. A
:class:`Pose` maps board coordinates into the camera frame (``X_cam = R X_board + t``),
exactly what ``cv2.solvePnP`` returns and ``cv2.projectPoints`` takes, so a pose found
by calibration can be handed to the renderer and back without conversion.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.formats import CameraModel, PoseModel
from rules.formats import read_json, validate, write_json

FloatArray = NDArray[np.float64]


class CameraFileError(ValueError):
    """A camera file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, eq=False)
class Camera:
    """Intrinsics: image size, camera matrix and distortion ``[k1, k2, p1, p2, k3]``."""

    width: int
    height: int
    camera_matrix: FloatArray
    dist_coeffs: FloatArray
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys of the camera file this model does not know, kept for the round trip."""

    @classmethod
    def default_for(cls, width: int, height: int, hfov_deg: float = 60.0) -> Camera:
        """A distortion-free guess for an uncalibrated webcam of this image size.

        Most webcams have a horizontal field of view between 55 and 78 degrees; 60
        is a middle guess that calibration from board views then refines.
        """
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)
        return cls(width, height, k, np.zeros(5))

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    @functools.cached_property
    def _projection(self) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """``(fx, skew, cx, fy, cy)`` and ``(k1, k2, p1, p2, k3)`` as plain numbers, or None
        for a lens model beyond five coefficients. Read once: :func:`project` runs dozens
        of times a frame, mostly on a few hundred points, where reading them each time
        costs as much as the arithmetic."""
        dist = self.dist_coeffs.reshape(-1)
        if len(dist) > 5 and np.any(dist[5:]):
            return None
        k = self.camera_matrix
        lens = np.concatenate([dist, np.zeros(5)])[:5]
        intrinsics = (k[0, 0], k[0, 1], k[0, 2], k[1, 1], k[1, 2])
        return tuple(float(v) for v in intrinsics), tuple(float(v) for v in lens)

    def with_focal(self, f: float) -> Camera:
        k = self.camera_matrix.copy()
        k[0, 0] = k[1, 1] = f
        return Camera(self.width, self.height, k, self.dist_coeffs.copy())

    def cropped(self, x0: float, y0: float, width: int, height: int) -> Camera:
        """The same lens seen through a window of its picture whose corner is (x0, y0):
        board points project into the window's own pixels."""
        k = self.camera_matrix.copy()
        k[0, 2] -= x0
        k[1, 2] -= y0
        return Camera(width, height, k, self.dist_coeffs)

    def scaled_to(self, width: int, height: int) -> Camera:
        """The same lens at another resolution (the image resized, not cropped)."""
        sx, sy = width / self.width, height / self.height
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        return Camera(width, height, k, self.dist_coeffs.copy())

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "width": self.width,
            "height": self.height,
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.reshape(-1).tolist(),
        }

    @classmethod
    def from_model(cls, model: CameraModel) -> Camera:
        return cls(
            model.width,
            model.height,
            np.array(model.camera_matrix, dtype=np.float64),
            np.array(model.dist_coeffs, dtype=np.float64),
            dict(model.model_extra or {}),
        )

    @classmethod
    def from_json(cls, data: Any, where: str = "camera") -> Camera:
        """A camera from parsed JSON; every problem is one :class:`CameraFileError` line."""
        return cls.from_model(validate(CameraModel, data, where, CameraFileError))

    @classmethod
    def load(cls, path: str | Path) -> Camera:
        return cls.from_json(read_json(path, "camera file", CameraFileError), str(path))

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_json())


@dataclass(frozen=True, eq=False)
class Pose:
    """Board-to-camera transform as OpenCV's rotation vector and translation (mm)."""

    rvec: FloatArray
    tvec: FloatArray

    @classmethod
    def from_matrix(cls, rotation: FloatArray, tvec: FloatArray) -> Pose:
        rvec, _ = cv2.Rodrigues(np.asarray(rotation, dtype=np.float64))
        return cls(rvec.reshape(3), np.asarray(tvec, dtype=np.float64).reshape(3))

    @classmethod
    def look_at(cls, eye: FloatArray, target: FloatArray, up: FloatArray | None = None) -> Pose:
        """The pose of a camera at ``eye`` (board frame, mm) looking at ``target``.

        Image x follows ``forward x up`` so that ``up`` appears towards the top of
        the image, which is how a person holds a camera.
        """
        eye = np.asarray(eye, dtype=np.float64)
        forward = np.asarray(target, dtype=np.float64) - eye
        forward /= np.linalg.norm(forward)
        up = np.array([0.0, 0.0, 1.0]) if up is None else np.asarray(up, dtype=np.float64)
        right = np.cross(forward, up)
        if np.linalg.norm(right) < 1e-9:  # looking straight along `up`
            right = np.cross(forward, np.array([0.0, -1.0, 0.0]))
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        rotation = np.stack([right, down, forward])  # rows: camera axes in board frame
        return cls.from_matrix(rotation, -rotation @ eye)

    @functools.cached_property
    def rotation(self) -> FloatArray:
        """The rotation matrix, worked out once: a frame projects through one pose dozens
        of times, and a pose never changes (read-only, so that no caller can change it)."""
        matrix, _ = cv2.Rodrigues(self.rvec.reshape(3, 1))
        matrix.setflags(write=False)
        return matrix

    @functools.cached_property
    def rotation_t(self) -> FloatArray:
        """The rotation's transpose as a contiguous array: ``points @ rotation.T`` with the
        transposed view costs numpy several times the product with this copy (the same
        numbers), and every projection takes that product."""
        matrix = np.ascontiguousarray(self.rotation.T)
        matrix.setflags(write=False)
        return matrix

    @property
    def camera_center(self) -> FloatArray:
        """Where the camera is, in board millimetres."""
        return -self.rotation.T @ self.tvec

    def to_board(self, points_cam: FloatArray) -> FloatArray:
        return (np.asarray(points_cam) - self.tvec) @ self.rotation

    def to_camera(self, points_board: FloatArray) -> FloatArray:
        return np.asarray(points_board) @ self.rotation_t + self.tvec

    def to_json(self) -> dict[str, Any]:
        return {"rvec": self.rvec.reshape(3).tolist(), "tvec": self.tvec.reshape(3).tolist()}

    @classmethod
    def from_model(cls, model: PoseModel) -> Pose:
        return cls(np.array(model.rvec, dtype=np.float64), np.array(model.tvec, dtype=np.float64))

    @classmethod
    def from_json(cls, data: Any, where: str = "pose") -> Pose:
        """A pose from parsed JSON; every problem is one :class:`CameraFileError` line."""
        return cls.from_model(validate(PoseModel, data, where, CameraFileError))

    @classmethod
    def load(cls, path: str | Path) -> Pose:
        return cls.from_json(read_json(path, "pose file", CameraFileError), str(path))


def project(camera: Camera, pose: Pose, points_board: FloatArray) -> FloatArray:
    """Pixel positions of board points (N x 3, mm), lens distortion included."""
    pts = np.asarray(points_board, dtype=np.float64).reshape(-1, 3)
    if len(pts) == 0:
        return np.zeros((0, 2))
    model = camera._projection
    if model is None:
        image, _ = cv2.projectPoints(
            pts.reshape(-1, 1, 3), pose.rvec, pose.tvec, camera.camera_matrix, camera.dist_coeffs
        )
        return image.reshape(-1, 2)
    return _lens(model, pts @ pose.rotation_t + pose.tvec)


def rays_through(camera: Camera, px: FloatArray) -> FloatArray:
    """Unit-depth camera rays through distorted pixels."""
    und = cv2.undistortPoints(px.reshape(-1, 1, 2), camera.camera_matrix, camera.dist_coeffs)
    return np.hstack([und.reshape(-1, 2), np.ones((len(und), 1))])


def plane_points(pose: Pose, rays: FloatArray, height_mm: float
                 ) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Where camera rays (unit depth, camera frame: :func:`rays_through`) meet the plane
    ``height_mm`` over the plate (board mm, N x 3), and whether they meet it ahead of the
    camera."""
    directions = rays @ pose.rotation  # camera frame to board frame: R^T d, as rows
    eye = pose.camera_center
    with np.errstate(divide="ignore", invalid="ignore"):
        along = (height_mm - eye[2]) / directions[:, 2]
    return eye + along[:, None] * directions, along > 0


def lab_samples(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, points: FloatArray
) -> NDArray[np.float32]:
    """Lab colour at each board point (N x 3), NaN where it falls outside the picture."""
    px = project(camera, pose, points).astype(np.float32)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
    # The samples as one image row, not one column: OpenCV works row by row, and a
    # column of single pixels costs it twenty times as much for the same values.
    xs, ys = px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1)
    bgr = cv2.remap(image, xs, ys, cv2.INTER_LINEAR)
    samples = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    samples[~inside] = np.nan
    return samples


def project_poses(camera: Camera, poses: Sequence[Pose], points_board: FloatArray) -> FloatArray:
    """:func:`project` for several poses at once: points K x N x 3, one set per pose;
    pixels K x N x 2.

    A fit tries a handful of nearby poses on the same few hundred points (its Jacobian's
    columns, a search's seeds), where each call's fixed cost outweighs its arithmetic.
    """
    pts = np.asarray(points_board, dtype=np.float64)
    model = camera._projection
    if model is None or pts.shape[1] == 0:
        return np.stack([project(camera, pose, p) for pose, p in zip(poses, pts, strict=True)])
    rotations_t = np.stack([pose.rotation_t for pose in poses])
    tvecs = np.stack([pose.tvec for pose in poses])
    cam = np.matmul(pts, rotations_t) + tvecs[:, None]
    return _lens(model, cam.reshape(-1, 3)).reshape(len(poses), -1, 2)


def _lens(
    model: tuple[tuple[float, ...], tuple[float, ...]], cam: FloatArray
) -> FloatArray:
    """Pixels of camera-frame points (N x 3) through :attr:`Camera._projection`'s model.

    OpenCV's model for k1, k2, p1, p2, k3 written out: several times faster than
    cv2.projectPoints on the thousands of points a tracked frame projects.
    """
    (fx, skew, cx, fy, cy), (k1, k2, p1, p2, k3) = model
    z = cam[:, 2]
    with np.errstate(divide="ignore"):
        inv = 1.0 / z
    inv[z == 0] = 1.0
    x, y = cam[:, 0] * inv, cam[:, 1] * inv
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xy2 = 2.0 * x * y
    xd = x * radial + p1 * xy2 + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + p2 * xy2
    out = np.empty((len(cam), 2))
    out[:, 0] = fx * xd + skew * yd + cx
    out[:, 1] = fy * yd + cy
    return out


def rotation_angle_deg(a: FloatArray, b: FloatArray) -> float:
    """The angle of the rotation taking matrix ``a`` to matrix ``b``."""
    cos = (np.trace(a.T @ b) - 1) / 2
    return math.degrees(math.acos(float(np.clip(cos, -1.0, 1.0))))
