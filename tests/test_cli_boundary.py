"""Every command's arguments and outputs at the boundary: one line, exit 2, nothing started;
and the rules bugs found on the way (an illegal turn earns no trophy)."""

from __future__ import annotations

import json
from importlib import resources

import cv2
import numpy as np
import pytest

from palace.cli import main
from rules.maps import SETUP_PIECES, piece_to_json

CAMERA = {
    "width": 240,
    "height": 135,
    "camera_matrix": [[190.0, 0, 120.0], [0, 190.0, 67.5], [0, 0, 1]],
    "dist_coeffs": [-0.08, 0.01, 0, 0, 0],
}
SETUP = [piece_to_json(p) for p in SETUP_PIECES]


@pytest.fixture
def files(tmp_path):
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps({"format": "palace-scene/1", "pieces": SETUP}))
    camera = tmp_path / "camera.json"
    camera.write_text(json.dumps(CAMERA))
    return tmp_path, scene, camera


def refused(capsys, argv, *says) -> str:
    """Runs the command; it must exit 2 (argparse's way or ours) with one line saying ``says``."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    for part in says:
        assert part in err, err
    return err


def render_args(files, out, *more):
    _, scene, camera = files
    return ["render", scene, "--camera", camera, "--out", out, *more]


def test_render_out_that_is_a_folder_or_in_a_missing_one(files, capsys):
    folder = files[0]
    (folder / "dir.png").mkdir()
    refused(capsys, render_args(files, folder / "dir.png"), "is a folder")
    refused(capsys, render_args(files, folder / "no" / "f.png"), "no such folder")
    (folder / "f.json").mkdir()  # where the truth file would go
    refused(capsys, render_args(files, folder / "f.png"), "f.json: is a folder")
    assert not (folder / "f.png").exists()


@pytest.mark.parametrize("seed", ["-1", "x", "99999999999999999999"])
def test_a_seed_must_be_a_non_negative_32_bit_number(files, capsys, seed):
    refused(capsys, render_args(files, files[0] / "f.png", "--seed", seed), "--seed",
            "see palace render --help")
    refused(capsys, ["dataset", files[0] / "set", "--seed", seed], "--seed")


def test_argument_errors_are_one_line(capsys):
    refused(capsys, ["render"], "required")
    refused(capsys, ["nosuchcommand"], "invalid choice")
    refused(capsys, ["dataset", "x", "--games", "many"], "invalid int value")


def test_locate_profile_in_a_missing_folder_is_refused_before_work(tmp_path, capsys):
    picture = tmp_path / "t.png"
    cv2.imwrite(str(picture), np.full((120, 160, 3), 90, np.uint8))
    refused(capsys, ["locate", picture, "--profile", tmp_path / "no" / "p.json"],
            "--profile", "no such folder")


def test_dataset_out_that_is_a_file_or_in_a_missing_folder(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    refused(capsys, ["dataset", tmp_path / "file"], "exists and is not a folder")
    refused(capsys, ["dataset", tmp_path / "no" / "set"], "no such folder")
    refused(capsys, ["dataset", tmp_path / "s", "--width", "8192", "--height", "8192"],
            "at most")


def piece(kind, x, y, z=0, **more):
    return {"kind": kind, "x": x, "y": y, "z": z, **more}


@pytest.mark.parametrize(
    ("pieces", "says"),
    [
        ([piece("brick", 40, 3)], "off"),
        ([piece("brick", 5, 5), piece("brick", 5, 5)], "overlaps"),
        ([piece("brick", 5, 5, 3)], "nothing under"),
    ],
)
def test_render_refuses_a_palace_no_table_could_hold(files, capsys, pieces, says):
    folder, scene, _ = files
    scene.write_text(json.dumps({"format": "palace-scene/1", "pieces": SETUP + pieces}))
    err = refused(capsys, render_args(files, folder / "f.png"), "no table could hold",
                  "--allow-impossible")
    assert says in err.lower()
    assert not (folder / "f.png").exists()
    assert main([str(a) for a in render_args(files, folder / "f.png", "--allow-impossible",
                                             "--clean")]) == 0
    assert "warning" in capsys.readouterr().err
    assert cv2.imread(str(folder / "f.png")).shape == (135, 240, 3)


def test_render_of_a_sound_palace_is_unchanged(files, capsys):
    assert main([str(a) for a in render_args(files, files[0] / "f.png", "--clean")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_render_refuses_a_camera_larger_than_it_draws(files, capsys):
    folder, _, camera = files
    big = {**CAMERA, "width": 5000, "height": 4000,
           "camera_matrix": [[4000.0, 0, 2500.0], [0, 4000.0, 2000.0], [0, 0, 1]]}
    camera.write_text(json.dumps(big))
    refused(capsys, render_args(files, folder / "f.png"), "5000x4000 camera")


def example(name: str) -> str:
    return str(resources.files("palace") / "examples" / "game1" / name)


def test_an_illegal_turn_earns_no_trophy_not_even_the_frog(capsys):
    code = main(["score", example("turn_00.json"), example("turn_02.json"), "--frog-taken",
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["legal"] is False
    assert report["trophies"] == {"monkey": False, "butterfly": False, "frog": False}


def test_a_legal_turn_with_the_frog_still_takes_it(capsys):
    code = main(["score", example("turn_00.json"), example("turn_01.json"), "--frog-taken",
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["trophies"]["frog"] is True


def test_a_map_file_error_names_the_path_in_every_command(tmp_path, capsys):
    from rules.maps import load_map

    data = load_map("1").to_json()
    data["name"] = "Kitchen"
    data["start_area"] = [[3]]
    bad = tmp_path / "kitchen.json"
    bad.write_text(json.dumps(data))
    scene = tmp_path / "s.json"
    scene.write_text(json.dumps({"format": "palace-scene/1", "pieces": SETUP}))
    for argv in (["check", scene, "--map", bad], ["score", scene, scene, "--map", bad]):
        err = refused(capsys, argv, f"{bad}: start_area[0][1]: missing")
        assert "Kitchen" not in err


def test_a_file_that_is_no_video_is_refused_in_one_line_without_ffmpeg_noise(tmp_path):
    # FFmpeg writes to the process's stderr itself, so only a fresh process shows it.
    import os
    import socket
    import subprocess
    import sys

    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"abc")
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_FFMPEG_LOGLEVEL"}
    with socket.socket() as probe:  # a port free now: the source is refused before serving
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "palace.cli", "watch", "--exit", "--video", str(clip),
         "--port", str(port), "--db", str(tmp_path / "g.sqlite")],
        capture_output=True, text=True, env=env, timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and lines == [f"palace watch: {clip}: not a video OpenCV "
                                              "can read"], done.stderr


def test_serve_refuses_a_host_it_cannot_serve_on_in_one_line(capsys):
    assert main(["serve", "--host", "256.1.1.1", "--port", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("palace serve: --host 256.1.1.1") and "\n" not in err


def test_an_empty_map_option_is_refused_in_one_line_in_every_command(files, capsys):
    """An empty ``--map`` is refused in one line, never a map looked for under the
    current folder, silently no map, nor a crash (full mode's reconstruct has no scene
    to take a map from)."""
    tmp_path, scene, camera = files
    picture = tmp_path / "v0.png"
    cv2.imwrite(str(picture), np.zeros((135, 240, 3), np.uint8))
    for argv in (["check", scene, "--map", ""], ["score", scene, scene, "--map", " "],
                 ["reconstruct", picture, "--camera", camera, "--out", tmp_path / "s.json",
                  "--map", ""]):
        refused(capsys, argv, "--map: empty")
    assert not (tmp_path / "s.json").exists()
    for argv in (["locate", picture, "--camera", camera, "--map", ""],
                 ["dataset", tmp_path / "set", "--map", " "]):
        refused(capsys, argv, "empty map name")
    assert not (tmp_path / "set").exists()


def test_a_reserved_port_is_held_until_the_server_takes_it() -> None:
    """The port checked is the port served: while one command holds it, another asking
    for it gets the one-line error at once, not a server thread's failure later."""
    import socket

    from palace.cli import UsageError
    from palace.commands.serve import reserve_port

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    held = reserve_port("127.0.0.1", port)
    try:
        with pytest.raises(UsageError, match="cannot serve there"):
            reserve_port("127.0.0.1", port)
    finally:
        held.close()
