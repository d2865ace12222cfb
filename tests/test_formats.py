"""The typed formats: every bad file the issue lists is refused in one line naming the file
and the field; good files, unknown keys and the published schemas survive."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from calibration.camera import Camera, CameraFileError, Pose
from calibration.formats import CameraModel
from calibration.profile import Profile, TablePose
from palace.cli import main
from palace.commands.schemas import SCHEMAS, schema_texts
from rules.formats import MAX_NESTING, nesting_depth, read_json
from rules.maps import MapError, load_map
from rules.scene import SceneError, load_scene

CAMERA = {
    "width": 640,
    "height": 480,
    "camera_matrix": [[560.0, 0, 320.0], [0, 560.0, 240.0], [0, 0, 1]],
    "dist_coeffs": [-0.08, 0.01, 0, 0, 0],
}
POSE = {"rvec": [2.2, 0.0, 0.0], "tvec": [-128.0, 100.0, 420.0]}
SCENE = {"format": "palace-scene/1", "map": "1", "pieces": []}


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def one_line_error(capsys, argv, path) -> str:
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert str(path) in err and "Traceback" not in err
    return err


# -- nesting and size ---------------------------------------------------------------------


def test_nesting_depth_skips_strings_and_never_recurses():
    assert nesting_depth('{"a": [1, {"b": "[[[[["}]}') == 3
    assert nesting_depth("[" * 1_000_000) == 1_000_000
    assert nesting_depth("") == 0


@pytest.mark.parametrize("role", ["scene", "map", "camera", "pose", "profile"])
def test_a_file_nested_100000_deep_is_refused_in_every_role(tmp_path, capsys, role):
    deep = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    scene = write(tmp_path, "scene.json", SCENE)
    camera = write(tmp_path, "camera.json", CAMERA)
    argv = {
        "scene": ["check", deep],
        "map": ["check", scene, "--map", deep],
        "camera": ["render", scene, "--camera", deep, "--out", tmp_path / "f.png"],
        "pose": ["render", scene, "--camera", camera, "--pose", deep,
                 "--out", tmp_path / "f.png"],
        "profile": ["calibrate", "camera", "x.png", "--pattern", "chessboard:9x6:25",
                    "--out", tmp_path / "c.json", "--profile", deep],
    }[role]
    err = one_line_error(capsys, argv, deep)
    assert "nested 100000 deep" in err and f"at most {MAX_NESTING}" in err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"x": NaN}', "NaN is not a JSON number"),
        ('{"x": Infinity}', "Infinity is not a JSON number"),
        ('{"x": ' + "9" * 5000 + "}", "not valid JSON"),
        ("\xff\xfe", "cannot read"),
    ],
)
def test_json_that_python_would_half_accept_is_refused(tmp_path, text, says):
    path = tmp_path / "f.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(SceneError, match=says):
        read_json(path, "scene file", SceneError)


def test_a_huge_or_endless_file_is_refused_without_reading_it_all(tmp_path):
    with pytest.raises(SceneError, match="too large"):
        read_json("/dev/zero", "scene file", SceneError, max_bytes=1000)
    with pytest.raises(SceneError, match="is a folder"):
        read_json(tmp_path, "scene file", SceneError)


# -- scenes -------------------------------------------------------------------------------


def corner(x, y, **extra):
    return {"kind": "corner", "x": x, "y": y, **extra}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"format": "palace-scene/1"}, "pieces: missing"),
        ({**SCENE, "pieces": [{"id": [1], "kind": "brick", "x": 3, "y": 3}]},
         "pieces[0].id: must be a string"),
        ({**SCENE, "pieces": [{"id": {"a": 1}, "kind": "brick", "x": 3, "y": 3}]},
         "pieces[0].id: must be a string"),
        ({**SCENE, "pieces": [{"id": 7, "kind": "brick", "x": 3, "y": 3}]},
         "pieces[0].id: must be a string"),
        ({**SCENE, "pieces": [corner(1, 1), corner(29, 1), corner(1, 29), corner(29, 29),
                              corner(15, 15)]},
         "5 pieces of kind 'corner'; the game has 4"),
        ({**SCENE, "pieces": [{"kind": "monkey", "x": 1, "y": 5},
                              {"kind": "monkey", "x": 5, "y": 5}]},
         "2 pieces of kind 'monkey'; the game has 1"),
        ({**SCENE, "pieces": [{"id": "b", "kind": "brick", "x": 1e308, "y": 3}]},
         "pieces[0] (id 'b').x: must be at most 96"),
        ({**SCENE, "pieces": [{"id": "b", "kind": "brick", "x": 3, "y": 3, "z": -1}]},
         "(id 'b').z: must be at least 0"),
        ({**SCENE, "map": 2}, "map: must be a string"),
    ],
)
def test_scenes_the_issue_found_accepted_are_refused(tmp_path, data, says):
    path = write(tmp_path, "s.json", data)
    with pytest.raises(SceneError) as err:
        load_scene(path)
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value)


def test_scene_pieces_keep_their_unknown_keys(tmp_path):
    data = {**SCENE, "source": "cam", "pieces": [{"kind": "brick", "x": 3, "y": 4, "conf": 0.9}]}
    scene = load_scene(write(tmp_path, "s.json", data))
    assert scene.to_json()["source"] == "cam"
    assert scene.to_json()["pieces"][0]["conf"] == 0.9


# -- maps ---------------------------------------------------------------------------------


def map_file(**changes):
    data = load_map("1").to_json()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"start_area": [[1]]}, "start_area[0][1]: missing"),
        ({"start_area": [1, 2]}, "start_area[0]: must be a list"),
        ({"start_area": "here"}, "start_area: must be a list"),
        ({"start_area": [[1, 40]]}, "start_area[0][1]: must be at most 31"),
        ({"start_area": [[1, "a"]]}, "start_area[0][1]: must be a whole number"),
        ({"setup": [1]}, "setup[0]: must be a JSON object"),
        ({"setup": "arch"}, "setup: must be a list"),
        ({"setup": [{"kind": "brick"}]}, "setup[0].x: missing"),
        ({"ground": ["L" * 32] * 31}, "ground row 31: missing"),
        ({"ground": ["L" * 32] * 31 + ["L" * 31 + "Q"]}, "ground row 31, column 31: 'Q'"),
    ],
)
def test_a_malformed_map_names_the_file_not_its_inner_name(tmp_path, changes, says):
    path = write(tmp_path, "mine.json", map_file(name="Inner Name", **changes))
    with pytest.raises(MapError) as err:
        load_map(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and says in message
    assert "Inner Name" not in message and "\n" not in message


def with_row(y: int, row: str) -> list[str]:
    ground = list(load_map("1").ground)
    ground[y] = row
    return ground


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"ground": with_row(3, "L" * 7 + "Z" + "L" * 24)},
         "ground row 3, column 7: 'Z' is not a ground character"),
        ({"ground": with_row(0, "l" + "L" * 31)}, "ground row 0, column 0: 'l'"),
        ({"ground": with_row(9, "L" * 20)}, "ground row 9, column 20: the row ends there"),
        ({"ground": with_row(31, "L" * 40)}, "ground row 31, column 32: the row goes on"),
        ({"ground": ["L" * 32] * 33}, "ground row 32: one past the last; the map has 33 rows"),
        ({"ground": []}, "ground row 0: missing; the map has 0 rows"),
        ({"start_area": []},
         "start_area is missing: the set-up stands on ground row 15, column 12"),
        ({"start_area": [[x, y] for x, y in sorted(load_map("1").start_area) if x != 18]},
         "setup[1] (brick s2) is outside start_area: it stands on ground row 15, column 18"),
        ({"start_area": [[1, 1], *sorted(load_map("1").start_area)]},
         "start_area: stud [1, 1] (ground row 1, column 1) is blocked"),
    ],
)
def test_a_bad_map_names_the_row_and_column_in_one_line(tmp_path, changes, says):
    path = write(tmp_path, "mine.json", map_file(**changes))
    with pytest.raises(MapError) as err:
        load_map(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message


def test_a_map_without_a_set_up_needs_no_starting_area(tmp_path):
    """A map read by the camera has no set-up; its starting area, if any, may be empty."""
    ground = load_map(write(tmp_path, "read.json", map_file(setup=[], start_area=[])))
    assert ground.start_area == frozenset() and ground.setup == ()


def test_the_command_line_refuses_a_bad_map_in_one_line_with_exit_2(tmp_path, capsys):
    bad = write(tmp_path, "bad.json", map_file(ground=with_row(4, "L" * 5 + "*" + "L" * 26)))
    scene = write(tmp_path, "s.json", {"format": "palace-scene/1", "pieces": [],
                                       "map": str(bad)})
    assert main(["check", str(scene)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{bad}: ground: ground row 4, column 5: '*'" in err


def test_a_map_may_mark_studs_whose_colour_is_unknown(tmp_path):
    data = map_file()
    data["ground"] = ["?" * 32, *data["ground"][1:]]
    ground = load_map(write(tmp_path, "seen.json", data))
    assert ground.char(5, 0) == "?" and ground.to_json()["ground"][0] == "?" * 32


def test_the_shipped_maps_still_load():
    for name in ("1", "2", "3", "4"):
        assert load_map(name).name == name


# -- cameras and poses --------------------------------------------------------------------


def camera_with(**changes):
    data = json.loads(json.dumps(CAMERA))
    for key, value in changes.items():
        if key in ("fx", "fy", "cx", "cy", "skew", "k10"):
            row, col = {"fx": (0, 0), "fy": (1, 1), "cx": (0, 2), "cy": (1, 2),
                        "skew": (0, 1), "k10": (1, 0)}[key]
            data["camera_matrix"][row][col] = value
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (camera_with(camera_matrix=[[0, 0, 0]] * 3), "camera_matrix must be [[fx"),
        (camera_with(camera_matrix=[[1, 2, 3], [2, 4, 6], [0, 0, 1]]), "camera_matrix must be"),
        (camera_with(fx=0.0), "fx is 0 px"),
        (camera_with(fx=-560.0, fy=-560.0), "fx is -560 px"),
        (camera_with(fx=1.0, fy=1.0), "fx is 1 px"),
        (camera_with(fx=1e9, fy=1e9), "fx is 1e+09 px"),
        (camera_with(fx=math.inf), "Infinity is not a JSON number; write a finite number"),
        (camera_with(dist_coeffs=[math.nan, 0, 0, 0, 0]), "NaN is not a JSON number"),
        (camera_with(dist_coeffs=[1e10, 0, 0, 0, 0]), "dist_coeffs[0]: must be at most 100"),
        (camera_with(dist_coeffs=[0, 0, 0, 0, 0, 0]), "OpenCV takes 4, 5, 8, 12 or 14"),
        (camera_with(width=3.5), "width: must be a whole number"),
        (camera_with(width=100000, height=100000), "width: must be at most 16384"),
        (camera_with(width=16000, height=16000), "more than the 25 megapixels"),
        (camera_with(cx=5000.0), "principal point (5000, 240) must lie inside"),
        (camera_with(fy=100.0), "pixels that far from square"),
        (camera_with(k10=3.0), "camera_matrix must be"),
    ],
)
def test_cameras_no_lens_could_have_are_refused(tmp_path, data, says):
    path = write(tmp_path, "cam.json", data)
    with pytest.raises(CameraFileError) as err:
        Camera.load(path)
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value)


def test_a_camera_json_nan_literal_is_refused(tmp_path):
    path = write(tmp_path, "cam.json", json.dumps(CAMERA).replace("-0.08", "NaN"))
    with pytest.raises(CameraFileError, match="NaN is not a JSON number"):
        Camera.load(path)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"rvec": [0, 0, 0], "tvec": [0, 0, 1e308]}, "tvec[2]: must be at most 20000"),
        ('{"rvec": [0, 0, 1e400], "tvec": [0, 0, 500]}', "rvec[2]: must be a finite number"),
        ({"rvec": [0, 0, math.nan], "tvec": [0, 0, 500]}, "NaN is not a JSON number"),
        ({"rvec": [0, 0], "tvec": [0, 0, 500]}, "rvec: must have at least 3 items"),
        ({"rvec": [0, 0, "a"], "tvec": [0, 0, 500]}, "rvec[2]: must be a number"),
        ({"tvec": [0, 0, 500]}, "rvec: missing"),
    ],
)
def test_poses_out_of_reach_are_refused(tmp_path, data, says):
    path = write(tmp_path, "pose.json", data)
    with pytest.raises(CameraFileError) as err:
        Pose.load(path)
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value)


@pytest.mark.parametrize(
    "camera",
    [
        camera_with(camera_matrix=[[0, 0, 0]] * 3),
        camera_with(dist_coeffs=[math.nan, 0, 0, 0, 0]),
        camera_with(width=100000, height=100000),
        camera_with(width=3.5),
    ],
)
def test_render_and_locate_refuse_an_impossible_camera_at_once(tmp_path, capsys, camera):
    cam = write(tmp_path, "cam.json", camera)
    scene = write(tmp_path, "scene.json", SCENE)
    one_line_error(capsys, ["render", scene, "--camera", cam, "--out", tmp_path / "f.png"], cam)
    picture = tmp_path / "table.png"
    import cv2

    cv2.imwrite(str(picture), np.full((120, 160, 3), 90, np.uint8))
    one_line_error(capsys, ["locate", picture, "--camera", cam], cam)


def test_camera_files_keep_unknown_keys():
    camera = Camera.from_json({**CAMERA, "model": "C920", "serial": 7})
    again = camera.to_json()
    assert again["model"] == "C920" and again["serial"] == 7
    assert again["camera_matrix"] == CAMERA["camera_matrix"]


# -- profiles -----------------------------------------------------------------------------


def test_a_profile_round_trips_its_maps_and_unknown_keys(tmp_path):
    path = tmp_path / "me.json"
    seen = load_map("2")
    profile = Profile(Camera.from_json(CAMERA), {
        "kitchen": TablePose(Pose.from_json(POSE), 2, seen, {"lamp": "on"}),
        "club": TablePose(Pose.from_json(POSE), 1),
    }, {"owner": "Ann"})
    profile.save(path)
    again = Profile.load(path)
    assert again.extra == {"owner": "Ann"}
    assert again.tables["kitchen"].map is not None
    assert again.tables["kitchen"].map.ground == seen.ground
    assert again.tables["kitchen"].extra == {"lamp": "on"}
    assert again.tables["club"].map is None and again.tables["club"].rotation == 1
    assert json.loads(path.read_text()) == profile.to_json()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"format": "palace-profile/2"}, "format: must be 'palace-profile/1'"),
        ({"format": "palace-profile/1", "tables": {"t": {"pose": POSE, "rotation": 4}}},
         "tables.t.rotation: must be at most 3"),
        ({"format": "palace-profile/1", "tables": {"t": {"pose": POSE, "map": {"a": 1}}}},
         "tables.t.map.format: missing"),
        ({"format": "palace-profile/1", "camera": camera_with(fx=-1.0)}, "fx is -1 px"),
        ({"format": "palace-profile/1", "tables": {"t": {"pose": POSE, "map": map_file(
            start_area=[[1, 1]], setup=[])}}},
         "tables.t.map: start_area: stud [1, 1] (ground row 1, column 1) is blocked"),
    ],
)
def test_a_broken_profile_names_the_field(tmp_path, data, says):
    path = write(tmp_path, "p.json", data)
    with pytest.raises(CameraFileError) as err:
        Profile.load(path)
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value)


# -- schemas ------------------------------------------------------------------------------


def test_the_published_schemas_are_current():
    """Regenerate with `palace schemas` when a model changes."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "docs" / "schemas"
    texts = schema_texts()
    assert len(texts) == len(SCHEMAS)
    for name, text in texts.items():
        assert (folder / name).read_text(encoding="utf-8") == text, f"{name} is stale"
    assert sorted(p.name for p in folder.glob("*.schema.json")) == sorted(texts)


def test_the_schema_command_writes_every_schema(tmp_path, capsys):
    assert main(["schemas", "--out", str(tmp_path / "s")]) == 0
    written = json.loads((tmp_path / "s" / "camera.schema.json").read_text())
    assert written["properties"]["width"]["maximum"] == 16384
    assert "camera_matrix" in written["required"]


def test_a_good_camera_passes_the_model_unchanged():
    model = CameraModel.model_validate(CAMERA)
    assert model.camera_matrix[0][0] == 560.0 and not math.isnan(model.dist_coeffs[0])


@pytest.mark.parametrize(
    "pose",
    ['{"rvec": [0, 0, 0], "tvec": [0, 0, 1e308]}', '{"rvec": [NaN, 0, 0], "tvec": [0, 0, 500]}',
     '{"rvec": [0, 0, 0], "tvec": [0, 0, Infinity]}', '{"rvec": [0, 0, 0], "tvec": [0, 0, 1e999]}'],
)
def test_render_refuses_a_pose_out_of_reach_at_once(tmp_path, capsys, pose):
    cam = write(tmp_path, "cam.json", CAMERA)
    scene = write(tmp_path, "scene.json", SCENE)
    bad = write(tmp_path, "pose.json", pose)
    one_line_error(capsys, ["render", scene, "--camera", cam, "--pose", bad,
                            "--out", tmp_path / "f.png"], bad)


def test_the_nesting_scan_stays_linear_on_escaped_quotes():
    """A closing quote required made '"\\"\\"...' quadratic: 20,000 took six seconds."""
    import time

    started = time.perf_counter()
    assert nesting_depth('"' + '\\"' * 200_000 + "[[") == 0  # all inside one open string
    assert nesting_depth('""' * 200_000 + "[[]]") == 2
    assert time.perf_counter() - started < 2.0
