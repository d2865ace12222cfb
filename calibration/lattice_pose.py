"""The board's pose from its stud lattice alone, for frames where no outline fits.

An arm across two sides, a green sleeve that merges with the plate, a card pushed over a
corner: each bends or breaks the plate's outline, and a pose started from a broken
outline is too far off for the lattice fit to reach. The studs themselves are still
there wherever the board shows. Every patch of studs is a small view of one known square
lattice (8 mm), and how that lattice is squeezed and turned from patch to patch fixes
the board's plane: its tilt, its turn and its distance. Only where the board lies in
that plane is left open, and the lattice fit (to a stud) and the board's sides (which
stud is the edge's) settle that afterwards, as they do for an outline's pose.

Each patch's lattice comes from its autocorrelation (:mod:`calibration.lattice_patches`):
the two shortest repeats of the stud pattern are the lattice's steps as the image shows
them there. One patch gives the
plane up to the usual mirror ambiguity of a flat pattern seen from afar; all patches
together, fitted with full perspective, give the one plane that squeezes the lattice
right everywhere. A striped or checked table repeats too, in more windows than the board
may fill: the patches no fit explains are looked at again, group by group.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import CENTRE
from calibration.camera import Camera, FloatArray, Pose, rays_through
from calibration.lattice_patches import STRIDE_PX, WINDOW_PX, Patch, lattice_patches
from calibration.lattice_plane import (
    BOARD_MIDDLE,
    MIN_PATCHES,
    anchored,
    fit_plane,
    fit_planes,
    misfit,
    plane_params,
    poses_from_steps,
    steps_of,
)
from rules.pieces import BOARD_STUDS, STUD_MM

MAX_SEEDS = 4
MAX_REACH = 10
UNIMODULAR = [
    np.array(m, dtype=np.float64)
    for m in (
        [[1, 0], [0, 1]],
        [[1, 1], [0, 1]],
        [[1, -1], [0, 1]],
        [[1, 0], [1, 1]],
        [[1, 0], [-1, 1]],
    )
]
"""A patch's two shortest repeats are two rows of studs, or a row and a diagonal when the
board is seen obliquely and turned: these are the bases to try."""


@dataclass(frozen=True)
class LatticePose:
    """A pose whose plane and turn the lattice fixed, and how many studs its place may be off."""

    pose: Pose
    reach: int


def lattice_poses(
    gray: NDArray[np.float32],
    camera: Camera,
    limit: int = 2,
    stride: int = STRIDE_PX,
    patches: list[Patch] | None = None,
) -> Iterator[LatticePose]:
    """Board poses whose plane and turn fit the stud lattice seen across the picture.

    The board is placed in the middle of where it can be: it must cover every patch
    that fits, so the more of it shows, the fewer studs its place is open by. Best fit
    (most patches) first; none when too few patches show a lattice. Windows lie
    ``stride`` pixels apart: :data:`DENSE_STRIDE_PX` sees a small board in four times
    as many places, at four times the cost. ``patches`` already read are used as they are.

    The poses come one by one, each worked out only when asked for: a search takes the
    first pose the board's checks accept, which is the first fit's on most frames, and
    the second look over the patches the first fits left (half the frames a lattice
    start found had one, 18 ms each) is then never made.
    """
    if patches is None:
        patches = lattice_patches(gray, stride)
    return _poses_from(patches, camera, limit)


def _poses_from(patches: list[Patch], camera: Camera, limit: int) -> Iterator[LatticePose]:
    """:func:`lattice_poses` from one set of patches.

    Seeded from the patches nearest the middle of them all, which are the board's
    wherever the board fills most of the textured picture. Where it does not (a striped
    or checked table, whose own repeats pass for a lattice in most windows), those seeds
    are the table's: then the patches no fit explains are looked at again, seeded from
    across them and ranked by how many of them each seed explains (:func:`_second_look`).
    """
    if len(patches) < MIN_PATCHES:
        return
    centres = np.array([p.centre for p in patches])
    steps = np.array([p.steps for p in patches])
    rays = rays_through(camera, centres)
    # Seeds from the patches nearest the middle of all of them, strongest first.
    middle = np.median(centres, axis=0)
    near = np.argsort(np.linalg.norm(centres - middle, axis=1))[:3]
    anchor = rays_through(camera, middle[None])[0]
    seeds = _seeds(camera, patches, near, anchor, rays, steps)
    seeds.sort(key=lambda item: item[0])
    fits = _fits(camera, [seed for _, seed, _ in seeds[:MAX_SEEDS]], rays, steps, anchor)
    out: list[LatticePose] = []
    explained = np.zeros(len(patches), bool)
    for _, fit, inliers in fits:
        if len(out) == limit:
            break
        if all(_tilt_between(fit.pose, p.pose) > 2.0 for p in out):
            out.append(fit)
            explained |= inliers
    # Which patches the first fits explain is settled before the first is handed on.
    unexplained = [p for p, e in zip(patches, explained, strict=True) if not e]
    yield from out
    if len(unexplained) >= MIN_PATCHES:
        yield from _second_look(unexplained, camera)


SECOND_SEEDS = 12
"""Groups of patches a second look weighs (it fits the largest :data:`MAX_SEEDS`)."""
NEIGHBOUR_PX = 1.5 * WINDOW_PX
"""How far apart two patches may lie to be neighbours that should repeat alike."""
SEED_TOLERANCE = 0.2
"""Misfit under which a seed is said to explain a patch (a seed read off one patch is a
few per cent off elsewhere; the fit itself narrows to :data:`INLIER_MISFIT`)."""


def _second_look(patches: list[Patch], camera: Camera) -> list[LatticePose]:
    """The best lattice among patches the first fits left, each group of them fitted alone.

    A board beside a striped table had 35 of 171 patches at 40 px, none near the middle
    of them all: the first seeds were the stripes', and no plane fitted. Each group of
    neighbouring patches that repeat alike (:func:`_groups`) is fitted on its own patches
    first, from the seed that fits them best, and then over all the patches left; the
    fit most of them agree with stands.
    """
    centres = np.array([p.centre for p in patches])
    steps = np.array([p.steps for p in patches])
    rays = rays_through(camera, centres)
    best: tuple[int, LatticePose] | None = None
    for seed_at, members in _groups(centres, steps)[:MAX_SEEDS]:
        # Anchored in the group's middle: a seed read off one patch holds its distance
        # there, and a third of a step off at the middle of all patches (a table's).
        anchor = rays_through(camera, np.median(centres[members], axis=0)[None])[0]
        seeds = _seeds(camera, patches, seed_at, anchor, rays[members], steps[members])
        seeds.sort(key=lambda item: item[0])
        for _, seed, _ in seeds[:MAX_SEEDS]:
            local, inliers = fit_plane(camera, seed, rays[members], steps[members], anchor)
            if inliers.sum() < MIN_PATCHES:
                continue
            pose, inliers = fit_plane(camera, local, rays, steps, anchor)
            count = int(inliers.sum())
            if count >= MIN_PATCHES and (best is None or count > best[0]):
                best = (count, _placed(pose, rays[inliers]))
            break
    return [] if best is None else [best[1]]


def _groups(
    centres: FloatArray, steps: FloatArray
) -> list[tuple[NDArray[np.intp], NDArray[np.bool_]]]:
    """Groups of neighbouring patches that repeat alike, largest first: each as the
    patches to seed from (the one most of its neighbours agree with, and two of those),
    and the patches within two agreements of it.

    Greedy: a patch already in a chosen group's core does not start another.
    """
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) <= NEIGHBOUR_PX
    agree = np.array(
        [misfit(steps, np.broadcast_to(s, steps.shape)) < SEED_TOLERANCE for s in steps]
    )
    agree &= near & agree.T
    count = agree.sum(axis=1)
    free = np.ones(len(centres), bool)
    groups: list[tuple[NDArray[np.intp], NDArray[np.bool_]]] = []
    for i in np.argsort(-count, kind="stable"):
        if len(groups) == SECOND_SEEDS or count[i] < MIN_PATCHES:
            break
        if free[i]:
            core = agree[i]
            # Seeds from the patch and the two of its core most patches agree with: one
            # patch's own steps have been a third off the group's plane.
            ranked = np.flatnonzero(core)[np.argsort(-count[core], kind="stable")]
            seeds = np.unique(np.concatenate([[i], ranked[ranked != i][:2]]))
            groups.append((seeds, core | agree[core].any(axis=0)))
            free &= ~core
    return groups


def _seeds(
    camera: Camera,
    patches: list[Patch],
    chosen: NDArray[np.intp],
    anchor: FloatArray,
    rays: FloatArray,
    steps: FloatArray,
) -> list[tuple[float, Pose, FloatArray]]:
    """Poses read off each chosen patch, with their median misfit and every patch's."""
    moved: list[Pose] = []
    for i in chosen:
        ray = rays_through(camera, patches[i].centre[None])[0]
        for u in UNIMODULAR:
            for seed in poses_from_steps(camera, patches[i], patches[i].steps @ u, ray):
                moved.append(anchored(plane_params(seed), anchor))
    if not moved:
        return []
    misfits = misfit(steps, steps_of(camera, moved, rays))
    medians = np.median(misfits, axis=1)
    return [(float(m), p, each) for m, p, each in zip(medians, moved, misfits, strict=True)]


def _fits(
    camera: Camera, seeds: list[Pose], rays: FloatArray, steps: FloatArray, anchor: FloatArray
) -> list[tuple[int, LatticePose, NDArray[np.bool_]]]:
    """Each seed fitted, kept when enough patches fit it, most patches first."""
    fits: list[tuple[int, LatticePose, NDArray[np.bool_]]] = []
    for pose, inliers in fit_planes(camera, seeds, rays, steps, anchor):
        if inliers.sum() >= MIN_PATCHES:
            fits.append((int(inliers.sum()), _placed(pose, rays[inliers]), inliers))
    fits.sort(key=lambda item: -item[0])
    return fits


def _placed(pose: Pose, rays: FloatArray) -> LatticePose:
    """The pose slid in its plane to the middle of the places where the board covers the rays.

    Patches are read where the rays meet the stud tops; the board spans 32 studs, so its
    origin lies between the far patch minus the board and the near patch. Percentiles,
    not extremes, so that one patch on a patterned table cannot empty the range.
    """
    rot = pose.rotation
    normal = rot[:, 2]
    offset = float(normal @ (rot @ BOARD_MIDDLE + pose.tvec))
    on_plane = pose.to_board(rays * (offset / (rays @ normal))[:, None])[:, :2]
    low = np.percentile(on_plane, 5, axis=0)
    high = np.percentile(on_plane, 95, axis=0)
    span = BOARD_STUDS * STUD_MM
    slack = np.maximum(span - (high - low), 0.0)
    middle = (low + high) / 2  # where the board's middle goes: the range's middle
    reach = int(np.ceil(float(slack.max()) / 2 / STUD_MM)) + 1
    shift = middle - CENTRE[:2]
    moved = Pose(pose.rvec, pose.tvec + rot @ np.array([shift[0], shift[1], 0.0]))
    return LatticePose(moved, min(reach, MAX_REACH))


def _tilt_between(a: Pose, b: Pose) -> float:
    """Degrees between two poses' board normals (quarter turns about it look alike)."""
    return float(np.degrees(np.arccos(np.clip(a.rotation[:, 2] @ b.rotation[:, 2], -1, 1))))
