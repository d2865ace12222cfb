"""Opposite sides judged in pairs: sharp boards whose sides fail one at a time, on the wide twin."""

from __future__ import annotations

import numpy as np

from bench.calibration import WRONG_PX, twin_frame
from calibration.alias import check_boundary
from calibration.board_model import moved_pose
from calibration.evidence import gray_float
from calibration.fit import finish
from calibration.grid import refine_on_grid
from calibration.side_pairs import (
    PAIR_RATIO,
    PAIR_REACH,
    axis_margins,
    joint_steps,
    side_pairs,
)
from calibration.side_profiles import side_profiles
from tests.calibration_frames import found_right, grid_error, lattice_from_truth, not_located_wrong
from twin import Frame

ONE_SIDE_OFF_SEED = 20104
"""A dev board 15 blocks sharp (clarity 8) whose side 1 steps harder two studs in (the
card's regions) than at its rim: refused by the sides one at a time, pinned in pairs."""
PAIR_MOVE_SEED = 20200
"""A dev board whose sides' summed steps move a pose a stud off the wrong way (a palace
just inside one side); the pairs' strongest move brings it onto the board."""
RIM_OUTSIDE_SEED = 20029
"""A dev board whose rim lies just past the frame's edge on both sides along x: no pair
pins that axis (its corner bricks do, see tests/test_calibration_corner_pins.py)."""
WEAK_RIM_SEED = 21065
"""A dev board with one weak rim: a stud off, the pose's pair of fake steps (the board's
side face outside one side, the card's regions inside the other) outdoes it."""


def test_a_sharp_board_with_one_side_off_is_found_by_its_pairs() -> None:
    frame, _gray, grid = lattice_from_truth(ONE_SIDE_OFF_SEED)
    assert grid.blocks >= 12
    sides = check_boundary(frame.image, frame.camera, grid.pose, halved=False)
    assert sides.bad == 1 and not sides.passed and not sides.outweighs(grid.blocks)
    assert side_pairs(frame.image, frame.camera, grid.pose).pinned
    found_right(frame)


def test_the_same_board_a_stud_or_two_off_is_never_taken_off() -> None:
    frame = twin_frame(ONE_SIDE_OFF_SEED).frame
    gray = gray_float(frame.image)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (0, 2)):
        moved = moved_pose(frame.pose, dx, dy)
        assert not side_pairs(frame.image, frame.camera, moved).pinned, (dx, dy)
        result = finish(frame.image, gray, frame.camera, moved, None, False)
        assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX


def test_the_pairs_move_a_pose_a_stud_off_back_onto_the_board() -> None:
    frame = twin_frame(PAIR_MOVE_SEED).frame
    gray = gray_float(frame.image)
    start = moved_pose(frame.pose, 0, 1)
    assert side_pairs(frame.image, frame.camera, start).move == (0, -1)
    result = finish(frame.image, gray, frame.camera, start, None, False)
    assert result.found, result.reason
    assert grid_error(frame.camera, frame.pose, result) < WRONG_PX


def test_no_pair_pins_a_board_whose_rim_lies_past_the_frame() -> None:
    frame = twin_frame(RIM_OUTSIDE_SEED).frame
    assert not side_pairs(frame.image, frame.camera, frame.pose).pinned


def test_a_weak_rim_does_not_let_a_pair_of_fake_steps_pin_a_pose_a_stud_off() -> None:
    frame = twin_frame(WEAK_RIM_SEED).frame
    gray = gray_float(frame.image)
    off = refine_on_grid(gray, frame.camera, moved_pose(frame.pose, -1, 0), max_rounds=5)
    assert off is not None
    assert not side_pairs(frame.image, frame.camera, off.pose).pinned
    result = finish(frame.image, gray, frame.camera, off.pose, None, False)
    assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX


def test_a_move_is_credited_with_the_weaker_of_its_two_sides() -> None:
    moves = 2 * PAIR_REACH + 1
    flat = np.full((2, moves), 2.0)
    profiles = np.stack([flat.copy() for _ in range(4)])
    # Side 1 steps hard a stud out, side 3 (its rows run inwards to outwards too) a stud
    # in: the same move of the board (+1 along x) for both, so the pair credits it.
    profiles[1, :, PAIR_REACH + 1] = 40.0
    profiles[3, :, PAIR_REACH - 1] = 30.0
    joint = joint_steps(profiles)
    assert joint[0, PAIR_REACH + 1] == 30.0 and joint[0].argmax() == PAIR_REACH + 1
    # A step at one side only (the card's regions inside it) is no pair.
    profiles[3, :, PAIR_REACH - 1] = 2.0
    profiles[3, :, PAIR_REACH + 2] = 50.0
    assert joint_steps(profiles)[0].max() == 2.0


FAINT_SIDE_SEED = 20056
"""A dev board 15 blocks sharp (clarity 7.6) whose side 3 shows no rim at all (5 lab units
at the pose, 11 a stud in): the x pair's joint step is that faint side's, so the pair
cannot pin x, but side 1 steps 77 there against 4 outside and 39 two studs in."""


def test_one_clear_side_pins_its_axis_when_the_opposite_side_is_faint() -> None:
    frame, _gray, grid = lattice_from_truth(FAINT_SIDE_SEED)
    assert grid.blocks >= 12
    profiles = side_profiles(frame.image, frame.camera, grid.pose, PAIR_REACH, halved=False)
    margins = axis_margins(joint_steps(profiles), PAIR_REACH)
    assert margins[0] < PAIR_RATIO <= margins[1]  # the x pair alone does not pin
    assert side_pairs(frame.image, frame.camera, grid.pose).pinned
    for dx in (-2, -1, 1, 2):
        moved = moved_pose(grid.pose, dx, 0)
        assert not side_pairs(frame.image, frame.camera, moved).pinned, dx
    found_right(frame)


CARD_EDGE_HALF_SEED = 22275
"""A dev board 15 px a stud whose side along one end has a card's edge a stud outside
its rim in one half (a step of 99) and the real rim in the other: a stud off, that
side outstepped its opposite twice, while the pair stepped 19 a stud over against 7."""
FIVE_STUDS_SEED = 22101
"""A dev board 16 px a stud with a white card against one side: 5 studs off, one side
ran on the card's edge in one half and flat on the table in the other, the opposite
side on the board's studs; that pair beat every move up to two studs 7 times."""


def pair_margins_moved(seed: int, dx: int, dy: int) -> tuple[Frame, np.ndarray, bool]:
    """The pairs' margins per axis (x, y) for the board of ``seed`` moved ``dx``, ``dy``
    studs from its lattice fitted at the truth, and whether the pairs pin that moved
    pose. The truth itself must be sharp and pinned: the case is about the move."""
    frame, _gray, grid = lattice_from_truth(seed)
    assert grid.blocks >= 12
    assert side_pairs(frame.image, frame.camera, grid.pose).pinned
    off = moved_pose(grid.pose, dx, dy)
    profiles = side_profiles(frame.image, frame.camera, off, PAIR_REACH, halved=False)
    margins = axis_margins(joint_steps(profiles), PAIR_REACH)
    return frame, margins, side_pairs(frame.image, frame.camera, off).pinned


def test_one_side_pins_no_axis_whose_pair_steps_harder_a_stud_over() -> None:
    frame, margins, pinned = pair_margins_moved(CARD_EDGE_HALF_SEED, 0, 1)
    assert margins[1] < PAIR_RATIO
    assert not pinned
    not_located_wrong(frame)


def test_a_pair_pins_no_axis_where_a_board_moved_further_steps_as_hard() -> None:
    frame, margins, pinned = pair_margins_moved(FIVE_STUDS_SEED, 5, 0)
    assert margins.min() >= PAIR_RATIO
    assert not pinned
    not_located_wrong(frame)


FAINT_FAR_SEED = 20068
"""A dev board whose truth moved 6 studs along x had that axis pinned by one side alone
(on a region edge of the card, the opposite side faint on the table), while the pair
stepped 41 at the board's real place against 2 at the pose."""


def test_one_side_pins_no_axis_where_the_pair_shows_a_rim_further_over() -> None:
    _frame, margins, pinned = pair_margins_moved(FAINT_FAR_SEED, 6, 0)
    assert margins[0] < PAIR_RATIO
    assert not pinned
