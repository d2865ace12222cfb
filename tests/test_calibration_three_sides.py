"""Soft lattices with three sides good and the fourth under a hand, on the wide twin."""

from __future__ import annotations

import pytest

from calibration.alias import check_boundary
from calibration.evidence import MIN_LATTICE_CLARITY
from calibration.stud_tops import quarters_problem
from calibration.vouching import MIN_SOFT_GRID_BLOCKS, RIM_SOFT_BLOCKS, SOFT_LATTICE_CLARITY
from tests.calibration_frames import found_right, lattice_from_truth, never_a_stud_off

HAND_BLURRED_SEED = 21044
"""A dev board 9.6 px a stud, blurred (1.4 px) and smeared by motion (4 px), a hand over
one side: its right lattice reads 4.4 over 13 blocks, and the quarter under the hand puts
its stud tops off the grid."""
HAND_RIM_SEED = 21089
"""A dev board 8.3 px a stud whose right lattice reads 4.8 over 10 blocks, a hand over
one side, the plate's rim agreeing."""


@pytest.mark.parametrize("seed", [HAND_BLURRED_SEED, HAND_RIM_SEED])
def test_a_soft_lattice_with_a_side_under_a_hand_is_found(seed: int) -> None:
    frame, _, grid = lattice_from_truth(seed)
    assert grid.clarity < SOFT_LATTICE_CLARITY and grid.blocks >= RIM_SOFT_BLOCKS
    sides = check_boundary(frame.image, frame.camera, grid.pose)
    assert (sides.good, sides.bad) == (3, 0)
    # Every quarter's tops cannot vouch: the hand's quarter reads off a right grid.
    assert "quarter" in quarters_problem(frame.image, frame.camera, grid.pose)
    found_right(frame)


def test_the_blurred_board_under_a_hand_is_softer_than_a_lattice_alone_may_be() -> None:
    _, _, grid = lattice_from_truth(HAND_BLURRED_SEED)
    assert grid.clarity < MIN_LATTICE_CLARITY and grid.blocks >= MIN_SOFT_GRID_BLOCKS


@pytest.mark.parametrize("seed", [HAND_BLURRED_SEED, HAND_RIM_SEED])
def test_a_board_under_a_hand_a_stud_off_is_not_taken(seed: int) -> None:
    frame, gray, _ = lattice_from_truth(seed)
    never_a_stud_off(frame, gray)
