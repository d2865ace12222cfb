"""Camera intrinsics: from chessboard photos when a user has them, from board views otherwise.

A webcam's focal length is the one number the board pose cannot do without: a wrong
focal length trades off against distance and tilt, and studs at the far edge of the
board drift by several pixels. A chessboard calibration pins it down; without one we
start from :meth:`Camera.default_for` and let the board itself correct the focal length
(its corner bricks stand 9.6 mm proud of the plate, and its edges are long straight
lines seen in perspective, which together constrain the focal length well from an
oblique view).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, CameraFileError, FloatArray, Pose, project
from calibration.image_file import ImageFileError, load_image

MIN_VIEWS = 3
MAX_CORNERS_PER_SIDE = 100
"""Printed chessboards have a few to a few dozen inner corners a side."""
SQUARE_MM_RANGE = (1.0, 500.0)
MAX_RMS_PX = 2.0
"""Above this no single camera explains the views (a good calibration is under 0.5 px;
blurred webcam views reach 1): unrelated cameras or resized copies are mixed in."""
SEARCH_SIDE = 1280
"""Chessboards are looked for in a copy no larger than this (see :func:`find_chessboard`)."""
SAME_VIEW_PX = 0.5
"""Two views whose corners all lie within this of each other are one picture twice."""
_PATTERN_RE = re.compile(r"^chessboard:(\d+)x(\d+):(\d+(?:\.\d+)?)$")


class CalibrationError(ValueError):
    """Calibration input that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class ChessboardPattern:
    """A printed chessboard: ``cols`` x ``rows`` inner corners, squares ``square_mm`` wide.

    Inner corners, as OpenCV counts them: a board of 10 x 7 squares has 9 x 6.
    """

    cols: int
    rows: int
    square_mm: float

    @classmethod
    def parse(cls, text: str) -> ChessboardPattern:
        match = _PATTERN_RE.match(text.strip())
        if not match:
            raise CalibrationError(
                f"pattern {text!r}: expected chessboard:COLSxROWS:SQUARE_MM "
                "(inner corners, e.g. chessboard:9x6:25)"
            )
        cols, rows, square = int(match[1]), int(match[2]), float(match[3])
        low, high = SQUARE_MM_RANGE
        if not (3 <= cols <= MAX_CORNERS_PER_SIDE and 3 <= rows <= MAX_CORNERS_PER_SIDE):
            raise CalibrationError(
                f"pattern {text!r}: needs 3 to {MAX_CORNERS_PER_SIDE} inner corners a side"
            )
        if not low <= square <= high:
            raise CalibrationError(
                f"pattern {text!r}: squares must be {low:g} to {high:g} mm wide"
            )
        return cls(cols, rows, square)

    def object_points(self) -> NDArray[np.float32]:
        """Corner positions on the printed sheet (mm, z = 0), in OpenCV's detection order."""
        grid = np.mgrid[0 : self.cols, 0 : self.rows].T.reshape(-1, 2) * self.square_mm
        return np.hstack([grid, np.zeros((len(grid), 1))]).astype(np.float32)


@dataclass
class IntrinsicsResult:
    """A calibrated camera with how well it fits and which views it could not use."""

    camera: Camera
    rms_px: float
    used: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)


def find_chessboard(image: NDArray[np.uint8], pattern: ChessboardPattern) -> FloatArray | None:
    """Sub-pixel chessboard corners (N x 2), or None where the whole pattern is not seen.

    The search runs on a copy no wider than :data:`SEARCH_SIDE` and with OpenCV's fast
    check: on a picture without a chessboard the full search took 24 s at 1920 x 1080
    (and grows with the area), the fast one a second or two. Corners are then refined
    on the full picture, so a large photo loses no accuracy.
    """
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, SEARCH_SIDE / max(gray.shape))
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                   interpolation=cv2.INTER_AREA)
    size = (pattern.cols, pattern.rows)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
    found, corners = cv2.findChessboardCorners(small, size, flags=flags)
    if not found:
        found, corners = cv2.findChessboardCornersSB(small, size)
        if not found:
            return None
        if scale == 1.0:
            return corners.reshape(-1, 2).astype(np.float64)
    corners = (corners.reshape(-1, 1, 2) / scale).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
    window = 5
    corners = cv2.cornerSubPix(gray, corners, (window, window), (-1, -1), criteria)
    return corners.reshape(-1, 2).astype(np.float64)


def calibrate_chessboard(
    images: Sequence[tuple[str, NDArray[np.uint8]]], pattern: ChessboardPattern
) -> IntrinsicsResult:
    """Full intrinsics (focal lengths, principal point, k1 k2 p1 p2 k3) from named images.

    Views where the pattern is not found are listed in ``rejected`` rather than failing
    the run: a user photographs twenty views and two are blurred, that is normal. A view
    that repeats another (the same file twice, or the chessboard at the same pixels) is
    rejected too: it adds no information but makes a fit look better supported than it
    is. When no single camera explains the views (RMS over :data:`MAX_RMS_PX`), the run
    fails naming the views that fit worst.
    """
    object_points: list[NDArray[np.float32]] = []
    image_points: list[NDArray[np.float32]] = []
    used: list[str] = []
    rejected: list[tuple[str, str]] = []
    size: tuple[int, int] | None = None
    for name, image in images:
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            rejected.append((name, f"image is {w}x{h}, the others are {size[0]}x{size[1]}"))
            continue
        corners = find_chessboard(image, pattern)
        if corners is None:
            rejected.append((name, f"no complete {pattern.cols}x{pattern.rows} chessboard found"))
            continue
        twin = _same_view(corners, image_points, used)
        if twin is not None:
            rejected.append((name, f"the same view as {twin}"))
            continue
        object_points.append(pattern.object_points())
        image_points.append(corners.astype(np.float32).reshape(-1, 1, 2))
        used.append(name)
    if size is None or len(used) < MIN_VIEWS:
        raise CalibrationError(
            f"only {len(used)} usable view(s) of the chessboard, need at least {MIN_VIEWS}"
            + "".join(f"; {n}: {why}" for n, why in rejected)
        )
    rms, matrix, dist, rvecs, tvecs = cv2.calibrateCamera(
        object_points, image_points, size, None, None
    )
    camera = Camera(
        size[0], size[1], np.asarray(matrix, float), np.asarray(dist, float).reshape(-1)
    )
    if not rms <= MAX_RMS_PX:
        errors = [
            (float(np.sqrt(np.mean((project(camera, Pose(r.reshape(3), t.reshape(3)),
                                            obj.astype(np.float64)) - img.reshape(-1, 2)) ** 2)
                               * 2)), name)
            for obj, img, r, t, name in zip(object_points, image_points, rvecs, tvecs, used,
                                            strict=True)
        ]
        worst = ", ".join(f"{name} {err:.1f} px" for err, name in sorted(errors)[::-1][:3])
        raise CalibrationError(
            f"no single camera explains these {len(used)} views: RMS reprojection error "
            f"{rms:.2f} px, at most {MAX_RMS_PX:g} expected (worst: {worst}); are they "
            "from one camera at one resolution?"
        )
    try:
        camera = Camera.from_json(camera.to_json(), "the best fit")
    except CameraFileError as exc:  # a lens no camera has: the views disagree
        raise CalibrationError(
            f"no single camera explains these {len(used)} views ({exc}); are they from one "
            "camera at one resolution?"
        ) from None
    return IntrinsicsResult(camera, float(rms), used, rejected)


def _same_view(
    corners: FloatArray, earlier: Sequence[NDArray[np.float32]], names: Sequence[str]
) -> str | None:
    """The name of an earlier view with the chessboard at the same pixels, if any."""
    for points, name in zip(earlier, names, strict=True):
        if np.max(np.abs(points.reshape(-1, 2) - corners)) < SAME_VIEW_PX:
            return name
    return None


def focal_from_homography(homography: FloatArray, camera: Camera) -> float | None:
    """The focal length a plane-to-image homography implies (square pixels, known centre).

    Zhang's orthogonality constraint on the first two columns. It degenerates when the
    plane faces the camera squarely, so None is returned there rather than noise.
    """
    k = camera.camera_matrix
    centre = np.array([[1, 0, -k[0, 2]], [0, 1, -k[1, 2]], [0, 0, 1]])
    h = centre @ homography
    h1, h2 = h[:, 0], h[:, 1]
    denom = h1[2] * h2[2]
    if abs(denom) < 1e-12:
        return None
    f2 = -(h1[0] * h2[0] + h1[1] * h2[1]) / denom
    # The same focal length must also make both columns equally long.
    g = h1[2] ** 2 - h2[2] ** 2
    f2b = -((h1[0] ** 2 + h1[1] ** 2) - (h2[0] ** 2 + h2[1] ** 2)) / g if abs(g) > 1e-12 else -1
    estimates = [v for v in (f2, f2b) if v > 0]
    if not estimates:
        return None
    f = math.sqrt(float(np.median(estimates)))
    if not 0.2 * camera.width < f < 10 * camera.width:
        return None
    return f


def refine_focal(
    camera: Camera,
    residual_for: Callable[[Camera], float],
    low: float = 0.5,
    high: float = 2.0,
    iterations: int = 24,
) -> Camera:
    """The focal length (within ``low``..``high`` times the current one) that best fits.

    ``residual_for`` scores a camera against board views (e.g. the summed reprojection
    error of their refined poses). A golden-section search in log focal length is enough:
    the error is smooth and single-dipped in f over a range this narrow.
    """
    a, b = math.log(camera.fx * low), math.log(camera.fx * high)
    ratio = (math.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = (
        residual_for(camera.with_focal(math.exp(c))),
        residual_for(camera.with_focal(math.exp(d))),
    )
    for _ in range(iterations):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = residual_for(camera.with_focal(math.exp(c)))
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = residual_for(camera.with_focal(math.exp(d)))
    return camera.with_focal(math.exp((a + b) / 2))


def load_images(
    paths: Sequence[str | Path],
) -> tuple[list[tuple[str, NDArray[np.uint8]]], list[tuple[str, str]]]:
    """Readable images by name, and the unreadable ones with the reason."""
    images: list[tuple[str, NDArray[np.uint8]]] = []
    unreadable: list[tuple[str, str]] = []
    for path in paths:
        try:
            images.append((str(path), load_image(path)))
        except ImageFileError as exc:
            unreadable.append((str(path), str(exc).removeprefix(f"{path}: ")))
    return images, unreadable
