"""`palace score`, `palace check` and `palace replay`: exit codes and what they print."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from palace.cli import main
from rules.maps import SETUP_PIECES, piece_to_json

SETUP = [piece_to_json(p) for p in SETUP_PIECES]
# Player 1's two-arch staircase on map 1: from light-green stud (9, 12), turning onto the
# setup arch's free end knob (12, 15) at level 1.
TWO_ARCHES = [
    {"id": "p1", "kind": "arch", "x": 9, "y": 12, "z": 0, "axis": "y"},
    {"id": "p2", "kind": "arch", "x": 9, "y": 15, "z": 1, "axis": "x"},
    {"id": "p3", "kind": "decoration", "x": 12, "y": 15, "z": 2, "color": "light_green"},
]


def _scene(tmp_path, name, pieces, map_name="1"):
    path = tmp_path / name
    data = {"format": "palace-scene/1", "map": map_name, "pieces": pieces}
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_legal_turn_exits_0_and_reports(tmp_path, capsys):
    before = _scene(tmp_path, "before.json", SETUP)
    after = _scene(tmp_path, "after.json", SETUP + TWO_ARCHES)
    code, out, _ = _run(capsys, "score", before, after)
    assert code == 0
    assert "Legal staircase" in out and "p1 -> p2" in out
    # 2 arches + the first light-green decoration on the board.
    assert "monkey credits: 3" in out


def test_score_json_has_the_promised_keys(tmp_path, capsys):
    before = _scene(tmp_path, "before.json", SETUP)
    after = _scene(tmp_path, "after.json", SETUP + TWO_ARCHES)
    code, out, _ = _run(capsys, "score", before, after, "--json", "--map", "1")
    assert code == 0
    report = json.loads(out)
    for key in ("legal", "violations", "arches", "credits", "start_color",
                "decoration_highest", "bonus_card", "trophies"):
        assert key in report
    assert report["legal"] is True and report["arches"] == 2 and report["credits"] == 3
    assert report["start_color"] == "light_green"
    assert report["trophies"] == {"monkey": False, "butterfly": False, "frog": False}


def test_score_illegal_turn_exits_1_with_the_rule(tmp_path, capsys):
    wrong_colour = [*TWO_ARCHES[:2], {**TWO_ARCHES[2], "color": "gold"}]
    before = _scene(tmp_path, "before.json", SETUP)
    after = _scene(tmp_path, "after.json", SETUP + wrong_colour)
    code, out, _ = _run(capsys, "score", before, after)
    assert code == 1
    assert "Not a legal staircase" in out and "[decoration]" in out
    # A brick on an arch's centre knob can stand on a real table: a rule, not bad input.
    centre = [*TWO_ARCHES, {"id": "x", "kind": "brick", "x": 10, "y": 15, "z": 2}]
    after = _scene(tmp_path, "centre.json", SETUP + centre)
    code, out, _ = _run(capsys, "score", before, after, "--json")
    assert code == 1
    assert any(v["rule"] == "D" for v in json.loads(out)["violations"])


def test_score_nothing_built_exits_1_as_a_pass(tmp_path, capsys):
    before = _scene(tmp_path, "before.json", SETUP)
    code, out, _ = _run(capsys, "score", before, before, "--json")
    assert code == 1
    report = json.loads(out)
    assert report["passed"] is True and report["legal"] is False


@pytest.mark.parametrize(
    ("piece", "says"),
    [
        ({"id": "q", "kind": "plate", "x": 1, "y": 1}, "kind: must be 'brick'"),
        ({"id": "q", "kind": "arch", "x": 30, "y": 3}, "q lies off the 32x32 plate"),
        ({"id": "q", "kind": "brick", "x": 13, "y": 15}, "overlaps"),
        ({"id": "q", "kind": "brick", "x": 3, "y": 3, "z": 4}, "q floats in the air"),
    ],
)
def test_score_malformed_after_scene_exits_2_naming_the_piece(tmp_path, capsys, piece, says):
    before = _scene(tmp_path, "before.json", SETUP)
    after = _scene(tmp_path, "after.json", [*SETUP, piece])
    code, out, err = _run(capsys, "score", before, after)
    assert code == 2
    assert out == "" and says in err and "after.json" in err
    assert "Traceback" not in err


def test_score_other_bad_input_exits_2(tmp_path, capsys):
    before = _scene(tmp_path, "before.json", SETUP)
    other_map = _scene(tmp_path, "other.json", SETUP, map_name="2")
    code, _, err = _run(capsys, "score", before, other_map)
    assert code == 2 and "--map" in err
    code, _, err = _run(capsys, "score", before, str(tmp_path / "missing.json"))
    assert code == 2 and "no such scene file" in err
    code, _, err = _run(capsys, "score", before, before, "--map", str(tmp_path / "nomap.json"))
    assert code == 2 and "no such map file" in err


def test_check_exit_codes(tmp_path, capsys):
    sound = _scene(tmp_path, "sound.json", SETUP + TWO_ARCHES)
    code, out, _ = _run(capsys, "check", sound)
    assert code == 0 and "all sound" in out
    centre = _scene(tmp_path, "centre.json",
                    [*SETUP, {"id": "x", "kind": "brick", "x": 13, "y": 15, "z": 1}])
    code, out, _ = _run(capsys, "check", centre)
    assert code == 1 and "[D]" in out and "brick x" in out
    broken = _scene(tmp_path, "broken.json", [
        *SETUP,
        {"id": "fly", "kind": "brick", "x": 3, "y": 3, "z": 2},
        {"id": "off", "kind": "arch", "x": 30, "y": 3},
        {"id": "x", "kind": "brick", "x": 13, "y": 15, "z": 1},
    ])
    code, _, err = _run(capsys, "check", broken)
    assert code == 2
    # Every problem is listed, each naming its piece.
    assert "fly floats" in err and "off lies off" in err and "[D]" in err
    code, _, err = _run(capsys, "check", str(tmp_path / "missing.json"))
    assert code == 2 and "no such scene file" in err


def test_replay_scores_the_shipped_game(capsys):
    code, out, _ = _run(capsys, "replay")
    assert code == 0
    assert out.count("Legal staircase.") == 8 and "Not a legal" not in out
    assert "+1 credit" in out  # at least one highest decoration
    assert "bonus card: yes" in out  # at least one 5-brick bonus
    assert "player 1:" in out and "player 2:" in out


def test_replay_of_a_folder_and_a_missing_folder(tmp_path, capsys):
    _scene(tmp_path, "turn_00.json", SETUP)
    _scene(tmp_path, "turn_01.json", SETUP + TWO_ARCHES)
    code, out, _ = _run(capsys, "replay", str(tmp_path))
    assert code == 0 and "player 1: 3 credits in 1 turn" in out
    code, _, err = _run(capsys, "replay", str(tmp_path / "nope"))
    assert code == 2 and "no such folder" in err


def test_console_entry_point_never_shows_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "palace.cli", "check", str(bad)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "not valid JSON" in done.stderr and "Traceback" not in done.stderr
