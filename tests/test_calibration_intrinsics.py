"""Intrinsics from chessboard photos, checked on views synthesised through a known camera."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import Camera, Pose, project
from calibration.intrinsics import (
    CalibrationError,
    ChessboardPattern,
    calibrate_chessboard,
    focal_from_homography,
)
from palace.cli import main

PATTERN = ChessboardPattern(8, 6, 20.0)
TRUE_CAMERA = Camera(
    640, 480, np.array([[560.0, 0, 322.0], [0, 560.0, 236.0], [0, 0, 1]]), np.zeros(5)
)


def render_chessboard(camera: Camera, pose: Pose, pattern: ChessboardPattern) -> np.ndarray:
    """A photo of the printed chessboard (white margin, grey table) through ``camera``."""
    ppm = 8.0  # texture pixels per mm
    margin = 1.6 * pattern.square_mm
    width = (pattern.cols - 1) * pattern.square_mm + 2 * pattern.square_mm + 2 * margin
    height = (pattern.rows - 1) * pattern.square_mm + 2 * pattern.square_mm + 2 * margin
    tex = np.full((int(height * ppm), int(width * ppm)), 240, np.uint8)
    origin = margin + pattern.square_mm  # texture mm of the first inner corner
    for i in range(-1, pattern.cols):
        for j in range(-1, pattern.rows):
            if (i + j) % 2 == 0:
                x0, y0 = origin + i * pattern.square_mm, origin + j * pattern.square_mm
                cv2.rectangle(
                    tex,
                    (round(x0 * ppm), round(y0 * ppm)),
                    (
                        round((x0 + pattern.square_mm) * ppm) - 1,
                        round((y0 + pattern.square_mm) * ppm) - 1,
                    ),
                    20,
                    -1,
                )
    # texture px -> board mm -> image px
    to_mm = np.array([[1 / ppm, 0, -origin], [0, 1 / ppm, -origin], [0, 0, 1]])
    r = pose.rotation
    h = camera.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], pose.tvec]) @ to_mm
    image = cv2.warpPerspective(
        tex, h, (camera.width, camera.height), flags=cv2.INTER_AREA, borderValue=90
    )
    return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)


def random_views(n: int, seed: int) -> list[Pose]:
    rng = np.random.default_rng(seed)
    centre = np.array([70.0, 50.0, 0.0])
    poses = []
    for _ in range(n):
        dist = rng.uniform(330, 420)
        tilt = math.radians(rng.uniform(15, 40))
        azimuth = rng.uniform(0, 2 * math.pi)
        eye = centre + dist * np.array(
            [
                math.sin(tilt) * math.cos(azimuth),
                math.sin(tilt) * math.sin(azimuth),
                -math.cos(tilt),
            ]
        )
        poses.append(Pose.look_at(eye, centre + rng.normal(0, 8, 3), up=np.array([0.0, -1.0, 0.0])))
    return poses


def test_pattern_parsing_names_the_problem():
    assert ChessboardPattern.parse("chessboard:9x6:25") == ChessboardPattern(9, 6, 25.0)
    with pytest.raises(CalibrationError, match="COLSxROWS"):
        ChessboardPattern.parse("checker:9x6")
    with pytest.raises(CalibrationError, match="3 to 100 inner corners"):
        ChessboardPattern.parse("chessboard:2x6:25")
    with pytest.raises(CalibrationError, match="3 to 100 inner corners"):
        ChessboardPattern.parse("chessboard:99999999999x6:25")
    with pytest.raises(CalibrationError, match="squares must be 1 to 500 mm"):
        ChessboardPattern.parse("chessboard:9x6:0.0001")


def test_chessboard_calibration_recovers_focal_length():
    views = [
        (f"v{i}", render_chessboard(TRUE_CAMERA, p, PATTERN))
        for i, p in enumerate(random_views(8, 1))
    ]
    blank = ("blank", np.full((480, 640, 3), 128, np.uint8))
    result = calibrate_chessboard([*views, blank], PATTERN)
    assert abs(result.camera.fx / TRUE_CAMERA.fx - 1) < 0.01
    assert result.rms_px < 0.5
    assert [name for name, _ in result.rejected] == ["blank"]
    assert "chessboard" in result.rejected[0][1]


def test_too_few_views_is_an_error_listing_the_rejected():
    blank = ("blank.png", np.full((480, 640, 3), 128, np.uint8))
    with pytest.raises(CalibrationError, match=r"blank\.png"):
        calibrate_chessboard([blank], PATTERN)


def test_focal_from_plane_homography():
    pose = random_views(1, 5)[0]
    r = pose.rotation
    h = TRUE_CAMERA.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], pose.tvec])
    f = focal_from_homography(h, Camera.default_for(640, 480).with_focal(500))
    assert f is not None
    # The guess's principal point is the image centre, a few pixels off the true one.
    assert abs(f / TRUE_CAMERA.fx - 1) < 0.03


def test_calibrate_command_writes_camera_and_reports(tmp_path, capsys):
    paths = []
    for i, pose in enumerate(random_views(5, 2)):
        path = tmp_path / f"view{i}.png"
        cv2.imwrite(str(path), render_chessboard(TRUE_CAMERA, pose, PATTERN))
        paths.append(str(path))
    (tmp_path / "junk.png").write_bytes(b"not an image")
    out = tmp_path / "camera.json"
    code = main(
        [
            "calibrate",
            "camera",
            *paths,
            str(tmp_path / "junk.png"),
            "--pattern",
            "chessboard:8x6:20",
            "--out",
            str(out),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert "RMS reprojection error" in captured.out
    assert "junk.png: not a PNG or JPEG picture" in captured.err
    data = json.loads(out.read_text())
    assert abs(data["camera_matrix"][0][0] / TRUE_CAMERA.fx - 1) < 0.02


def test_calibrate_command_bad_pattern_exits_2(tmp_path, capsys):
    code = main(
        ["calibrate", "camera", "x.png", "--pattern", "chess", "--out", str(tmp_path / "c.json")]
    )
    assert code == 2
    assert "COLSxROWS" in capsys.readouterr().err


@pytest.mark.parametrize("n_coeffs", [4, 5, 8])
def test_projection_agrees_with_opencv(n_coeffs):
    """The written-out lens model must give OpenCV's pixels, whatever the coefficient count."""
    rng = np.random.default_rng(n_coeffs)
    camera = Camera.default_for(1280, 720, 60.0)
    scales = np.array([0.2, 0.05, 0.002, 0.002, 0.01, 0.05, 0.05, 0.05])[:n_coeffs]
    dist = rng.normal(0, scales)
    camera = Camera(1280, 720, camera.camera_matrix, dist)
    pose = Pose.look_at(np.array([128.0, -300.0, 420.0]), np.array([128.0, 128.0, 0.0]))
    points = rng.uniform([-20, -20, -5], [280, 280, 40], (500, 3))
    expected, _ = cv2.projectPoints(
        points.reshape(-1, 1, 3), pose.rvec, pose.tvec, camera.camera_matrix, dist
    )
    got = project(camera, pose, points)
    assert np.abs(got - expected.reshape(-1, 2)).max() < 1e-6


def test_a_cropped_camera_sees_the_window_of_the_picture():
    camera = Camera(1280, 720, Camera.default_for(1280, 720).camera_matrix, np.array(
        [-0.2, 0.05, 0.001, -0.001, 0.01]))
    pose = Pose.look_at(np.array([128.0, -300.0, 420.0]), np.array([128.0, 128.0, 0.0]))
    points = np.random.default_rng(1).uniform([0, 0, 0], [256, 256, 10], (50, 3))
    window = camera.cropped(300, 120, 640, 480)
    assert (window.width, window.height) == (640, 480)
    np.testing.assert_allclose(
        project(window, pose, points), project(camera, pose, points) - [300, 120], atol=1e-9
    )


def test_a_pose_never_changes_so_its_rotation_is_read_once():
    pose = Pose(np.array([0.1, -0.2, 0.3]), np.zeros(3))
    assert pose.rotation is pose.rotation
    np.testing.assert_allclose(pose.rotation, cv2.Rodrigues(pose.rvec)[0])


def write_views(tmp_path, cameras_and_poses) -> list[str]:
    paths = []
    for i, (camera, pose) in enumerate(cameras_and_poses):
        path = tmp_path / f"v{i}.png"
        cv2.imwrite(str(path), render_chessboard(camera, pose, PATTERN))
        paths.append(str(path))
    return paths


def calibrate(paths, out) -> list[str]:
    return ["calibrate", "camera", *paths, "--pattern", "chessboard:8x6:20", "--out", str(out)]


def test_three_copies_of_one_picture_are_refused(tmp_path, capsys):
    (path,) = write_views(tmp_path, [(TRUE_CAMERA, random_views(1, 4)[0])])
    copies = []
    for name in ("a.png", "b.png"):
        (tmp_path / name).write_bytes((tmp_path / "v0.png").read_bytes())
        copies.append(str(tmp_path / name))
    assert main(calibrate([path, *copies], tmp_path / "c.json")) == 2
    err = capsys.readouterr().err
    assert "a.png: the same view as" in err and "only 1 usable view" in err
    assert not (tmp_path / "c.json").exists()


def test_views_that_no_single_camera_explains_are_refused(tmp_path, capsys):
    """Every other view was taken at 960x480 and resized to 640x480: no lens explains both."""
    wide = Camera(960, 480, np.array([[560.0, 0, 480.0], [0, 560.0, 236.0], [0, 0, 1]]),
                  np.zeros(5))
    paths = []
    for i, pose in enumerate(random_views(6, 5)):
        image = render_chessboard(wide if i % 2 else TRUE_CAMERA, pose, PATTERN)
        path = tmp_path / f"v{i}.png"
        cv2.imwrite(str(path), cv2.resize(image, (640, 480)))
        paths.append(str(path))
    assert main(calibrate(paths, tmp_path / "c.json")) == 2
    err = capsys.readouterr().err
    assert "no single camera explains these 6 views" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "c.json").exists()


def test_a_fit_worse_than_the_limit_names_the_worst_views(monkeypatch):
    import calibration.intrinsics as intrinsics

    views = [(f"v{i}", render_chessboard(TRUE_CAMERA, p, PATTERN))
             for i, p in enumerate(random_views(4, 2))]
    monkeypatch.setattr(intrinsics, "MAX_RMS_PX", 1e-6)
    with pytest.raises(CalibrationError, match=r"RMS reprojection error .*\(worst: v\d"):
        calibrate_chessboard(views, PATTERN)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line_not_a_traceback(tmp_path, capsys):
    paths = write_views(tmp_path, [(TRUE_CAMERA, p) for p in random_views(4, 2)])
    assert main(calibrate(paths, "/dev/full")) == 2
    err = capsys.readouterr().err
    assert err.startswith("palace calibrate: /dev/full: No space left on device")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [("--out", "{tmp}", "is a folder"), ("--out", "{tmp}/no/c.json", "no such folder"),
     ("--profile", "{tmp}/no/p.json", "no such folder"),
     ("--pattern", "chessboard:99999999999x6:25", "3 to 100 inner corners")],
)
def test_calibrate_checks_its_arguments_before_reading_views(tmp_path, capsys, option, value,
                                                            says):
    argv = calibrate(["x.png"], tmp_path / "c.json")
    argv += [option, value.format(tmp=tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_a_large_photo_is_searched_small_and_refined_at_full_size(monkeypatch):
    import calibration.intrinsics as intrinsics

    big = TRUE_CAMERA.scaled_to(1920, 1440)
    assert max(big.width, big.height) > intrinsics.SEARCH_SIDE
    photo = render_chessboard(big, random_views(1, 8)[0], PATTERN)
    searched_small = intrinsics.find_chessboard(photo, PATTERN)
    monkeypatch.setattr(intrinsics, "SEARCH_SIDE", 4000)
    searched_full = intrinsics.find_chessboard(photo, PATTERN)
    assert searched_small is not None and searched_full is not None
    assert np.abs(searched_small - searched_full).max() < 0.05
