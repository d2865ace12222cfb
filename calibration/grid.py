"""Sub-pixel alignment on the stud lattice: the pose moved so its studs sit on the seen ones.

Edges pin the board to within a pixel or two, but a textured board offers a step to
every edge search and the fit can settle a little off. The lattice's block offsets
(:mod:`calibration.lattice_view`) each know the shift only modulo a stud; the blocks
that agree on one smooth shift, turned into point pairs, correct the pose.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import slid_pose
from calibration.camera import Camera, FloatArray, Pose, project
from calibration.lattice_view import CELLS_PER_BLOCK, LatticeView, lattice_offsets
from rules.pieces import STUD_HEIGHT_MM, STUD_MM

MIN_BLOCKS = 4
MAX_SEED_BLOCKS = 10
BLOCK_MM = CELLS_PER_BLOCK * STUD_MM
SETTLED_PX = 0.4
"""A fit with a residual under this has converged; above it, extra rounds may still help."""
SETTLED_BLOCKS = 10
"""Blocks a fit that took extra rounds must end with, or the extra rounds are undone."""
SETTLE_GAIN = 0.8
"""An extra round is kept going only while each one cuts the residual to this share or less."""
SETTLING_BLOCKS = 7
"""Blocks a first fit must agree on for extra rounds to be tried. Extra rounds are kept
only if they end on :data:`SETTLED_BLOCKS`, and a fit starting on fewer has not got
there: on 150 development frames, of 340 fits (from outlines, the lattice, corners)
whose first rounds agreed on 4 to 6 blocks, one reached ten, and was refused, while
fits from 7 blocks reached 10 to 16. Most starts a search refuses are such fits, so
their extra rounds were a third of what a refused outline cost."""


@dataclass
class GridFit:
    """Pose after lattice alignment, blocks that agreed and their residual (px)."""

    pose: Pose
    blocks: int
    residual_px: float
    clarity: float = 0.0  # median peak clarity of the blocks used
    look: LatticeView | None = None  # the last look at the lattice, whose cells it reads
    blind_blocks: NDArray[np.intp] | None = None
    """The blocks of :attr:`look` the fit used, when the look can say how clear they are to
    the top-blind template (:attr:`blind_clarity`)."""

    @property
    def blind_clarity(self) -> float:
        """Median peak clarity of the blocks used with the top-blind template (0 unless
        asked of the fit), worked out when read: a fit that is taken never reads it."""
        if self.blind_blocks is None or self.look is None:
            return 0.0
        return float(np.median(self.look.blind_clarity[self.blind_blocks]))

    @property
    def studs(self) -> FloatArray | None:
        """Per cell (y-major): how clearly its stud shows, from the fit's last look."""
        return None if self.look is None else self.look.studs


@functools.lru_cache(maxsize=MAX_SEED_BLOCKS + 1)
def _triples(n: int) -> NDArray[np.int64]:
    """Every choice of three of ``n`` seeds in increasing order, worked out once per count."""
    triples = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    triples.setflags(write=False)
    return triples


@functools.lru_cache(maxsize=64)
def _fields(
    centres_key: bytes, usable_key: bytes, count: int
) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """For a set of block centres and the usable ones: the seed triples, the inverse of
    each triple's design matrix (T x 3 x 3) and every block's row ``[x, y, 1]`` (B x 3).

    The blocks sit on a fixed grid and are mostly all seen, so from frame to frame the
    same few sets come back and their solves are done once.
    """
    centres = np.frombuffer(centres_key).reshape(count, 2)
    usable = np.frombuffer(usable_key, dtype=np.bool_)
    idx = np.flatnonzero(usable)
    if len(idx) > MAX_SEED_BLOCKS:
        # Fields are proposed from well-spread blocks only (every block still votes):
        # the four corners and the centre cover the board, and the count stays small.
        spread = np.linalg.norm(centres[idx] - centres[idx].mean(axis=0), axis=1)
        idx = np.sort(idx[np.argsort(-spread, kind="stable")[:MAX_SEED_BLOCKS]])
    full = np.concatenate([centres, np.ones((count, 1))], axis=1)
    if len(idx) < 3:
        return np.zeros((0, 3), np.int64), np.zeros((0, 3, 3)), full
    triples = idx[_triples(len(idx))]
    design = full[triples]
    ok = np.abs(np.linalg.det(design)) > 1e-6
    triples, design = triples[ok], design[ok]
    inverses = np.linalg.inv(design) if len(triples) else np.zeros((0, 3, 3))
    for array in (triples, inverses, full):
        array.setflags(write=False)
    return triples, inverses, full


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
    centres = np.ascontiguousarray(centres, dtype=np.float64)
    usable = np.ascontiguousarray(usable, dtype=np.bool_)
    triples, inverses, full = _fields(centres.tobytes(), usable.tobytes(), len(centres))
    if len(triples) == 0:
        return np.zeros(len(offsets), bool), offsets
    coef = np.matmul(inverses, offsets[triples])  # T x 3 x 2
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
        view = lattice_offsets(gray, camera, current)
        centres, offsets, clarity = view.centres, view.offsets, view.clarity
        good = clarity >= min_clarity
        if good.sum() < 3:
            break
        good, offsets = consensus_offsets(centres, offsets, good)
        if good.sum() < 3:
            break
        dx, dy = np.median(offsets[good], axis=0)
        current = slid_pose(current, dx, dy)
    return current


def refine_on_grid(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    rounds: int = 2,
    min_clarity: float = 2.5,
    max_rounds: int | None = None,
    top_blind: bool = False,
    blind_too: bool = False,
) -> GridFit | None:
    """The pose moved so that the stud lattice sits where it is seen, or None if unseen.

    ``rounds`` are always run. Up to ``max_rounds`` in all are run while the fit is still
    settling: a start a few pixels off with part of the board hidden gathers more agreeing
    blocks each round (8, 11, 13 of 16 has been seen), and its residual only falls under
    the allowance on the third or fourth round. Rounds stop as soon as one no longer cuts
    the residual clearly, so a fit locked onto something else does not wander further,
    and are not tried from a first fit on fewer than :data:`SETTLING_BLOCKS`.

    ``top_blind`` and ``blind_too`` as for :func:`lattice_offsets`; with ``blind_too``
    the fit's ``blind_clarity`` is that of its last look.
    """
    first = fit = _refine_rounds(gray, camera, pose, rounds, min_clarity, top_blind, blind_too)
    limit = rounds if max_rounds is None else max_rounds
    done = rounds
    settling = first is not None and first.blocks >= SETTLING_BLOCKS
    while settling and fit is not None and done < limit and fit.residual_px > SETTLED_PX:
        more = _refine_rounds(gray, camera, fit.pose, 1, min_clarity, top_blind, blind_too)
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
    top_blind: bool = False,
    blind_too: bool = False,
) -> GridFit | None:
    current = pose
    fit: GridFit | None = None
    span = (CELLS_PER_BLOCK / 2 - 0.5) * STUD_MM
    corners = np.array([[-span, -span], [span, -span], [span, span], [-span, span]])
    for _ in range(rounds):
        view = lattice_offsets(gray, camera, current, top_blind, blind_too)
        centres, offsets, clarity = view.centres, view.offsets, view.clarity
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
        taken = np.flatnonzero(good)[used]
        fit = GridFit(
            current, int(used.sum()), residual, float(np.median(clarity[taken])), view,
            taken if blind_too else None,
        )
    return fit
