"""The API as the page uses it: a whole game, every refused action with its body,
corrections, undo, the end and the ranking with its tie-break."""

from __future__ import annotations

import copy
import itertools
import random

import pytest
from dashboard_helpers import FakePiece, FakeReading, legal_staircase, open_session
from fastapi.testclient import TestClient

from palace.server import create_app
from rules.maps import piece_to_json
from rules.moves import Hand, staircases
from vision.reading import UNCERTAIN_BELOW
from vision.turn import NOTHING_READ


@pytest.fixture
def table(tmp_path):
    session = open_session(tmp_path)
    client = TestClient(create_app(session))
    yield session, client
    session.close()


def read(session, pieces, confidence=0.95, uncertain=False):
    session.camera_turn(FakeReading(True, tuple(FakePiece(p, confidence) for p in pieces),
                                    uncertain=uncertain), [])


def refused(response, status, code, *words):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code, body
    for word in words:
        assert word in body["detail"], body
    return body


def test_a_whole_game_flow(table):
    session, client = table
    state = client.post("/api/game", json={"players": 2, "names": ["Ana", "Ben"]}).json()
    assert [p["name"] for p in state["players"]] == ["Ana", "Ben"]
    assert state["sync"] == "ready" and len(state["market"]) == 12
    played = 0
    while played < 4:
        seat = session.game.current
        read(session, legal_staircase(session, seed=played))
        state = client.get("/api/state").json()
        assert state["sync"] == "pending"
        report = state["draft"]["report"]
        allowed = [m for m in state["market"] if m["allowed"]]
        assert all(m["top"]["color"] in (report["start_color"], "multi") for m in allowed)
        cheap = sorted(allowed, key=lambda m: m["top"]["cost"])[0]
        picks = [cheap["pile"]] if cheap["top"]["cost"] <= report["credits"] else []
        before = client.get("/api/state").json()["players"][seat]
        state = client.post("/api/turn/confirm", json={"seat": seat, "purchases": picks}).json()
        after = state["players"][seat]
        assert len(after["stacks"][0]) + len(after["stacks"][1]) >= len(picks)
        gained = sum(m["top"]["bananas"] for m in allowed if m["pile"] in picks)
        trophies = 2 * report["trophies"]["monkey"] + 2 * report["trophies"]["butterfly"]
        assert after["score"] >= before["score"] + gained + 4 * report["bonus_card"] - 2 \
            + trophies - 2
        assert state["turns"][-1]["number"] == played + 1 and state["current"] != seat
        played += 1
    state = client.post("/api/turn/pass", json={"seat": session.game.current}).json()
    assert state["turns"][-1]["kind"] == "pass"
    state = client.post("/api/game/end", json={}).json()
    assert state["sync"] == "over" and state["ranking"][0]["rank"] == 1
    scores = [p["score"] for p in state["players"]]
    best = max(scores)
    assert all(r["winner"] == (r["score"] == best) or r["seat"] == state["trophies"]["monkey"]
               for r in state["ranking"])
    exported = client.get("/api/export.json").json()
    assert len(exported["turns"]) == 5
    assert sum(len(t["cards"]) for t in exported["turns"]) == sum(
        len(t["result"]["cards"]) for t in exported["turns"])


def test_shared_victory_without_the_monkey(table):
    _, client = table
    client.post("/api/game", json={"players": 3})
    state = client.post("/api/game/end", json={"reason": "dinner"}).json()
    assert [r["winner"] for r in state["ranking"]] == [True, True, True]
    assert "share the victory" in state["tie_break"]
    assert state["end_reason"] == "dinner"


def _tied_game(session):
    """Seat 0 wins the Monkey with a gold staircase; seat 1 then reaches the same score
    with cards. Found with the rules engine on a copy of the game."""
    game = session.game
    for seed in range(6):
        p0 = game.player
        for cand in staircases(game.palace, Hand(p0.arches, p0.bricks, p0.columns),
                               game.tray.decorations, rng=random.Random(seed), max_starts=32):
            if cand.color != "gold" or not game.check_turn(cand.pieces).legal:
                continue
            g1 = copy.deepcopy(game)
            g1.play_turn(cand.pieces)
            p1 = g1.player
            for other in staircases(g1.palace, Hand(p1.arches, p1.bricks, p1.columns),
                                    g1.tray.decorations, rng=random.Random(seed),
                                    max_starts=32):
                report = g1.check_turn(other.pieces)
                if not report.legal:
                    continue
                offer = [c for c in g1.market.available(report.start_color)
                         if c.cost <= report.credits]
                for n in range(len(offer) + 1):
                    for combo in itertools.combinations(offer, n):
                        if sum(c.cost for c in combo) > report.credits:
                            continue
                        g2 = copy.deepcopy(g1)
                        g2.play_turn(other.pieces, [c.pile for c in combo])
                        s = g2.scores()
                        if s[0] == s[1] and g2.trophies["monkey"] == 0:
                            return cand.pieces, other.pieces, [c.pile for c in combo]
    raise AssertionError("no tie found in the searched staircases")


def test_a_tie_goes_to_the_monkey_holder(table):
    session, client = table
    client.post("/api/game", json={"players": 2, "map": "2"})
    first, second, picks = _tied_game(session)
    read(session, first)
    client.post("/api/turn/confirm", json={"seat": 0})
    read(session, second)
    client.post("/api/turn/confirm", json={"seat": 1, "purchases": picks})
    state = client.post("/api/game/end", json={}).json()
    scores = [p["score"] for p in state["players"]]
    assert scores[0] == scores[1]
    assert state["trophies"]["monkey"] == 0
    assert [(r["seat"], r["winner"], r["rank"]) for r in state["ranking"]] == [
        (0, True, 1), (1, False, 2)]
    assert "Monkey trophy holder (Player 1) wins the tie" in state["tie_break"]


def test_refused_actions_say_why(table):
    session, client = table
    client.post("/api/game", json={"players": 3})
    refused(client.post("/api/turn/confirm", json={"seat": 0}), 409, "no_turn", "no staircase")
    pieces = legal_staircase(session)
    read(session, pieces)
    color = session.state()["draft"]["report"]["start_color"]
    wrong = next(m for m in session.state()["market"]
                 if m["top"] and m["top"]["color"] not in (color, "multi"))
    refused(client.post("/api/turn/confirm", json={"seat": 0, "purchases": [wrong["pile"]]}),
            409, "purchase", "only that colour or multicolour")
    refused(client.post("/api/turn/confirm", json={"seat": 0,
                                                   "purchases": ["multi-1", "multi-1"]}),
            409, "purchase", "only one card may be taken from pile multi-1")
    refused(client.post("/api/turn/confirm", json={"seat": 2}), 409, "out_of_turn",
            "Player 1's turn")
    refused(client.post("/api/turn/pass", json={"seat": 1}), 409, "out_of_turn")
    refused(client.post("/api/turn/confirm", json={"seat": 0, "purchases": ["multi-6"]}),
            409, "purchase", "credits")
    refused(client.post("/api/turn/scene", json={"format": "palace-scene/1",
                                                 "pieces": [{"kind": "dragon", "x": 1}]}),
            422, "scene", "found 'dragon'")
    refused(client.post("/api/turn/scene", json={"format": "palace-scene/1", "pieces": []}),
            422, "scene")
    refused(client.post("/api/turn/corrections", json={"action": "remove", "id": "zz"}),
            422, "correction", "no piece 'zz'")
    bad = client.post("/api/turn/corrections", json={"action": "add", "piece": {
        "kind": "brick", "x": 40, "y": 0}})
    assert bad.status_code == 422 and "x" in str(bad.json()["detail"])
    refused(client.post("/api/turns/7/undo"), 404, "no_such_turn", "no turn 7")
    refused(client.post("/api/game", json={"players": 2, "map_data": {"format": "nope"}}),
            422, "map", "format: must be 'palace-map/1'")
    assert client.post("/api/game", json={"players": 5}).status_code == 422
    # An illegal staircase: its arch moved away from the rest.
    client.post("/api/game", json={"players": 2})
    read(session, legal_staircase(session))
    arch = next(d.piece for d in session.draft.pieces if d.piece.kind.value == "arch")
    state = client.post("/api/turn/corrections", json={
        "action": "move", "id": arch.id, "x": (arch.x + 11) % 28, "y": 3}).json()
    assert state["sync"] == "out_of_sync" and not state["draft"]["report"]["legal"]
    body = refused(client.post("/api/turn/confirm", json={"seat": 0}), 409, "illegal_turn",
                   "illegal turn")
    assert body["report"]["violations"]
    client.post("/api/game/end", json={})
    refused(client.post("/api/turn/pass", json={"seat": 0}), 409, "over", "game is over")
    refused(client.post("/api/game/end", json={}), 409, "over")


@pytest.mark.parametrize(("confidence", "sync"), [
    (UNCERTAIN_BELOW - 0.01, "out_of_sync"), (UNCERTAIN_BELOW, "pending")])
def test_the_page_asks_exactly_where_the_reader_flags(table, confidence, sync):
    """A piece is doubtful on the page where the reader flags it, no higher: the turns
    the benches count as put to the players are the turns the page puts to them."""
    session, client = table
    client.post("/api/game", json={"players": 2})
    pieces = legal_staircase(session)
    read(session, pieces, confidence=confidence)
    assert client.get("/api/state").json()["sync"] == sync


def test_doubtful_and_failed_readings_go_out_of_sync(table):
    session, client = table
    client.post("/api/game", json={"players": 2})
    pieces = legal_staircase(session)
    read(session, pieces, confidence=0.3)
    state = client.get("/api/state").json()
    assert state["sync"] == "out_of_sync"
    assert len(state["draft"]["doubtful"]) == len(pieces)
    state = client.post("/api/turn/corrections", json={"action": "accept"}).json()
    assert state["sync"] == "pending" and state["draft"]["doubtful"] == []
    session.camera_turn(FakeReading(False, reason="a hand hides the board"), [])
    state = client.get("/api/state").json()
    assert state["draft"]["corrections"] == 1, "corrections are kept over a new reading"
    assert "corrections are kept" in state["draft"]["notice"]
    client.delete("/api/turn")
    session.camera_turn(FakeReading(False, reason="a hand hides the board"), [])
    state = client.get("/api/state").json()
    assert state["sync"] == "out_of_sync"
    assert "a hand hides the board" in " ".join(state["draft"]["words"])
    read(session, pieces)
    assert client.get("/api/state").json()["sync"] == "pending"
    session.camera_turn(FakeReading(True), [])  # the pieces were taken off again
    assert client.get("/api/state").json()["sync"] == "ready"


def test_a_doubted_reading_of_nothing_asks_yet_clears_a_draft_taken_away(table):
    """Turn mode doubts every reading of nothing (a staircase may be hidden): with no
    draft the players are asked; with the camera's own draft waiting it means the pieces
    read were taken off again, and the draft goes."""
    session, client = table
    client.post("/api/game", json={"players": 2})
    nothing = FakeReading(True, uncertain=True, reason=NOTHING_READ)
    session.camera_turn(nothing, [])
    state = client.get("/api/state").json()
    assert state["sync"] == "out_of_sync" and state["draft"]["pieces"] == []
    assert NOTHING_READ in " ".join(state["draft"]["words"])
    client.delete("/api/turn")
    assert client.get("/api/state").json()["sync"] == "ready"
    read(session, legal_staircase(session))
    assert client.get("/api/state").json()["sync"] == "pending"
    session.camera_turn(nothing, [])
    assert client.get("/api/state").json()["sync"] == "ready"


def test_corrections_by_hand_make_a_turn_and_undo_gives_it_back(table):
    session, client = table
    client.post("/api/game", json={"players": 2})
    pieces = legal_staircase(session)
    for piece in pieces:
        data = piece_to_json(piece)
        state = client.post("/api/turn/corrections", json={"action": "add", "piece": data}).json()
    assert state["sync"] == "pending" and state["draft"]["source"] == "manual"
    deco = next(d["piece"] for d in state["draft"]["pieces"] if d["piece"]["kind"] == "decoration")
    other = next(c for c in ("light_green", "dark_green", "gold") if c != deco["color"])
    state = client.post("/api/turn/corrections", json={
        "action": "change", "id": deco["id"], "color": other}).json()
    assert not state["draft"]["report"]["legal"], "the decoration's colour must match its start"
    state = client.post("/api/turn/corrections", json={
        "action": "change", "id": deco["id"], "color": deco["color"]}).json()
    assert state["draft"]["report"]["legal"]
    state = client.post("/api/turn/confirm", json={"seat": 0}).json()
    placed = {p["id"] for p in state["palace"] if p["turn"] == 1}
    assert placed == {p["id"] for p in session.export()["turns"][0]["added"]}
    state = client.post("/api/turns/1/undo").json()
    assert state["turns"][0]["undone"] and state["draft"]["source"] == "undo"
    assert not [p for p in state["palace"] if p["turn"] == 1]
    assert state["current"] == 0
    state = client.post("/api/turn/confirm", json={"seat": 0}).json()
    assert state["sync"] == "ready"
    assert client.post("/api/game/end", json={}).json()["sync"] == "over"
    state = client.post("/api/turns/1/undo").json()
    assert state["sync"] == "pending" and not state["ended"], "undo opens an ended game again"
    corrections = client.get("/api/export.json").json()["corrections"]
    assert [c["action"]["action"] for c in corrections].count("add") == len(pieces)


def test_ldraw_export_uses_real_parts(table):
    session, client = table
    client.post("/api/game", json={"players": 2})
    read(session, legal_staircase(session))
    client.post("/api/turn/confirm", json={"seat": 0})
    text = client.get("/api/turns/1/palace.ldr").text
    parts = [line.split()[-1] for line in text.splitlines() if line.startswith("1 ")]
    assert parts[0] == "3811.dat"
    kinds = [p.kind.value for p in session.game.palace if p.kind.value not in
             ("monkey", "butterfly", "frog")]
    assert len(parts) == 1 + len(kinds)
    assert parts.count("3659.dat") == kinds.count("arch")
    assert parts.count("2357.dat") == 4
    assert client.get("/api/turns/0/palace.ldr").text.count("3659.dat") == 2
    refused(client.get("/api/turns/9/palace.ldr"), 404, "no_such_turn")


def test_join_code_guards_other_addresses(tmp_path):
    session = open_session(tmp_path)
    client = TestClient(create_app(session, join_code="424242"))
    assert client.get("/api/state").status_code == 401
    assert client.get("/api/state", headers={"x-join-code": "424242"}).status_code == 200
    assert client.get("/join?code=1", follow_redirects=False).status_code == 401
    joined = client.get("/join?code=424242", follow_redirects=False)
    assert joined.status_code == 303
    assert client.get("/api/state").status_code == 200, "the cookie lets the page in"
    session.close()
