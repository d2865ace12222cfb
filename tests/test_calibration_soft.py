"""Small, soft boards of the wide twin: found now, and never on the gaps between studs."""

from __future__ import annotations

import numpy as np

from bench.calibration import WRONG_PX, turn_errors, twin_frame
from calibration.board_model import moved_pose
from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation, gray_float
from calibration.fit import finish
from calibration.grid import GridFit, refine_on_grid
from calibration.lattice_patches import DENSE_STRIDE_PX
from calibration.lattice_pose import lattice_poses
from calibration.pose import locate_board
from calibration.stud_tops import tops_problem
from calibration.vouching import SOFT_LATTICE_CLARITY
from twin.frame import Frame

SOFT_SEED = 5021
"""A wide-twin frame (dev seed) of a board 10 px a stud whose lattice reads soft (clarity
4.6 at the right pose, 5 was needed): all four sides step where the lattice puts them."""
GAPS_SEED = 1013
"""A wide-twin frame whose dark stud tops on an orange card lock the soft lattice on the
gaps between studs, half a stud off (5.6 px) with all four sides still stepping."""
SMALL_SEED = 5082
"""A board 6 px a stud under a hand: too small for the lattice's windows 80 px apart."""


def grid_error(camera: Camera, truth: Pose, result: BoardLocation) -> float:
    """Median stud-centre error (px) under the found pose's best quarter turn."""
    return min(turn_errors(camera, truth, result))


def found_right(frame: Frame) -> BoardLocation:
    """The board located with no map, asserted found and within :data:`WRONG_PX` of the
    truth: what every "this board is now found" test asks first."""
    result = locate_board(frame.image, frame.camera, None)
    assert result.found and result.pose is not None, result.reason
    assert grid_error(frame.camera, frame.pose, result) < WRONG_PX
    return result


def not_located_wrong(frame: Frame) -> BoardLocation:
    """The board located with no map, asserted refused or found within :data:`WRONG_PX`:
    what every "this wrong pose is no longer taken" test asks."""
    result = locate_board(frame.image, frame.camera, None)
    assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX
    return result


def lattice_from_truth(seed: int) -> tuple[Frame, np.ndarray, GridFit]:
    """A dev frame, its grey picture and the stud lattice refined from the true pose:
    where every test of what the sides and corner bricks make of a fit starts."""
    frame = twin_frame(seed).frame
    gray = gray_float(frame.image)
    grid = refine_on_grid(gray, frame.camera, frame.pose, max_rounds=5)
    assert grid is not None
    return frame, gray, grid


def never_a_stud_off(frame: Frame, gray: np.ndarray) -> None:
    """Started a whole stud off along either axis, either way, the board is refused or
    brought back within :data:`WRONG_PX` of the truth: never taken where it was put."""
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        moved = finish(frame.image, gray, frame.camera, moved_pose(frame.pose, dx, dy), None,
                       False)
        assert not moved.found or grid_error(frame.camera, frame.pose, moved) < WRONG_PX


def test_a_soft_lattice_is_taken_when_the_sides_and_stud_tops_vouch_for_it() -> None:
    frame, _, grid = lattice_from_truth(SOFT_SEED)
    assert grid.clarity < SOFT_LATTICE_CLARITY
    assert tops_problem(frame.image, frame.camera, grid.pose) == ""
    found_right(frame)


def test_the_stud_tops_refuse_a_lattice_on_the_gaps() -> None:
    frame = twin_frame(GAPS_SEED).frame
    camera, truth = frame.camera, frame.pose
    assert tops_problem(frame.image, camera, truth) == ""
    # Half a stud along both axes puts every stud centre on a gap.
    half = Pose(truth.rvec, truth.tvec + truth.rotation @ np.array([4.0, 4.0, 0.0]))
    assert "stud tops" in tops_problem(frame.image, camera, half)
    # From the right pose itself, the soft lattice walks onto the gaps: refused there,
    # and taken only where the top-blind refit puts it back on the studs.
    result = finish(frame.image, gray_float(frame.image), camera, truth, None, False)
    assert not result.found or grid_error(camera, truth, result) < WRONG_PX
    assert result.found or "stud tops" in result.reason


def test_a_small_board_is_found_by_the_dense_lattice_windows() -> None:
    frame = twin_frame(SMALL_SEED).frame
    gray = gray_float(frame.image)
    assert list(lattice_poses(gray, frame.camera)) == []
    assert list(lattice_poses(gray, frame.camera, stride=DENSE_STRIDE_PX))
    result = locate_board(frame.image, frame.camera, None)
    assert result.found, result.reason
    assert result.method == "lattice"
    assert grid_error(frame.camera, frame.pose, result) < WRONG_PX
