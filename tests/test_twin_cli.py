"""`palace render` and `palace dataset`: files written, truth readable, bad input refused."""

from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest

from palace.cli import main
from rules.maps import SETUP_PIECES
from rules.pieces import Kind, Piece
from rules.scene import Scene
from twin.dataset import DatasetSpec, Progress, write_dataset

CAMERA = {
    "width": 240,
    "height": 135,
    "camera_matrix": [[190.0, 0, 120.0], [0, 190.0, 67.5], [0, 0, 1]],
    "dist_coeffs": [-0.08, 0.01, 0, 0, 0],
}


@pytest.fixture
def files(tmp_path):
    scene = tmp_path / "scene.json"
    Scene.of(SETUP_PIECES).save(scene)
    camera = tmp_path / "camera.json"
    camera.write_text(json.dumps(CAMERA))
    return tmp_path, scene, camera


def test_render_writes_picture_labels_depth_and_truth(files, capsys):
    folder, scene, camera = files
    out = folder / "frame.png"
    assert main(["render", str(scene), "--camera", str(camera), "--seed", "4",
                 "--out", str(out)]) == 0
    picture = cv2.imread(str(out))
    assert picture.shape == (135, 240, 3)
    labels = cv2.imread(str(folder / "frame.labels.png"), cv2.IMREAD_UNCHANGED)
    assert labels.dtype == np.uint16 and labels.shape == (135, 240, 3)
    truth = json.loads((folder / "frame.json").read_text())
    assert truth["camera"]["camera_matrix"] == CAMERA["camera_matrix"]
    assert len(truth["scene"]["pieces"]) == len(SETUP_PIECES)
    kinds, pieces = labels[:, :, 0], labels[:, :, 2].astype(int) - 1
    seen = {truth["pieces"][i]["kind"] for i in np.unique(pieces[pieces >= 0])}
    assert "arch" in seen
    arch_label = truth["labels"]["arch"]
    arch_indices = [p["index"] for p in truth["pieces"] if p["kind"] == "arch"]
    assert np.all(np.isin(pieces[kinds == arch_label], arch_indices))
    depth = cv2.imread(str(folder / "frame.depth.png"), cv2.IMREAD_UNCHANGED)
    assert np.all(depth[kinds >= 1] > 0)
    assert "wrote" in capsys.readouterr().out


def test_render_with_a_pose_file_is_reproducible(files):
    folder, scene, camera = files
    pose = folder / "pose.json"
    pose.write_text(json.dumps({"rvec": [2.2, 0.0, 0.0], "tvec": [-128.0, 100.0, 420.0]}))
    for name in ("a.png", "b.png"):
        assert main(["render", str(scene), "--camera", str(camera), "--pose", str(pose),
                     "--clean", "--out", str(folder / name)]) == 0
    a, b = cv2.imread(str(folder / "a.png")), cv2.imread(str(folder / "b.png"))
    assert np.array_equal(a, b)
    assert a.std() > 5  # something was drawn


@pytest.mark.parametrize(
    ("what", "content", "message"),
    [
        ("camera", "{not json", "camera.json: not valid JSON"),
        ("camera", json.dumps({"width": 10}), "width: must be at least 16, found 10"),
        ("camera", json.dumps({**CAMERA, "camera_matrix": [[1, 2], [3, 4]]}),
         "camera_matrix[0]: must have at least 3 items"),
        ("scene", json.dumps({"format": "palace-scene/1", "pieces": [{"kind": "dragon"}]}),
         "kind: must be 'brick'"),
        ("scene", "[1, 2", "not valid JSON"),
        ("scene", json.dumps({"format": "palace-scene/1", "map": "9", "pieces": []}),
         "no such map file"),
        ("pose", json.dumps({"rvec": [1, 2]}), "rvec: must have at least 3 items"),
    ],
)
def test_bad_input_is_a_one_line_error(files, capsys, what, content, message):
    folder, scene, camera = files
    target = {"camera": camera, "scene": scene, "pose": folder / "pose.json"}[what]
    target.write_text(content)
    argv = ["render", str(scene), "--camera", str(camera), "--out", str(folder / "f.png")]
    if what == "pose":
        argv += ["--pose", str(target)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and str(target) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_render_refuses_a_picture_it_cannot_write(files, capsys):
    folder, scene, camera = files
    assert main(["render", str(scene), "--camera", str(camera),
                 "--out", str(folder / "frame.bmp")]) == 2
    assert main(["render", str(scene), "--camera", str(camera),
                 "--out", str(folder / "missing" / "frame.png")]) == 2
    err = capsys.readouterr().err
    assert ".png or .jpg" in err and "no such folder" in err


def test_dataset_writer_is_reproducible(tmp_path):
    scenes = [
        (0, 0, Scene.of(SETUP_PIECES)),
        (0, 1, Scene.of([*SETUP_PIECES, Piece(Kind.COLUMN, 5, 5, 0, color="tan")])),
    ]
    spec = DatasetSpec(games=1, views=2, seed=9, width=160, height=90)
    bar = io.StringIO()
    for name in ("a", "b"):
        assert write_dataset(tmp_path / name, scenes, spec, Progress(4, bar)) == 4
    index = json.loads((tmp_path / "a" / "dataset.json").read_text())
    assert len(index["frames"]) == 4
    for frame in index["frames"]:
        a = cv2.imread(str(tmp_path / "a" / f"{frame}.png"))
        b = cv2.imread(str(tmp_path / "b" / f"{frame}.png"))
        assert np.array_equal(a, b)
    assert "4/4" in bar.getvalue()


def test_dataset_command_plays_and_renders(tmp_path, capsys):
    import rules.bot

    assert hasattr(rules.bot, "simulate_game")
    out = tmp_path / "set"
    assert main(["dataset", str(out), "--games", "1", "--views", "1", "--seed", "2",
                 "--width", "160", "--height", "90"]) == 0
    index = json.loads((out / "dataset.json").read_text())
    assert index["frames"]
    first = index["frames"][0]
    assert (out / f"{first}.labels.png").exists()
    assert "frames" in capsys.readouterr().out


def test_dataset_refuses_bad_counts(tmp_path, capsys):
    assert main(["dataset", str(tmp_path / "x"), "--games", "0"]) == 2
    assert "--games and --views" in capsys.readouterr().err
