"""The state file (``monopoly-builder-state/1``): a table described between two turns.

It is what ``palace score --game monopoly-builder`` reads and what a game is saved
as: the players (cash, resources, deeds, mortgages, kept Chance cards, where their
token stands, jail), the buildings on the island, resources lying on board spaces and
whose turn is next. Only ``format`` and ``players`` are required, so a state written
by hand for scoring can be short::

    {"format": "monopoly-builder-state/1",
     "players": [{"color": "red", "cash": 450, "deeds": ["brown-1", "brown-2"]},
                 {"color": "yellow", "cash": 300}],
     "buildings": [{"lot": [1, 0], "color": "red", "floors": 4, "penthouse": true}]}

Every field has bounds; a file that breaks one, or describes a table that cannot
exist (two owners of a deed, a penthouse on 3 floors, 21 boats), is refused in one
line naming the file, the field and the problem.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.monopoly_builder.board import JAIL, SPACES, Board
from rules.monopoly_builder.data import (
    COLOURS,
    DataFileError,
    read_json,
    shipped,
    validation_message,
)
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import (
    BLOCKS_PER_PLAYER,
    MAX_FLOORS,
    Building,
    Island,
    blocks_used,
)
from rules.monopoly_builder.players import Player
from rules.monopoly_builder.resources import RESOURCES_PER_TYPE, Resource, Tray, to_json
from rules.monopoly_builder.scoring import BonusTies, ScoreSheet, score
from rules.monopoly_builder.table import Step

STATE_FORMAT = "monopoly-builder-state/1"
Colour = Literal[COLOURS]  # type: ignore[valid-type]
Count = Annotated[int, Field(ge=0, le=RESOURCES_PER_TYPE)]
Cash = Annotated[int, Field(ge=0, le=1_000_000, multiple_of=5)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayerState(_Strict):
    color: Colour
    cash: Cash = 900
    resources: dict[Resource, Count] = {}
    deeds: list[Annotated[str, Field(max_length=40)]] = Field(default=[], max_length=16)
    mortgaged: list[Annotated[str, Field(max_length=40)]] = Field(default=[], max_length=16)
    jail_free_cards: int = Field(default=0, ge=0, le=2)
    position: int = Field(default=0, ge=0, lt=SPACES)
    in_jail: bool = False
    jail_attempts: int = Field(default=0, ge=0, le=2)


class BuildingState(_Strict):
    lot: tuple[Annotated[int, Field(ge=0, le=39)], Annotated[int, Field(ge=0, le=39)]]
    color: Colour
    floors: int = Field(ge=1, le=MAX_FLOORS)
    penthouse: bool = False


class State(_Strict):
    format: Literal["monopoly-builder-state/1"]
    players: list[PlayerState] = Field(min_length=2, max_length=4)
    buildings: list[BuildingState] = Field(default=[], max_length=200)
    ground: dict[Annotated[int, Field(ge=0, lt=SPACES)], dict[Resource, Count]] = {}
    current: Colour | None = None
    over: bool = False


def _problems(state: State, board: Board, island: Island) -> tuple[str, str] | None:
    """The first (field, problem) that makes the table impossible, or None."""
    colours = [p.color for p in state.players]
    if len(set(colours)) != len(colours):
        return "players", "two players have the same colour"
    owners: dict[str, int] = {}
    held: Counter[Resource] = Counter()
    for i, p in enumerate(state.players):
        where = f"players[{i}]"
        for deed in p.deeds:
            if deed not in board.deeds:
                return f"{where}.deeds", f"no title deed {deed!r} on the board"
            if deed in owners:
                return f"{where}.deeds", f"{deed} is also owned by players[{owners[deed]}]"
            owners[deed] = i
        if extra := sorted(set(p.mortgaged) - set(p.deeds)):
            return f"{where}.mortgaged", f"{extra[0]} is mortgaged but not owned"
        if p.in_jail and p.position != JAIL:
            return f"{where}.in_jail", f"a jailed token stands on space {JAIL}"
        held.update(p.resources)
    if sum(p.jail_free_cards for p in state.players) > 2:
        return "players", "there are only 2 Get Out of Jail Free cards"
    for pile in state.ground.values():
        held.update(pile)
    for r in Resource:
        if held[r] > RESOURCES_PER_TYPE:
            return "players", f"{held[r]} {r.value} held or lying about; there are 20"
    lots: set[tuple[int, int]] = set()
    for i, b in enumerate(state.buildings):
        where = f"buildings[{i}]"
        if not island.is_lot(b.lot):
            return f"{where}.lot", f"{list(b.lot)} is not a building lot on the island"
        if b.lot in lots:
            return f"{where}.lot", f"two buildings on lot {list(b.lot)}"
        lots.add(b.lot)
        if b.color not in colours:
            return f"{where}.color", f"no {b.color} player in this game"
        if b.penthouse and b.floors != MAX_FLOORS:
            return f"{where}.penthouse", "a penthouse stands only on a 4-floor building"
    if sum(b.penthouse for b in state.buildings) > 1:
        return "buildings", "there is only 1 penthouse"
    built = [_building(b) for b in state.buildings]
    for c in colours:
        if (used := blocks_used(built, c)) > BLOCKS_PER_PLAYER:
            return "buildings", f"{c} has {used} floors built; a player has 12 blocks"
    if state.current is not None and state.current not in colours:
        return "current", f"no {state.current} player in this game"
    return None


def _building(b: BuildingState) -> Building:
    return Building((b.lot[0], b.lot[1]), b.color, b.floors, b.penthouse)


def parse_state(raw: Any, source: str = "state") -> State:
    """A checked state from parsed JSON; ``source`` names it in the one-line error."""
    try:
        state = State.model_validate(raw)
    except ValidationError as exc:
        raise DataFileError(validation_message(source, exc)) from None
    board, _, _, island = shipped()
    if found := _problems(state, board, island):
        raise DataFileError(f"{source}: {found[0]}: {found[1]}")
    return state


def load_state(path: str | Path) -> State:
    return parse_state(read_json(path, "state file"), str(path))


def players_of(state: State) -> list[Player]:
    _, refs, _, _ = shipped()
    out = []
    for p in state.players:
        out.append(Player(
            p.color, refs[p.color].token, p.cash, Counter(p.resources), set(p.deeds),
            set(p.mortgaged), [], p.position, p.in_jail, p.jail_attempts,
        ))
    return out


def score_state(state: State, bonus_ties: BonusTies = "share") -> ScoreSheet:
    board, _, _, island = shipped()
    buildings = {(b.lot[0], b.lot[1]): _building(b) for b in state.buildings}
    return score(board, island, players_of(state), buildings, bonus_ties)


def game_from_state(state: State, seed: int = 0, bonus_ties: BonusTies = "share") -> Game:
    """A game at step 1 of ``current``'s turn (the first player's if not given)."""
    game = Game([p.color for p in state.players], seed, bonus_ties=bonus_ties, first=0)
    game.players = players_of(state)
    jail_cards = [c for c in game.deck if game.cards[c].kept]
    for p, described in zip(game.players, state.players, strict=True):
        for _ in range(described.jail_free_cards):
            card = jail_cards.pop()
            game.deck.remove(card)
            p.jail_cards.append(card)
    game.buildings = {(b.lot[0], b.lot[1]): _building(b) for b in state.buildings}
    game.ground = {space: Counter(pile) for space, pile in state.ground.items() if pile}
    left: Counter[Resource] = Counter(dict.fromkeys(Resource, RESOURCES_PER_TYPE))
    for p in game.players:
        left.subtract(p.resources)
    for pile in game.ground.values():
        left.subtract(pile)
    game.tray = Tray(left)
    if state.current is not None:
        game.current = [p.color for p in state.players].index(state.current)
    if state.over or game.penthouse_built:
        game.ended_by, game.step = "the state file describes a finished game", Step.OVER
    return game


def state_of(game: Game) -> dict[str, Any]:
    """The game as a state file (JSON-ready); a game mid-turn is saved as it stands,
    to be resumed at the start of the current player's turn."""
    return {
        "format": STATE_FORMAT,
        "players": [
            {"color": p.colour, "cash": p.cash,
             "resources": {k: v for k, v in to_json(p.resources).items() if v},
             "deeds": sorted(p.deeds), "mortgaged": sorted(p.mortgaged),
             "jail_free_cards": len(p.jail_cards), "position": p.position,
             "in_jail": p.in_jail, "jail_attempts": p.jail_attempts}
            for p in game.players
        ],
        "buildings": [
            {"lot": list(b.lot), "color": b.colour, "floors": b.floors,
             "penthouse": b.penthouse}
            for b in sorted(game.buildings.values(), key=lambda b: b.lot)
        ],
        "ground": {str(s): {k: v for k, v in to_json(pile).items() if v}
                   for s, pile in sorted(game.ground.items()) if +pile},
        "current": game.player.colour,
        "over": game.is_over,
    }
