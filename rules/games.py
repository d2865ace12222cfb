"""The games Palace Eye can keep score of, found by name (as python-chess finds variants).

Each game is pure logic in its own place (Monkey Palace in ``rules/``, Monopoly
Builder in ``rules/monopoly_builder/``); a :class:`GameInfo` tells the command line and
the dashboard how to start one and how to score it without knowing which it is.
Imports happen on first use, so finding one game never loads the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GameInfo:
    """``new_game(players, seed)`` starts a game; ``scores(game)`` gives points per seat
    and ``winners(game)`` the winning seats, by the game's own tie-break.
    ``score_state(path)``, where a game has a state file format, scores a described
    table as JSON (the players ranked)."""

    name: str
    title: str
    players: tuple[int, int]
    new_game: Callable[[int, int], Any]
    scores: Callable[[Any], list[int]]
    winners: Callable[[Any], tuple[int, ...]]
    state_format: str | None = None
    score_state: Callable[[str | Path], dict[str, Any]] | None = None


class UnknownGameError(ValueError):
    """A game name this engine does not know."""


def _palace_new(players: int, seed: int) -> Any:
    from rules.game import Game

    return Game.new(players=players, seed=seed)


def _builder_new(players: int, seed: int) -> Any:
    from rules.monopoly_builder.game import Game
    from rules.monopoly_builder.players import COLOUR_ORDER

    return Game(list(COLOUR_ORDER[:players]), seed)


def _builder_scores(game: Any) -> list[int]:
    return [s.total for s in game.score().players]


def _builder_winners(game: Any) -> tuple[int, ...]:
    return tuple(i for i, s in enumerate(game.score().players) if s.winner)


def _builder_score_state(path: str | Path) -> dict[str, Any]:
    from rules.monopoly_builder.state import load_state, score_state

    return score_state(load_state(path)).to_json()


GAMES = {
    "monkey-palace": GameInfo(
        "monkey-palace", "LEGO Monkey Palace", (2, 4), _palace_new,
        lambda game: game.scores(), lambda game: game.winners(),
    ),
    "monopoly-builder": GameInfo(
        "monopoly-builder", "Monopoly Builder", (2, 4), _builder_new,
        _builder_scores, _builder_winners, "monopoly-builder-state/1", _builder_score_state,
    ),
}
DEFAULT_GAME = "monkey-palace"


def find_game(name: str) -> GameInfo:
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(GAMES)
        raise UnknownGameError(f"no game called {name!r}; known games: {known}") from None
