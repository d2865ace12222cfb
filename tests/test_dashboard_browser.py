"""The page in headless Chromium: a turn read by the camera (a twin frame), a doubtful
piece corrected, a card picked, the turn confirmed and undone, the scores the page shows
checked against the game's, and nothing loaded from outside the table. Screenshots go
to the test's folder, or to the folder named by PALACE_SHOTS."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from dashboard_helpers import (
    FakePiece,
    FakeReading,
    chromium_page,
    legal_staircase,
    needs_chromium,
    open_session,
    serving,
)

from calibration.evidence import BoardLocation
from twin.cameras import around_board, random_camera
from twin.frame import RenderOptions
from twin.renderer import render

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    session = open_session(tmp_path)
    session.new_game(players=3, names=["Ana", "Ben", "Caro"])
    with serving(session) as url:
        yield session, url


def _camera_picture(session, pieces, turned=0.0):
    """What a webcam would see of the board with this turn built (the twin renders it),
    and where the board is in it; ``turned``: a webcam that many degrees round the table."""
    camera, pose = random_camera(np.random.default_rng(3), 1280, 720, elevation_deg=(50, 60),
                                 distortion=0.3)
    pose = around_board(pose, turned)
    palace = session.palace()
    for piece in sorted(pieces, key=lambda p: p.z):
        palace.place(piece.moved(color=piece.color or "tan"))
    frame = render(palace, camera, pose, RenderOptions(clean=True), seed=1)
    return frame.image, BoardLocation(found=True, pose=pose, camera=camera, rotation=0)


def _click_a_stud_in_3d(page, x, y):
    """Clicks the middle of stud (x, y) where the 3D view shows it."""
    at = page.evaluate("""([x, y]) => {
        const view = window.palaceView, V = view.camera.position.constructor;
        const p = new V(x + 0.5, 0, y + 0.5).project(view.camera);
        const r = view.renderer.domElement.getBoundingClientRect();
        return [r.left + (p.x + 1) / 2 * r.width, r.top + (1 - p.y) / 2 * r.height];
    }""", [x, y])
    page.mouse.click(*at)


def test_a_turn_through_the_page(served, tmp_path):
    session, url = served
    shots = Path(os.environ.get("PALACE_SHOTS", tmp_path))
    with playwright_api.sync_playwright() as pw:
        browser, page = chromium_page(pw, 1400, 1500)
        page.on("dialog", lambda d: d.accept())
        outside: list[str] = []
        page.route("**/*", lambda route: (
            route.continue_() if route.request.url.startswith(url)
            else (outside.append(route.request.url), route.abort())))
        page.goto(url)
        page.wait_for_selector("[data-testid=sync].ready")
        # The camera reads a legal staircase, one piece of it doubtful.
        pieces = legal_staircase(session)
        readings = tuple(FakePiece(p, 0.3 if i == 0 else 0.97) for i, p in enumerate(pieces))
        picture, location = _camera_picture(session, pieces)
        session.show_frame(picture, location)
        session.camera_turn(FakeReading(True, readings), [picture])
        page.wait_for_selector("[data-testid=sync].out_of_sync")
        page.wait_for_selector("#camera[src]")
        _click_a_stud_in_3d(page, 20, 5)
        assert (page.input_value("#editor [name=x]"), page.input_value("#editor [name=y]")) \
            == ("20", "5")
        doubtful = page.locator("#draft-pieces tr.doubtful")
        assert doubtful.count() == 1
        # Correct: move the doubtful piece away (illegal now), then back (legal again).
        first = session.draft.pieces[0].piece
        doubtful.locator("button", has_text="edit").click()
        page.fill("#editor [name=x]", str((first.x + 9) % 32))
        page.click("[data-testid=edit-apply]")
        page.wait_for_selector("#report li.verdict.illegal")
        page.fill("#editor [name=x]", str(first.x))
        page.click("[data-testid=edit-apply]")
        page.wait_for_selector("[data-testid=sync].pending")
        assert "Legal staircase" in page.inner_text("[data-testid=report]")
        page.screenshot(path=str(shots / "dashboard-turn.png"))
        assert page.get_attribute("#palace3d", "data-mode") in (None, "2d")
        # Pick the cheapest card the page allows and confirm.
        allowed = [m for m in session.state()["market"] if m["allowed"]]
        report = session.state()["draft"]["report"]
        credits = report["credits"]
        card = min(allowed, key=lambda m: m["top"]["cost"])
        assert card["top"]["cost"] <= credits
        page.click(f".pile[data-pile='{card['pile']}']")
        page.click("[data-testid=confirm]")
        page.wait_for_selector("[data-testid=sync].ready")
        page.wait_for_selector("[data-turn='1']")
        expected = (card["top"]["bananas"] + 4 * report["bonus_card"]
                    + 2 * report["trophies"]["monkey"] + 2 * report["trophies"]["butterfly"])
        assert session.game.scores()[0] == expected
        assert page.inner_text("[data-testid=score-0]").startswith(f"{expected} ")
        page.screenshot(path=str(shots / "dashboard-confirmed.png"))
        assert page.evaluate("document.querySelector('#camera').naturalWidth") == 960
        # A second webcam's picture shows under the first's once it sends one.
        assert page.locator("#second-camera-box").is_hidden()
        session.show_frame(*_camera_picture(session, (), turned=180.0), webcam=2)
        page.wait_for_selector("#second-camera-box:not([hidden])")
        assert page.evaluate("document.querySelector('#second-camera').naturalWidth") == 960
        page.screenshot(path=str(shots / "dashboard-two-webcams.png"))
        # Undo: the turn's pieces come back to be corrected, the score goes back to 0.
        page.click("[data-testid=undo-1]")
        page.wait_for_selector("[data-testid=sync].pending")
        page.wait_for_function(
            "document.querySelector('[data-testid=score-0]').textContent.startsWith('0 ')")
        assert session.game.scores()[0] == 0
        assert page.locator("#turns li.undone").count() == 1
        # The API page works without the internet too.
        page.goto(f"{url}/docs")
        page.get_by_text("/api/turn/confirm", exact=True).first.wait_for()
        assert outside == [], "the page and the API page load nothing from outside"
        browser.close()


def test_a_decoration_doubted_by_its_colour_is_taken_in_the_colour_seen(served, tmp_path):
    """The camera reads a legal staircase whose decoration's pixels named another colour
    (rule 6 broken on the table, or a misread start): the page offers the decoration in
    the colour seen, named so, and one click puts it in the draft, which the rules then
    refuse."""
    session, url = served
    pieces = legal_staircase(session)
    decoration = next(p for p in pieces if p.kind.value == "decoration")
    seen = "gold" if decoration.color != "gold" else "dark_green"
    readings = tuple(FakePiece(p, 0.45, (p.moved(color=seen),)) if p is decoration
                     else FakePiece(p, 0.97) for p in pieces)
    with playwright_api.sync_playwright() as pw:
        browser, page = chromium_page(pw, 1400, 1500)
        page.goto(url)
        page.wait_for_selector("[data-testid=sync].ready")
        session.camera_turn(FakeReading(True, readings), [])
        page.wait_for_selector("[data-testid=sync].out_of_sync")
        row = page.locator("#draft-pieces tr.doubtful")
        assert row.count() == 1
        offer = row.locator("button", has_text=seen.replace("_", " "))
        assert offer.count() == 1
        assert offer.inner_text() == (f"decoration {decoration.x},{decoration.y},"
                                      f"{decoration.z} {seen.replace('_', ' ')}")
        shots = Path(os.environ.get("PALACE_SHOTS", tmp_path))
        page.locator("#draft-pieces").screenshot(path=str(shots / "dashboard-colour-doubt.png"))
        offer.click()
        page.wait_for_selector("#report li.verdict.illegal")
        drafted = next(d.piece for d in session.draft.pieces
                       if d.piece.kind.value == "decoration")
        assert drafted.color == seen
        browser.close()
