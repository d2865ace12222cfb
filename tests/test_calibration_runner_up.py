"""A sharp lattice placed at the sides' runner-up move: a card or a sleeve outstepping the rim."""

from __future__ import annotations

import pytest

from bench.calibration import WRONG_PX, turn_errors, twin_frame
from calibration.alias import stud_moves
from calibration.board_model import moved_pose
from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation, gray_float
from calibration.grid import align_on_grid, refine_on_grid
from calibration.lattice_patches import lattice_patches
from calibration.lattice_pose import lattice_poses
from calibration.side_pinning import pins_own_size
from tests.calibration_frames import found_right, not_located_wrong

CARD_SEED = 3033
"""A dev board 16 px a stud with a card against its near side: summed along that axis,
the sides step hardest 4 studs towards the camera (the card's far edge) and next at the
rim. The pose the sides put the lattice at was refused by the flat-half rule."""
SLEEVE_SEED = 3084
"""A dev board 13 px a stud under two hands and a green sleeve on a striped table: the
sides step hardest 7 studs over (the hands' and the sleeve's edges), next at the rim."""


def off_px(camera: Camera, truth: Pose, pose: Pose) -> float:
    """How far ``pose`` lies from the truth under its best quarter turn (the lattice's
    own frame need not be the board's)."""
    return min(turn_errors(camera, truth, BoardLocation(True, pose=pose)))


@pytest.mark.parametrize("seed", [CARD_SEED, SLEEVE_SEED])
def test_the_rim_is_the_runner_up_where_the_sides_best_move_is_wrong(seed: int) -> None:
    frame = twin_frame(seed).frame
    camera, truth = frame.camera, frame.pose
    gray = gray_float(frame.image)
    # The plain windows' plane: high-passed, 3033's first look already places the
    # board where the sides' best move is right, and the runner-up is not needed.
    plain = lattice_patches(gray, high_pass=False)
    start = next(iter(lattice_poses(gray, camera, patches=plain)))
    grid = refine_on_grid(gray, camera, align_on_grid(gray, camera, start.pose))
    assert grid is not None and pins_own_size(grid)
    best, *others = stud_moves(frame.image, camera, grid.pose, start.reach)
    assert off_px(camera, truth, moved_pose(grid.pose, *best)) > 2 * WRONG_PX
    errors = [off_px(camera, truth, moved_pose(grid.pose, *m)) for m in others]
    assert min(errors) < 1.0


@pytest.mark.parametrize("seed", [CARD_SEED, SLEEVE_SEED])
def test_a_board_whose_sides_step_hardest_on_a_card_or_a_sleeve_is_found(seed: int) -> None:
    found_right(twin_frame(seed).frame)


RIM_REFUSED_SEED = 3516
"""A dev board 8 px a stud whose lattice start lies at the truth and is refused for the
plate's rim (2.2 px from the lattice): the sides' runner-up there, 5 studs over, passed
every check."""
SIDE_REFUSED_SEED = 3518
"""A dev board 10 px a stud whose lattice start lies at the truth and is refused for a
side read off: the sides' runner-up, 6 studs over, passed every check."""


@pytest.mark.parametrize("seed", [RIM_REFUSED_SEED, SIDE_REFUSED_SEED])
def test_the_runner_up_is_tried_only_where_the_far_side_refused_the_sides_place(
    seed: int,
) -> None:
    not_located_wrong(twin_frame(seed).frame)
