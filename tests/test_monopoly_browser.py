"""The Monopoly Builder page in headless Chromium: a turn taken by hand (roll with the
table's dice, buy, build on a clicked lot), a refused build showing the engine's reason,
and the page's score checked against the API's."""

from __future__ import annotations

import pytest
from dashboard_helpers import (
    chromium_page,
    needs_chromium,
    open_session,
    serving,
)

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    with serving(open_session(tmp_path)) as url:
        yield url


def test_a_turn_by_hand_on_the_page(served, tmp_path):
    import httpx

    url = served
    httpx.post(f"{url}/api/monopoly-builder/game",
               json={"players": ["red", "yellow"], "first": 0}).raise_for_status()
    with playwright_api.sync_playwright() as pw:
        browser, page = chromium_page(pw, 1400, 1000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/")
        page.click("a[href='/monopoly-builder']")
        page.wait_for_selector("[data-lot='1,1']")
        assert "red's turn, step 1" in page.inner_text("[data-testid=turn]")
        dice = page.locator("[data-testid=actions] select")
        dice.nth(0).select_option("1")
        dice.nth(1).select_option("2")
        page.click("button:has-text('Roll')")
        page.click("button:has-text('Buy Baltic Avenue for $60')")
        page.click("button:has-text('Done with the space')")
        page.click("[data-lot='1,1']")
        page.fill("fieldset:has(legend:has-text('Build on')) input[title='crane']", "3")
        page.click("button:has-text('Build a floor')")
        page.wait_for_function("document.querySelector('[data-testid=error]').textContent"
                               ".includes('floor 1 needs')")
        page.fill("fieldset:has(legend:has-text('Build on')) input[title='crane']", "")
        page.click("button:has-text('Build a floor')")
        page.wait_for_selector("[data-lot='1,1'] .floor.c-red")
        assert "11 blocks left" in page.inner_text("[data-testid=players]")
        page.screenshot(path=str(tmp_path / "monopoly-builder.png"), full_page=True)
        api = httpx.get(f"{url}/api/monopoly-builder/state").json()
        red = next(s for s in api["score"]["ranking"] if s["colour"] == "red")
        row = page.locator("[data-testid=score] tr", has_text="red").inner_text()
        assert str(red["total"]) in row and f"${red['cash']}" in row
        page.click("button:has-text('End turn')")
        page.wait_for_function("document.querySelector('[data-testid=turn]').textContent"
                               ".startsWith(\"yellow's turn\")")
        browser.close()
    assert errors == []
