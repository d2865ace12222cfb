"""The set-up dialog's "Read the map from the camera" in headless Chromium: the message
without a camera, then the map read from the twin's settled pictures shown with its
count of unknown studs, one stud of it corrected by a click on its picture, a drag
painted and taken back with "Undo", and a game started on the corrected map."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest
from dashboard_helpers import (
    chromium_page,
    display_of,
    needs_chromium,
    open_session,
    served_in_thread,
    setup_board,
)

from rules.palace import Palace
from twin import RenderOptions, random_camera, render

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


def test_the_map_read_by_the_camera_in_the_set_up_dialog(tmp_path):
    shots = Path(os.environ.get("PALACE_SHOTS", tmp_path))
    session = open_session(tmp_path)
    truth = setup_board(2)
    camera, pose = random_camera(np.random.default_rng(2))
    with served_in_thread(session) as url, playwright_api.sync_playwright() as pw:
        browser, page = chromium_page(pw, 1200, 1100)
        page.goto(url)
        page.wait_for_selector("[data-testid=sync].ready")
        page.click("#open-setup")
        page.click("[data-testid=read-map]")
        page.wait_for_function("document.querySelector('[data-testid=camera-map-error]')"
                               ".textContent.includes('no camera')")
        assert page.is_hidden("[data-testid=camera-map]")
        # The camera loop has seen the set-up board settled.
        session.camera_status("tracking")
        for i in range(2):
            image = render(Palace(truth, truth.setup), camera, pose, RenderOptions(clean=True),
                           seed=i).image
            session.keep_settled(image, camera, float(i))
        page.click("[data-testid=read-map]")
        page.wait_for_selector("[data-testid=camera-map]:not([hidden])")
        page.wait_for_function("document.querySelector('#camera-map-img').naturalWidth > 0")
        assert page.evaluate("document.querySelector('#camera-map-img').naturalWidth") == 192
        unknown = session.maps.latest.unknown
        assert f"{unknown} unknown" in page.inner_text("#camera-map-words")
        assert page.input_value("[data-testid=setup-map]") == "camera"
        # A stud the players see printed otherwise: "dark green", "one stud", a click.
        read = session.maps.latest.ground
        x, y = next((x, y) for y in range(4, 28) for x in range(4, 28)
                    if read.ground[y][x] in "LG" and (x, y) not in read.start_area)
        shown = page.evaluate("document.querySelector('#camera-map-img').src")
        page.check("input[name=paint_ink][value=D]")
        page.select_option("[data-testid=paint-reach]", "stud")
        side = page.evaluate("document.querySelector('#camera-map-img').clientWidth")
        # The picture shows the card as the camera sees it, turned from the board's frame.
        turn = session.maps.latest.turn
        u, v = display_of(x, y, turn)
        page.click("#camera-map-img", position={"x": (u + 0.5) * side / 32,
                                                "y": (v + 0.5) * side / 32})
        page.wait_for_function(f"document.querySelector('#camera-map-img').src !== {shown!r}")
        corrected = session.maps.latest.ground
        assert corrected.ground[y][x] == "D"
        assert sum(a != b for ra, rb in zip(read.ground, corrected.ground, strict=True)
                   for a, b in zip(ra, rb, strict=True)) == 1
        # Dragged with "one stud" and "blocked": every stud crossed, and only those.
        row = next(y for y in range(6, 26) if all(
            (x, y) not in read.start_area and corrected.ground[y][x] != "X"
            for x in range(8, 14)))
        page.check("input[name=paint_ink][value=X]")
        box = page.locator("#camera-map-img").bounding_box()
        assert box is not None

        def at(x: int, y: int) -> tuple[float, float]:
            u, v = display_of(x, y, turn)
            return box["x"] + (u + 0.5) * side / 32, box["y"] + (v + 0.5) * side / 32

        page.mouse.move(*at(8, row))
        page.mouse.down()
        for x in range(9, 14):
            page.mouse.move(*at(x, row), steps=3)
        page.mouse.up()
        deadline = time.monotonic() + 10
        while (time.monotonic() < deadline
               and session.maps.latest.ground.ground[row][8:14] != "X" * 6):
            time.sleep(0.05)
        dragged = session.maps.latest.ground
        assert dragged.ground[row][8:14] == "X" * 6
        assert sum(a != b for ra, rb in zip(corrected.ground, dragged.ground, strict=True)
                   for a, b in zip(ra, rb, strict=True)) == 6
        page.screenshot(path=str(shots / "dashboard-camera-map.png"))
        # "Undo" takes the drag back a stud at a time, the last first.
        for _ in range(6):
            page.click("[data-testid=undo-paint]")
        deadline = time.monotonic() + 10
        while (time.monotonic() < deadline
               and session.maps.latest.ground.ground != corrected.ground):
            time.sleep(0.05)
        assert session.maps.latest.ground.ground == corrected.ground
        page.click("[data-testid=setup-go]")
        page.wait_for_function("() => document.querySelector('#setup').open === false")
        deadline_ok = page.wait_for_selector("[data-testid=sync].ready")
        assert deadline_ok is not None
        browser.close()
    assert session.row.map_name == "camera"
    assert session.ground.ground == corrected.ground
    session.close()
