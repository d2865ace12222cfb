"""The stud lattice's steps as a plane predicts them, and the plane fitted to measured steps.

Every patch of studs (:mod:`calibration.lattice_patches`) shows the lattice's two steps as
the image has them there. A pose predicts those steps at every patch (the stud-top plane
met along the patch's camera ray, a stud each way, projected); one patch's steps give the
plane up to a mirror (:func:`poses_from_steps`); and Gauss-Newton on the plane's tilt, turn
and distance fits all the patches that agree (:func:`fit_planes`). The search over seeds
and patches is :mod:`calibration.lattice_pose`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import CENTRE
from calibration.camera import Camera, FloatArray, Pose, project_poses, rays_through
from calibration.lattice_patches import Patch
from rules.pieces import STUD_HEIGHT_MM, STUD_MM

MIN_PATCHES = 6
INLIER_MISFIT = 0.08
"""A patch fits a plane when its steps are within this share of a step of the predicted."""
BOARD_MIDDLE = np.array([CENTRE[0], CENTRE[1], STUD_HEIGHT_MM])
"""The middle of the board's stud tops, where a fit anchors the plane's distance."""


_JACOBIAN_STEPS = (1e-4, 1e-4, 1e-4, 0.5)
"""Finite-difference steps of the rotation vector (rad) and the distance (mm)."""
_NUDGES = np.diag(_JACOBIAN_STEPS)
"""Each parameter nudged alone by its step: the rows added to a pose's parameters."""


def steps_of(camera: Camera, poses: Sequence[Pose], rays: FloatArray) -> FloatArray:
    """The image steps of one stud along x and y where each ray meets the stud tops, for
    several poses at once (K x N x 2 x 2): a fit's Jacobian and a search's seeds ask a
    handful of poses about the same few dozen patches."""
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


def misfit(measured: FloatArray, predicted: FloatArray) -> FloatArray:
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


def poses_from_steps(
    camera: Camera, patch: Patch, basis: FloatArray, ray: FloatArray | None = None
) -> list[Pose]:
    """The two mirror-image planes whose lattice, seen at ``patch``, has steps ``basis``.

    Locally the view is affine: the steps, over the focal length, are the first two
    rows of the rotation's first two columns scaled by stud / depth. Both columns being
    unit length and orthogonal leaves a quadratic in the squared scale. ``ray`` is the
    camera ray through the patch's centre, when already worked out
    (:func:`calibration.lattice_pose._seeds` asks five bases of each patch, each under two
    mirror planes).
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
            ray = rays_through(camera, patch.centre[None])[0]
        at = ray * depth
        tvec = at - rot @ BOARD_MIDDLE
        poses.append(Pose.from_matrix(rot, tvec))
    return poses


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """``np.cross`` of two 3-vectors, the same products and differences without its
    general machinery (a search makes sixty of them)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def fit_plane(
    camera: Camera, pose: Pose, rays: FloatArray, steps: FloatArray, anchor: FloatArray
) -> tuple[Pose, NDArray[np.bool_]]:
    """Gauss-Newton on tilt, turn and distance over the patches that fit, centre on ``anchor``.

    Patches that see something else (a checked tablecloth, a card's print, a patch
    straddling the board's side) are left out at every step by their misfit, and which
    integer recombination of the predicted rows each patch's pair matches is settled
    before every step and held during it, so the residual stays smooth.
    """
    return fit_planes(camera, [pose], rays, steps, anchor)[0]


def fit_planes(
    camera: Camera, poses: Sequence[Pose], rays: FloatArray, steps: FloatArray,
    anchor: FloatArray,
) -> list[tuple[Pose, NDArray[np.bool_]]]:
    """:func:`fit_plane` of several seeds over the same patches, stepped side by side.

    Each seed's steps are its own; what they share is the prediction of every trial pose's
    steps, one batch a round for all the seeds still running instead of one per seed
    (the batch's fixed cost was most of a fit's).
    """
    params = [plane_params(pose) for pose in poses]
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
        batch = steps_of(camera, [anchored(p, anchor) for t in trials for p in t], rays)
        batch = batch.reshape(len(running), len(_NUDGES) + 1, *batch.shape[1:])
        still: list[int] = []
        for k, preds in zip(running, batch, strict=True):
            inliers = misfit(steps, preds[0]) < tolerance
            if inliers.sum() < MIN_PATCHES:
                out[k] = (anchored(params[k], anchor), inliers)
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
        finals = [anchored(params[k], anchor) for k in finishing]
        misfits = misfit(steps, steps_of(camera, finals, rays))
        for k, final, wrong in zip(finishing, finals, misfits, strict=True):
            out[k] = (final, wrong < INLIER_MISFIT)
    return [fit for fit in out if fit is not None]



def plane_params(pose: Pose) -> FloatArray:
    """Rotation vector and the distance from the camera to the board's middle."""
    return np.concatenate([pose.rvec, [float(np.linalg.norm(pose.to_camera(BOARD_MIDDLE)))]])


def anchored(params: FloatArray, anchor: FloatArray) -> Pose:
    """The pose turned by ``params[:3]`` with the board's middle ``params[3]`` along ``anchor``."""
    rot, _ = cv2.Rodrigues(params[:3].reshape(3, 1))
    centre = anchor / np.linalg.norm(anchor) * params[3]
    return Pose(params[:3].copy(), centre - rot @ BOARD_MIDDLE)
