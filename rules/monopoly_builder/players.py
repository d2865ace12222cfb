"""A player's side of the table: token colour, cash, resources, title deeds, jail.

Players stay in the game after bankruptcy ("you are NOT OUT of the game"), so a
player is never removed; ``bankruptcies`` only records that it happened.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rules.monopoly_builder.resources import Resource, total

START_CASH = 900
RESOURCE_LIMIT = 6  # at the start of a turn ("Limit of 6")
COLOUR_ORDER = ("red", "purple", "green", "yellow")


@dataclass
class Player:
    colour: str
    token: str
    cash: int = START_CASH
    resources: Counter[Resource] = field(default_factory=Counter)
    deeds: set[str] = field(default_factory=set)
    mortgaged: set[str] = field(default_factory=set)
    jail_cards: list[str] = field(default_factory=list)  # Chance card ids kept
    position: int = 0
    in_jail: bool = False
    jail_attempts: int = 0  # failed rolls for doubles during this stay
    bankruptcies: int = 0

    @property
    def held(self) -> int:
        return total(self.resources)

    def over_limit(self) -> int:
        return max(0, self.held - RESOURCE_LIMIT)
