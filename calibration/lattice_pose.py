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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import CENTRE
from calibration.camera import Camera, FloatArray, Pose, project_poses
from calibration.lattice_patches import STRIDE_PX, WINDOW_PX, Patch, lattice_patches
from rules.pieces import BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM

MIN_PATCHES = 6
MAX_SEEDS = 4
MAX_REACH = 10
INLIER_MISFIT = 0.08
"""A patch fits a plane when its steps are within this share of a step of the predicted."""
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


def _rays(camera: Camera, px: FloatArray) -> FloatArray:
    """Unit-depth camera rays through distorted pixels."""
    und = cv2.undistortPoints(px.reshape(-1, 1, 2), camera.camera_matrix, camera.dist_coeffs)
    return np.hstack([und.reshape(-1, 2), np.ones((len(px), 1))])


def predicted_steps(camera: Camera, pose: Pose, rays: FloatArray) -> FloatArray:
    """The image steps of one stud along x and y where each ray meets the stud tops (N x 2 x 2)."""
    return _steps_of(camera, [pose], rays)[0]


def _steps_of(camera: Camera, poses: Sequence[Pose], rays: FloatArray) -> FloatArray:
    """:func:`predicted_steps` for several poses at once (K x N x 2 x 2): a fit's Jacobian
    and a search's seeds ask a handful of poses about the same few dozen patches."""
    rot = np.stack([pose.rotation for pose in poses])
    tvec = np.stack([pose.tvec for pose in poses])
    normal = rot[:, :, 2]
    # The stud-top plane in camera coordinates: normal . X = normal . (R z_top + t).
    offset = np.sum(normal * (normal * STUD_HEIGHT_MM + tvec), axis=1)
    depth = offset[:, None] / (normal @ rays.T)
    points = np.matmul(rays[None] * depth[..., None] - tvec[:, None], rot)
    half = STUD_MM / 2
    dx, dy = np.array([half, 0.0, 0.0]), np.array([0.0, half, 0.0])
    probes = np.concatenate([points + dx, points - dx, points + dy, points - dy], axis=1)
    px = project_poses(camera, poses, probes).reshape(len(poses), 4, -1, 2)
    return np.stack([px[:, 0] - px[:, 1], px[:, 2] - px[:, 3]], axis=3)


def _misfit(measured: FloatArray, predicted: FloatArray) -> FloatArray:
    """Per patch, how far its measured steps are from the nearest basis of the predicted lattice.

    The measured pair is any short basis of the lattice, in any order and sign, so the
    predicted rows are recombined with the integer matrix that matches best. ``predicted``
    may hold several poses' steps (K x N x 2 x 2), for K x N misfits.
    """
    inv = np.linalg.inv(predicted)
    coeffs = np.round(inv @ measured)
    det = np.abs(np.linalg.det(coeffs))
    matched = predicted @ coeffs
    scale = np.linalg.norm(measured, axis=-2).mean(axis=-1)
    err = np.linalg.norm(measured - matched, axis=-2).max(axis=-1) / scale
    return np.where(np.abs(det - 1) < 0.5, err, 1.0)


def _pose_from_steps(
    camera: Camera, patch: Patch, basis: FloatArray, ray: FloatArray | None = None
) -> list[Pose]:
    """The two mirror-image planes whose lattice, seen at ``patch``, has steps ``basis``.

    Locally the view is affine: the steps, over the focal length, are the first two
    rows of the rotation's first two columns scaled by stud / depth. Both columns being
    unit length and orthogonal leaves a quadratic in the squared scale. ``ray`` is the
    camera ray through the patch's centre, when already worked out (:func:`_seeds` asks
    ten bases of each patch).
    """
    f = camera.fx
    m = basis / f
    a, b, d = float(m[:, 0] @ m[:, 0]), float(m[:, 1] @ m[:, 1]), float(m[:, 0] @ m[:, 1])
    disc = (a + b) ** 2 - 4 * (a * b - d * d)
    if a * b - d * d <= 1e-12 or disc < 0:
        return []
    q = ((a + b) - np.sqrt(disc)) / (2 * (a * b - d * d))
    if q * max(a, b) > 1:
        return []
    k = np.sqrt(q)
    poses = []
    for sign in (1.0, -1.0):
        c1 = sign * np.sqrt(max(0.0, 1 - q * a))
        c2 = -q * d / c1 if abs(c1) > 1e-6 else sign * np.sqrt(max(0.0, 1 - q * b))
        r1 = np.array([k * m[0, 0], k * m[1, 0], c1])
        r2 = np.array([k * m[0, 1], k * m[1, 1], c2])
        u, _, vt = np.linalg.svd(np.stack([r1, r2], axis=1), full_matrices=False)
        r12 = u @ vt
        r3 = _cross(r12[:, 0], r12[:, 1])
        if r3[2] > 0:  # the plate's top must face the camera
            r12 = r12[:, ::-1]
            r3 = -r3
        rot = np.column_stack([r12, r3])
        depth = k * STUD_MM  # depth of the patch's stud tops
        if ray is None:
            ray = _rays(camera, patch.centre[None])[0]
        at = ray * depth
        tvec = at - rot @ _MIDDLE
        poses.append(Pose.from_matrix(rot, tvec))
    return poses


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """``np.cross`` of two 3-vectors, the same products and differences without its
    general machinery (a search makes sixty of them)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def _fit(
    camera: Camera, pose: Pose, rays: FloatArray, steps: FloatArray, anchor: FloatArray
) -> tuple[Pose, NDArray[np.bool_]]:
    """Gauss-Newton on tilt, turn and distance over the patches that fit, centre on ``anchor``.

    Patches that see something else (a checked tablecloth, a card's print, a patch
    straddling the board's side) are left out at every step by their misfit, and which
    integer recombination of the predicted rows each patch's pair matches is settled
    before every step and held during it, so the residual stays smooth.
    """
    return _fit_all(camera, [pose], rays, steps, anchor)[0]


def _fit_all(
    camera: Camera, poses: Sequence[Pose], rays: FloatArray, steps: FloatArray,
    anchor: FloatArray,
) -> list[tuple[Pose, NDArray[np.bool_]]]:
    """:func:`_fit` of several seeds over the same patches, stepped side by side.

    Each seed's steps are its own; what they share is the prediction of every trial pose's
    steps, one batch a round for all the seeds still running instead of one per seed
    (the batch's fixed cost was most of a fit's).
    """
    params = [_params(pose) for pose in poses]
    out: list[tuple[Pose, NDArray[np.bool_]] | None] = [None] * len(poses)
    running = list(range(len(poses)))
    settled: list[int] = []
    # A seed read off one patch is a few per cent off elsewhere: the tolerance starts
    # wide and narrows as the plane settles.
    for tolerance in (0.3, 0.2, 0.12, INLIER_MISFIT, INLIER_MISFIT, INLIER_MISFIT):
        if not running:
            break
        # Every running seed's pose and its four nudges, for the Jacobian, in one batch.
        trials = [[params[k], *(params[k] + dp for dp in _NUDGES)] for k in running]
        batch = _steps_of(camera, [_anchored(p, anchor) for t in trials for p in t], rays)
        batch = batch.reshape(len(running), len(_NUDGES) + 1, *batch.shape[1:])
        still: list[int] = []
        for k, preds in zip(running, batch, strict=True):
            inliers = _misfit(steps, preds[0]) < tolerance
            if inliers.sum() < MIN_PATCHES:
                out[k] = (_anchored(params[k], anchor), inliers)
                continue
            coeffs = np.round(np.linalg.inv(preds[0][inliers]) @ steps[inliers])
            residuals = (steps[inliers] - preds[:, inliers] @ coeffs).reshape(len(preds), -1)
            r0 = residuals[0]
            jac = np.empty((len(r0), 4))
            for j, eps in enumerate(_JACOBIAN_STEPS):
                jac[:, j] = (residuals[j + 1] - r0) / eps
            step = np.linalg.lstsq(jac, -r0, rcond=None)[0]
            params[k] = params[k] + step
            if tolerance == INLIER_MISFIT and np.abs(step[:3]).max() < 1e-5:
                settled.append(k)
            else:
                still.append(k)
        running = still
    finishing = sorted(settled + running)
    if finishing:
        finals = [_anchored(params[k], anchor) for k in finishing]
        misfits = _misfit(steps, _steps_of(camera, finals, rays))
        for k, final, misfit in zip(finishing, finals, misfits, strict=True):
            out[k] = (final, misfit < INLIER_MISFIT)
    return [fit for fit in out if fit is not None]


_JACOBIAN_STEPS = (1e-4, 1e-4, 1e-4, 0.5)
"""Finite-difference steps of the rotation vector (rad) and the distance (mm)."""
_NUDGES = np.diag(_JACOBIAN_STEPS)
"""Each parameter nudged alone by its step: the rows added to a pose's parameters."""


_MIDDLE = np.array([CENTRE[0], CENTRE[1], STUD_HEIGHT_MM])


def _params(pose: Pose) -> FloatArray:
    """Rotation vector and the distance from the camera to the board's middle."""
    return np.concatenate([pose.rvec, [float(np.linalg.norm(pose.to_camera(_MIDDLE)))]])


def _anchored(params: FloatArray, anchor: FloatArray) -> Pose:
    """The pose turned by ``params[:3]`` with the board's middle ``params[3]`` along ``anchor``."""
    rot, _ = cv2.Rodrigues(params[:3].reshape(3, 1))
    centre = anchor / np.linalg.norm(anchor) * params[3]
    return Pose(params[:3].copy(), centre - rot @ _MIDDLE)


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
) -> list[LatticePose]:
    """Board poses whose plane and turn fit the stud lattice seen across the picture.

    The board is placed in the middle of where it can be: it must cover every patch
    that fits, so the more of it shows, the fewer studs its place is open by. Best fit
    (most patches) first; empty when too few patches show a lattice. Windows lie
    ``stride`` pixels apart: :data:`DENSE_STRIDE_PX` sees a small board in four times
    as many places, at four times the cost. ``patches`` already read are used as they are.
    """
    return list(lattice_poses_lazily(gray, camera, limit, stride, patches))


def lattice_poses_lazily(
    gray: NDArray[np.float32],
    camera: Camera,
    limit: int = 2,
    stride: int = STRIDE_PX,
    patches: list[Patch] | None = None,
) -> Iterator[LatticePose]:
    """:func:`lattice_poses` one by one, each worked out only when asked for.

    A search takes the first pose the board's checks accept, which is the first fit's on
    most frames: the second look over the patches the first fits left (half the frames
    a lattice start found had one, 18 ms each) is then never made.
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
    rays = _rays(camera, centres)
    # Seeds from the patches nearest the middle of all of them, strongest first.
    middle = np.median(centres, axis=0)
    near = np.argsort(np.linalg.norm(centres - middle, axis=1))[:3]
    anchor = _rays(camera, middle[None])[0]
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
    rays = _rays(camera, centres)
    best: tuple[int, LatticePose] | None = None
    for seed_at, members in _groups(centres, steps)[:MAX_SEEDS]:
        # Anchored in the group's middle: a seed read off one patch holds its distance
        # there, and a third of a step off at the middle of all patches (a table's).
        anchor = _rays(camera, np.median(centres[members], axis=0)[None])[0]
        seeds = _seeds(camera, patches, seed_at, anchor, rays[members], steps[members])
        seeds.sort(key=lambda item: item[0])
        for _, seed, _ in seeds[:MAX_SEEDS]:
            local, inliers = _fit(camera, seed, rays[members], steps[members], anchor)
            if inliers.sum() < MIN_PATCHES:
                continue
            pose, inliers = _fit(camera, local, rays, steps, anchor)
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
        [_misfit(steps, np.broadcast_to(s, steps.shape)) < SEED_TOLERANCE for s in steps]
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
        ray = _rays(camera, patches[i].centre[None])[0]
        for u in UNIMODULAR:
            for seed in _pose_from_steps(camera, patches[i], patches[i].steps @ u, ray):
                moved.append(_anchored(_params(seed), anchor))
    if not moved:
        return []
    misfits = _misfit(steps, _steps_of(camera, moved, rays))
    medians = np.median(misfits, axis=1)
    return [(float(m), p, misfit) for m, p, misfit in zip(medians, moved, misfits, strict=True)]


def _fits(
    camera: Camera, seeds: list[Pose], rays: FloatArray, steps: FloatArray, anchor: FloatArray
) -> list[tuple[int, LatticePose, NDArray[np.bool_]]]:
    """Each seed fitted, kept when enough patches fit it, most patches first."""
    fits: list[tuple[int, LatticePose, NDArray[np.bool_]]] = []
    for pose, inliers in _fit_all(camera, seeds, rays, steps, anchor):
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
    offset = float(normal @ (rot @ _MIDDLE + pose.tvec))
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
