"""Loading the data files that stand in for what the rulebook does not print.

Each file is checked with a pydantic schema and then turned into the plain
dataclasses of :mod:`.board` and :mod:`.island`; a mistake in a file a user corrected
is reported in one line naming the file, the field and the problem, the same way a
state file is (:func:`validation_message` is shared with :mod:`.state`).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from rules import formats
from rules.monopoly_builder.board import (
    CORNERS,
    SET_POINTS,
    SPACES,
    STREETS_PER_SET,
    Board,
    ChanceCard,
    Deed,
    ReferenceCard,
    Space,
    SpaceKind,
)
from rules.monopoly_builder.island import Island
from rules.monopoly_builder.resources import Resource

Money = Annotated[int, Field(ge=0, le=100_000, multiple_of=5)]
Count = Annotated[int, Field(ge=0, le=20)]
COLOURS = ("red", "purple", "green", "yellow")
_M = TypeVar("_M", bound=BaseModel)


class DataFileError(ValueError):
    """A data or state file that cannot be used; the message names file and field."""


def validation_message(path: str | Path, exc: ValidationError) -> str:
    """The first problem pydantic found, as ``file: field.path: problem``."""
    err = exc.errors()[0]
    loc = ""
    for part in err["loc"]:
        loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
    msg = err["msg"].removeprefix("Value error, ")
    return f"{path}: {loc or 'file'}: {msg}"


def read_json(path: str | Path, what: str) -> Any:
    """The parsed JSON of ``path`` through the project's one bounded reader (size, nesting,
    NaN), every failure a one-line :class:`DataFileError`."""
    return formats.read_json(path, what, DataFileError)


def read_model(path: str | Path, model: type[_M], what: str) -> _M:
    """``path`` parsed into ``model``, or a one-line :class:`DataFileError`."""
    raw = read_json(path, what)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise DataFileError(validation_message(path, exc)) from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Labelled(_Strict):
    standin: bool
    note: str = ""
    keys: dict[str, str] = {}


class SpaceModel(_Strict):
    kind: SpaceKind
    deed: str | None = None
    resource: Resource | None = None

    @model_validator(mode="after")
    def _fields_fit_kind(self) -> SpaceModel:
        if (self.kind is SpaceKind.PROPERTY) != (self.deed is not None):
            raise ValueError("a property space names its deed, and only a property space")
        if (self.kind is SpaceKind.COLLECT) != (self.resource is not None):
            raise ValueError("a collect space names its resource, and only a collect space")
        return self


class DeedModel(_Strict):
    id: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1, max_length=80)
    color: Literal[tuple(SET_POINTS)]  # type: ignore[valid-type]
    price: Money
    rent: Money
    mortgage: Money
    unmortgage: Money
    roll: int = Field(ge=2, le=12)
    resource: Resource
    amount: int = Field(default=2, ge=1, le=20)


class BoardModel(_Labelled):
    format: Literal["monopoly-builder-board/1"]
    spaces: list[SpaceModel] = Field(min_length=SPACES, max_length=SPACES)
    deeds: list[DeedModel] = Field(max_length=64)
    roll_for_resources: dict[Resource, list[int]]

    @field_validator("spaces")
    @classmethod
    def _corners(cls, spaces: list[SpaceModel]) -> list[SpaceModel]:
        for index, kind in CORNERS.items():
            if spaces[index].kind is not kind:
                raise ValueError(f"space {index} must be {kind.value}")
        return spaces

    @field_validator("deeds")
    @classmethod
    def _two_per_colour(cls, deeds: list[DeedModel]) -> list[DeedModel]:
        ids = [d.id for d in deeds]
        if len(set(ids)) != len(ids):
            raise ValueError("two deeds share an id")
        per_colour = Counter(d.color for d in deeds)
        for colour in SET_POINTS:
            if per_colour[colour] != STREETS_PER_SET:
                raise ValueError(f"colour {colour} needs {STREETS_PER_SET} deeds, has "
                                 f"{per_colour[colour]}")
        return deeds

    @field_validator("roll_for_resources")
    @classmethod
    def _every_total(cls, table: dict[Resource, list[int]]) -> dict[Resource, list[int]]:
        if sorted(t for ts in table.values() for t in ts) != list(range(2, 13)):
            raise ValueError("must give each dice total 2..12 exactly once")
        return table

    @model_validator(mode="after")
    def _deeds_on_board(self) -> BoardModel:
        on_board = [s.deed for s in self.spaces if s.deed]
        if sorted(on_board) != sorted(d.id for d in self.deeds):
            raise ValueError("spaces and deeds: every deed must be on exactly one "
                             "property space")
        return self


class ReferenceCardModel(_Strict):
    color: Literal[COLOURS]  # type: ignore[valid-type]
    token: str = Field(min_length=1, max_length=40)
    start: dict[Resource, Count]
    on_six: dict[Resource, Count]


class ReferenceCardsModel(_Labelled):
    format: Literal["monopoly-builder-reference-cards/1"]
    cards: list[ReferenceCardModel] = Field(min_length=4, max_length=4)

    @model_validator(mode="after")
    def _one_per_colour(self) -> ReferenceCardsModel:
        if sorted(c.color for c in self.cards) != sorted(COLOURS):
            raise ValueError(f"one card per colour: {', '.join(COLOURS)}")
        return self


class ChanceCardModel(_Strict):
    id: str = Field(min_length=1, max_length=40)
    text: str = Field(max_length=300)
    effect: Literal["get_out_of_jail_free", "forced_trade", "go_to_jail", "advance_to",
                    "move", "collect", "pay", "collect_from_each", "resources"]
    space: int | None = Field(default=None, ge=0, lt=SPACES)
    steps: int | None = Field(default=None, ge=-SPACES, le=SPACES)
    cash: Money | None = None
    resources: dict[Resource, Count] | None = None

    @model_validator(mode="after")
    def _has_its_amount(self) -> ChanceCardModel:
        needs = {"advance_to": "space", "move": "steps", "collect": "cash", "pay": "cash",
                 "collect_from_each": "cash", "resources": "resources"}
        key = needs.get(self.effect)
        if key and getattr(self, key) is None:
            raise ValueError(f"effect {self.effect} needs '{key}'")
        return self


class ChanceModel(_Labelled):
    format: Literal["monopoly-builder-chance/1"]
    cards: list[ChanceCardModel] = Field(min_length=1, max_length=100)


class IslandModel(_Labelled):
    format: Literal["monopoly-builder-island/1"]
    lots: list[Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[#.]+$")]] = Field(
        min_length=1, max_length=40)

    @model_validator(mode="after")
    def _rectangular(self) -> IslandModel:
        if len({len(row) for row in self.lots}) != 1:
            raise ValueError("every row of lots must be as long as the first")
        return self


def _path(name: str, path: str | Path | None) -> Any:
    return path if path is not None else resources.files(__package__) / "data" / name


def load_board(path: str | Path | None = None) -> Board:
    m = read_model(_path("board.json", path), BoardModel, "board file")
    deeds = {
        d.id: Deed(d.id, d.name, d.color, d.price, d.rent, d.mortgage, d.unmortgage, d.roll,
                   d.resource, d.amount)
        for d in m.deeds
    }
    spaces = tuple(Space(i, s.kind, s.deed, s.resource) for i, s in enumerate(m.spaces))
    reroll = {t: r for r, ts in m.roll_for_resources.items() for t in ts}
    return Board(spaces, deeds, reroll, m.standin)


def load_reference_cards(path: str | Path | None = None) -> dict[str, ReferenceCard]:
    m = read_model(_path("reference_cards.json", path), ReferenceCardsModel, "reference cards file")
    return {c.color: ReferenceCard(c.color, c.token, Counter(c.start), Counter(c.on_six))
            for c in m.cards}


def load_chance(path: str | Path | None = None) -> tuple[ChanceCard, ...]:
    m = read_model(_path("chance.json", path), ChanceModel, "chance file")
    out = []
    for c in m.cards:
        params = c.model_dump(exclude={"id", "text", "effect"}, exclude_none=True)
        if "resources" in params:
            params["resources"] = Counter(c.resources or {})
        out.append(ChanceCard(c.id, c.text, c.effect, params))
    return tuple(out)


def load_island(path: str | Path | None = None) -> Island:
    m = read_model(_path("island.json", path), IslandModel, "island file")
    return Island(tuple(m.lots), m.standin)


@cache
def shipped() -> tuple[Board, dict[str, ReferenceCard], tuple[ChanceCard, ...], Island]:
    """The shipped stand-in data, read once."""
    return load_board(), load_reference_cards(), load_chance(), load_island()
