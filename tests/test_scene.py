"""The scene file: round trips keep everything, malformed files say which piece is wrong."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.pieces import Axis, Kind, Piece
from rules.scene import Scene, SceneError, load_scene, scene_from_json

ANIMALS = (Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG)


def _write(tmp_path, data, name="scene.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _scene(*pieces, **extra):
    return {"format": "palace-scene/1", "map": "1", "pieces": list(pieces), **extra}


ISSUE_EXAMPLE = _scene(
    {"id": "a1", "kind": "arch", "x": 10, "y": 4, "z": 0, "axis": "x", "color": "tan"},
    {"id": "b1", "kind": "brick", "x": 13, "y": 4, "z": 1, "color": "tan"},
    {"id": "d1", "kind": "decoration", "x": 13, "y": 4, "z": 2, "color": "gold"},
)


def test_the_issue_example_reads_as_written(tmp_path):
    scene = load_scene(_write(tmp_path, ISSUE_EXAMPLE))
    assert scene.map == "1"
    a1, b1, d1 = scene.pieces
    assert (a1.kind, a1.x, a1.y, a1.z, a1.axis) == (Kind.ARCH, 10, 4, 0, Axis.X)
    assert (b1.kind, b1.z) == (Kind.BRICK, 1)
    assert (d1.kind, d1.color) == (Kind.DECORATION, "gold")


def test_round_trip_keeps_unknown_keys(tmp_path):
    data = _scene({"kind": "corner", "x": 1, "y": 1, "turn": 2, "seen_by": "cam0"},
                  {"kind": "brick", "x": 3, "y": 4, "confidence": 0.93}, source="photo_17")
    scene = load_scene(_write(tmp_path, data))
    assert scene.pieces[0].turn == 2 and scene.pieces[0].extra == {"seen_by": "cam0"}
    assert scene.pieces[1].z == 0 and scene.pieces[1].id == ""  # z and id are optional
    path = tmp_path / "again.json"
    scene.save(path)
    again = json.loads(path.read_text(encoding="utf-8"))
    assert again["source"] == "photo_17"
    assert again["pieces"][1]["confidence"] == 0.93
    assert load_scene(path) == scene


@st.composite
def _pieces(draw):
    kind = draw(st.sampled_from(list(Kind)))
    color = draw(st.sampled_from(["light_green", "dark_green", "gold"])) \
        if kind is Kind.DECORATION else draw(st.sampled_from(["", "tan", "dark_orange"]))
    pid = draw(st.sampled_from(["", "p", "x"]))
    if pid:
        pid += str(draw(st.integers(0, 9)))
    return Piece(kind, draw(st.integers(0, 31)), draw(st.integers(0, 31)),
                 draw(st.integers(0, 20)),
                 axis=draw(st.sampled_from(list(Axis))) if kind is Kind.ARCH else Axis.X,
                 turn=draw(st.integers(0, 3)) if kind is Kind.CORNER else 0,
                 color=color, id=pid)


@settings(max_examples=60, deadline=None)
@given(st.lists(_pieces(), max_size=8, unique_by=lambda p: p.id or object())
       .filter(lambda ps: all(sum(p.kind is k for p in ps) <= 1 for k in ANIMALS)))
def test_any_scene_round_trips(pieces):
    scene = Scene.of(pieces, "3")
    again = scene_from_json(json.loads(scene.dumps()))
    assert again == scene
    assert [p.extra for p in again.pieces] == [p.extra for p in scene.pieces]


@pytest.mark.parametrize(
    ("piece", "says"),
    [
        ({"id": "q9", "kind": "plate", "x": 1, "y": 1},
         ["q9", "kind: must be 'brick'", "found 'plate'"]),
        ({"id": "q9", "kind": "brick", "y": 1}, ["q9", ".x: missing"]),
        ({"id": "q9", "kind": "brick", "x": "3", "y": 1}, ["q9", ".x: must be a whole number"]),
        ({"id": "q9", "kind": "brick", "x": 2.5, "y": 1},
         ["q9", ".x: must be a whole number, found 2.5"]),
        ({"id": "q9", "kind": "arch", "x": 1, "y": 1, "axis": "z"},
         ["q9", ".axis: must be 'x' or 'y'"]),
        ({"id": "q9", "kind": "corner", "x": 1, "y": 1, "turn": 4},
         ["q9", ".turn: must be at most 3"]),
        ({"id": "q9", "kind": "decoration", "x": 1, "y": 1, "color": "red"}, ["q9", "'red'"]),
        ("brick", ["pieces[1]: must be a JSON object"]),
    ],
)
def test_malformed_piece_names_the_piece_and_the_problem(tmp_path, piece, says):
    data = _scene({"kind": "brick", "x": 0, "y": 5}, piece)
    with pytest.raises(SceneError) as err:
        load_scene(_write(tmp_path, data))
    message = str(err.value)
    assert "scene.json" in message and "pieces[1]" in message
    for part in says:
        assert part in message


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps([1, 2]), "JSON object"),
        (json.dumps({"format": "palace-scene/9", "pieces": []}),
         "format: must be 'palace-scene/1'"),
        (json.dumps(_scene({"id": "a", "kind": "brick", "x": 1, "y": 1},
                           {"id": "a", "kind": "brick", "x": 2, "y": 1})), "'a' is used twice"),
        (json.dumps({"format": "palace-scene/1", "pieces": {}}), "pieces: must be a list"),
    ],
)
def test_malformed_file_says_what_is_wrong(tmp_path, content, says):
    with pytest.raises(SceneError, match=says):
        load_scene(_write(tmp_path, content))


def test_missing_file_is_a_scene_error(tmp_path):
    with pytest.raises(SceneError, match="no such scene file"):
        load_scene(tmp_path / "nope.json")
