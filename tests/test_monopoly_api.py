"""The dashboard's Monopoly Builder API: a game played by hand over HTTP, refusals with
the engine's reasons, malformed requests, saving and resuming."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from palace.monopoly_api import PREFIX, monopoly_router
from rules.monopoly_builder.bot import simulate
from rules.monopoly_builder.state import state_of


@pytest.fixture
def client():
    app = FastAPI()
    app.include_router(monopoly_router())
    with TestClient(app) as c:
        yield c


def _act(client, **body):
    return client.post(f"{PREFIX}/actions", json=body)


def _new(client, **body):
    r = client.post(f"{PREFIX}/game", json={"players": ["red", "yellow"], "first": 0, **body})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_turn_by_hand(client):
    state = _new(client)
    assert state["current"] == "red" and state["step_number"] == 1
    assert len(state["board"]) == 32 and state["standin"]
    r = _act(client, action="roll", player="red", dice=[1, 2])  # Baltic Avenue, unowned
    state = r.json()
    assert state["pending"] == ["buy_or_auction"] and state["last_roll"] == [1, 2]
    state = _act(client, action="buy", player="red").json()
    red = state["players"][0]
    assert red["cash"] == 840 and red["deeds"][0]["id"] == "brown-2"
    assert state["board"][3]["owner"] == "red" and state["board"][3]["tokens"] == ["red"]
    _act(client, action="next_step", player="red")
    state = _act(client, action="build", player="red", lot=[1, 1],
                 pay={"dump_truck": 1, "boat": 1}).json()
    assert state["island"]["buildings"] == [
        {"lot": [1, 1], "colour": "red", "floors": 1, "penthouse": False}]
    assert state["players"][0]["blocks_left"] == 11
    assert state["score"]["ranking"][0]["colour"] == "red"
    state = _act(client, action="end_turn", player="red").json()
    assert state["current"] == "yellow" and "red builds floor 1 on (1, 1)" in " ".join(
        state["log"])


@pytest.mark.parametrize(("body", "code", "words"), [
    ({"action": "roll", "player": "yellow"}, "not_your_turn", "red's turn"),
    ({"action": "build", "player": "red", "lot": [1, 1]}, "wrong_step", "step 6"),
    ({"action": "buy", "player": "red"}, "wrong_step", "not space"),
    ({"action": "mortgage", "player": "red", "deed": "brown-1"}, "property", "does not own"),
])
def test_refusals_are_409_with_the_engines_reason(client, body, code, words):
    before = _new(client)
    r = _act(client, **body)
    assert r.status_code == 409
    assert r.json()["code"] == code and words in r.json()["detail"]
    assert client.get(f"{PREFIX}/state").json() == before


def test_building_refusals_over_http(client):
    _new(client)
    _act(client, action="roll", player="red", dice=[4, 6])  # Collect 2 cranes
    _act(client, action="next_step", player="red")
    r = _act(client, action="build", player="red", lot=[1, 1], pay={"crane": 3})
    assert r.status_code == 409 and r.json()["code"] == "missing_resources"
    r = _act(client, action="build", player="red", lot=[0, 0])
    assert r.status_code == 409 and r.json()["code"] == "lot"
    r = _act(client, action="build", player="red", lot=[1, 1], penthouse=True)
    assert r.status_code == 409 and r.json()["code"] == "penthouse"


@pytest.mark.parametrize("body", [
    {"action": "roll", "player": "red", "dice": [0, 7]},
    {"action": "roll", "player": "blue"},
    {"action": "fly", "player": "red"},
    {"action": "build", "player": "red", "lot": [1, 99]},
    {"action": "build", "player": "red", "lot": [1, 1], "pay": {"gold": 2}},
    {"action": "deal", "player": "red", "other": "yellow", "gives": {"cash": -5}},
    {"action": "buy", "player": "red", "extra": 1},
])
def test_malformed_actions_are_422(client, body):
    _new(client)
    assert _act(client, **body).status_code == 422


def test_new_game_checks_its_players(client):
    assert client.post(f"{PREFIX}/game", json={"players": ["red"]}).status_code == 422
    r = client.post(f"{PREFIX}/game", json={"players": ["red", "red"]})
    assert r.status_code == 409 and "different colours" in r.json()["detail"]
    r = client.post(f"{PREFIX}/game", json={"players": ["red", "green"], "first": 3})
    assert r.status_code == 422 and r.json()["code"] == "first"


def test_save_resume_and_final_ranking(client):
    game = simulate(["red", "purple", "green"], seed=3)
    assert game.is_over
    saved = state_of(game)
    r = client.post(f"{PREFIX}/state", json={"state": saved})
    assert r.status_code == 200
    state = r.json()
    assert state["over"] and state["score"] == game.score().to_json()
    assert client.get(f"{PREFIX}/state.json").json() == saved
    r = _act(client, action="roll", player=state["current"])
    assert r.status_code == 409 and r.json()["code"] == "game_over"
    bad = {**saved, "players": saved["players"][:1]}
    r = client.post(f"{PREFIX}/state", json={"state": bad})
    assert r.status_code == 422 and r.json()["detail"].startswith("state: players:")


def test_stop_ends_and_ranks(client):
    _new(client)
    state = _act(client, action="stop", player="yellow", reason="closing time").json()
    assert state["over"] and state["ended_by"] == "closing time"
    assert [p["rank"] for p in state["score"]["ranking"]] == [1, 1]
