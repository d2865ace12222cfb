"""Boards whose sides cannot pin them: the corner bricks for an axis with both sides out of
the picture, one good side per axis over a lattice covering the board (wide twin, dev seeds)."""

from __future__ import annotations

from bench.calibration import WRONG_PX
from calibration.alias import check_boundary
from calibration.board_model import moved_pose
from calibration.corner_pins import bricks_pin
from calibration.fit import finish
from tests.calibration_frames import found_right, grid_error, lattice_from_truth

RIM_OUTSIDE_SEED = 20029
"""A dev board seen from above, 22 px a stud, whose rim lies past the frame's edge on
both sides along x (sides 1 and 3 unseen); its four corner bricks are in the picture."""
STRIPED_TABLE_SEED = 20058
"""A dev board on a striped table, sharp over all 16 blocks, whose sides 0 and 3 step
where the lattice puts them and whose sides 1 and 2 the stripes leave unclear."""
MOVES = ((1, 0), (-1, 0), (2, 0), (-2, 0), (0, 1), (0, -1), (0, 2), (0, -2))


def test_corner_bricks_pin_the_axis_whose_sides_lie_past_the_frame() -> None:
    frame, _gray, grid = lattice_from_truth(RIM_OUTSIDE_SEED)
    assert grid.blocks >= 12
    sides = check_boundary(frame.image, frame.camera, grid.pose, halved=False)
    assert sides.states[1] == sides.states[3] == "unseen"
    assert bricks_pin(frame.image, frame.camera, grid.pose)[0]
    found_right(frame)


def test_corner_bricks_never_pin_the_board_a_stud_or_two_off() -> None:
    frame, gray, grid = lattice_from_truth(RIM_OUTSIDE_SEED)
    for dx, dy in MOVES:
        moved = moved_pose(grid.pose, dx, dy)
        assert not bricks_pin(frame.image, frame.camera, moved)[0 if dx else 1], (dx, dy)
        result = finish(frame.image, gray, frame.camera, moved, None, False)
        assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX


def test_one_side_each_way_pins_a_sharp_board_on_a_striped_table() -> None:
    frame, gray, grid = lattice_from_truth(STRIPED_TABLE_SEED)
    assert grid.blocks >= 14
    sides = check_boundary(frame.image, frame.camera, grid.pose)
    assert sides.good == 2 and sides.bad == 0 and sides.both_axes
    found_right(frame)
    for dx, dy in MOVES:
        result = finish(frame.image, gray, frame.camera, moved_pose(grid.pose, dx, dy), None, False)
        assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX
