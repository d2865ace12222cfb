"""A lattice slid whole studs along one axis, short of four good sides, where all four
sides stand a few studs along: the board is there, not where the slid start passed."""

from __future__ import annotations

import pytest

from bench.calibration import WRONG_PX, twin_frame
from calibration import alias
from calibration.alias import check_boundary, four_sides_elsewhere
from calibration.board_model import moved_pose
from calibration.pose import locate_board
from tests.calibration_frames import found_right, grid_error

SLID_SEED = 80926
"""A fresh wide-twin board, one corner brick under a hand, whose lattice start was taken
6 studs along x (108 px off): three sides good there (one on a palace's wall), the fourth
unclear, none off; at the truth all four sides are good."""


def test_a_board_slid_whole_studs_is_found_where_its_four_sides_stand() -> None:
    found_right(twin_frame(SLID_SEED).frame)


def test_without_the_look_along_the_axes_the_slid_start_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(alias, "FOUR_SIDES_REACH", 0)
    frame = twin_frame(SLID_SEED).frame
    result = locate_board(frame.image, frame.camera, None)
    assert result.found and grid_error(frame.camera, frame.pose, result) > WRONG_PX


def test_four_good_sides_a_few_studs_along_are_named() -> None:
    frame = twin_frame(SLID_SEED).frame
    truth = check_boundary(frame.image, frame.camera, frame.pose)
    assert truth.good == 4
    assert four_sides_elsewhere(frame.image, frame.camera, frame.pose, truth) == ""
    slid = moved_pose(frame.pose, -6, 0)
    reason = four_sides_elsewhere(frame.image, frame.camera, slid,
                                  check_boundary(frame.image, frame.camera, slid))
    assert reason == "all four of the board's sides stand 6 studs along"
