"""Sub-pixel alignment on the stud lattice, by folding the board onto one stud cell.

Edges pin the board to within a pixel or two, but a textured board offers a step to
every edge search and the fit can settle a little off. The stud lattice itself is the
most exact thing the board shows: a thousand stud tops at known places. With the pose
already close, the image is resampled onto the plane of the stud tops (z = 1.7 mm),
where every stud top is a circle of 2.4 mm radius on an 8 mm lattice. Averaging the
edge strength of all cells of a block onto a single cell cancels noise, shadows and
whatever covers part of the board, and a circular correlation with the stud's outline
says how far the lattice sits from where the pose put it, block by block. Those
offsets, turned into point pairs, correct the pose.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, FloatArray, Pose, project
from rules.pieces import BOARD_STUDS, STUD_DIAMETER_MM, STUD_HEIGHT_MM, STUD_MM

PX_PER_MM = 2
CELL_PX = int(STUD_MM * PX_PER_MM)
BLOCKS = 4
CELLS_PER_BLOCK = BOARD_STUDS // BLOCKS
MIN_BLOCKS = 4
MAX_SEED_BLOCKS = 10
COARSE_MM = 4.0
BLOCK_MM = CELLS_PER_BLOCK * STUD_MM
HOLE_RADIUS_MM = 2.95
"""The ground map card's holes are a little wider than the studs."""
SETTLED_PX = 0.4
"""A fit with a residual under this has converged; above it, extra rounds may still help."""
SETTLED_BLOCKS = 10
"""Blocks a fit that took extra rounds must end with, or the extra rounds are undone."""
SETTLE_GAIN = 0.8
"""An extra round is kept going only while each one cuts the residual to this share or less."""


@dataclass
class GridFit:
    """Pose after lattice alignment, blocks that agreed and their residual (px)."""

    pose: Pose
    blocks: int
    residual_px: float
    clarity: float = 0.0  # median peak clarity of the blocks used
    studs: FloatArray | None = None  # per cell (y-major): how clearly its stud shows
    extent_mm: tuple[float, float] = (0.0, 0.0)
    """How far apart the agreeing blocks' centres lie along x and along y."""


class LatticeView(NamedTuple):
    """One look at the lattice from a pose: per block its centre (mm), offset (mm) and
    peak clarity; per cell (y-major) how clearly a stud's rim shows where the pose puts it."""

    centres: FloatArray
    offsets: FloatArray
    clarity: FloatArray
    studs: FloatArray


def _stud_weights() -> NDArray[np.float32]:
    """Two cell-sized weightings: a stud top's rim, and the flat top inside it (each sums to 1).

    A cell whose rim is several times as sharp as the top inside shows its stud; an arm,
    a hand, a card or a piece standing on the cell shows no such ring there.
    """
    radius = np.hypot(_CELL_XX - CELL_PX / PX_PER_MM / 2, _CELL_YY - CELL_PX / PX_PER_MM / 2)
    rim = np.abs(radius - STUD_DIAMETER_MM / 2) < 0.6
    top = radius < STUD_DIAMETER_MM / 2 - 1.0
    return np.stack([rim / rim.sum(), top / top.sum()]).astype(np.float32)


_CELL_YY, _CELL_XX = np.mgrid[0:CELL_PX, 0:CELL_PX].astype(np.float64) / PX_PER_MM
_STUD_WEIGHTS = _stud_weights()


def stud_scores(mag: NDArray[np.float32]) -> FloatArray:
    """Per cell of a rectified edge-strength image, its rim's edge strength over its top's."""
    span = mag.shape[0] // CELL_PX
    cells = mag.reshape(span, CELL_PX, span, CELL_PX)
    rim, top = np.einsum("aibj,kij->kab", cells, _STUD_WEIGHTS, optimize=True)
    return (rim / (top + 1.0)).ravel().astype(np.float64)


def _torus_distance(centre_mm: FloatArray) -> NDArray[np.float64]:
    """Distance (mm) of every cell pixel from ``centre_mm`` on the cell's torus."""
    size = CELL_PX / PX_PER_MM
    dx = (_CELL_XX - centre_mm[0] + size / 2) % size - size / 2
    dy = (_CELL_YY - centre_mm[1] + size / 2) % size - size / 2
    return np.hypot(dx, dy)


def _ring(centre_mm: FloatArray, radius_mm: float) -> NDArray[np.float64]:
    """A thin ring on the cell's torus (the cell wraps around), origin at pixel (0, 0)."""
    return np.exp(-0.5 * ((_torus_distance(centre_mm) - radius_mm) / 0.35) ** 2)


def _disc(centre_mm: FloatArray, radius_mm: float) -> NDArray[np.float64]:
    """A soft-edged disc on the cell's torus."""
    return np.clip((radius_mm - _torus_distance(centre_mm)) * PX_PER_MM + 0.5, 0.0, 1.0)


@functools.lru_cache(maxsize=4096)
def _spectra(px10: int, py10: int) -> tuple[NDArray[np.complex128], NDArray[np.complex128]]:
    """Both templates' spectra for a parallax rounded to a tenth of a millimetre."""
    parallax = np.array([px10 / 10, py10 / 10])
    return stud_spectrum(parallax), shade_spectrum(parallax)


@functools.lru_cache(maxsize=16)
def _template_stack(parallaxes: tuple[tuple[int, int], ...]) -> NDArray[np.complex128]:
    """Edge spectra of all blocks, then their shade spectra, for parallaxes in tenths of a mm.

    A tracked board barely moves, so from one frame to the next its blocks' parallaxes,
    rounded this coarsely, repeat and the stack is built once. Each stack is 130 kB, so
    only the last few are kept.
    """
    pairs = [_spectra(*p) for p in parallaxes]
    stack = np.stack([p[0] for p in pairs] + [p[1] for p in pairs])
    stack.setflags(write=False)
    return stack


def shade_spectrum(parallax_mm: FloatArray) -> NDArray[np.complex128]:
    """Conjugate spectrum of a stud's brightness: a top ringed by a dark hole in the card.

    Whatever colour the card is, the shadowed plate showing through the card's hole is
    darker than both the plastic top inside it and the card outside it; this is what
    tells a stud's centre from the gap between four studs, where edges look alike.
    """
    top = _disc(np.zeros(2), STUD_DIAMETER_MM / 2)
    hole = np.clip(_disc(parallax_mm, HOLE_RADIUS_MM) - top, 0, 1)
    card = np.clip(
        _disc(parallax_mm, HOLE_RADIUS_MM + 0.9) - _disc(parallax_mm, HOLE_RADIUS_MM) - top, 0, 1
    )
    # The hole is a dark valley between the top and the card, whichever of them is
    # brighter; between four studs there is no such valley.
    template = 0.5 * top / top.sum() + 0.5 * card / card.sum() - hole / max(hole.sum(), 1e-6)
    template -= template.mean()
    return np.conj(np.fft.fft2(template))


def stud_spectrum(parallax_mm: FloatArray) -> NDArray[np.complex128]:
    """Conjugate spectrum of what a stud's edges look like on the stud-top plane.

    The top's rim is a circle at the origin; the stud's foot and the card's hole around
    it lie 1.7 mm lower, so on this plane they appear shifted by the parallax of that
    height as the camera sees it. Modelling them keeps them from pulling the match.
    """
    template = (
        _ring(np.zeros(2), STUD_DIAMETER_MM / 2)
        + 0.5 * _ring(parallax_mm, STUD_DIAMETER_MM / 2)
        + 0.5 * _ring(parallax_mm, HOLE_RADIUS_MM)
    )
    template -= template.mean()
    return np.conj(np.fft.fft2(template))


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


def lattice_offsets(gray: NDArray[np.float32], camera: Camera, pose: Pose) -> LatticeView:
    """The lattice as seen from ``pose``: block offsets for the fit, stud cells for the map."""
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
            return LatticeView(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0))
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
    corr_both = np.real(np.fft.ifft2(np.fft.fft2(folded) * _template_stack(key)))
    corr_e, corr_s = corr_both[:blocks], corr_both[blocks:]
    corr = corr_e / (corr_e.std(axis=(1, 2), keepdims=True) + 1e-9) + corr_s / (
        corr_s.std(axis=(1, 2), keepdims=True) + 1e-9
    )
    sx, sy, peak = _subpixel_peaks(corr)
    spread = corr.std(axis=(1, 2)) / 2
    clarity = np.where(spread > 0, peak / np.where(spread > 0, spread, 1.0), 0.0)
    return LatticeView(centres, np.stack([sx, sy], axis=1) / PX_PER_MM, clarity, stud_scores(mag))


@functools.lru_cache(maxsize=MAX_SEED_BLOCKS + 1)
def _triples(n: int) -> NDArray[np.int64]:
    """Every choice of three of ``n`` seeds in increasing order, worked out once per count."""
    triples = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    triples.setflags(write=False)
    return triples


def consensus_offsets(
    centres: FloatArray, offsets: FloatArray, usable: NDArray[np.bool_], tol_mm: float = 0.8
) -> tuple[NDArray[np.bool_], FloatArray]:
    """The blocks that agree on one smooth lattice shift, and their offsets unwrapped.

    Each block only knows its offset modulo one stud. A start pose a few pixels off
    shifts the lattice smoothly across the board (nearly an affine field), so three
    blocks fix the field and the others either follow it, modulo a stud, or see
    something else. The field with the most followers wins, and every follower's offset
    is taken as the field predicts it, whole studs included: a start off by more than
    half a stud at the far end still converges, where taking each offset as seen
    would fold those blocks back by a stud.
    """
    idx = np.flatnonzero(usable)
    if len(idx) > MAX_SEED_BLOCKS:
        # Fields are proposed from well-spread blocks only (every block still votes):
        # the four corners and the centre cover the board, and the count stays small.
        spread = np.linalg.norm(centres[idx] - centres[idx].mean(axis=0), axis=1)
        idx = np.sort(idx[np.argsort(-spread, kind="stable")[:MAX_SEED_BLOCKS]])
    if len(idx) < 3:
        return np.zeros(len(offsets), bool), offsets
    triples = idx[_triples(len(idx))]
    design = np.concatenate([centres[triples], np.ones((*triples.shape, 1))], axis=2)
    ok = np.abs(np.linalg.det(design)) > 1e-6
    triples, design = triples[ok], design[ok]
    if len(triples) == 0:
        return np.zeros(len(offsets), bool), offsets
    coef = np.linalg.solve(design, offsets[triples])  # T x 3 x 2
    full = np.concatenate([centres, np.ones((len(centres), 1))], axis=1)
    predicted = np.matmul(full[None], coef)  # T x B x 2
    wrapped = (offsets[None] - predicted + STUD_MM / 2) % STUD_MM - STUD_MM / 2
    err = np.maximum(np.abs(wrapped[..., 0]), np.abs(wrapped[..., 1]))
    # Blocks lie a whole number of studs apart, so a field rising by a stud from one
    # block to the next fits every block exactly as well as a flat one: only fields
    # changing by less than half a stud between neighbouring blocks are candidates.
    steep = np.abs(coef[:, :2, :]).max(axis=(1, 2)) * BLOCK_MM >= STUD_MM / 2
    inliers = (err < tol_mm) & usable[None] & ~steep[:, None]
    count = inliers.sum(axis=1)
    cost = count - np.where(inliers, err, 0.0).sum(axis=1) / (tol_mm * len(offsets) + 1)
    best = int(np.argmax(cost))
    unwrapped = predicted[best] + wrapped[best]
    return inliers[best], unwrapped


def align_on_grid(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, rounds: int = 2, min_clarity: float = 2.5
) -> Pose:
    """The pose slid in its plane so that its studs sit on the lattice's, plane kept.

    A pose from the lattice's squeeze (:mod:`calibration.lattice_pose`) has its plane
    within a degree or two but its place anywhere within half a stud. A full fit from
    there, on the few blocks an arm leaves, can tilt the plane by several degrees to
    absorb that half stud; sliding first, by the blocks' common offset, leaves the fit
    only the small tilt to correct (over 5 frames with a hidden outline, the fit's
    turn error fell from 5 to 8 degrees to under 0.7).
    """
    current = pose
    for _ in range(rounds):
        centres, offsets, clarity, _ = lattice_offsets(gray, camera, current)
        good = clarity >= min_clarity
        if good.sum() < 3:
            break
        good, offsets = consensus_offsets(centres, offsets, good)
        if good.sum() < 3:
            break
        dx, dy = np.median(offsets[good], axis=0)
        current = Pose(current.rvec, current.tvec + current.rotation @ np.array([dx, dy, 0.0]))
    return current


def refine_on_grid(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    rounds: int = 2,
    min_clarity: float = 2.5,
    max_rounds: int | None = None,
) -> GridFit | None:
    """The pose moved so that the stud lattice sits where it is seen, or None if unseen.

    ``rounds`` are always run. Up to ``max_rounds`` in all are run while the fit is still
    settling: a start a few pixels off with part of the board hidden gathers more agreeing
    blocks each round (8, 11, 13 of 16 has been seen), and its residual only falls under
    the allowance on the third or fourth round. Rounds stop as soon as one no longer cuts
    the residual clearly, so a fit locked onto something else does not wander further.
    """
    first = fit = _refine_rounds(gray, camera, pose, rounds, min_clarity)
    limit = rounds if max_rounds is None else max_rounds
    done = rounds
    while fit is not None and done < limit and fit.residual_px > SETTLED_PX:
        more = _refine_rounds(gray, camera, fit.pose, 1, min_clarity)
        done += 1
        if more is None or more.residual_px > SETTLE_GAIN * fit.residual_px:
            break
        fit = more
    if fit is not first and fit is not None and fit.blocks < SETTLED_BLOCKS:
        # Settling on a few blocks only lets a pose leaning the wrong way fit them
        # tightly: extra rounds must end with most of the board agreeing.
        return first
    return fit


def _refine_rounds(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    rounds: int,
    min_clarity: float,
) -> GridFit | None:
    current = pose
    fit: GridFit | None = None
    span = (CELLS_PER_BLOCK / 2 - 0.5) * STUD_MM
    corners = np.array([[-span, -span], [span, -span], [span, span], [-span, span]])
    for _ in range(rounds):
        centres, offsets, clarity, studs = lattice_offsets(gray, camera, current)
        good = clarity >= min_clarity
        if good.sum() < MIN_BLOCKS:
            return fit
        good, offsets = consensus_offsets(centres, offsets, good)
        if good.sum() < MIN_BLOCKS:
            return fit
        # Several studs per block keep the solve well conditioned; all share its offset.
        board = (centres[good][:, None, :] + corners[None]).reshape(-1, 2)
        seen = board + np.repeat(offsets[good], len(corners), axis=0)
        z = np.full((len(board), 1), STUD_HEIGHT_MM)
        obj = np.hstack([board, z])
        img = project(camera, current, np.hstack([seen, z]))
        keep = np.ones(len(obj), bool)
        trial = current
        err = np.zeros(len(obj))
        for _ in range(2):
            rvec, tvec = cv2.solvePnPRefineLM(
                obj[keep].reshape(-1, 1, 3),
                img[keep].reshape(-1, 1, 2),
                camera.camera_matrix,
                camera.dist_coeffs,
                current.rvec.reshape(3, 1).copy(),
                current.tvec.reshape(3, 1).copy(),
            )
            trial = Pose(rvec.reshape(3), tvec.reshape(3))
            err = np.linalg.norm(project(camera, trial, obj) - img, axis=1)
            # A block whose offset the others do not share is seeing something else
            # (a hand, a piece's studs): drop it and solve again.
            block_err = err.reshape(-1, len(corners)).max(axis=1)
            limit = max(3.0 * float(np.median(block_err)), 0.5)
            agree = block_err < limit
            keep = np.repeat(agree, len(corners))
            if keep.sum() < len(corners) * MIN_BLOCKS:
                return fit
            if agree.all():
                break  # nothing dropped: a second solve would repeat the first exactly
        current = trial
        used = keep.reshape(-1, len(corners))[:, 0]
        residual = float(np.sqrt(np.mean(err.reshape(-1, len(corners))[used] ** 2)))
        block_clarity = clarity[np.flatnonzero(good)[used]]
        agreeing = centres[np.flatnonzero(good)[used]]
        extent = np.ptp(agreeing, axis=0)
        fit = GridFit(
            current,
            int(used.sum()),
            residual,
            float(np.median(block_clarity)),
            studs,
            (float(extent[0]), float(extent[1])),
        )
    return fit
