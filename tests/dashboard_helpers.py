"""Shared by the dashboard tests: a table session in a temporary log and legal turns
found by the rules engine's own move generator (so no answer is hard-coded)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from palace.session import TableSession
from rules.moves import Hand, staircases
from rules.pieces import Piece


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
