"""Poses from the plate's outline: the four corners a stud-texture mask's outline gives.

An outline is the cheapest clue to the board and the roughest: a hand over a corner bends
it, perspective leaves the focal length open, and the plate looks the same after a
quarter turn. So every outline stands for a few poses (all four corners, and every three
of them), each ranked by the rim it explains (:func:`rim_score`) and pulled onto the rim
(:func:`rim_start`) before the stud lattice takes over in :mod:`calibration.pose`.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import PLATE_CORNERS, in_front
from calibration.camera import Camera, FloatArray, Pose, project
from calibration.edges import EdgeFit, edge_support, refine_pose
from calibration.evidence import MIN_BOARD_IN_VIEW, PLATE_GROUP, RIM_MODEL
from calibration.intrinsics import focal_from_homography


def initial_pose(quad: FloatArray, camera: Camera) -> Pose | None:
    """The plate pose from its four outline corners (undistorted pixels), facing up."""
    best: tuple[float, Pose] | None = None
    pinhole = Camera(camera.width, camera.height, camera.camera_matrix, np.zeros(5))
    for corners in (quad, quad[::-1].copy()):
        ok, rvec, tvec = cv2.solvePnP(
            PLATE_CORNERS,
            corners.reshape(-1, 1, 2),
            camera.camera_matrix,
            None,
            flags=cv2.SOLVEPNP_IPPE,
        )
        if not ok:
            continue
        pose = Pose(rvec.reshape(3), tvec.reshape(3))
        if pose.camera_center[2] <= 0:
            continue
        err = float(np.abs(project(pinhole, pose, PLATE_CORNERS) - corners).max())
        if best is None or err < best[0]:
            best = (err, pose)
    return None if best is None else best[1]


def outline_hypotheses(quads: list[FloatArray], camera: Camera) -> list[Pose]:
    """Poses from each outline and from every three of its corners.

    A hand, a card or a sleeve over one corner of the plate bends that corner of the
    outline; the other three still fix the pose (P3P, the plate's size is known), so
    each candidate outline stands for five poses, one of which skips the bad corner.
    """
    poses: list[Pose] = []
    for quad in quads:
        pose = initial_pose(quad, camera)
        if pose is not None:
            poses.append(pose)
        for corners in (quad, quad[::-1].copy()):
            for drop in range(4):
                keep = [i for i in range(4) if i != drop]
                try:
                    _, rvecs, tvecs = cv2.solveP3P(
                        PLATE_CORNERS[keep],
                        corners[keep].reshape(-1, 1, 2),
                        camera.camera_matrix,
                        None,
                        flags=cv2.SOLVEPNP_P3P,
                    )
                except cv2.error:
                    continue
                for rvec, tvec in zip(rvecs, tvecs, strict=True):
                    candidate = Pose(rvec.reshape(3), tvec.reshape(3))
                    if in_front(candidate):
                        poses.append(candidate)
    return poses


OUTLINE_POINTS = np.array(
    [[x, y, 0.0] for x, y in ((0, 0), (256, 0), (256, 256), (0, 256))], dtype=np.float64
)
VIEW_GRID = np.array([[x, y, 0.0] for x in np.linspace(0, 256, 5) for y in np.linspace(0, 256, 5)])


def rim_score(small: NDArray[np.float32], camera: Camera, pose: Pose) -> float:
    """A cheap vote for a pose: rim found along its projected outline, times board in view."""
    px = project(camera, pose, VIEW_GRID)
    inside = (
        (px[:, 0] >= 0) & (px[:, 0] < camera.width) & (px[:, 1] >= 0) & (px[:, 1] < camera.height)
    )
    if inside.mean() < MIN_BOARD_IN_VIEW:
        return 0.0
    support = edge_support(small, camera, pose, RIM_MODEL, 3.0, 3.0)
    return support.get(PLATE_GROUP, 0.0) * float(inside.mean())


def same_outline(camera: Camera, a: Pose, b: Pose, tol_px: float) -> bool:
    """Whether two poses put the plate's corners within ``tol_px`` of each other, in any of
    the four orders: a pose already tried is not fitted again a quarter turn round."""
    pa = project(camera, a, PLATE_CORNERS)
    pb = project(camera, b, PLATE_CORNERS)
    return any(np.abs(np.roll(pa, k, axis=0) - pb).max() < tol_px for k in range(4))


def focal_guess(quad: FloatArray, camera: Camera) -> Camera:
    """The camera with the focal length the plate's perspective implies, if it says one."""
    homography, _ = cv2.findHomography(PLATE_CORNERS[:, :2], quad)
    if homography is None:
        return camera
    f = focal_from_homography(homography, camera)
    return camera if f is None else camera.with_focal(f)


def rim_start(half: NDArray[np.float32], camera: Camera, pose: Pose) -> Pose:
    """An outline's pose pulled onto the plate's rim in the half-size picture.

    The lattice takes over from here: its blocks reach half a stud each and agree on one
    smooth shift, further than the rim fit is off.
    """
    return rim_fit(half, camera, pose).pose


def rim_fit(half: NDArray[np.float32], camera: Camera, pose: Pose) -> EdgeFit:
    """:func:`rim_start` with the evidence behind it: how much of the rim it found."""
    h, w = half.shape
    return refine_pose(
        half, camera.scaled_to(w, h), pose, RIM_MODEL, radii=(12, 9, 6, 4), spacing_px=4.0
    )
