"""Monkey Palace's rules as pure Python: pieces, the stud grid, staircases, turns, games.

Monkey Palace is the main game and lives here; other games are subpackages
(``rules.monopoly_builder``), each found by name with :func:`find_game`.

Nothing here knows about cameras or files beyond the scene and map formats; every
other package builds on these names.
"""

from rules.bot import Bot, GameRecord, simulate_game
from rules.cards import Card, Market, PurchaseError, load_cards
from rules.game import Game, GameError, IllegalTurnError, TurnResult
from rules.games import GameInfo, UnknownGameError, find_game
from rules.maps import GroundMap, MapError, load_map
from rules.palace import Palace, PalaceError
from rules.pieces import Axis, DecorationColor, Kind, Piece
from rules.placement import physics_violations
from rules.report import Trophies, TurnReport, Violation
from rules.scene import Scene, SceneError, load_scene
from rules.settings import RuleSettings
from rules.staircase import analyse_added, analyse_turn

__all__ = [
    "Axis",
    "Bot",
    "Card",
    "DecorationColor",
    "Game",
    "GameError",
    "GameInfo",
    "GameRecord",
    "GroundMap",
    "IllegalTurnError",
    "Kind",
    "MapError",
    "Market",
    "Palace",
    "PalaceError",
    "Piece",
    "PurchaseError",
    "RuleSettings",
    "Scene",
    "SceneError",
    "Trophies",
    "TurnReport",
    "TurnResult",
    "UnknownGameError",
    "Violation",
    "analyse_added",
    "analyse_turn",
    "find_game",
    "load_cards",
    "load_map",
    "load_scene",
    "physics_violations",
    "simulate_game",
]
