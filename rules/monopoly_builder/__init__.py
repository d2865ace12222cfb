"""Monopoly Builder as pure Python: the board, the island's buildings, turns, scoring.

The second game beside Monkey Palace (see :func:`rules.find_game`). Everything the
rulebook does not print (board spaces, title deeds, reference and Chance cards, the
island's lots) is stand-in data in ``data/`` that a table can correct without code.
"""

from rules.monopoly_builder.board import Board, Deed, Space, SpaceKind
from rules.monopoly_builder.data import DataFileError, load_board, load_chance, load_island
from rules.monopoly_builder.errors import (
    BuildError,
    CashError,
    DecisionPendingError,
    FloorLimitError,
    GameOverError,
    InJailError,
    LotError,
    MissingResourcesError,
    MixedColourError,
    NotYourTurnError,
    OutOfBlocksError,
    PenthouseError,
    PropertyError,
    RefusedAction,
    TooManyResourcesError,
    TradeError,
    WrongStepError,
)
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import Building, Island, Lot
from rules.monopoly_builder.players import Player
from rules.monopoly_builder.resources import Resource
from rules.monopoly_builder.scoring import PlayerScore, ScoreSheet, score
from rules.monopoly_builder.table import Step
from rules.monopoly_builder.trading import Offer

__all__ = [
    "Board",
    "BuildError",
    "Building",
    "CashError",
    "DataFileError",
    "DecisionPendingError",
    "Deed",
    "FloorLimitError",
    "Game",
    "GameOverError",
    "InJailError",
    "Island",
    "Lot",
    "LotError",
    "MissingResourcesError",
    "MixedColourError",
    "NotYourTurnError",
    "Offer",
    "OutOfBlocksError",
    "PenthouseError",
    "Player",
    "PlayerScore",
    "PropertyError",
    "RefusedAction",
    "Resource",
    "ScoreSheet",
    "Space",
    "SpaceKind",
    "Step",
    "TooManyResourcesError",
    "TradeError",
    "WrongStepError",
    "load_board",
    "load_chance",
    "load_island",
    "score",
]
