"""The board's sides in the picture: the colour step across each, moved whole studs.

Just inside the plate's rim lies the card, just outside it the table; the step in colour
between two bands, one each side of the rim, is what marks a side. Each side is sampled
in halves, with the whole board moved up to ``REACH`` studs across it either way, so
that :mod:`calibration.alias` can judge whether the side steps most where the pose puts
it. The picture is cut to the board's box (and halved) first: sampling is the cost.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

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
_SIDE_BANDS = np.stack([INNER, OUTER], axis=1)
"""Per side, its inner and outer bands' points: side, inner/outer, band point, xyz."""


def side_contrast(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, shifts: FloatArray,
    sides: NDArray[np.intp], cut: tuple[int, int, int, int] | None = None,
) -> FloatArray:
    """Per shift of the board (mm, N x 2), each of its sides (``sides``, N x S) and half of
    the side, the median Lab step (N x S x 2).

    The step is between the bands inside and outside the side. Halves, so that a pose
    turned by a stud over the length of a side (right at one end, a stud off at the
    other) shows it. NaN for a half with too little of it in the picture. Moving the
    board by ``d`` under ``pose`` shows point ``p`` where ``pose`` shows ``p + d``, so all
    shifts' samples go through one projection, one remap and one colour conversion.
    Only the sides asked of each shift are sampled: a shift across a side moves that
    side and its opposite, and :func:`side_profiles` reads nothing else of it.

    With ``cut`` (``x0, y0, w, h``), ``image`` is the part of a ``w`` x ``h`` picture from
    ``(x0, y0)`` that holds every sample, and ``camera`` the whole picture's: samples are
    placed in the whole picture and moved by the part's corner in float32, where a whole
    number moves a sample exactly, so the part gives the whole picture's samples to the bit.
    """
    h, w = image.shape[:2]
    if cut is not None:
        x0, y0, w, h = cut
    count, per_shift = sides.shape
    moved = _SIDE_BANDS[sides]  # shift, side, inner/outer, band point, xyz
    moved[..., :2] += shifts[:, None, None, None]
    pts = project(camera, pose, moved.reshape(-1, 3)).astype(np.float32)
    # One image row, not one column: OpenCV pays per row, twenty times over here.
    xs, ys = pts[:, 0].reshape(1, -1), pts[:, 1].reshape(1, -1)
    at_x, at_y = (xs, ys) if cut is None else (xs - np.float32(x0), ys - np.float32(y0))
    lab = cv2.cvtColor(cv2.remap(image, at_x, at_y, cv2.INTER_LINEAR), cv2.COLOR_BGR2LAB)
    # shift, side, inner/outer, band offset, position along the side
    shape = (count, per_shift, 2, len(INNER_MM), len(ALONG))
    lab = lab.reshape(*shape, 3).astype(np.float32)
    inside = (xs >= 0) & (xs < w - 1) & (ys >= 0) & (ys < h - 1)
    ok = inside.reshape(shape).all(axis=(2, 3))  # shift, side, along
    step = np.linalg.norm(lab[:, :, 0].mean(axis=2) - lab[:, :, 1].mean(axis=2), axis=3)
    halves = (count, per_shift, 2, len(ALONG) // 2)
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
) -> tuple[NDArray[np.uint8], Camera, tuple[int, int, int, int] | None]:
    """The picture the sides are read in, lightly smoothed, with its camera and how it
    was cut from ``image`` (see :func:`side_contrast`): by default the board's part of
    it, halved.

    Halved and smoothed so that single stud highlights are no step. Only the part that
    the bands can reach (the plate and ``reach`` studs around it) is resized: on an even
    pixel boundary a crop's half is exactly the same pixels as the whole picture's half.
    Not ``halved``, for a board far off, whose far side's bands lie a pixel apart at half
    size, that part is only smoothed: its pixels a pixel or more inside its edges are the
    whole picture's smoothed, and the samples lie 8 pixels inside (smoothing the whole
    picture was half of a full-size read).
    """
    h, w = image.shape[:2]
    if not halved:
        box = _board_box(camera, pose, reach, w, h)
        if box is None:
            return cv2.GaussianBlur(image, (3, 3), 0), camera, None
        x0, y0, x1, y1 = box
        part = cv2.GaussianBlur(image[y0:y1, x0:x1], (3, 3), 0)
        return part, camera, (x0, y0, w, h)
    half_camera = camera.scaled_to(w // 2, h // 2)
    box = _board_box(camera, pose, reach, w, h) if w % 2 == 0 and h % 2 == 0 else None
    if box is None:
        half = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(half, (3, 3), 0), half_camera, None
    x0, y0, x1, y1 = box
    crop = image[y0:y1, x0:x1]
    size = ((x1 - x0) // 2, (y1 - y0) // 2)
    half = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(half, (3, 3), 0), half_camera.cropped(x0 / 2, y0 / 2, *size), None


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


class _SharedReads:
    """One picture's side reads while a detection looks at it (:func:`sharing_reads`).

    A pose is judged by several checks, each reading its sides: the boundary check and
    the sides' summed move read the same half-size profiles, the sharp look, the pairs,
    their further moves and the far side the full-size ones at reaches 2, 2, 6 and 10.
    Full size, a read's moves are sampled alike whatever the reach (the whole picture's
    pixels, the same camera, every move's samples on their own), so a wider read's middle
    columns are a narrower read's to the bit; half size, the picture is cut to a box
    that grows with the reach, and the same move can sample a pixel's 32nd apart, so
    only a read of the same reach is shared there.
    """

    def __init__(self, image: NDArray[np.uint8]) -> None:
        self.image = image
        self.reads: dict[tuple[object, ...], tuple[Camera, int, FloatArray]] = {}

    def profiles(
        self, camera: Camera, pose: Pose, reach: int, halved: bool
    ) -> FloatArray:
        # The entry keeps its camera alive, so no other camera can take its id meanwhile.
        key = (id(camera), pose.rvec.tobytes(), pose.tvec.tobytes(), halved)
        kept = self.reads.get(key)
        if kept is not None and (kept[1] == reach or (not halved and kept[1] > reach)):
            wide, at = kept[2], kept[1]
            return wide[..., at - reach : at + reach + 1].copy()
        out = _read(self.image, camera, pose, reach, halved)
        if kept is None or reach > kept[1] or halved:
            self.reads[key] = (camera, reach, out)
        return out.copy()


_SHARED: contextvars.ContextVar[_SharedReads | None] = contextvars.ContextVar(
    "side_reads", default=None
)
P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def sharing_reads(image: NDArray[np.uint8]) -> Iterator[None]:
    """Within it, :func:`side_profiles` of ``image`` reads each pose's sides once.

    Only ``image`` itself (the same array, which must not change meanwhile) is shared;
    every other picture is read as outside.
    """
    token = _SHARED.set(_SharedReads(image))
    try:
        yield
    finally:
        _SHARED.reset(token)


def shares_reads(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` (whose first argument is the picture) run :func:`sharing_reads` of it."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        image = args[0] if args else kwargs["image"]
        with sharing_reads(image):  # type: ignore[arg-type]
            return func(*args, **kwargs)

    return wrapper


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
    shared = _SHARED.get()
    if shared is not None and shared.image is image:
        return shared.profiles(camera, pose, reach, halved)
    return _read(image, camera, pose, reach, halved)


def _read(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int, halved: bool
) -> FloatArray:
    """:func:`side_profiles`, read afresh."""
    picture, cam, cut = _side_picture(image, camera, pose, reach, halved)
    return _profiles_in(picture, cam, pose, reach, cut)


def _profiles_in(
    picture: NDArray[np.uint8], cam: Camera, pose: Pose, reach: int,
    cut: tuple[int, int, int, int] | None = None,
) -> FloatArray:
    """:func:`side_profiles` in the picture already cut, halved and smoothed."""
    moves = range(-reach, reach + 1)
    shifts = [(k * STUD_MM, 0.0) for k in moves] + [(0.0, k * STUD_MM) for k in moves]
    # A move along x crosses sides 1 and 3, one along y sides 0 and 2.
    sides = np.array([(1, 3)] * len(moves) + [(0, 2)] * len(moves))
    steps = side_contrast(picture, cam, pose, np.array(shifts), sides, cut)  # shift, side, half
    across_x, across_y = steps[: len(moves)], steps[len(moves) :]
    out = np.full((len(SIDES), 2, len(moves)), np.nan)
    out[[1, 3]] = across_x.transpose(1, 2, 0)
    out[[0, 2]] = across_y.transpose(1, 2, 0)
    # Moving the pose by +x moves side 1 outwards but side 3 inwards (+y: side 2 out,
    # side 0 in): flip 0 and 3 so every row runs from inwards to outwards.
    out[[0, 3]] = out[[0, 3], :, ::-1]
    return out
