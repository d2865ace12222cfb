"""The API's request and response bodies, as the OpenAPI page documents them.

Requests are strict (bounded numbers, known names, no extra keys) so that a malformed
request is refused with a 422 naming the field before it reaches the game; responses
describe the state the page draws.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.pieces import Axis, Kind

Coord = Annotated[int, Field(ge=0, le=31, description="stud cell, 0..31")]
Level = Annotated[int, Field(ge=0, le=60, description="bottom of the piece, in bricks")]
Name = Annotated[str, Field(max_length=40)]
Pile = Annotated[str, Field(max_length=32, pattern=r"^[a-z_]+-[0-9]+$",
                            description="market pile, e.g. gold-4 or multi-1")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PieceIn(Strict):
    """A piece as a scene file writes it; ``id`` is given by the game."""

    kind: Kind
    x: Coord
    y: Coord
    z: Level = 0
    axis: Axis = Axis.X
    color: Annotated[str, Field(max_length=32)] = ""


class RulesIn(Strict):
    """House rules (the rulebook leaves these open); defaults are the project's."""

    tie_earns_credit: bool = False
    bonus_counts_existing: bool = False
    bonus_height: Annotated[int, Field(ge=1, le=20)] = 5
    butterfly: bool = True
    frog: bool = True
    corner_inset: Annotated[int, Field(ge=0, le=2)] = 1
    name_unknown_start: bool = Field(True, description="a staircase starting on a stud the "
                                     "camera could not read takes its colour from the "
                                     "decoration, and the map keeps it")


class SetupIn(Strict):
    """A new game: 2 to 4 players, a shipped map (1..4), the map the camera read last
    (``camera``, after ``POST /api/map/read``) or an uploaded ``palace-map/1``."""

    players: Annotated[int, Field(ge=2, le=4)] = 3
    names: Annotated[list[Name], Field(max_length=4)] = []
    map: Literal["1", "2", "3", "4", "camera"] = "1"
    map_data: dict[str, Any] | None = Field(
        None, description="an uploaded palace-map/1 document; replaces `map`")
    rules: RulesIn = RulesIn()
    seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0


class AddIn(Strict):
    action: Literal["add"]
    piece: PieceIn


class RemoveIn(Strict):
    action: Literal["remove"]
    id: Annotated[str, Field(max_length=32)]


class MoveIn(Strict):
    action: Literal["move"]
    id: Annotated[str, Field(max_length=32)]
    x: Coord | None = None
    y: Coord | None = None
    z: Level | None = None
    axis: Axis | None = None


class ChangeIn(Strict):
    action: Literal["change"]
    id: Annotated[str, Field(max_length=32)]
    kind: Kind | None = None
    color: Annotated[str, Field(max_length=32)] | None = None


class ReplaceIn(Strict):
    """Takes one of the reading's alternatives (or any piece) in place of a piece."""

    action: Literal["replace"]
    id: Annotated[str, Field(max_length=32)]
    piece: PieceIn


class FrogIn(Strict):
    """The player takes (or gives back) the Frog trophy for one extra column."""

    action: Literal["frog"]
    value: bool


class AcceptIn(Strict):
    """The players say the reading is right as it stands: its doubts are cleared."""

    action: Literal["accept"]


Correction = Annotated[AddIn | RemoveIn | MoveIn | ChangeIn | ReplaceIn | FrogIn | AcceptIn,
                       Field(discriminator="action")]


class SceneIn(BaseModel):
    """The whole board after this turn as a ``palace-scene/1`` document."""

    model_config = ConfigDict(extra="allow")
    format: str
    map: str = "1"
    pieces: Annotated[list[dict[str, Any]], Field(max_length=400)] = []


class ConfirmIn(Strict):
    """The active player plays this turn's staircase and picks cards with its credits."""

    seat: Annotated[int, Field(ge=0, le=3)]
    purchases: Annotated[list[Pile], Field(max_length=12)] = []
    free_arches: Annotated[int, Field(ge=0, le=20)] | None = None
    stacks: Annotated[list[Annotated[int, Field(ge=0, le=3)]], Field(max_length=12)] | None = None
    monkey_at: tuple[Coord, Coord, Level] | None = None


class PassIn(Strict):
    seat: Annotated[int, Field(ge=0, le=3)]
    free_arches: Annotated[int, Field(ge=0, le=20)] | None = None


class EndIn(Strict):
    reason: Annotated[str, Field(max_length=200)] = "the players ended the game"


class MapPaintIn(Strict):
    """A correction of the map the camera read: the studs ``reach`` names from stud
    (``x``, ``y``) are ``ink``."""

    x: Coord
    y: Coord
    ink: Literal["L", "D", "G", "X", "?"] = Field(
        description="light green, dark green, gold, blocked, or ? (unknown again)")
    reach: Literal["stud", "region", "ink"] = Field(
        "region", description="that stud; the region of studs read alike round it (side "
        "by side); or every stud read as its ink (an ink the camera named as another)")


class MapReadOut(BaseModel):
    """The ground map read from the camera's latest settled pictures."""

    map: dict[str, Any] = Field(description="the map as palace-map/1 ('?' = unknown stud)")
    known: int = Field(description="studs whose ground was read")
    unknown: int = Field(description="studs hidden in every picture (pieces, hands, edge)")
    start_area: int = Field(description="studs read as the white starting area")
    views: int = Field(description="pictures the board was found in")
    pictures: int = Field(description="settled pictures read (a second webcam's too)")
    fused: int = Field(description="of the pictures the board was found in, those fused "
                       "(one whose colours align with the first's under no clear quarter "
                       "turn is left out)")
    png: str = Field(description="a small PNG of the map (6 px per stud, '?' magenta), "
                     "base64: the card seen from above, turned as the camera sees it")
    turn: int = Field(description="the picture's quarter turn (0 to 3): its column u and "
                      "row v show stud (x, y) = (u, 31 - v), (31 - v, 31 - u), "
                      "(31 - u, v) or (v, u)")


class ErrorOut(BaseModel):
    """Why an action was refused: ``code`` for programs, ``detail`` for people, and for
    an illegal staircase its full report."""

    code: str
    detail: str
    report: dict[str, Any] | None = None


class RankOut(BaseModel):
    seat: int
    score: int
    rank: int
    winner: bool
    position: int


class PlayerOut(BaseModel):
    seat: int
    name: str
    pieces: dict[str, int]
    stacks: list[list[dict[str, Any]]]
    visible: list[dict[str, Any]]
    card_bananas: int
    bonus_cards: int
    trophies: list[str]
    score: int
    recurring: dict[str, int]
    active: bool


class PileOut(BaseModel):
    pile: str
    count: int
    top: dict[str, Any] | None
    allowed: bool = Field(description="the active player may take this top card now")


class DraftOut(BaseModel):
    """This turn as read so far, with its report (None while nothing is built)."""

    source: str
    pieces: list[dict[str, Any]]
    frog: bool
    uncertain: bool
    reason: str
    corrections: int
    notice: str
    doubtful: list[str]
    report: dict[str, Any] | None
    words: list[str]
    offending: list[str]


class StateOut(BaseModel):
    """Everything the page shows. ``sync``: ready, pending, out_of_sync or over."""

    game_id: int
    version: int
    sync: str
    map: str
    seed: int
    ended: bool
    end_reason: str | None
    players: list[PlayerOut]
    current: int
    round: int
    is_over: bool
    end_triggered: bool
    tray: dict[str, Any]
    trophies: dict[str, int | None]
    highest_decoration: dict[str, int | None]
    ground: list[str]
    start_area: list[list[int]]
    standin_map: bool
    settings: dict[str, Any]
    ranking: list[RankOut]
    tie_break: str
    camera: dict[str, Any]
    market: list[PileOut]
    palace: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    draft: DraftOut | None
