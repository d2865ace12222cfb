"""The board's sides in the picture: the colour step across each, moved whole studs.

Just inside the plate's rim lies the card, just outside it the table; the step in colour
between two bands, one each side of the rim, is what marks a side. Each side is sampled
in halves, with the whole board moved up to ``REACH`` studs across it either way, so
that :mod:`calibration.alias` can judge whether the side steps most where the pose puts
it. The picture is cut to the board's box (and halved) first: sampling is the cost.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import PLATE_CORNERS, polygon_edges, projected_outline
from calibration.camera import Camera, FloatArray, Pose, project
from rules.pieces import STUD_MM

PLATE_THICKNESS_MM = 1.6
INNER_MM = (-1.0, -2.0)
"""Bands inside the rim: the card and the feet of the outermost stud row."""
OUTER_MM = (2.5, 4.0)
"""Bands outside the rim, on the table, clear of the plate's side face."""
ALONG = np.linspace(0.08, 0.92, 32)
MIN_SAMPLES = 6
REACH = 2


def _band(a: FloatArray, b: FloatArray, offsets: tuple[float, ...], z: float) -> FloatArray:
    d = b - a
    normal = np.array([d[1], -d[0], 0.0]) / np.linalg.norm(d)  # outwards: sides run CCW
    return np.array(
        [a + t * d + o * normal + np.array([0.0, 0.0, z]) for o in offsets for t in ALONG]
    )


SIDES = polygon_edges(PLATE_CORNERS)
INNER = [_band(a, b, INNER_MM, 0.0) for a, b in SIDES]
OUTER = [_band(a, b, OUTER_MM, -PLATE_THICKNESS_MM) for a, b in SIDES]
_BANDS = np.vstack([*INNER, *OUTER])


def side_contrast(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, shifts: FloatArray
) -> FloatArray:
    """Per shift of the board (mm, N x 2), side and half of it, the median Lab step.

    The step is between the bands inside and outside the side. Halves, so that a pose
    turned by a stud over the length of a side (right at one end, a stud off at the
    other) shows it. NaN for a half with too little of it in the picture. Moving the
    board by ``d`` under ``pose`` shows point ``p`` where ``pose`` shows ``p + d``, so all
    shifts' samples go through one projection, one remap and one colour conversion.
    """
    h, w = image.shape[:2]
    moved = np.repeat(_BANDS[None], len(shifts), axis=0)
    moved[..., :2] += shifts[:, None]
    pts = project(camera, pose, moved.reshape(-1, 3)).astype(np.float32)
    # One image row, not one column: OpenCV pays per row, twenty times over here.
    xs, ys = pts[:, 0].reshape(1, -1), pts[:, 1].reshape(1, -1)
    lab = cv2.cvtColor(cv2.remap(image, xs, ys, cv2.INTER_LINEAR), cv2.COLOR_BGR2LAB)
    # shift, inner/outer, side, band offset, position along the side
    shape = (len(shifts), 2, len(SIDES), len(INNER_MM), len(ALONG))
    lab = lab.reshape(*shape, 3).astype(np.float32)
    inside = (xs >= 0) & (xs < w - 1) & (ys >= 0) & (ys < h - 1)
    ok = inside.reshape(shape).all(axis=(1, 3))  # shift, side, along
    step = np.linalg.norm(lab[:, 0].mean(axis=2) - lab[:, 1].mean(axis=2), axis=3)
    halves = (len(shifts), len(SIDES), 2, len(ALONG) // 2)
    ok = ok.reshape(halves)
    step = step.reshape(halves)
    seen = ok.sum(axis=3) >= MIN_SAMPLES
    # Unseen halves are filled with zeros first so that no slice is all NaN.
    step = np.where(ok, step, np.nan)
    step[~seen] = 0.0
    out = _nanmedian_last(step)
    out[~seen] = np.nan
    return out


def _nanmedian_last(values: FloatArray) -> FloatArray:
    """``np.nanmedian`` over the last axis, for rows with at least one number.

    NaNs sort last, so each row's median sits at the middle of its finite prefix; this
    is ten times faster than numpy's masked-array route on these small arrays.
    """
    ordered = np.sort(values, axis=-1)
    count = np.isfinite(ordered).sum(axis=-1, keepdims=True)
    low = np.take_along_axis(ordered, np.maximum(count - 1, 0) // 2, axis=-1)
    high = np.take_along_axis(ordered, count // 2, axis=-1)
    return ((low + high) / 2)[..., 0]


def _side_picture(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int, halved: bool = True
) -> tuple[NDArray[np.uint8], Camera]:
    """The picture the sides are read in, lightly smoothed, with its camera: by default
    the board's part of it, halved.

    Halved and smoothed so that single stud highlights are no step. Only the part that
    the bands can reach (the plate and ``reach`` studs around it) is resized: on an even
    pixel boundary a crop's half is exactly the same pixels as the whole picture's half.
    Not ``halved``, the whole picture is only smoothed: for a board far off, whose far
    side's bands lie a pixel apart at half size.
    """
    if not halved:
        return cv2.GaussianBlur(image, (3, 3), 0), camera
    h, w = image.shape[:2]
    half_camera = camera.scaled_to(w // 2, h // 2)
    box = _board_box(camera, pose, reach, w, h) if w % 2 == 0 and h % 2 == 0 else None
    if box is None:
        half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(half, (3, 3), 0), half_camera
    x0, y0, x1, y1 = box
    crop = image[y0:y1, x0:x1]
    size = ((x1 - x0) // 2, (y1 - y0) // 2)
    half = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(half, (3, 3), 0), half_camera.cropped(x0 / 2, y0 / 2, *size)


@functools.lru_cache(maxsize=4)
def _box_outline(reach: int) -> FloatArray:
    """The plate's outline grown by the bands' reach, densely, at its top and bottom."""
    grow = reach * STUD_MM + OUTER_MM[1] + 2.0
    t = np.linspace(-grow, PLATE_CORNERS[1, 0] + grow, 17)
    lo, hi = np.full_like(t, -grow), np.full_like(t, PLATE_CORNERS[1, 0] + grow)
    ring = np.vstack(
        [np.stack([t, lo], 1), np.stack([t, hi], 1), np.stack([lo, t], 1), np.stack([hi, t], 1)]
    )
    pts = np.vstack(
        [np.hstack([ring, np.full((len(ring), 1), z)]) for z in (0.0, -PLATE_THICKNESS_MM)]
    )
    pts.setflags(write=False)
    return pts


def _board_box(
    camera: Camera, pose: Pose, reach: int, w: int, h: int
) -> tuple[int, int, int, int] | None:
    """Even-aligned pixel box around everything the side bands sample, or None if unsure.

    The plate's outline grown by the bands' reach is projected densely (the lens bends
    straight sides) and padded by 8 pixels; a pose with the board behind the camera or
    thrown far outside the picture gets the whole picture.
    """
    px = projected_outline(camera, pose, _box_outline(reach))
    if px is None or np.abs(px).max() > 4 * (w + h):
        return None
    x0 = max(0, int(np.floor(px[:, 0].min())) - 8) // 2 * 2
    y0 = max(0, int(np.floor(px[:, 1].min())) - 8) // 2 * 2
    x1 = min(w, int(np.ceil(px[:, 0].max())) + 8)
    y1 = min(h, int(np.ceil(px[:, 1].max())) + 8)
    x1 += (x1 - x0) % 2  # w and h are even, so this stays inside the picture
    y1 += (y1 - y0) % 2
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    return x0, y0, x1, y1


def side_profiles(
    image: NDArray[np.uint8],
    camera: Camera,
    pose: Pose,
    reach: int = REACH,
    halved: bool = True,
) -> FloatArray:
    """Per plate side and half of it, its colour step moved -reach..reach studs outwards.

    Sides 0 and 2 run along x (y = 0 and y = 256 mm), 1 and 3 along y; a side moves
    when the pose moves across it. Index ``reach`` of the last axis is the pose itself.
    """
    picture, cam = _side_picture(image, camera, pose, reach, halved)
    moves = range(-reach, reach + 1)
    shifts = [(k * STUD_MM, 0.0) for k in moves] + [(0.0, k * STUD_MM) for k in moves]
    steps = side_contrast(picture, cam, pose, np.array(shifts))  # shift, side, half
    across_x, across_y = steps[: len(moves)], steps[len(moves) :]
    out = np.full((len(SIDES), 2, len(moves)), np.nan)
    out[[1, 3]] = across_x[:, [1, 3]].transpose(1, 2, 0)
    out[[0, 2]] = across_y[:, [0, 2]].transpose(1, 2, 0)
    # Moving the pose by +x moves side 1 outwards but side 3 inwards (+y: side 2 out,
    # side 0 in): flip 0 and 3 so every row runs from inwards to outwards.
    out[[0, 3]] = out[[0, 3], :, ::-1]
    return out
