"""The stud lattice as a pose sees it: the board folded onto one stud cell.

The stud lattice is the most exact thing the board shows: a thousand stud tops at known
places. With the pose already close, the image is resampled onto the plane of the stud
tops (z = 1.7 mm), where every stud top is a circle of 2.4 mm radius on an 8 mm lattice.
Averaging the edge strength of all cells of a block onto a single cell cancels noise,
shadows and whatever covers part of the board, and a circular correlation with the
stud's outline says how far the lattice sits from where the pose put it, block by block
(:func:`lattice_offsets`). The same resampling says, cell by cell, whether a stud shows
there at all. What one stud looks like in its cell is :mod:`calibration.stud_cell`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import projected_outline
from calibration.camera import Camera, FloatArray, Pose, project
from calibration.stud_cell import CELL_PX, PX_PER_MM, stud_scores, template_stack
from rules.pieces import BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM

BLOCKS = 4
CELLS_PER_BLOCK = BOARD_STUDS // BLOCKS
COARSE_MM = 4.0


@dataclass(frozen=True)
class LatticeView:
    """One look at the lattice from a pose: per block its centre (mm), offset (mm) and
    peak clarity; per cell (y-major) how clearly a stud's rim shows where the pose puts it
    (:attr:`studs`)."""

    centres: FloatArray
    offsets: FloatArray
    clarity: FloatArray
    edges: NDArray[np.float32] | None = None
    """The rectified edge strength the cells are read from (None: no cell seen)."""
    blind: Callable[[], FloatArray] | None = field(default=None, repr=False, compare=False)
    """Works out :attr:`blind_clarity` (only when asked for it)."""

    @functools.cached_property
    def blind_clarity(self) -> FloatArray:
        """Per block, the clarity the top-blind template would give (empty unless the look
        was asked for it). Worked out when read: a fit reads its last look's alone, and
        only when the board is refused."""
        return np.zeros(0) if self.blind is None else self.blind()

    @functools.cached_property
    def studs(self) -> FloatArray:
        """Per cell, its stud rim's edge strength over its top's. Worked out when asked:
        a fit takes several looks and reads the cells of its last one only."""
        return np.zeros(0) if self.edges is None else stud_scores(self.edges)


def parallax_at(pose: Pose, xy: FloatArray) -> FloatArray:
    """Where a point of the plate (z = 0) appears on the stud-top plane, minus where it is."""
    eye = pose.camera_center
    p = np.array([xy[0], xy[1], 0.0])
    t = (STUD_HEIGHT_MM - eye[2]) / (0.0 - eye[2])
    seen = eye + t * (p - eye)
    return seen[:2] - p[:2]


def rectify_map(camera: Camera, pose: Pose, reach: int = 0) -> NDArray[np.float32]:
    """Image coordinates of every rectified pixel of the stud-top plane (lens included).

    Projected on a 4 mm grid and stretched by a bilinear resize: the lens is smooth at
    that scale, projecting every pixel would cost ten times as much, and a resize is
    cheaper than interpolating through a remap. The coarse grid starts 4.25 mm before
    the plate so that the resize's pixel-centre convention puts rectified pixel ``i`` at
    ``i / PX_PER_MM`` mm (stud centres on whole pixels) and its clamped border falls
    outside the plate. One two-channel map, as ``cv2.remap`` takes it. With ``reach``
    the map covers that many studs beyond the plate all round.
    """
    return _stretch(_coarse_map(camera, pose, reach), reach)


@functools.lru_cache(maxsize=4)
def _coarse_points(reach: int = 0) -> FloatArray:
    """The coarse grid's points on the stud-top plane (board mm), the same every frame."""
    side = _coarse_side(reach)
    coarse = np.arange(side) * COARSE_MM - (COARSE_MM / 2 + 0.25) - reach * STUD_MM
    gx, gy = np.meshgrid(coarse, coarse)
    pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, STUD_HEIGHT_MM)], axis=1)
    pts.setflags(write=False)
    return pts


def lattice_window(camera: Camera, pose: Pose, margin_px: int) -> tuple[int, int, int, int]:
    """The box ``(x0, y0, x1, y1)`` of the picture that a lattice look from ``pose`` reads,
    grown by ``margin_px`` and clipped to the picture; the whole picture for a wild pose.

    A tracker converts only this window to grey: the board covers under half of a
    typical frame. The rectified map blends the coarse grid's points, and the grid's
    outline holds the extremes of a smooth projection, so its outline bounds every
    sample.
    """
    whole = (0, 0, camera.width, camera.height)
    px = projected_outline(camera, pose, _coarse_outline())
    if px is None:
        return whole
    x0 = max(0, int(np.floor(px[:, 0].min())) - margin_px)
    y0 = max(0, int(np.floor(px[:, 1].min())) - margin_px)
    x1 = min(camera.width, int(np.ceil(px[:, 0].max())) + margin_px + 1)
    y1 = min(camera.height, int(np.ceil(px[:, 1].max())) + margin_px + 1)
    return (x0, y0, x1, y1) if x1 - x0 >= 8 and y1 - y0 >= 8 else whole


@functools.lru_cache(maxsize=1)
def _coarse_outline() -> FloatArray:
    """Every fourth point around the coarse grid's edge (16 mm apart; a lens bends a side
    by far less than a pixel over that) and its corners."""
    side = _coarse_side(0)
    grid = _coarse_points(0).reshape(side, side, 3)
    every = np.r_[0 : side - 1 : 4, side - 1]
    outline = np.concatenate([grid[0, every], grid[-1, every], grid[every, 0], grid[every, -1]])
    outline.setflags(write=False)
    return outline


def _coarse_side(reach: int) -> int:
    return int((BOARD_STUDS + 2 * reach) * STUD_MM / COARSE_MM) + 2


def _coarse_map(camera: Camera, pose: Pose, reach: int = 0) -> NDArray[np.float32]:
    """The coarse grid's image coordinates, side x side x 2."""
    side = _coarse_side(reach)
    return project(camera, pose, _coarse_points(reach)).reshape(side, side, 2).astype(np.float32)


def _stretch(coarse: NDArray[np.float32], reach: int = 0) -> NDArray[np.float32]:
    """The coarse map resized to one entry per rectified pixel (see :func:`rectify_map`)."""
    size = (BOARD_STUDS + 2 * reach) * CELL_PX
    up = int(COARSE_MM * PX_PER_MM)
    n = len(coarse) * up
    fine = cv2.resize(coarse, (n, n), interpolation=cv2.INTER_LINEAR)
    return fine[up : up + size, up : up + size]


def _fold(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """Every block's cells summed onto one cell: blocks x blocks x cell x cell.

    Rows of cells are added first (whole contiguous image rows), then the cells along
    each row, which is several times faster than one strided six-axis sum.
    """
    per_block = CELLS_PER_BLOCK
    size = BOARD_STUDS * CELL_PX
    rows = values.reshape(BLOCKS, per_block, CELL_PX * size).sum(axis=1)
    cells = rows.reshape(BLOCKS, CELL_PX, BLOCKS, per_block, CELL_PX).sum(axis=3)
    return cells.transpose(0, 2, 1, 3)


def _subpixel_peaks(corr: NDArray[np.float64]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Peaks of a batch of circular correlations (B x n x n): signed x, y shifts (px), heights.

    A parabola through each peak and its two neighbours along each axis (wrapping
    around) places it between pixels; a flat or inverted neighbourhood keeps the pixel.
    """
    b, n, _ = corr.shape
    flat = np.argmax(corr.reshape(b, -1), axis=1)
    iy, ix = np.divmod(flat, n)
    rows = np.arange(b)
    peak = corr[rows, iy, ix]
    shifts = []
    for lo, hi, i in (
        (corr[rows, iy, (ix - 1) % n], corr[rows, iy, (ix + 1) % n], ix),
        (corr[rows, (iy - 1) % n, ix], corr[rows, (iy + 1) % n, ix], iy),
    ):
        den = lo - 2 * peak + hi
        frac = np.where(den < 0, 0.5 * (lo - hi) / np.where(den < 0, den, -1.0), 0.0)
        shifts.append((i + frac + n / 2) % n - n / 2)
    return shifts[0], shifts[1], peak


def _parallaxes(pose: Pose, xy: FloatArray) -> list[tuple[float, float]]:
    """:func:`parallax_at` for many points, the camera centre worked out once."""
    eye = pose.camera_center
    t = (STUD_HEIGHT_MM - eye[2]) / (0.0 - eye[2])
    seen = eye[:2] + t * (xy - eye[:2])
    return [(float(a), float(b)) for a, b in seen - xy]


def _inside(coarse: NDArray[np.float32], w: int, h: int) -> bool:
    """Whether every rectified pixel samples at least a pixel inside the picture's border.

    Each pixel of the stretched map is a bilinear blend of its coarse neighbours, so the
    fine map stays inside the box that holds the coarse one; a hundredth of a pixel
    covers the blend's rounding.
    """
    # One channel at a time: numpy reduces a two-column array along its long axis slowly.
    xs, ys = coarse[..., 0], coarse[..., 1]
    margin = 0.01
    return bool(
        xs.min() >= 1.0 + margin
        and ys.min() >= 1.0 + margin
        and xs.max() <= w - 2.0 - margin
        and ys.max() <= h - 2.0 - margin
    )


def lattice_offsets(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    top_blind: bool = False,
    blind_too: bool = False,
) -> LatticeView:
    """The lattice as seen from ``pose``: block offsets for the fit, stud cells for the map.

    ``top_blind`` places the studs by the card's being brighter than the holes alone,
    whatever the tops' shade (:func:`calibration.stud_cell.shade_spectra`). ``blind_too``
    also says how clear the blocks' peaks would be with that template: one more batch of
    small transforms on the same folded cells, where a look of its own would fold the
    board again (a clarity does not depend on where the peak lies)."""
    coarse = _coarse_map(camera, pose)
    maps = _stretch(coarse)
    per_block = CELLS_PER_BLOCK
    h, w = gray.shape
    rect = cv2.remap(gray, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gx = cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    full = per_block * per_block
    if _inside(coarse, w, h):
        # The whole board is in the picture (the usual case): every rectified pixel is
        # valid, which spares a mask over the whole map and its fold.
        seen = np.ones(BLOCKS * BLOCKS, bool)
        count: NDArray[np.float32] | np.float32 = np.float32(full)
    else:
        # Inclusive bounds: x in [1, w - 2) and y in [1, h - 2), as remap's border allows.
        upper = (float(np.nextafter(w - 2.0, 0.0)), float(np.nextafter(h - 2.0, 0.0)))
        valid = cv2.inRange(maps, (1.0, 1.0), upper) > 0
        mag[~valid] = 0.0
        rect[~valid] = 0.0
        folded = _fold(valid.astype(np.float32)).reshape(BLOCKS * BLOCKS, CELL_PX, CELL_PX)
        seen = folded.min(axis=(1, 2)) >= full // 4
        if not seen.any():
            return LatticeView(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
        count = np.maximum(folded[seen], 1)
    # All blocks at once: every block's cells folded onto one cell, then one batch of
    # small circular correlations (the stud top's centre sits at the cell's centre when
    # the pose is right).
    half = (-(CELL_PX // 2), -(CELL_PX // 2))
    edges = _fold(mag).reshape(-1, CELL_PX, CELL_PX)[seen] / count
    bright = _fold(rect).reshape(-1, CELL_PX, CELL_PX)[seen] / count
    by, bx = np.divmod(np.flatnonzero(seen), BLOCKS)
    centres = np.stack([bx + 0.5, by + 0.5], axis=1) * CELLS_PER_BLOCK * STUD_MM
    key = tuple((round(px * 10), round(py * 10)) for px, py in _parallaxes(pose, centres))
    blocks = len(key)
    # Edges and brightness of all blocks go through one batch of transforms.
    folded = np.roll(np.concatenate([edges, bright]), half, axis=(1, 2))
    folded -= folded.mean(axis=(1, 2), keepdims=True)
    spectra = np.fft.fft2(folded)
    corr_both = np.real(np.fft.ifft2(spectra * template_stack(key, top_blind)))
    corr_e, corr_s = corr_both[:blocks], corr_both[blocks:]
    edge_part = corr_e / (corr_e.std(axis=(1, 2), keepdims=True) + 1e-9)
    corr = edge_part + corr_s / (corr_s.std(axis=(1, 2), keepdims=True) + 1e-9)
    sx, sy, peak = _subpixel_peaks(corr)
    offsets = np.stack([sx, sy], axis=1) / PX_PER_MM
    if not blind_too:
        return LatticeView(centres, offsets, _clarity(corr, peak), mag)

    def blind() -> FloatArray:
        blind_shades = template_stack(key, True)[blocks:]
        corr_b = np.real(np.fft.ifft2(spectra[blocks:] * blind_shades))
        both = edge_part + corr_b / (corr_b.std(axis=(1, 2), keepdims=True) + 1e-9)
        return _clarity(both, both.max(axis=(1, 2)))

    return LatticeView(centres, offsets, _clarity(corr, peak), mag, blind)


def _clarity(corr: NDArray[np.float64], peak: FloatArray) -> FloatArray:
    """Each correlation's peak over half its spread: how sharply the block places its studs."""
    spread = corr.std(axis=(1, 2)) / 2
    return np.where(spread > 0, peak / np.where(spread > 0, spread, 1.0), 0.0)
