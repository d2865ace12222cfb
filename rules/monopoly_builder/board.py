"""The board around Monopoly Island: its 32 spaces, the title deeds, the cards.

The rulebook prints the rules but not the board, so the spaces, deeds, reference
cards and Chance cards are data (``data/*.json``, loaded by :mod:`.data`); this module
holds what the rulebook does print: the corners, the colour sets and what a complete
set is worth at the end.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.monopoly_builder.resources import Resource

SPACES = 32
GO, JAIL, FREE_PARKING, GO_TO_JAIL = 0, 8, 16, 24
GO_SALARY = 200
JAIL_FINE = 50

# "Owning Color Sets": builder points for holding both streets of a colour.
SET_POINTS = {
    "brown": 2, "light_blue": 2,
    "pink": 3, "orange": 3,
    "red": 4, "yellow": 4,
    "green": 5, "dark_blue": 5,
}
STREETS_PER_SET = 2


class SpaceKind(StrEnum):
    GO = "go"
    PROPERTY = "property"
    COLLECT = "collect"
    ROLL_FOR_RESOURCES = "roll_for_resources"
    STEAL = "steal"
    CHANCE = "chance"
    JAIL = "jail"
    FREE_PARKING = "free_parking"
    GO_TO_JAIL = "go_to_jail"


CORNERS = {GO: SpaceKind.GO, JAIL: SpaceKind.JAIL, FREE_PARKING: SpaceKind.FREE_PARKING,
           GO_TO_JAIL: SpaceKind.GO_TO_JAIL}


_LABELS = {SpaceKind.GO: "GO", SpaceKind.JAIL: "Just Visiting / In Jail",
           SpaceKind.STEAL: "Steal 1 Resource"}


@dataclass(frozen=True)
class Deed:
    """A title deed: its street, price and rent, and the roll that pays its owner."""

    id: str
    name: str
    colour: str
    price: int
    rent: int
    mortgage: int
    unmortgage: int
    roll: int
    resource: Resource
    amount: int = 2


@dataclass(frozen=True)
class Space:
    index: int
    kind: SpaceKind
    deed: str | None = None
    resource: Resource | None = None

    def label(self, board: Board) -> str:
        if self.kind is SpaceKind.PROPERTY and self.deed:
            return board.deeds[self.deed].name
        if self.kind is SpaceKind.COLLECT and self.resource:
            return f"Collect 2 {self.resource.value.replace('_', ' ')}"
        return _LABELS.get(self.kind, self.kind.value.replace("_", " ").title())


@dataclass(frozen=True)
class ReferenceCard:
    """A token's card: the player's colour, the starting resources, what a 6 pays."""

    colour: str
    token: str
    start: Counter[Resource]
    on_six: Counter[Resource]


@dataclass(frozen=True)
class ChanceCard:
    """``effect`` is one of the effects :mod:`.turns` knows; ``params`` its amounts."""

    id: str
    text: str
    effect: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def kept(self) -> bool:
        """Cards that say "Keep this card until you're ready to use it"."""
        return self.effect == "get_out_of_jail_free"


@dataclass(frozen=True)
class Board:
    spaces: tuple[Space, ...]
    deeds: dict[str, Deed]
    reroll: dict[int, Resource]  # Roll for Resources: dice total -> resource
    standin: bool = True

    def deed_at(self, index: int) -> Deed | None:
        space = self.spaces[index]
        return self.deeds[space.deed] if space.deed else None

    def space_of(self, deed_id: str) -> int:
        return next(s.index for s in self.spaces if s.deed == deed_id)

    def streets(self, colour: str) -> list[str]:
        return [d.id for d in self.deeds.values() if d.colour == colour]
