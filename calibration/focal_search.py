"""The board's pose where the camera's focal length is not known: from the plate's outline.

``palace locate --refine-focal`` and a webcam with no intrinsics file start from a
60-degree guess. A wrong focal length bends the lattice and the sides away from any pose,
so here each outline of the plate (:mod:`calibration.corners`) gives its own guess
(:func:`calibration.outline_pose.focal_guess`), the plate's rim at full size is fitted
under the focal lengths around it, and the one whose rim fits best is finished as any
pose is (:func:`calibration.fit.finish`). The first outline's refusal is the reason
reported when none holds.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose
from calibration.corners import search_plate
from calibration.edges import EdgeFit, refine_pose
from calibration.evidence import RIM_MODEL, BoardLocation, first_found
from calibration.fit import finish
from calibration.intrinsics import refine_focal as search_focal
from calibration.outline_pose import focal_guess, initial_pose, rim_fit
from rules.maps import GroundMap


def locate_with_focal(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    half: NDArray[np.float32],
    camera: Camera,
    ground: GroundMap | None,
    outlines: int,
) -> BoardLocation:
    """The board from the first of the first ``outlines`` outlines whose pose, with its
    own focal length, is found; else the first one's refusal."""

    def results() -> Iterator[BoardLocation]:
        for quad in search_plate(image, camera).quads[:outlines]:
            cam = focal_guess(quad, camera)
            pose = initial_pose(quad, cam)
            if pose is not None:
                yield _focal_from_outline(image, gray, half, cam, pose, ground)

    return first_found(results())


def _focal_from_outline(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    half: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    ground: GroundMap | None,
) -> BoardLocation:
    """One outline's pose with the focal length searched on the rim at full size."""
    coarse = rim_fit(half, camera, pose)
    rim = refine_pose(gray, camera, coarse.pose, RIM_MODEL, radii=(6, 4, 4))
    camera, rim = _refine_focal(gray, camera, rim)
    return finish(image, gray, camera, rim.pose, ground, True)


def _refine_focal(
    gray: NDArray[np.float32], camera: Camera, fit: EdgeFit
) -> tuple[Camera, EdgeFit]:
    """Search the focal length that lets the rim fit best, re-fitting the pose for each."""

    def residual(candidate: Camera) -> float:
        trial = refine_pose(gray, candidate, fit.pose, RIM_MODEL, radii=(3, 2))
        if trial.inliers < 20:
            return float("inf")
        return trial.rms_px

    best = search_focal(camera, residual, low=0.8, high=1.25, iterations=12)
    return best, refine_pose(gray, best, fit.pose, RIM_MODEL, radii=(3, 2, 2))
