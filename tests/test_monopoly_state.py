"""The Monopoly Builder state file and `palace score --game monopoly-builder`."""

from __future__ import annotations

import json

import pytest

from palace.cli import main
from rules import find_game
from rules.games import UnknownGameError
from rules.monopoly_builder.bot import simulate
from rules.monopoly_builder.data import DataFileError, load_board, load_island
from rules.monopoly_builder.state import (
    game_from_state,
    load_state,
    parse_state,
    score_state,
    state_of,
)

GOOD = {
    "format": "monopoly-builder-state/1",
    "players": [{"color": "red", "cash": 450, "deeds": ["brown-1", "brown-2"],
                 "resources": {"boat": 3}},
                {"color": "yellow", "cash": 300}],
    "buildings": [{"lot": [1, 0], "color": "red", "floors": 4, "penthouse": True},
                  {"lot": [2, 0], "color": "yellow", "floors": 2}],
}


def _write(tmp_path, data, name="state.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def _with(**changes):
    data = json.loads(json.dumps(GOOD))
    for dotted, value in changes.items():
        target = data
        *path, last = dotted.split("__")
        for key in path:
            target = target[int(key)] if key.isdigit() else target[key]
        target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(("changes", "message"), [
    ({"format": "palace-scene/1"}, "format: Input should be 'monopoly-builder-state/1'"),
    ({"players__0__cash": -5}, "players[0].cash: Input should be greater than or equal to 0"),
    ({"players__0__cash": 10**9}, "players[0].cash: Input should be less than or equal"),
    ({"players__0__cash": 452}, "players[0].cash: Input should be a multiple of 5"),
    ({"players__1__color": "blue"}, "players[1].color: Input should be"),
    ({"players__1__color": "red"}, "players: two players have the same colour"),
    ({"players__0__resources": {"boat": 21}}, "players[0].resources.boat: Input should be"),
    ({"players__1__resources": {"boat": 18}}, "players: 21 boat held or lying about"),
    ({"players__0__deeds": ["brown-9"]}, "players[0].deeds: no title deed 'brown-9'"),
    ({"players__1__deeds": ["brown-1"]}, "players[1].deeds: brown-1 is also owned"),
    ({"players__1__mortgaged": ["green-1"]}, "players[1].mortgaged: green-1 is mortgaged but"),
    ({"players__1__in_jail": True}, "players[1].in_jail: a jailed token stands on space 8"),
    ({"players__1__hat": 1}, "players[1].hat: Extra inputs are not permitted"),
    ({"buildings__0__floors": 5}, "buildings[0].floors: Input should be less than or equal"),
    ({"buildings__0__floors": 3}, "buildings[0].penthouse: a penthouse stands only on a 4"),
    ({"buildings__1__lot": [0, 0]}, "buildings[1].lot: [0, 0] is not a building lot"),
    ({"buildings__1__lot": [1, 0]}, "buildings[1].lot: two buildings on lot [1, 0]"),
    ({"buildings__1__color": "green"}, "buildings[1].color: no green player"),
    ({"buildings__1__floors": 4, "buildings__1__penthouse": True},
     "buildings: there is only 1 penthouse"),
    ({"current": "purple"}, "current: no purple player"),
    ({"players": [{"color": "red"}]}, "players: List should have at least 2 items"),
])
def test_bad_states_are_refused_in_one_line(tmp_path, changes, message):
    path = _write(tmp_path, _with(**changes))
    with pytest.raises(DataFileError) as info:
        load_state(path)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_too_many_blocks_and_unreadable_files(tmp_path):
    data = _with(buildings=[{"lot": list(lot), "color": "red", "floors": 4}
                            for lot in ((1, 0), (2, 0), (3, 0), (4, 0))])
    with pytest.raises(DataFileError, match="red has 16 floors built"):
        load_state(_write(tmp_path, data))
    with pytest.raises(DataFileError, match="not valid JSON"):
        load_state(_write(tmp_path, "{"))
    with pytest.raises(DataFileError, match="no such state file"):
        load_state(tmp_path / "missing.json")
    # The project's one bounded reader: no RecursionError, no NaN.
    with pytest.raises(DataFileError, match="nested 100000 deep"):
        load_state(_write(tmp_path, "[" * 100_000 + "]" * 100_000))
    with pytest.raises(DataFileError, match="not a JSON number"):
        load_state(_write(tmp_path, '{"cash": NaN}'))
    with pytest.raises(DataFileError, match="file: Input should be a valid dictionary"):
        load_state(_write(tmp_path, "[1, 2]"))


def test_a_saved_game_scores_and_resumes_the_same():
    g = simulate(["red", "purple", "green"], seed=4, max_turns=12)
    state = parse_state(json.loads(json.dumps(state_of(g))))
    assert score_state(state) == g.score()
    again = game_from_state(state)
    assert state_of(again) == state_of(g)
    assert again.tray.counts == g.tray.counts


def test_score_command_prints_and_exits_0(tmp_path, capsys):
    path = _write(tmp_path, GOOD)
    assert main(["score", "--game", "monopoly-builder", path]) == 0
    out = capsys.readouterr().out
    # red: penthouse 16 + brown set 2 + most cash 3 = 21 (both neighbourhoods are 1
    # building: the Community Builder tie is shared, +5 each); yellow: 3 + 5 = 8.
    assert out.splitlines()[0].startswith("1. red: 26 builder points, $450")
    assert "2. yellow: 8 builder points" in out
    assert main(["score", "--game", "monopoly-builder", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["winners"] == ["red"] and data["ranking"][0]["total"] == 26


def test_score_command_bad_input_exits_2(tmp_path, capsys):
    path = _write(tmp_path, _with(players__0__cash=-5))
    assert main(["score", "--game", "monopoly-builder", path]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"palace score: {path}: players[0].cash: Input should be greater " \
                          "than or equal to 0"
    assert main(["score", "--game", "monopoly-builder", path, path]) == 2
    assert main(["score", path]) == 2  # Monkey Palace still needs two scenes


def test_find_game_by_name():
    builder = find_game("monopoly-builder")
    game = builder.new_game(3, 7)
    assert [p.colour for p in game.players] == ["red", "purple", "green"]
    assert len(builder.scores(game)) == 3 and builder.winners(game)
    assert builder.state_format == "monopoly-builder-state/1"
    palace = find_game("monkey-palace")
    assert palace.title == "LEGO Monkey Palace" and palace.score_state is None
    assert len(palace.scores(palace.new_game(2, 0))) == 2
    with pytest.raises(UnknownGameError, match="known games: monkey-palace"):
        find_game("chess")


def test_shipped_data_is_labelled_stand_in_and_corrections_are_checked(tmp_path):
    from importlib import resources

    data = resources.files("rules.monopoly_builder") / "data"
    for name in ("board.json", "chance.json", "island.json", "reference_cards.json"):
        raw = json.loads((data / name).read_text(encoding="utf-8"))
        assert raw["standin"] is True and "STAND-IN" in raw["note"]
    assert load_board().standin and load_island().standin
    board = json.loads((data / "board.json").read_text(encoding="utf-8"))
    board["spaces"][0], board["spaces"][1] = board["spaces"][1], board["spaces"][0]
    path = _write(tmp_path, board, "board.json")
    with pytest.raises(DataFileError, match=r"board.json: spaces: space 0 must be go$"):
        load_board(path)
    board = json.loads((data / "board.json").read_text(encoding="utf-8"))
    board["deeds"][3]["price"] = -60
    with pytest.raises(DataFileError, match=r"deeds\[3\]\.price: Input should be greater"):
        load_board(_write(tmp_path, board, "board.json"))
    bad = {"format": "monopoly-builder-island/1", "standin": True, "lots": ["##", "#"]}
    with pytest.raises(DataFileError, match="every row of lots must be as long"):
        load_island(_write(tmp_path, bad, "island.json"))
