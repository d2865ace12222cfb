"""The dashboard's Monopoly Builder table: its API router and the page that uses it.

Until a camera reads Monopoly Island, the players take every action by hand on the
page (`/monopoly-builder`): each one is posted to ``/api/monopoly-builder/actions``
and either played by the rules engine or refused with the engine's own reason (409).
Requests are strict, as the rest of the API's are, so a malformed one is refused with
a 422 naming the field before it reaches the game.

The game lives in memory beside the Monkey Palace session; ``state.json`` saves it as
a ``monopoly-builder-state/1`` file and ``POST /state`` resumes from one.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from palace.monopoly_view import table_view
from rules.monopoly_builder.data import COLOURS, DataFileError
from rules.monopoly_builder.errors import RefusedAction
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.resources import Resource
from rules.monopoly_builder.state import game_from_state, parse_state, state_of
from rules.monopoly_builder.trading import Offer

PREFIX = "/api/monopoly-builder"
Colour = Literal[COLOURS]  # type: ignore[valid-type]
DeedId = Annotated[str, Field(max_length=40)]
Die = Annotated[int, Field(ge=1, le=6)]
Count = Annotated[int, Field(ge=0, le=20)]
Pile = dict[Resource, Count]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGameIn(_Strict):
    """2 to 4 colours in seat order (red Penguin, purple Hazel the Cat, green T-Rex,
    yellow Rubber Ducky); ``first``: the seat that won the first roll, else rolled."""

    players: Annotated[list[Colour], Field(min_length=2, max_length=4)] = ["red", "yellow"]
    seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0
    bonus_ties: Literal["share", "none"] = "share"
    first: Annotated[int, Field(ge=0, le=3)] | None = None


class LoadIn(_Strict):
    state: dict[str, Any] = Field(description="a monopoly-builder-state/1 document")
    seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0


class _Act(_Strict):
    player: Colour


class PlayerAction(_Act):
    action: Literal["pay_fine", "use_jail_card", "buy", "next_step", "end_turn"]


class RollIn(_Act):
    action: Literal["roll", "roll_for_resources"]
    dice: tuple[Die, Die] | None = Field(None, description="the table's dice; else rolled")


class DropIn(_Act):
    action: Literal["drop"]
    resources: Pile | None = Field(None, description="what to drop; else the most plentiful")


class AuctionIn(_Act):
    action: Literal["auction"]
    winner: Colour | None = Field(None, description="None: nobody bid")
    price: Annotated[int, Field(ge=0, le=1_000_000)] = 0


class StealIn(_Act):
    action: Literal["steal"]
    victim: Colour
    resource: Resource


class ForcedTradeIn(_Act):
    action: Literal["forced_trade"]
    give: DeedId
    take: DeedId


class BankTradeIn(_Act):
    action: Literal["bank_trade"]
    give: Resource
    get: Resource


class OfferIn(_Strict):
    cash: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    deeds: Annotated[list[DeedId], Field(max_length=16)] = []
    resources: Pile = {}
    jail_cards: Annotated[int, Field(ge=0, le=2)] = 0

    def offer(self) -> Offer:
        return Offer.of(self.cash, self.deeds, {r.value: n for r, n in self.resources.items()},
                        self.jail_cards)


class DealIn(_Act):
    action: Literal["deal"]
    other: Colour
    gives: OfferIn = OfferIn()
    gets: OfferIn = OfferIn()


class BuildIn(_Act):
    action: Literal["build"]
    lot: tuple[Annotated[int, Field(ge=0, le=39)], Annotated[int, Field(ge=0, le=39)]]
    pay: Pile | None = Field(None, description="the resources to use; else chosen")
    penthouse: bool = False


class DeedAction(_Act):
    action: Literal["ask_rent", "mortgage", "unmortgage"]
    deed: DeedId


class StopIn(_Act):
    action: Literal["stop"]
    reason: Annotated[str, Field(max_length=200)] = "the table stopped the game"


ActionIn = Annotated[
    PlayerAction | RollIn | DropIn | AuctionIn | StealIn | ForcedTradeIn | BankTradeIn
    | DealIn | BuildIn | DeedAction | StopIn,
    Field(discriminator="action"),
]


def _pile(p: Pile | None) -> dict[str, int] | None:
    return None if p is None else {r.value: n for r, n in p.items()}


_DISPATCH: dict[str, Callable[[Game, Any], object]] = {
    "pay_fine": lambda g, a: g.pay_fine(a.player),
    "use_jail_card": lambda g, a: g.use_jail_card(a.player),
    "buy": lambda g, a: g.buy(a.player),
    "next_step": lambda g, a: g.next_step(a.player),
    "end_turn": lambda g, a: g.end_turn(a.player),
    "roll": lambda g, a: g.roll(a.player, a.dice),
    "roll_for_resources": lambda g, a: g.roll_for_resources(a.player, a.dice),
    "drop": lambda g, a: g.drop(a.player, _pile(a.resources)),
    "auction": lambda g, a: g.auction(a.player, a.winner, a.price),
    "steal": lambda g, a: g.steal(a.player, a.victim, a.resource.value),
    "forced_trade": lambda g, a: g.forced_trade(a.player, a.give, a.take),
    "bank_trade": lambda g, a: g.bank_trade(a.player, a.give.value, a.get.value),
    "deal": lambda g, a: g.deal(a.player, a.other, a.gives.offer(), a.gets.offer()),
    "build": lambda g, a: g.build(a.player, a.lot, _pile(a.pay), penthouse=a.penthouse),
    "ask_rent": lambda g, a: g.ask_rent(a.player, a.deed),
    "mortgage": lambda g, a: g.mortgage(a.player, a.deed),
    "unmortgage": lambda g, a: g.unmortgage(a.player, a.deed),
    "stop": lambda g, a: g.stop(a.reason),
}


class BuilderTable:
    """The one Monopoly Builder game of this server; requests take turns on it."""

    def __init__(self, game: Game | None = None) -> None:
        self.game = game or Game(["red", "yellow"], seed=0, first=0)
        self.lock = threading.Lock()


def _refusal(exc: RefusedAction) -> JSONResponse:
    code = re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower().removesuffix("_error")
    return JSONResponse({"code": code, "detail": str(exc), "report": None}, 409)


def monopoly_router(table: BuilderTable | None = None) -> APIRouter:
    """The page at ``/monopoly-builder`` and its API under ``/api/monopoly-builder``."""
    table = table or BuilderTable()
    router = APIRouter(tags=["monopoly-builder"])
    page = resources.files("palace") / "static" / "monopoly.html"

    @router.get("/monopoly-builder", include_in_schema=False)
    def monopoly_page() -> FileResponse:
        return FileResponse(str(page))

    @router.get(f"{PREFIX}/state")
    def get_state() -> JSONResponse:
        """The whole table as the page draws it (score as it stands, final once over)."""
        with table.lock:
            return JSONResponse(table_view(table.game))

    @router.post(f"{PREFIX}/game", responses={409: {"description": "refused"}})
    def new_game(body: NewGameIn) -> JSONResponse:
        """Starts a new game (the previous one is dropped: save it first)."""
        if body.first is not None and body.first >= len(body.players):
            return JSONResponse({"code": "first", "report": None,
                                 "detail": f"first: no seat {body.first} among "
                                           f"{len(body.players)} players"}, 422)
        try:
            game = Game(list(body.players), body.seed, bonus_ties=body.bonus_ties,
                        first=body.first)
        except RefusedAction as exc:
            return _refusal(exc)
        with table.lock:
            table.game = game
            return JSONResponse(table_view(game))

    @router.post(f"{PREFIX}/actions", responses={409: {"description": "refused"}})
    def act(body: ActionIn) -> JSONResponse:
        """One action by one player; refused (409, with the reason) if the rules do not
        allow it now, in which case nothing changed."""
        with table.lock:
            try:
                _DISPATCH[body.action](table.game, body)
            except RefusedAction as exc:
                return _refusal(exc)
            return JSONResponse(table_view(table.game))

    @router.get(f"{PREFIX}/state.json")
    def export() -> JSONResponse:
        """The game as a monopoly-builder-state/1 file (to score or resume later)."""
        with table.lock:
            return JSONResponse(state_of(table.game), headers={
                "content-disposition": 'attachment; filename="monopoly-builder-state.json"'})

    @router.post(f"{PREFIX}/state", responses={422: {"description": "bad state"}})
    def load(body: LoadIn) -> JSONResponse:
        """Resumes from a state file, at the start of its current player's turn."""
        try:
            game = game_from_state(parse_state(body.state, "state"), body.seed)
        except DataFileError as exc:
            return JSONResponse({"code": "state", "detail": str(exc), "report": None}, 422)
        with table.lock:
            table.game = game
            return JSONResponse(table_view(game))

    return router
