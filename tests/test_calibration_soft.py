"""Small, soft boards of the wide twin: found now, and never on the gaps between studs."""

from __future__ import annotations

import numpy as np

from bench.calibration import WRONG_PX, twin_frame
from calibration.camera import Pose
from calibration.evidence import gray_float
from calibration.fit import finish
from calibration.lattice_patches import DENSE_STRIDE_PX
from calibration.lattice_pose import lattice_poses
from calibration.pose import locate_board
from calibration.stud_tops import tops_problem
from calibration.vouching import SOFT_LATTICE_CLARITY
from tests.calibration_frames import found_right, grid_error, lattice_from_truth

SOFT_SEED = 5021
"""A wide-twin frame (dev seed) of a board 10 px a stud whose lattice reads soft (clarity
4.6 at the right pose, 5 was needed): all four sides step where the lattice puts them."""
GAPS_SEED = 1013
"""A wide-twin frame whose dark stud tops on an orange card lock the soft lattice on the
gaps between studs, half a stud off (5.6 px) with all four sides still stepping."""
SMALL_SEED = 5082
"""A board 6 px a stud under a hand: too small for the lattice's windows 80 px apart."""


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
