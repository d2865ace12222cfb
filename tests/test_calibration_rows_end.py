"""A lattice slid whole studs along one axis, where the sides across it read unclear:
the rows of stud tops say where the plate ends, and it is not where the slid pose puts
it."""

from __future__ import annotations

import pytest

from bench.calibration import WRONG_PX, twin_frame
from calibration import fit
from calibration.alias import check_boundary
from calibration.board_model import moved_pose
from calibration.pose import locate_board
from calibration.stud_rows import rows_problem
from tests.calibration_frames import found_right, grid_error, not_located_wrong

SLID_SEED = 80297
"""A fresh wide-twin board under a hand whose lattice start was taken about 4 studs
along x (49 px off): two sides good there, two unclear, none off."""
FOUR_GOOD_SEED = 81567
"""A fresh wide-twin board with two hands over its near side, whose lattice start was
taken 3 studs along (36 px off) with all four sides reading good."""
TABLE_SEED = 80951
"""A fresh wide-twin board on a table of the plate's colour, an arm across its far side:
past one side the plate's colour goes on, and the far side's row does not show it."""


def test_a_board_slid_whole_studs_is_found_where_its_stud_rows_end() -> None:
    found_right(twin_frame(SLID_SEED).frame)


def test_without_the_rows_check_the_slid_start_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fit, "rows_problem", lambda *_: "")
    frame = twin_frame(SLID_SEED).frame
    result = locate_board(frame.image, frame.camera, None)
    assert result.found and grid_error(frame.camera, frame.pose, result) > WRONG_PX


@pytest.mark.parametrize(("move", "past", "short"), [((-3, 0), 1, 3), ((0, 4), 0, 2)])
def test_the_rows_name_a_pose_slid_from_the_truth(
        move: tuple[int, int], past: int, short: int) -> None:
    frame = twin_frame(SLID_SEED).frame
    assert rows_problem(frame.image, frame.camera, frame.pose) == ""
    reason = rows_problem(frame.image, frame.camera, moved_pose(frame.pose, *move))
    studs = abs(move[0] + move[1])
    assert reason == (f"the plate's stud tops go on {studs} studs past side {past} and end "
                      f"short of side {short}: the board lies studs along")


def test_a_slid_pose_with_four_good_sides_is_refused() -> None:
    """Two hands over the near side: all four sides read good 3 studs along, where the
    rows see the plate's tops end short of one side and go on past the other."""
    frame = twin_frame(FOUR_GOOD_SEED).frame
    not_located_wrong(frame)
    slid = moved_pose(frame.pose, 3, 0)
    assert check_boundary(frame.image, frame.camera, slid).good == 4
    assert rows_problem(frame.image, frame.camera, slid) == (
        "the plate's stud tops go on 3 studs past side 3 and end short of side 1: the "
        "board lies studs along")


def test_a_table_of_the_plates_colour_is_not_a_board_going_on() -> None:
    found_right(twin_frame(TABLE_SEED).frame)
    frame = twin_frame(TABLE_SEED).frame
    assert rows_problem(frame.image, frame.camera, frame.pose) == ""
