"""The stud tops' rows along each side pin a sharp board its sides do not: a side past the
frame's edge, a striped table."""

from __future__ import annotations

import pytest

from bench.calibration import WRONG_PX
from calibration.board_model import moved_pose
from calibration.fit import finish
from calibration.side_pinning import pins_own_size
from calibration.stud_rows import rows_pin
from tests.calibration_frames import grid_error, lattice_from_truth

EDGE_SEED = 3025
"""A dev board 20 px a stud (16 blocks, clarity 8.4) whose side 3 lies past the frame's
edge; its opposite side steps 34 where the truth puts it, 2 outside, but up to 40 on the
card's studs two studs in, so it reads unclear and nothing else pins that axis."""
STRIPES_SEED = 20077
"""A dev board 12 px a stud on a striped table: the stripes step harder than the rim a
stud outside side 1 (read off) and as hard beside sides 0 and 3 (unclear)."""


@pytest.mark.parametrize("seed", [EDGE_SEED, STRIPES_SEED])
def test_the_rows_pin_a_right_board_the_sides_do_not(seed: int) -> None:
    frame, gray, grid = lattice_from_truth(seed)
    assert pins_own_size(grid)
    assert rows_pin(frame.image, frame.camera, grid.pose)
    result = finish(frame.image, gray, frame.camera, grid.pose, None, False)
    assert result.found, result.reason
    assert grid_error(frame.camera, frame.pose, result) < WRONG_PX


@pytest.mark.parametrize("seed", [EDGE_SEED, STRIPES_SEED])
def test_the_rows_pin_no_board_moved_whole_studs(seed: int) -> None:
    frame, _, grid = lattice_from_truth(seed)
    for studs in (1, 2, 3, 5):
        for move in ((studs, 0), (-studs, 0), (0, studs), (0, -studs)):
            assert not rows_pin(frame.image, frame.camera, moved_pose(grid.pose, *move)), move


HALF_COVERED_SEED = 3194
"""A dev board 16 px a stud whose side 0 is half covered (half its row of stud tops shows
the plate's colour) and whose side 2 steps harder a stud in, on the card's regions."""


def test_a_side_read_off_must_itself_end_the_board_for_the_rows() -> None:
    frame, _, grid = lattice_from_truth(HALF_COVERED_SEED)
    image, camera = frame.image, frame.camera
    assert rows_pin(image, camera, grid.pose, ("unclear", "good", "off", "good"))
    assert not rows_pin(image, camera, grid.pose, ("off", "good", "off", "good"))
