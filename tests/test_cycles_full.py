"""Whole palaces from the validation renderer: their jobs (no Blender needed) and the
committed set read back (skipped where it is missing)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from bench.full_palace import FullTally, cycles_views, palace_keys
from calibration.board_model import CENTRE, PLATE_CORNERS
from calibration.camera import Camera, Pose, project
from rules.pieces import Kind, Piece
from twin.cycles.frames import PALACES_FOLDER, load_palace, palace_names
from twin.cycles.palaces import PALACE_ELEVATION_DEG, PALACE_PIECES, make_palace_jobs


def _elevation_azimuth(pose: Pose) -> tuple[float, float]:
    """Degrees over the board's middle, and round it, of where the camera stands."""
    eye = pose.camera_center - CENTRE
    return (math.degrees(math.atan2(eye[2], math.hypot(eye[0], eye[1]))),
            math.degrees(math.atan2(eye[1], eye[0])))


def _whole_board_in_view(camera: Camera, pose: Pose) -> bool:
    uv = project(camera, pose, PLATE_CORNERS)
    return bool(np.all((uv >= 0) & (uv < [camera.width, camera.height])))


def test_a_palaces_views_stand_round_one_table(tmp_path: Path) -> None:
    jobs, truth = make_palace_jobs(0, tmp_path, samples=2, width=320, height=180)
    assert len(jobs) == len(truth["poses"]) == len(truth["develop"]) == 4
    assert len(truth["scene"].pieces) >= PALACE_PIECES
    # One table, light, card, clutter and set of pieces; each view its own camera and noise.
    own = {"camera", "seed"}
    assert all({k: v for k, v in job.items() if k not in own}
               == {k: v for k, v in jobs[0].items() if k not in own} for job in jobs[1:])
    assert len({job["seed"] for job in jobs}) == 4
    assert len({str(job["camera"]["rotation"]) for job in jobs}) == 4
    places = [_elevation_azimuth(pose) for pose in truth["poses"]]
    for (elevation, _), pose in zip(places, truth["poses"], strict=True):
        # The camera aims near the middle, not at it: a few degrees either way.
        assert PALACE_ELEVATION_DEG[0] - 5 <= elevation <= PALACE_ELEVATION_DEG[1] + 5
        assert _whole_board_in_view(truth["camera"], pose)
    azimuths = sorted(a for _, a in places)
    gaps = np.diff([*azimuths, azimuths[0] + 360])
    assert gaps.min() > 30  # round the table, not four looks from one side
    # The webcam re-exposes as it moves: each view's development drifts, its noise is new.
    assert len({str(d["white_balance"]) for d in truth["develop"]}) == 4
    assert len({d["seed"] for d in truth["develop"]}) == 4


@pytest.mark.skipif(not palace_names(), reason="no Cycles palaces rendered")
def test_the_committed_palaces_read_back() -> None:
    name = palace_names()[0]
    palace = load_palace(PALACES_FOLDER, name)
    assert len(palace.frames) == len(palace.poses) == 4
    assert len(palace.scene.pieces) >= PALACE_PIECES
    # The loaded palace stands every piece of the scene where the scene puts it.
    assert palace_keys(list(palace.palace.pieces)) == palace_keys(list(palace.scene.pieces))
    for frame, pose in zip(palace.frames, palace.poses, strict=True):
        assert frame.shape == (palace.camera.height, palace.camera.width, 3)
        assert _whole_board_in_view(palace.camera, pose)
    # The bench reads these as it reads the twin's views.
    views = next(cycles_views(limit=1))
    assert len(views.frames) == 4 and views.camera.to_json() == palace.camera.to_json()


def test_a_palace_with_a_corrupt_pose_is_skipped(tmp_path: Path) -> None:
    for name in ("000.view0.jpg", "000.scene.json", "000.map.json", "000.view0.camera.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "000.view0.pose.json").write_text('{"views": 1,')
    assert palace_names(tmp_path) == []
    with pytest.raises(ValueError, match="not valid JSON"):
        load_palace(tmp_path, "000")


def test_the_full_tally_counts_by_level_and_kind() -> None:
    right = Piece(Kind.BRICK, 3, 3, 0)
    upper = Piece(Kind.BRICK, 3, 3, 1)
    wrong = Piece(Kind.BRICK, 9, 9, 0)
    tally = FullTally()
    tally.add(palace_keys([right, wrong]), palace_keys([right, upper]))
    assert (tally.right, tally.read, tally.truth, tally.exact) == (1, 2, 2, 0)
    assert tally.level_right == {0: 1} and tally.level_truth == {0: 1, 1: 1}
    assert tally.level_read == {0: 2}
    assert tally.missed == {"brick": 1} and tally.extra == {"brick": 1}
