"""Board pose from twin frames with known ground truth."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose, rotation_angle_deg
from calibration.pose import locate_board
from calibration.profile import Profile
from calibration.tracking import BoardTracker
from palace.cli import main
from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import Kind, Piece
from tests.calibration_frames import grid_error_px

twin = pytest.importorskip("twin")

GROUND = load_map("1")
CENTRE = np.array([128.0, 128.0, 0.0])


@pytest.fixture(scope="module")
def palace() -> Palace:
    extra = [
        Piece(Kind.COLUMN, 14, 10, 0, color="tan", id="c1"),
        Piece(Kind.COLUMN, 17, 20, 0, color="dark_tan", id="c2"),
        Piece(Kind.BRICK, 14, 10, 3, color="dark_orange", id="b1"),
    ]
    return Palace(GROUND, [*GROUND.setup, *extra])


def camera_from_side(
    side: int, elevation_deg: float = 50.0, distance: float = 520.0
) -> tuple[Camera, Pose]:
    """A camera aimed at the board centre from side 0 (y<0), 1 (x<0), 2 (y>256), 3 (x>256)."""
    azimuth = math.radians(-90 - 90 * side)
    el = math.radians(elevation_deg)
    eye = CENTRE + distance * np.array(
        [math.cos(el) * math.cos(azimuth), math.cos(el) * math.sin(azimuth), math.sin(el)]
    )
    return Camera.default_for(1280, 720, 62.0), Pose.look_at(eye, CENTRE)


def test_clean_frames_give_millimetre_poses(palace):
    for seed in range(3):
        camera, pose = twin.random_camera(np.random.default_rng(seed))
        frame = twin.render(palace, camera, pose, twin.RenderOptions(clean=True), seed=seed)
        result = locate_board(frame.image, frame.camera, GROUND)
        assert result.found, (seed, result.reason)
        assert np.linalg.norm(result.pose.tvec - frame.pose.tvec) < 2.0, seed
        assert rotation_angle_deg(result.pose.rotation, frame.pose.rotation) < 0.3, seed
        assert sorted(result.corner_bricks) == [0, 1, 2, 3]


def test_rotation_resolved_for_all_four_board_turns(palace):
    for side in range(4):
        camera, pose = camera_from_side(side)
        frame = twin.render(palace, camera, pose, twin.RenderOptions(clean=True), seed=side)
        result = locate_board(frame.image, camera, GROUND)
        assert result.found, (side, result.reason)
        assert result.rotation == side
        assert grid_error_px(camera, pose, result.pose) < 1.0


def test_one_corner_brick_covered_never_gives_a_wrong_pose(palace):
    """A hand or a card over one corner brick: found in 19 of 20 frames, never found wrong.

    The twin's default realism (random light, table, noise, blur, JPEG, lens), with its
    clutter switched off: the random clutter adds arms lying across the board on top of
    the covered corner, a different case that the bench measures on 200 frames.
    """
    found = 0
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        camera, pose = twin.random_camera(rng)
        options = twin.RenderOptions(clutter=False, cover_corners=(seed % 4,))
        frame = twin.render(palace, camera, pose, options, seed=seed)
        result = locate_board(frame.image, frame.camera, GROUND)
        if result.found:
            # Found means right: a wrong pose must never be reported.
            assert grid_error_px(frame.camera, frame.pose, result.pose) < 1.0, seed
            # Two corner bricks seen, or one with all four sides where the lattice puts them.
            assert len(result.corner_bricks) >= 1
            found += 1
        else:
            assert result.reason
    assert found >= 19


def test_no_board_no_pose():
    rng = np.random.default_rng(3)
    noise = rng.normal(0, 12, (720, 1280, 3))
    table = np.clip(noise + np.array([70, 110, 150]), 0, 255).astype(np.uint8)
    table = cv2.GaussianBlur(table, (0, 0), 3)
    # A green card on the table: board-coloured, board-sized, but no corner bricks or map.
    card = table.copy()
    cv2.fillConvexPoly(
        card, np.array([[400, 200], [900, 210], [960, 600], [350, 590]]), (65, 120, 35)
    )
    camera = Camera.default_for(1280, 720)
    for image in (table, card):
        result = locate_board(image, camera, GROUND)
        assert not result.found
        assert result.reason


def test_tracker_follows_and_notices_a_turn(palace):
    camera, pose = camera_from_side(0)
    frames = [
        twin.render(palace, camera, pose, twin.RenderOptions(clean=True), seed=1),
        twin.render(
            palace,
            camera,
            Pose(pose.rvec + 0.001, pose.tvec + 1.0),
            twin.RenderOptions(clean=True),
            seed=2,
        ),
        # The board turned a quarter: the camera now sees it from side 1.
        twin.render(palace, camera, turned_pose(pose, 1), twin.RenderOptions(clean=True), seed=3),
    ]
    tracker = BoardTracker(camera, GROUND)
    first = tracker.update(frames[0].image)
    second = tracker.update(frames[1].image)
    assert first.found and second.found
    assert tracker.stats.tracked == 1
    assert grid_error_px(camera, frames[1].pose, second.pose) < 1.0
    third = tracker.update(frames[2].image)
    assert third.found and tracker.turned
    assert first.rotation == 0 and third.rotation == 1
    assert grid_error_px(camera, frames[2].pose, third.pose) < 1.0


def test_tracker_is_not_fooled_by_a_bump_of_one_stud(palace):
    """Shifted by exactly one stud, every stud lands on a stud: only the sides tell."""
    camera, pose = camera_from_side(1, elevation_deg=60)
    bumped = Pose(pose.rvec, pose.tvec + pose.rotation @ np.array([8.0, 0.0, 0.0]))
    options = twin.RenderOptions(clean=True)
    first = twin.render(palace, camera, pose, options, seed=5)
    second = twin.render(palace, camera, bumped, options, seed=6)
    tracker = BoardTracker(camera, GROUND)
    assert tracker.update(first.image).found
    result = tracker.update(second.image)
    assert result.found
    assert grid_error_px(camera, second.pose, result.pose) < 1.0
    # Refitted from the last pose (the sides move it back by the stud), no search.
    assert tracker.moved and not tracker.turned
    assert tracker.stats.searched == 1 and tracker.stats.tracked == 1


def test_locate_command(palace, tmp_path, capsys):
    camera, pose = camera_from_side(2, elevation_deg=55)
    frame = twin.render(palace, camera, pose, twin.RenderOptions(clean=True), seed=4)
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), frame.image)
    cam_file = tmp_path / "camera.json"
    camera.save(cam_file)
    profile = tmp_path / "profile.json"
    code = main(
        ["locate", str(image), "--camera", str(cam_file), "--json", "--profile", str(profile),
         "--map", "1"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["found"] is True
    assert out["rotation"] == 2
    got = Pose(np.array(out["rvec"]), np.array(out["tvec"]))
    assert grid_error_px(camera, pose, got) < 1.0
    saved = Profile.load(profile)
    assert saved.tables["default"].rotation == 2

    # The profile alone now supplies the camera, and the last pose to start from.
    code = main(["locate", str(image), "--json", "--profile", str(profile), "--map", "1"])
    again = json.loads(capsys.readouterr().out)
    assert code == 0 and again["rotation"] == 2
    assert grid_error_px(camera, pose, Pose(np.array(again["rvec"]), np.array(again["tvec"]))) < 1.0

    # Without a camera file the focal length is refined from the board view.
    code = main(["locate", str(image)])
    text = capsys.readouterr().out
    assert code == 0 and "refined its focal length" in text


def test_locate_command_errors(tmp_path, capsys):
    blank = tmp_path / "table.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), (60, 90, 140), np.uint8))
    assert main(["locate", str(blank), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["found"] is False and out["reason"]
    assert main(["locate", str(tmp_path / "nope.png")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["locate", str(blank), "--camera", str(tmp_path / "cam.json")]) == 2
    assert "no such camera file" in capsys.readouterr().err


def test_search_budget_never_cuts_the_outline_poses(palace):
    """With no time for the slow path at all, a clean board is still found from its outline."""
    camera, pose = twin.random_camera(np.random.default_rng(7))
    frame = twin.render(palace, camera, pose, twin.RenderOptions(clean=True), seed=7)
    result = locate_board(frame.image, frame.camera, GROUND, budget_s=0.0)
    assert result.found, result.reason
    assert grid_error_px(frame.camera, frame.pose, result.pose) < 1.0


def test_side_steps_median_ignores_unsampled_positions():
    from calibration.side_profiles import _nanmedian_last

    rng = np.random.default_rng(3)
    values = rng.normal(20, 5, (10, 4, 2, 16))
    values[rng.random(values.shape) < 0.4] = np.nan
    values[..., 0] = np.nan_to_num(values[..., 0], nan=7.0)  # every row keeps a number
    assert np.allclose(_nanmedian_last(values), np.nanmedian(values, axis=-1))


def test_a_focal_length_twelve_percent_off_is_searched_from_the_outline(palace):
    """With no intrinsics file the focal length is a guess: the outline's rim, fitted
    under the focal lengths around it, brings the pose onto the studs and the focal
    length nearer the truth (method "focal")."""
    from dataclasses import replace

    from bench.calibration import WRONG_PX, turn_errors

    camera, pose = twin.random_camera(np.random.default_rng(62))
    frame = twin.render(palace, camera, pose, twin.RenderOptions(clutter=False), seed=2)
    matrix = frame.camera.camera_matrix.copy()
    matrix[0, 0] *= 1.12
    matrix[1, 1] *= 1.12
    guess = replace(frame.camera, camera_matrix=matrix)
    found = locate_board(frame.image, guess, load_map("1"), refine_focal=True)
    assert found.found and found.method == "focal"
    assert min(turn_errors(frame.camera, pose, found)) <= WRONG_PX
    assert found.camera is not None
    assert abs(found.camera.fx - frame.camera.fx) < abs(guess.fx - frame.camera.fx)


def test_a_board_whose_outline_is_cut_is_found_under_the_fields_of_view_swept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A wide-twin board whose outline gives no focal length (the outlines alone find
    nothing) is found from a 60-degree guess 39 % off by the whole search under the
    webcams' fields of view, under the one whose stud lattice fits tightest: near the
    truth."""
    import calibration.focal_search
    from bench.calibration import WRONG_PX, turn_errors, twin_frame

    drawn = twin_frame(404)
    image, truth = drawn.frame.image, drawn.frame.camera
    guess = Camera.default_for(image.shape[1], image.shape[0])
    with monkeypatch.context() as patch:
        patch.setattr(calibration.focal_search, "SWEEP_HFOV_DEG", ())
        assert not locate_board(image, guess, drawn.ground, refine_focal=True).found
    found = locate_board(image, guess, drawn.ground, refine_focal=True)
    assert found.found and found.method == "focal" and found.camera is not None
    assert min(turn_errors(truth, drawn.frame.pose, found)) <= WRONG_PX
    assert abs(found.camera.fx / truth.fx - 1) < 0.05 < abs(guess.fx / truth.fx - 1)
