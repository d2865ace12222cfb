"""The set-up's map read by the camera: POST /api/map/read on the settled pictures the
session was handed, the refusals without a camera, and a game set up on that map (kept
in the log and in the table's profile)."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest
from dashboard_helpers import FakePiece, FakeReading, legal_staircase, open_session, setup_board
from fastapi.testclient import TestClient

from calibration.map_read import cell_in
from calibration.profile import Profile
from palace.server import create_app
from palace.session import TableSession
from rules.maps import SETUP_PIECES, GroundMap, load_map, map_from_json
from rules.palace import Palace
from rules.staircase import analyse_added
from twin import RenderOptions, random_camera, render
from twin.map_views import map_views


def cells(ground: GroundMap) -> np.ndarray:
    grid = np.array([list(row) for row in ground.ground])
    for x, y in ground.start_area:
        grid[y, x] = "S"
    return grid


def agreement(read: GroundMap, truth: GroundMap) -> tuple[float, int]:
    """Share of the read studs that match the truth, under the quarter turn of the board
    that matches best (a map is read in the board frame the camera found), and how many
    studs were read."""
    got = cells(read)
    known = np.array([list(row) for row in read.ground]) != "?"
    rates = [float((got[known] == np.rot90(cells(truth), k)[known]).mean()) for k in range(4)]
    return max(rates), int(known.sum())


@pytest.fixture
def table(tmp_path):
    session = open_session(tmp_path)
    yield session, TestClient(create_app(session))
    session.close()


def refused(response, status: int, code: str, word: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and word in body["detail"], body


def test_no_camera_no_map_read(table):
    session, client = table
    refused(client.post("/api/map/read"), 409, "no_camera", "no camera")
    refused(client.post("/api/game", json={"players": 2, "map": "camera"}), 409,
            "no_camera_map", "read it first")
    session.camera_status("searching")  # a camera loop runs, nothing settled yet
    refused(client.post("/api/map/read"), 409, "no_settled_frame", "settled")
    noise = np.random.default_rng(0).integers(0, 255, (360, 640, 3), dtype=np.uint8)
    session.keep_settled(noise, None, 0.0)
    refused(client.post("/api/map/read"), 409, "map_not_read", "board not found")
    assert client.get("/api/state").json()["map"] == "1"  # the game is untouched


def test_a_second_webcams_settled_pictures_are_read_with_the_first(table):
    """A palace hides studs from one side of the table that a second webcam across it
    sees: its settled pictures are read with the first webcam's, in the first's board
    frame, and name studs the first cannot; the map is never read from the second's
    pictures alone (the profile keeps the first webcam's pose)."""
    session, client = table
    _, palace = map_views(20019, second_view=180)
    assert palace.second is not None
    session.camera_status("tracking")
    session.keep_settled(palace.frame.image, palace.camera, 0.0)
    first = client.post("/api/map/read").json()
    session.keep_settled(palace.second.image, palace.camera, 0.0, webcam=2)
    both = client.post("/api/map/read").json()
    assert (first["pictures"], first["fused"]) == (1, 1)
    assert (both["pictures"], both["views"], both["fused"]) == (2, 2, 2)
    assert both["known"] >= first["known"] + 60  # measured 426 -> 751
    rate, _ = agreement(map_from_json(both["map"], "read"), palace.ground)
    assert rate >= 0.99
    noise = np.random.default_rng(0).integers(0, 255, (360, 640, 3), dtype=np.uint8)
    session.keep_settled(noise, None, 5.0)  # three settled pictures of the first: none
    session.keep_settled(noise, None, 6.0)  # shows the board any more
    session.keep_settled(noise, None, 7.0)
    refused(client.post("/api/map/read"), 409, "map_not_read", "first webcam")
    # A new source (the first webcam's clock back at the start): both webcams' old
    # pictures are dropped, the second's of the board that was there too.
    session.keep_settled(palace.frame.image, palace.camera, 0.0)
    again = client.post("/api/map/read").json()
    assert (again["pictures"], again["fused"], again["known"]) == (1, 1, first["known"])


def test_the_camera_map_is_read_and_played_on(table, tmp_path):
    session, client = table
    truth = setup_board(1)
    camera, pose = random_camera(np.random.default_rng(1))
    session.camera_status("tracking")
    for i in range(3):  # a still board, seen at 1 s intervals of frame time
        frame = render(Palace(truth, truth.setup), camera, pose, RenderOptions(clean=True),
                       seed=i)
        session.keep_settled(frame.image, camera, float(i))
    response = client.post("/api/map/read")
    assert response.status_code == 200, response.text
    body = response.json()
    read = map_from_json(body["map"], "read")
    rate, known = agreement(read, truth)
    print(f"map read: {rate:.3f} of {known} studs right")
    # Measured 99.6 % of 955 studs (the staircase and what it hides make the rest).
    assert known == body["known"] > 800 and body["unknown"] == 1024 - known
    assert rate >= 0.95
    assert body["views"] == body["pictures"] == 3
    assert body["start_area"] == len(truth.start_area)
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(body["png"]), np.uint8),
                           cv2.IMREAD_COLOR)
    assert picture.shape == (192, 192, 3)

    session.maps.profile = tmp_path / "profile.json"
    state = client.post("/api/game", json={"players": 3, "map": "camera"}).json()
    assert state["map"] == "camera" and len(state["players"]) == 3
    assert session.ground.ground == read.ground
    assert session.ground.start_area == read.start_area
    kept = Profile.load(tmp_path / "profile.json").tables["default"]
    assert kept.map is not None and kept.map.ground == read.ground
    # The pose kept with the map sees each of its studs where the board has it.
    where = cell_in(kept.pose, pose)
    got, true = cells(kept.map).reshape(-1), cells(truth).reshape(-1)
    seen = (got != "?") & (where >= 0)
    assert (got[seen] == true[where[seen]]).mean() >= 0.95
    # The camera sees no card under the starting staircase: it is found standing in the
    # picture, on the studs the truth has it, and it is the game's set-up.
    assert {p.id for p in read.setup} == {p.id for p in SETUP_PIECES}
    assert {(p.kind, int(where[y * 32 + x])) for p in read.setup for x, y in p.footprint()} \
        == {(p.kind, y * 32 + x) for p in SETUP_PIECES for x, y in p.footprint()}
    assert {p.id for p in SETUP_PIECES} <= {p.id for p in session.palace()}
    session.close()
    again = TableSession.open(tmp_path / "games.sqlite", resume=True)
    try:
        assert again.ground.ground == read.ground and again.row.map_name == "camera"
    finally:
        again.close()


def test_a_stud_the_camera_left_unknown_is_named_by_the_turn_built_from_it(tmp_path):
    """A legal staircase whose starting stud the camera's map left unknown is confirmed
    as the camera read it; the game's map then names that stud by the decoration, and a
    resumed game (replayed from the log) names it again."""
    session = open_session(tmp_path)
    try:
        pieces = legal_staircase(session)
        start = analyse_added(session.game.palace, pieces).start
        assert start is not None
        x, y = start
        shipped = load_map("1")
        char = shipped.char(x, y)
        data = shipped.to_json()
        data["ground"][y] = data["ground"][y][:x] + "?" + data["ground"][y][x + 1:]
        session.new_game(2, map_data=data)
        assert session.ground.char(x, y) == "?"
        session.camera_turn(FakeReading(True, tuple(FakePiece(p) for p in pieces)), [])
        assert session.draft is not None
        words = " ".join(session.state()["draft"]["words"])
        assert "Legal staircase" in words and "named by the decoration" in words
        session.confirm(0, [])
        assert session.ground.char(x, y) == char
    finally:
        session.close()
    again = open_session(tmp_path, resume=True)
    try:
        assert again.ground.char(x, y) == char and len(again.log.turns(again.row.id)) == 1
    finally:
        again.close()
