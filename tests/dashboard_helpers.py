"""Shared by the dashboard tests: a table session in a temporary log and legal turns
found by the rules engine's own move generator (so no answer is hard-coded)."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import uvicorn

from palace.server import create_app
from palace.session import TableSession
from rules.maps import SETUP_PIECES, GroundMap
from rules.moves import Hand, staircases
from rules.pieces import Piece
from rules.random_map import random_map

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which tools/install-test-browser installs; never a downloaded one."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
"""No background networking: the machine's closed network would refuse it many times over."""
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="run tools/install-test-browser for Chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served_in_thread(session: TableSession) -> Iterator[str]:
    """The dashboard on a free loopback port in this process (so a test can drive the
    session directly while a client watches); yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(session), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)


@contextmanager
def serving(session: TableSession) -> Iterator[str]:
    """:func:`served_in_thread` for a session the test hands over: closed once the
    server has stopped, as every browser test's fixture ends."""
    with served_in_thread(session) as url:
        yield url
    session.close()


def chromium_page(pw: Any, width: int, height: int) -> tuple[Any, Any]:
    """Debian's headless Chromium (:data:`CHROMIUM`, :data:`CHROMIUM_ARGS`) launched from a
    Playwright handle, and a page of this size in it: the browser to close at the end."""
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    return browser, browser.new_page(viewport={"width": width, "height": height})


def open_session(tmp_path: Path, resume: bool = False) -> TableSession:
    return TableSession.open(tmp_path / "games.sqlite", resume=resume)


def legal_staircase(session: TableSession, *, color: str | None = None,
                    seed: int = 0) -> tuple[Piece, ...]:
    """A legal staircase for the active player (of ``color`` when given)."""
    game = session.game
    player = game.player
    found = staircases(game.palace, Hand(player.arches, player.bricks, player.columns),
                       game.tray.decorations, rng=random.Random(seed), max_starts=16)
    for candidate in found:
        if color is not None and candidate.color != color:
            continue
        pieces = candidate.pieces
        if game.check_turn(pieces).legal:
            return tuple(pieces)
    raise AssertionError(f"no legal {color or ''} staircase for {player.name}")


@dataclass
class FakePiece:
    """One piece as vision's TurnReading gives it."""

    piece: Piece
    confidence: float = 0.95
    alternatives: tuple[Piece, ...] = ()


@dataclass
class FakeReading:
    """Vision's TurnReading as the session duck-types it."""

    found: bool
    added: tuple[FakePiece, ...] = ()
    uncertain: bool = False
    reason: str = ""


def setup_board(seed: int) -> GroundMap:
    """A random map with the starting staircase where the shipped maps have it."""
    base = random_map(np.random.default_rng(seed), start_area=False)
    feet = {cell for piece in SETUP_PIECES for cell in piece.footprint()}
    rows = [list(row) for row in base.ground]
    for x, y in feet:
        rows[y][x] = "L"
    return GroundMap("truth", tuple("".join(r) for r in rows), frozenset(feet), SETUP_PIECES)


def display_of(x: int, y: int, turn: int, n: int = 32) -> tuple[int, int]:
    """The column and row of the set-up dialog's map picture that show stud (x, y): the
    card seen from above (the rows reversed), turned ``turn`` quarter turns (np.rot90's;
    ``MapReadOut.turn``)."""
    return [(x, n - 1 - y), (n - 1 - y, n - 1 - x), (n - 1 - x, y), (y, x)][turn]
