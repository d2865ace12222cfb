"""The ground map as a witness of the board's place: sliding its layout over the plane."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import lattice_view
from calibration.board_model import turned_pose
from calibration.camera import Pose
from calibration.evidence import gray_float
from calibration.map_place import place_by_map, stud_cells
from calibration.turn import VISIBLE_STUD
from rules.maps import load_map
from rules.pieces import STUD_MM
from tests.calibration_frames import setup_frame

twin = pytest.importorskip("twin")

GROUND = load_map("1")


@pytest.fixture(scope="module")
def frame():
    return setup_frame(31)


def test_stud_cells_on_the_plate_agree_with_the_lattice_view(frame):
    gray = gray_float(frame.image)
    ours = stud_cells(gray, frame.camera, frame.pose, 0).ravel()
    lattice = lattice_view.lattice_offsets(gray, frame.camera, frame.pose).studs >= VISIBLE_STUD
    assert ours.mean() > 0.8
    assert (ours == lattice).mean() > 0.99


def test_cells_off_the_plate_show_no_stud(frame):
    cells = stud_cells(gray_float(frame.image), frame.camera, frame.pose, 3)
    outside = np.ones(cells.shape, bool)
    outside[2:-2, 2:-2] = False  # two and three studs beyond the plate's edge
    assert cells[3:-3, 3:-3].mean() > 0.8
    assert cells[outside].mean() < 0.1


@pytest.mark.parametrize(("dx", "dy", "turn"), [(3, -4, 1), (-5, 2, 0), (0, 0, 2)])
def test_the_map_finds_a_board_moved_and_turned(frame, dx, dy, turn):
    moved = Pose(
        frame.pose.rvec, frame.pose.tvec + frame.pose.rotation @ np.array([dx, dy, 0.0]) * STUD_MM
    )
    start = turned_pose(moved, turn)
    found = place_by_map(frame.image, gray_float(frame.image), frame.camera, start, GROUND, 6)
    assert found is not None
    back = found.apply(start)
    assert np.allclose(back.rotation, frame.pose.rotation, atol=1e-9)
    assert np.allclose(back.tvec, frame.pose.tvec, atol=1e-6)
    assert found.score > 1.5 * found.rival or (dx, dy, turn) == (0, 0, 2)
