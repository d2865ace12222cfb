"""A board a whole lattice block off: its unconfirmed side shows the real rim a block in.
A board six studs off on a checked table: its lone rim along that axis is no rim.
A board five studs off on a striped table: its pair of sides steps together at the real
place, further than the sides' own check reads."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bench.calibration import WRONG_PX, twin_frame
from calibration.alias import BoundaryCheck, check_boundary
from calibration.board_model import moved_pose
from calibration.evidence import gray_float
from calibration.far_side import (
    BLOCK_REACH,
    FAR_PAIR_REACH,
    FLAT_DEPTH,
    FLAT_STEP,
    block_step,
    far_pair_problem,
    far_side_problem,
    lone_rim_problem,
)
from calibration.fit import finish
from calibration.grid import GridFit, refine_on_grid
from calibration.side_profiles import side_profiles
from tests.calibration_frames import found_right, grid_error
from twin.frame import Frame

BLOCK_OFF_SEED = 21077
"""A dev board, sharp over 16 blocks, that a lattice start settled a block (8 studs) off
along x: three sides stepped on the card's straight region edges, the fourth lay flat on
the table, and the lattice's blocks agree modulo a stud."""
SLEEVE_EDGE_SEED = 1332
"""A bench board whose right pose has side 1 under a sleeve whose straight edge runs a
block in: that side steps there like a rim, but no corner brick stands at the edge."""
CHECKED_TABLE_SEED = 1438
"""A bench board on a green table with a check pattern the lattice takes for studs, its
near edge under a hand: a pose six studs over along y fitted all 16 blocks, its far side
lay flat on the table and its near side stepped on the hand's fingertips."""
SLEEVE_OVER_SIDE_SEED = 5096
"""A dev board whose far side lies under a sleeve, flat 5 studs deep, its near side a
clean rim against a calm table."""
HALF_FLAT_SEED = 3033
"""A dev board with a card against its near side that a lattice start settled 3 or 4
studs towards the camera: that side steps on the card's edge in one half and lies flat
on the table in the other, with the real rim 4 studs in; its far side is unclear."""
HANDS_SEED = 3084
"""A dev board under two hands and a sleeve on a striped table that a lattice start
settled 7 studs over: three sides stepped on the hands' and the sleeve's edges, the
fourth, off in one half only, was excused; one good side lies flat in one half with a
rim-like step 4 studs out."""
STRIPED_TABLE_SEED = 3001
"""A dev board on a striped table, sharp over 15 blocks: its truth moved 3 to 7 studs
along y settled 5 studs off, the side moved onto the board unclear on the card's
regions, the side moved onto the table stepping on its stripes as on a rim, the two
sides along the shift good, three corner bricks seen."""
UNCLEAR_SIDE_SEED = 20253
"""A dev board whose right pose has an unclear side (an earlier check on the lattice
blocks along it refused it): a block in from that side shows no rim."""


def _off_lattice(seed: int, dx: int, dy: int, blocks: int, **refine: int
                 ) -> tuple[Frame, NDArray[np.float32], GridFit, BoundaryCheck]:
    """The twin frame ``seed`` with its stud lattice fitted ``dx, dy`` studs off the true
    pose (over at least ``blocks`` blocks), and its sides read there."""
    frame = twin_frame(seed).frame
    gray = gray_float(frame.image)
    off = refine_on_grid(gray, frame.camera, moved_pose(frame.pose, dx, dy), **refine)
    assert off is not None and off.blocks >= blocks
    return frame, gray, off, check_boundary(frame.image, frame.camera, off.pose)


def _refused(frame: Frame, gray: NDArray[np.float32], off: GridFit, sides: BoundaryCheck,
             words: str) -> None:
    """The far side refuses the off pose for ``words``, and the finish from it ends on no
    wrong pose."""
    problem = far_side_problem(frame.image, gray, frame.camera, off.pose, sides)
    assert words in problem
    result = finish(frame.image, gray, frame.camera, off.pose, None, False)
    assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX


def test_a_board_a_lattice_block_off_is_refused_by_its_far_side() -> None:
    frame, gray, off, sides = _off_lattice(BLOCK_OFF_SEED, 8, 0, 12, max_rounds=5)
    assert sides.passed and sides.good == 3
    _refused(frame, gray, off, sides, "a lattice block in")


def test_a_right_pose_with_an_unclear_side_is_kept() -> None:
    frame = twin_frame(UNCLEAR_SIDE_SEED).frame
    result = found_right(frame)
    sides = check_boundary(frame.image, frame.camera, result.pose)
    assert sides.passed and sides.good == 3
    gray = gray_float(frame.image)
    assert far_side_problem(frame.image, gray, frame.camera, result.pose, sides) == ""


def test_a_sleeve_edge_a_block_in_without_corner_bricks_keeps_the_right_pose() -> None:
    frame = twin_frame(SLEEVE_EDGE_SEED).frame
    result = found_right(frame)
    sides = check_boundary(frame.image, frame.camera, result.pose)
    unclear = [i for i, state in enumerate(sides.states) if state != "good"]
    assert unclear
    profiles = side_profiles(frame.image, frame.camera, result.pose, BLOCK_REACH, halved=False)
    assert any(block_step(profiles[i]) for i in unclear)
    gray = gray_float(frame.image)
    assert far_side_problem(frame.image, gray, frame.camera, result.pose, sides) == ""


def test_a_board_six_studs_off_held_by_a_hand_edge_is_refused() -> None:
    frame = twin_frame(CHECKED_TABLE_SEED).frame
    gray = gray_float(frame.image)
    off = refine_on_grid(gray, frame.camera, moved_pose(frame.pose, 0, 6))
    assert off is not None and off.blocks >= 14
    sides = check_boundary(frame.image, frame.camera, off.pose, halved=False)
    assert sides.passed
    problem = far_side_problem(frame.image, gray, frame.camera, off.pose, sides)
    assert "shows no board" in problem
    found_right(frame)


def test_a_side_under_a_sleeve_leaves_a_clean_rim_its_axis() -> None:
    frame = twin_frame(SLEEVE_OVER_SIDE_SEED).frame
    result = found_right(frame)
    camera = result.camera or frame.camera
    sides = check_boundary(frame.image, camera, result.pose, halved=False)
    profiles = side_profiles(frame.image, camera, result.pose, BLOCK_REACH, halved=False)
    flat = [i for i, state in enumerate(sides.states) if state != "good"
            and float(profiles[i][:, BLOCK_REACH - FLAT_DEPTH : BLOCK_REACH].max()) < FLAT_STEP]
    assert flat, "the sleeve's side should show nothing of the board"
    # Its axis rests on the opposite side alone: the calm-beyond check is the one asked.
    assert any(sides.states[(i + 2) % 4] == "good" for i in flat)
    assert lone_rim_problem(profiles, sides.states, BLOCK_REACH) == ""


def test_a_side_good_in_one_half_shows_the_real_rim_further_in() -> None:
    frame, gray, off, sides = _off_lattice(HALF_FLAT_SEED, 0, 4, 14)
    assert sides.passed and "good" in sides.states
    _refused(frame, gray, off, sides, "half of side")


def test_a_side_good_in_one_half_shows_a_rim_further_out() -> None:
    frame, gray, off, sides = _off_lattice(HANDS_SEED, -7, 0, 14)
    assert sides.holds(off.blocks)
    _refused(frame, gray, off, sides, "studs out")


def test_a_board_five_studs_off_is_refused_by_its_far_pair() -> None:
    frame, gray, off, sides = _off_lattice(STRIPED_TABLE_SEED, 0, 5, 12, max_rounds=5)
    assert sides.passed and "good" in sides.states
    _refused(frame, gray, off, sides, "together")
    # At the truth the same board's pair reads no such place (its far side unclear).
    truth = refine_on_grid(gray, frame.camera, frame.pose, max_rounds=5)
    assert truth is not None
    profiles = side_profiles(frame.image, frame.camera, truth.pose, FAR_PAIR_REACH, halved=False)
    assert far_pair_problem(profiles) == ""
