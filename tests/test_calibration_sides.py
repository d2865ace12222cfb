"""The board's sides read at full size when the half-size look does not pin them."""

from __future__ import annotations

import numpy as np

from calibration.alias import check_boundary
from calibration.board_model import stud_centres, turned_pose
from calibration.camera import project
from calibration.evidence import gray_float
from calibration.grid import refine_on_grid
from calibration.pose import locate_board
from rules.bot import simulate_game
from rules.palace import Palace
from rules.random_map import random_map
from twin import RenderOptions, render
from twin.wide import wide_view

SEED = 1071
"""A wide-twin frame (a bot game's palace, a board 16 px a stud): at half size two of
its sides blur into the card's first row and read as a stud off, at full size all four
are where the lattice puts them."""


def wide_frame(seed: int):
    """The frame ``bench.calibration`` draws for this seed (same random stream)."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng)
    camera, pose = wide_view(rng)
    covered = (int(rng.integers(4)),) if rng.random() < 0.25 else ()
    if rng.random() < 0.35 or not ground.setup:
        palace = Palace(ground, ground.setup)
    else:
        record = simulate_game(int(rng.integers(2, 5)), seed, ground)
        palace = Palace(ground, record.scenes[int(rng.integers(1, len(record.scenes)))].pieces)
    options = RenderOptions(cover_corners=covered, wide=True)
    return render(palace, camera, pose, options, seed=seed)


def test_sides_blurred_at_half_size_are_read_again_at_full_size() -> None:
    frame = wide_frame(SEED)
    grid = refine_on_grid(gray_float(frame.image), frame.camera, frame.pose, max_rounds=5)
    assert grid is not None and grid.blocks >= 14
    assert not check_boundary(frame.image, frame.camera, grid.pose).passed
    assert check_boundary(frame.image, frame.camera, grid.pose, halved=False).passed
    result = locate_board(frame.image, frame.camera, None)
    assert result.found, result.reason
    studs = stud_centres()
    want = project(frame.camera, frame.pose, studs)
    error = min(float(np.median(np.linalg.norm(
        project(frame.camera, turned_pose(result.pose, k), studs) - want, axis=1)))
        for k in range(4))
    assert error < 2.0
