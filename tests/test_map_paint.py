"""Correcting the map the camera read before a game starts on it: a stud, a region or a
whole ink painted as the card has it (`palace.camera_map.painted`, POST /api/map/paint),
the starting staircase's studs left alone, and the game played on the corrected map."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest
from dashboard_helpers import display_of, open_session
from fastapi.testclient import TestClient

from calibration.camera import project
from calibration.map_read import map_cells
from palace.camera_map import _png, painted, picture_turn
from palace.server import create_app
from rules.maps import SETUP_PIECES, GroundMap, MapError, load_map, map_from_json
from rules.palace import Palace
from twin import RenderOptions, orbit_pose, random_camera, render

FEET = {cell for piece in SETUP_PIECES for cell in piece.footprint()}


def renamed(ground: GroundMap, old: str, new: str) -> GroundMap:
    """``ground`` with one ink named as another everywhere: the camera's whole-ink
    mistake (a dark green read as gold, say)."""
    rows = [row.replace(old, new) for row in ground.ground]
    return map_from_json({**ground.to_json(), "ground": rows}, "misread")


def differing(a: GroundMap, b: GroundMap) -> set[tuple[int, int]]:
    got, want = map_cells(a), map_cells(b)
    return {(int(x), int(y)) for y, x in zip(*np.nonzero(got != want), strict=True)}


def test_a_whole_ink_read_as_another_is_mended_with_one_click() -> None:
    # A card of gold and dark green whose dark green the camera named light green (an
    # ink alone in the view has only its own colour to be named by).
    truth = renamed(load_map(1), "L", "G")
    misread = renamed(truth, "D", "L")
    assert len(differing(misread, truth)) > 100
    x, y = next((x, y) for y, row in enumerate(truth.ground) for x, c in enumerate(row)
                if c == "D")
    assert not differing(painted(misread, x, y, "D", "ink"), truth)
    # Painting the region clicked mends that region and nothing else.
    one = painted(misread, x, y, "D", "region")
    mended = differing(misread, truth) - differing(one, truth)
    assert (x, y) in mended and differing(one, truth) < differing(misread, truth)
    assert differing(misread, one) == mended


def test_a_region_is_the_studs_read_alike_joined_side_by_side() -> None:
    truth = load_map(1)
    grid = map_cells(truth)
    x, y = 1, 1  # a blocked patch in the corner of map 1
    assert grid[y, x] == "X"
    one = painted(truth, x, y, "?", "region")
    changed = differing(one, truth)
    assert (x, y) in changed and all(grid[cy, cx] == "X" for cx, cy in changed)
    # Every painted stud is joined to the one clicked through studs read alike, and the
    # other blocked studs of the map are left as they were.
    assert len(changed) < int((grid == "X").sum())
    stack, seen = [(x, y)], {(x, y)}
    while stack:
        cx, cy = stack.pop()
        for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
            if (nx, ny) in changed and (nx, ny) not in seen:
                seen.add((nx, ny))
                stack.append((nx, ny))
    assert seen == changed
    assert differing(painted(truth, x, y, "D", "stud"), truth) == {(x, y)}


def test_the_starting_staircase_keeps_its_studs() -> None:
    truth = load_map(1)
    x, y = next(iter(FEET))
    with pytest.raises(MapError, match=rf"stud \[{x}, {y}\].*starting staircase"):
        painted(truth, x, y, "D", "stud")
    # A whole ink painted reaches round the staircase, never under it.
    white = map_from_json({**truth.to_json(), "start_area": sorted(
        [list(c) for c in FEET | {(11, 15)}])}, "read")
    assert map_cells(white)[15, 11] == "S"
    everything = painted(white, 11, 15, "G", "ink")
    assert everything.start_area == frozenset(FEET)
    assert map_cells(everything)[15, 11] == "G"
    assert all(map_cells(everything)[cy, cx] == "S" for cx, cy in FEET)


@pytest.mark.parametrize(("x", "y", "ink", "reach", "word"), [
    (32, 0, "L", "stud", "off the board"),
    (0, 0, "Q", "stud", "ink 'Q'"),
    (0, 0, "L", "everything", "reach 'everything'"),
])
def test_a_correction_the_map_cannot_take_is_refused(x, y, ink, reach, word) -> None:
    with pytest.raises(MapError, match=word):
        painted(load_map(1), x, y, ink, reach)


def test_the_page_corrects_the_camera_map_and_the_game_plays_on_it(tmp_path) -> None:
    session = open_session(tmp_path)
    client = TestClient(create_app(session))
    try:
        answer = client.post("/api/map/paint", json={"x": 3, "y": 3, "ink": "D"})
        assert answer.status_code == 409 and answer.json()["code"] == "no_camera_map"
        truth = load_map(2)
        camera, pose = random_camera(np.random.default_rng(4))
        session.camera_status("tracking")
        image = render(Palace(truth, truth.setup), camera, pose, RenderOptions(clean=True),
                       seed=0).image
        session.keep_settled(image, camera, 0.0)
        read = client.post("/api/map/read").json()
        before = map_from_json(read["map"], "read")
        grid = map_cells(before)
        y, x = next((y, x) for y, x in zip(*np.nonzero(np.isin(grid, ("L", "G"))),
                                           strict=True) if (x, y) not in before.start_area)
        body = client.post("/api/map/paint", json={"x": int(x), "y": int(y), "ink": "?",
                                                   "reach": "region"}).json()
        after = map_from_json(body["map"], "painted")
        changed = differing(after, before)
        assert (int(x), int(y)) in changed
        assert body["unknown"] == read["unknown"] + len(changed)
        assert body["known"] == read["known"] - len(changed)
        assert body["png"] != read["png"] and base64.b64decode(body["png"])[:4] == b"\x89PNG"
        foot = min(c for piece in before.setup for c in piece.footprint())
        refused = client.post("/api/map/paint", json={"x": foot[0], "y": foot[1], "ink": "D",
                                                      "reach": "stud"})
        assert refused.status_code == 422 and "starting staircase" in refused.json()["detail"]
        wrong = client.post("/api/map/paint", json={"x": 0, "y": 0, "ink": "white"})
        assert wrong.status_code == 422
        # A click on the wrong stud is taken back, the last first; then nothing is left.
        slip = client.post("/api/map/paint", json={"x": int(x), "y": int(y), "ink": "X",
                                                   "reach": "stud"}).json()
        assert map_from_json(slip["map"], "slip").ground[y][x] == "X"
        back = client.post("/api/map/undo").json()
        assert map_from_json(back["map"], "back").ground == after.ground
        assert map_from_json(client.post("/api/map/undo").json()["map"],
                             "read").ground == before.ground
        none = client.post("/api/map/undo")
        assert none.status_code == 409 and none.json()["code"] == "no_correction"
        client.post("/api/map/paint", json={"x": int(x), "y": int(y), "ink": "?",
                                            "reach": "region"})
        state = client.post("/api/game", json={"players": 2, "map": "camera"}).json()
        assert state["map"] == "camera"
        assert session.ground.ground == after.ground
    finally:
        session.close()


def test_the_bench_corrects_a_reading_as_a_player_would() -> None:
    """`bench.map_read` counts the studs left wrong after each click, each the click that
    leaves fewest: a whole ink named wrong takes one, a lone wrong stud inside a region
    read right one more, and a click never counts a stud left unknown as wrong."""
    from bench.map_read import CLICKS, corrected

    truth = renamed(load_map(1), "L", "G")
    misread = renamed(truth, "D", "L")
    rows = [list(row) for row in misread.ground]
    rows[3][30] = "G"  # a lone stud in the dark green, read gold
    rows[5][30] = "?"  # one the camera left unknown
    misread = map_from_json({**misread.to_json(), "ground": ["".join(r) for r in rows]}, "read")
    want = map_cells(truth).reshape(-1)
    wrong = len(differing(misread, truth)) - 1  # the unknown stud is not wrong
    assert corrected(misread, want) == [wrong, 1, 0, 0][: CLICKS + 1]


@pytest.mark.parametrize("azimuth", [0.0, 60.0, 135.0, 200.0, 290.0])
def test_the_map_picture_shows_the_card_as_the_camera_sees_it(azimuth) -> None:
    """From whichever side the camera looks, the picture's top row is the board's side
    furthest up the camera's picture, and its left column the side furthest left."""

    camera, _ = random_camera(np.random.default_rng(3))
    pose = orbit_pose(50.0, azimuth, 560.0)
    turn = picture_turn(camera, pose)
    where = {display_of(x, y, turn): (x, y) for x in range(32) for y in range(32)}

    def seen(u: int, v: int) -> np.ndarray:
        x, y = where[(u, v)]
        return project(camera, pose, np.array([[x * 8.0 + 4, y * 8.0 + 4, 0.0]]))[0]

    assert seen(16, 0)[1] < seen(16, 31)[1]  # top row higher in the camera's picture
    assert seen(0, 16)[0] < seen(31, 16)[0]  # left column further left
    # The picture sent is the map so turned.
    picture = cv2.imdecode(np.frombuffer(_png(load_map(1), turn), np.uint8), cv2.IMREAD_COLOR)
    flat = cv2.imdecode(np.frombuffer(_png(load_map(1)), np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(picture, np.rot90(flat, turn))
    # Seen from above the picture is no mirror image: going right then down along it
    # turns the way the board does in the camera's picture.
    a, b, c = seen(16, 16), seen(24, 16), seen(16, 24)
    assert np.cross(b - a, c - a) > 0
