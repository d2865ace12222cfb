"""The search's last resort, the rim at full size, asks each quarter of the board whether
its stud tops sit on the gaps, as the tracker's refit does."""

from __future__ import annotations

from bench.calibration import WRONG_PX, twin_frame
from calibration.camera import Pose
from calibration.pose import locate_board
from tests.calibration_frames import grid_error
from twin import render

TILTED_SEED = 1453
"""A bench board with a hand over its far corner. In the frame after it (nudged as the
bench nudges it), the tracker's refit is refused (the lattice may lie on the gaps), and
the full search's rim stage, asked only of the whole board, took a pose 8.4 px off."""


def test_the_last_resort_takes_no_pose_tilted_onto_the_gaps() -> None:
    drawn = twin_frame(TILTED_SEED)
    frame, rng = drawn.frame, drawn.rng
    nudged = Pose(frame.pose.rvec + rng.normal(0, 0.002, 3), frame.pose.tvec + rng.normal(0, 1, 3))
    second = render(drawn.palace, frame.camera, nudged, drawn.options, seed=TILTED_SEED + 100_000)
    # A budget no machine runs out of, so that the rim stage is always reached.
    result = locate_board(second.image, frame.camera, drawn.ground, budget_s=60.0)
    assert not result.found or grid_error(frame.camera, nudged, result) < WRONG_PX
