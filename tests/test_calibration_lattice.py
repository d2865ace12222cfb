"""The pieces that keep the stud lattice on the right stud: block consensus, boundary test."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import grid
from calibration.alias import best_stud_shift, check_boundary
from calibration.board_model import stud_centres
from calibration.camera import Pose, project
from calibration.evidence import gray_float
from calibration.grid import consensus_offsets
from calibration.turn import MIN_SHOWN_CELLS, VISIBLE_STUD, cell_colours, hide_covered
from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM

twin = pytest.importorskip("vision.twin")

GROUND = load_map("1")


def block_centres() -> np.ndarray:
    idx = (np.arange(4) + 0.5) * 64.0
    xs, ys = np.meshgrid(idx, idx)
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def test_consensus_unwraps_a_smooth_shift_and_drops_the_odd_block():
    centres = block_centres()
    # A start pose a little turned and shifted: the lattice offset grows across the
    # board past half a stud, where a block alone would fold it back.
    field = np.stack([3.0 + 0.012 * centres[:, 1], -3.5 + 0.01 * centres[:, 0]], axis=1)
    seen = (field + STUD_MM / 2) % STUD_MM - STUD_MM / 2
    seen[5] += np.array([2.5, -1.5])  # a hand over one block
    usable = np.ones(len(centres), bool)
    usable[9] = False  # a block whose peak was unclear
    keep, unwrapped = consensus_offsets(centres, seen, usable)
    expected = usable.copy()
    expected[5] = False
    assert np.array_equal(keep, expected)
    # One smooth field with no block folded back; which whole stud the field starts on
    # is the boundary's question, not the lattice's.
    diff = unwrapped[keep] - field[keep]
    assert np.abs(diff - diff[0]).max() < 1e-6
    assert np.abs(diff[0] / STUD_MM - np.round(diff[0] / STUD_MM)).max() < 1e-6
    assert np.ptp(field[:, 0]) > 0  # offsets cross the half-stud fold somewhere
    assert np.any(np.abs(field) > STUD_MM / 2)


def test_consensus_needs_three_blocks():
    centres = block_centres()
    usable = np.zeros(len(centres), bool)
    usable[:2] = True
    keep, _ = consensus_offsets(centres, np.zeros((len(centres), 2)), usable)
    assert not keep.any()


@pytest.fixture(scope="module")
def frame():
    camera, pose = twin.random_camera(np.random.default_rng(7))
    return twin.render(Palace(GROUND, list(GROUND.setup)), camera, pose, seed=7)


def shifted(pose: Pose, dx: float, dy: float) -> Pose:
    return Pose(pose.rvec, pose.tvec + pose.rotation @ np.array([dx, dy, 0.0]))


def test_the_boundary_tells_the_edge_stud_from_its_neighbours(frame):
    assert check_boundary(frame.image, frame.camera, frame.pose).passed
    for dx, dy in ((STUD_MM, 0), (0, -STUD_MM), (-2 * STUD_MM, STUD_MM)):
        check = check_boundary(frame.image, frame.camera, shifted(frame.pose, dx, dy))
        assert not check.passed and check.bad >= 2, (dx, dy, check.detail)


def test_best_stud_shift_returns_to_the_edge_stud(frame):
    off = shifted(frame.pose, STUD_MM, -2 * STUD_MM)
    back = best_stud_shift(frame.image, frame.camera, off)
    studs = stud_centres()
    err = np.linalg.norm(
        project(frame.camera, back, studs) - project(frame.camera, frame.pose, studs), axis=1
    )
    assert float(np.median(err)) < 0.01


def test_no_pose_a_stud_or_two_off_passes_the_sides_among_arms_and_cards():
    """Cluttered frames (arms, sleeves, cards, loose bricks): every whole-stud move fails.

    The side test lets an edge that is not the board's (a card two studs out, a region
    of the map inside) go unheeded; it must still catch every pose that is off.
    """
    moves = [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if (dx, dy) != (0, 0)]
    right = 0
    for seed in range(6):
        rng = np.random.default_rng(500 + seed)
        camera, pose = twin.random_camera(rng)
        image = twin.render(Palace(GROUND, list(GROUND.setup)), camera, pose, seed=seed).image
        right += check_boundary(image, camera, pose).passed
        for dx, dy in moves:
            check = check_boundary(image, camera, shifted(pose, dx * STUD_MM, dy * STUD_MM))
            assert not check.passed, (seed, dx, dy, check.detail)
    assert right >= 5


def test_cells_under_a_card_show_no_stud_and_leave_the_map_vote():
    camera, pose = twin.random_camera(np.random.default_rng(21))
    frame = twin.render(
        Palace(GROUND, list(GROUND.setup)), camera, pose, twin.RenderOptions(clutter=False), seed=2
    )
    # A plain grey card over the cells x 4..13, y 4..13 (the board's corner bricks stay clear).
    corners = np.array([[4, 4, 0], [14, 4, 0], [14, 14, 0], [4, 14, 0]]) * STUD_MM
    corners[:, 2] = STUD_HEIGHT_MM + 0.5
    image = frame.image.copy()
    cv2.fillConvexPoly(
        image, np.round(project(camera, pose, corners)).astype(np.int32), (128, 128, 128)
    )
    studs = grid.lattice_offsets(gray_float(image), camera, pose).studs
    cells = np.arange(BOARD_STUDS * BOARD_STUDS)
    x, y = cells % BOARD_STUDS, cells // BOARD_STUDS
    under = (x >= 5) & (x <= 12) & (y >= 5) & (y <= 12)  # a stud inside the card's edge
    clear = (x >= 16) & (y >= 16) & (x < 28) & (y < 28)  # away from bricks and the palace
    assert (studs[under] < VISIBLE_STUD).mean() > 0.95
    assert (studs[clear] >= VISIBLE_STUD).mean() > 0.9
    colours = cell_colours(image, camera, pose)
    hidden = hide_covered(colours, studs)
    assert np.isnan(hidden[under]).all(axis=1).mean() > 0.95
    assert np.isfinite(hidden[clear]).all(axis=1).mean() > 0.9


def test_too_few_studs_showing_keeps_every_cell():
    colours = np.random.default_rng(1).normal(size=(BOARD_STUDS * BOARD_STUDS, 3))
    studs = np.full(len(colours), 0.9)
    studs[:MIN_SHOWN_CELLS - 1] = 3.0
    assert np.array_equal(hide_covered(colours, studs), colours)
    studs[: MIN_SHOWN_CELLS + 1] = 3.0
    assert np.isnan(hide_covered(colours, studs)).any()
