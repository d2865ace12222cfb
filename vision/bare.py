"""The empty board as one view would show it, learned from that view itself.

Full mode has no picture of the board before the palace, so it needs the bare board's
look at every pixel. A flat colour per map region is not that look: the baseplate's green
studs poke through the perforated map, so a sand region is a lattice of green dots on
sand, and a flat painting reads every stud as a piece. Here each pixel is taken back
along its ray to the studs' mid-height plane, which names its map region and where in
its stud cell it falls (its phase, in bins); the bare board's colour for a region and a
phase is the median of the view's own pixels of that region and phase. Pieces cover
only part of any region, so the median is the board's. The lens is undone with the
camera's own model, and the table around the plate is left as the frame shows it.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import plane_points, rays_through
from rules.maps import GroundMap
from rules.pieces import BOARD_MM, BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM
from vision.silhouettes import View

PHASE_BINS = 8
"""Bins across a stud cell each way: a stud is about 5 working pixels wide, so a bin is
about one."""


PLATE_POINTS_MM = STUD_HEIGHT_MM / 2
"""The plane a view's pixels are taken to by default, the studs' mid-height: there each
pixel names its map region and its place in the stud cell; the surface model's geometry
channels take each ray on from there down to the plate."""


def plate_points(view: View, height_mm: float = PLATE_POINTS_MM
                 ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Each region pixel's point on the plane ``height_mm`` above the plate (board mm,
    (h, w, 2)) and whether its ray meets that plane on the plate."""
    h, w = view.shape
    x0, y0 = view.box[:2]
    us, vs = np.meshgrid((np.arange(w) + 0.5) / view.scale + x0,
                         (np.arange(h) + 0.5) / view.scale + y0)
    px = np.stack([us.ravel(), vs.ravel()], axis=1)
    points, ahead = plane_points(view.pose, rays_through(view.camera, px), height_mm)
    pts = points[:, :2]
    on = ahead & np.isfinite(pts).all(axis=1)
    on &= (pts[:, 0] >= 0) & (pts[:, 0] < BOARD_MM) & (pts[:, 1] >= 0) & (pts[:, 1] < BOARD_MM)
    return pts.reshape(h, w, 2), on.reshape(h, w)


def learned_bare_board(image: NDArray[np.float32], ground: GroundMap,
                       pts: NDArray[np.float64], on: NDArray[np.bool_]) -> NDArray[np.float32]:
    """``image`` (a region at the view's scale, float BGR) with the plate replaced by the
    bare board's colour for each pixel's region and phase; ``pts`` and ``on`` are the
    view's :func:`plate_points`, which its callers need as well.

    One colour per region and phase is taken over the whole view: fitting the lamp's
    uneven light as a smooth field under the medians was tried and read fewer pieces
    right (the fit follows the palace's own colours as much as the light)."""
    sel = np.flatnonzero(on.ravel())
    out = image.copy()
    if not len(sel):
        return out
    group = _groups(pts, ground).ravel()[sel]
    flat = image.reshape(-1, 3)[sel]
    painted = _medians(flat, group)
    small = _small_region(pts, on, ground).ravel()[sel]
    if small.any():
        painted = _start_from_sand(pts, flat, group, painted, small, ground)
    out.reshape(-1, 3)[sel] = painted.astype(np.float32)
    return cv2.GaussianBlur(out, (0, 0), 0.6)


SMALL_REGION = 20
"""A region of fewer cells than this (the start area: the seven cells under the set-up
staircase) is mostly covered by the pieces standing on it."""


def _small_region(pts: NDArray[np.float64], on: NDArray[np.bool_], ground: GroundMap
                  ) -> NDArray[np.bool_]:
    """Pixels over the start area when it is small."""
    if not 0 < len(ground.start_area) < SMALL_REGION:
        return np.zeros(on.shape, bool)
    cell, _ = cells_and_phases(pts)
    start = np.zeros((BOARD_STUDS, BOARD_STUDS), bool)
    for x, y in ground.start_area:
        start[y, x] = True
    return on & start[cell[..., 1], cell[..., 0]]


SAND_TO_WHITE = np.array([222 / 96, 230 / 178, 232 / 214])
"""The start area's white print over the sand region's, channel by channel (BGR): the
two inks of the printed map as the project's stand-in maps give them. The start area
lies under the set-up staircase, so its own colour cannot be learned from the view;
the sand's can, under the same light."""


def _start_from_sand(pts: NDArray[np.float64], flat: NDArray[np.float32],
                     group: NDArray[np.int64], painted: NDArray[np.float64],
                     small: NDArray[np.bool_], ground: GroundMap) -> NDArray[np.float64]:
    """The start area's pixels painted as the sand region at the same phase, brightened
    to the white print; left as learned where the map has no sand."""
    chars = sorted({c for row in ground.ground for c in row})
    if "G" not in chars:
        return painted
    phase = group % (PHASE_BINS * PHASE_BINS)
    sand = group // (PHASE_BINS * PHASE_BINS) == chars.index("G")
    if not sand.any():
        return painted
    by_phase = np.tile(np.median(flat[sand].astype(np.float64), axis=0),
                       (PHASE_BINS * PHASE_BINS, 1))
    phases, medians = group_medians(flat[sand], phase[sand])
    by_phase[phases] = medians  # a phase no sand pixel shows keeps the sand's median
    out = painted.copy()
    rows = np.flatnonzero(small)
    out[rows] = by_phase[phase[rows]] * SAND_TO_WHITE
    return out


def cells_and_phases(pts: NDArray[np.float64]
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each point's stud cell (x, y; clipped to the plate) and its phase there, one number
    of ``PHASE_BINS`` squared (row-major: the bin across y, then across x)."""
    cell = np.clip(np.floor(pts / STUD_MM).astype(np.int64), 0, BOARD_STUDS - 1)
    phase = np.clip(np.floor((pts / STUD_MM - cell) * PHASE_BINS).astype(np.int64),
                    0, PHASE_BINS - 1)
    return cell, phase[..., 1] * PHASE_BINS + phase[..., 0]


def _groups(pts: NDArray[np.float64], ground: GroundMap) -> NDArray[np.int64]:
    """Each pixel's (map region, phase) group: the start area is a region of its own."""
    cell, phase = cells_and_phases(pts)
    chars = sorted({c for row in ground.ground for c in row})
    code = np.array([[chars.index(ground.char(x, y)) for x in range(BOARD_STUDS)]
                     for y in range(BOARD_STUDS)])
    for x, y in ground.start_area:
        code[y, x] = len(chars)
    return code[cell[..., 1], cell[..., 0]] * (PHASE_BINS * PHASE_BINS) + phase


def _medians(flat: NDArray[np.float32], group: NDArray[np.int64]) -> NDArray[np.float64]:
    """Each row replaced by the median of its group's rows."""
    keys, medians = group_medians(flat, group)
    return medians[np.searchsorted(keys, group)]


_SIGN = np.uint32(1 << 31)


def group_medians(values: NDArray[np.float32], group: NDArray[np.int64]
                  ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The groups (ascending) and each one's median row, column by column: the very
    numbers ``np.median`` gives for the rows in float64 (the mean of the two middle
    values, or the middle one). Hundreds of groups a view: a median call each was most
    of the bare board's cost. Here each column is sorted once, by group and value
    together as one 64-bit key (the group above a float32's bits, flipped to sort as
    the floats do; groups are non-negative and under 2**32), and its middle values read
    off."""
    out_keys: NDArray[np.int64] = np.zeros(0, np.int64)
    out = np.empty((0, values.shape[1]))
    high = group.astype(np.uint64) << np.uint64(32)
    for c in range(values.shape[1]):
        bits = np.ascontiguousarray(values[:, c], np.float32).view(np.uint32)
        key = high | (bits ^ np.where(bits & _SIGN, np.uint32(0xFFFFFFFF), _SIGN))
        key.sort()
        if c == 0:
            ranked = (key >> np.uint64(32)).astype(np.int64)
            starts = np.flatnonzero(np.concatenate([[True], ranked[1:] != ranked[:-1]]))
            counts = np.diff(np.concatenate([starts, [len(ranked)]]))
            out_keys = ranked[starts]
            lo, hi = starts + (counts - 1) // 2, starts + counts // 2
            out = np.empty((len(starts), values.shape[1]))
        low = key.astype(np.uint32)  # the low 32 bits
        ordered = (low ^ np.where(low & _SIGN, _SIGN, np.uint32(0xFFFFFFFF))).view(np.float32)
        # + 0.0: numpy's mean turns a median of -0.0 into 0.0, and so does this.
        out[:, c] = (ordered[lo].astype(np.float64) + ordered[hi]) / 2 + 0.0
    return out_keys, out
