"""The board's pose where the camera's focal length is not known.

``palace locate --refine-focal`` and a webcam with no intrinsics file start from a
60-degree guess. A wrong focal length bends the lattice and the sides away from any pose,
so here each outline of the plate (:mod:`calibration.corners`) gives its own guess
(:func:`calibration.outline_pose.focal_guess`), the plate's rim at full size is fitted
under the focal lengths around it, and the one whose rim fits best is finished as any
pose is (:func:`calibration.fit.finish`). The first outline's refusal is the reason
reported when none holds.

A board whose outline is cut by the picture's edge, an arm or a sleeve gives no outline
to guess from, and those are most boards: on 80 development frames of the wide twin the
outlines found 18 where the true focal length found 73. The whole search, though, finds
a board under focal lengths round the true one, and its stud lattice fits tightest near
it; so where the outlines give nothing, the search is run under the fields of view
webcams have and the tightest fit is taken (:func:`sweep_focal`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

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


SWEEP_HFOV_DEG = (55.0, 60.0, 65.0, 70.0, 75.0, 80.0)
"""Horizontal fields of view the whole search is run under when the outlines give no
focal length: most webcams lie between 55 and 78 degrees."""
SWEEP_FINE_DEG = 2.5
"""The step either side of the best field of view that is tried last."""


def sweep_focal(
    image: NDArray[np.uint8],
    camera: Camera,
    locate: Callable[[Camera], BoardLocation],
) -> BoardLocation:
    """The board found by ``locate`` (the whole search under a given camera) under the
    field of view whose stud lattice fits tightest, of :data:`SWEEP_HFOV_DEG` and then
    :data:`SWEEP_FINE_DEG` either side of the best; else the first refusal.

    A plate seen whole fixes the focal length only weakly: the search finds a board, and
    puts its studs within a pixel, under focal lengths a tenth or more off. But the
    lattice's residual is least near the true one: on 20 development frames the field of
    view it chose lay within 4 degrees of the truth in every one. The plate's rim, which
    :func:`locate_with_focal` fits the focal length on, is too often cut by the
    picture's edge here to say more."""
    found: list[tuple[float, BoardLocation]] = []
    refusals: list[BoardLocation] = []

    def trial(hfov: float) -> None:
        guess = camera.with_focal((camera.width / 2) / math.tan(math.radians(hfov) / 2))
        result = locate(guess)
        if result.found and result.pose is not None:
            result.camera = result.camera or guess
            result.focal_refined = True
            found.append((result.reprojection_error_px, result))
        else:
            refusals.append(result)

    for hfov in SWEEP_HFOV_DEG:
        trial(hfov)
    if not found:
        return first_found(refusals)
    best_hfov = _hfov(min(found, key=lambda f: f[0])[1], camera)
    for hfov in (best_hfov - SWEEP_FINE_DEG, best_hfov + SWEEP_FINE_DEG):
        trial(hfov)
    return min(found, key=lambda f: f[0])[1]


def _hfov(location: BoardLocation, camera: Camera) -> float:
    fx = (location.camera or camera).fx
    return math.degrees(2 * math.atan((camera.width / 2) / fx))
