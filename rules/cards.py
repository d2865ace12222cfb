"""Monkey cards, player boards and the card market.

The 67 monkey cards and the four player boards are not published card by card, so the
shipped data (``rules/data/cards.json``, ``rules/data/boards.json``) is an
**assumption**: plausible values built around the few facts the rulebook shows (the
twelve piles and their costs, Player 1's two starting arches, Player 2's two arches and
a brick, a recurring delivery of 5 arches and 4 bricks, a one-time delivery of two
free-choice pieces and a column). Every file says so in its ``"assumption"`` key. A
user who owns the game corrects the values in a copy of the file and passes its path;
no code changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from rules.formats import read_json

CARDS_FORMAT = "palace-cards/1"
BOARDS_FORMAT = "palace-boards/1"


class CardDataError(ValueError):
    """A card or board file that cannot be used; the message names the file and entry."""


class PurchaseError(ValueError):
    """A set of cards that may not be bought; the message says which rule it breaks."""


class CardColor(StrEnum):
    LIGHT_GREEN = "light_green"
    DARK_GREEN = "dark_green"
    GOLD = "gold"
    MULTI = "multi"


@dataclass(frozen=True)
class Delivery:
    """Building pieces owed to a player.

    ``arch_or_brick`` counts free choices: each one is an arch or a brick, as the
    player likes (the rulebook's "2 building bricks, free choice of arches and bricks").
    """

    arches: int = 0
    bricks: int = 0
    columns: int = 0
    arch_or_brick: int = 0

    def __add__(self, other: Delivery) -> Delivery:
        return Delivery(
            self.arches + other.arches,
            self.bricks + other.bricks,
            self.columns + other.columns,
            self.arch_or_brick + other.arch_or_brick,
        )

    @property
    def total(self) -> int:
        return self.arches + self.bricks + self.columns + self.arch_or_brick

    def to_json(self) -> dict[str, int]:
        out = {"arch": self.arches, "brick": self.bricks, "column": self.columns,
               "arch_or_brick": self.arch_or_brick}
        return {k: v for k, v in out.items() if v}


NO_DELIVERY = Delivery()
_DELIVERY_KEYS = {"arch": "arches", "brick": "bricks", "column": "columns",
                  "arch_or_brick": "arch_or_brick"}


@dataclass(frozen=True)
class Card:
    """One monkey card: its credit side (cost, colour, one-time delivery) and its
    monkey side (bananas, recurring delivery)."""

    id: str
    cost: int
    color: CardColor
    bananas: int
    one_time: Delivery = NO_DELIVERY
    recurring: Delivery = NO_DELIVERY

    @property
    def pile(self) -> str:
        return pile_name(self.color, self.cost)


@dataclass(frozen=True)
class BoardSpec:
    """A player board: the pieces its owner starts with and its base recurring delivery."""

    number: int
    start: Delivery
    recurring: Delivery


def pile_name(color: str, cost: int) -> str:
    """Piles are named by colour and cost, e.g. ``gold-4`` or ``multi-6``."""
    return f"{color}-{cost}"


# -- reading the data files ------------------------------------------------------------

def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CardDataError(f"{where}: must be a whole number of 0 or more, found {value!r}")
    return value


def _delivery(data: Any, where: str) -> Delivery:
    if data is None:
        return NO_DELIVERY
    if not isinstance(data, dict):
        raise CardDataError(f"{where}: a delivery must be an object like {{\"arch\": 1}}")
    unknown = set(data) - set(_DELIVERY_KEYS)
    if unknown:
        raise CardDataError(
            f"{where}: unknown piece {sorted(unknown)[0]!r} "
            "(use arch, brick, column, arch_or_brick)"
        )
    return Delivery(**{_DELIVERY_KEYS[k]: _count(v, f"{where}.{k}") for k, v in data.items()})


def _read_json(path: str | Path | None, default_name: str) -> tuple[Any, str]:
    if path is None:
        ref = resources.files("rules") / "data" / default_name
        return json.loads(ref.read_text(encoding="utf-8")), default_name
    return read_json(path, "file", CardDataError), str(path)


def _entries(data: Any, where: str, fmt: str, key: str, one: str
             ) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each object of a deck file's non-empty list ``key`` with its index and the place
    an error names (``where: key[i]``), after checking the file's ``format``: the
    checks every shipped data file of this module makes the same way, with the same
    words."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise CardDataError(f"{where}: must be a JSON object with \"format\": \"{fmt}\"")
    raw = data.get(key)
    if not isinstance(raw, list) or not raw:
        raise CardDataError(f"{where}: '{key}' must be a non-empty list")
    for i, item in enumerate(raw):
        at = f"{where}: {key}[{i}]"
        if not isinstance(item, dict):
            raise CardDataError(f"{at}: {one} must be a JSON object")
        yield i, at, item


def cards_from_json(data: Any, where: str) -> tuple[Card, ...]:
    cards: list[Card] = []
    seen: set[str] = set()
    for i, at, item in _entries(data, where, CARDS_FORMAT, "cards", "a card"):
        card_id = str(item.get("id", f"card{i + 1}"))
        at = f"{at} (id {card_id!r})"
        if card_id in seen:
            raise CardDataError(f"{at}: id is used twice")
        seen.add(card_id)
        try:
            color = CardColor(item.get("color"))
        except ValueError:
            raise CardDataError(
                f"{at}: 'color' must be light_green, dark_green, gold or multi, "
                f"found {item.get('color')!r}"
            ) from None
        cost = _count(item.get("cost"), f"{at}.cost")
        if cost == 0:
            raise CardDataError(f"{at}.cost: a card costs at least 1 credit")
        cards.append(Card(
            id=card_id, cost=cost, color=color,
            bananas=_count(item.get("bananas", 0), f"{at}.bananas"),
            one_time=_delivery(item.get("one_time"), f"{at}.one_time"),
            recurring=_delivery(item.get("recurring"), f"{at}.recurring"),
        ))
    return tuple(cards)


def boards_from_json(data: Any, where: str) -> tuple[BoardSpec, ...]:
    boards: list[BoardSpec] = []
    for i, at, item in _entries(data, where, BOARDS_FORMAT, "boards", "a board"):
        boards.append(BoardSpec(
            number=_count(item.get("number", i + 1), f"{at}.number"),
            start=_delivery(item.get("start"), f"{at}.start"),
            recurring=_delivery(item.get("recurring"), f"{at}.recurring"),
        ))
    return tuple(boards)


def load_cards(path: str | Path | None = None) -> tuple[Card, ...]:
    """The monkey card deck: the shipped assumption, or a corrected file."""
    data, where = _read_json(path, "cards.json")
    return cards_from_json(data, where)


def load_boards(path: str | Path | None = None) -> tuple[BoardSpec, ...]:
    """The player boards in seating order: the shipped assumption, or a corrected file."""
    data, where = _read_json(path, "boards.json")
    return boards_from_json(data, where)


# -- the market ------------------------------------------------------------------------

@dataclass
class Market:
    """The piles of monkey cards on the table; only top cards can be taken.

    Each pile is a list whose last element is its top card.
    """

    piles: dict[str, list[Card]] = field(default_factory=dict)

    @classmethod
    def of(cls, cards: Iterable[Card], shuffle: Any = None) -> Market:
        """Sorts cards into piles by colour and cost; ``shuffle`` is a ``random.Random``
        used to shuffle each pile (cards keep file order without one)."""
        piles: dict[str, list[Card]] = {}
        for card in cards:
            piles.setdefault(card.pile, []).append(card)
        if shuffle is not None:
            for name in sorted(piles):
                shuffle.shuffle(piles[name])
        return cls(dict(sorted(piles.items(), key=lambda kv: (kv[1][0].cost, kv[0]))))

    def top(self, pile: str) -> Card | None:
        cards = self.piles.get(pile)
        return cards[-1] if cards else None

    def available(self, color: str) -> tuple[Card, ...]:
        """Top cards a player with a decoration of ``color`` may buy (cost unchecked)."""
        out = []
        for name, cards in self.piles.items():
            if cards and cards[-1].color in (color, CardColor.MULTI):
                out.append(self.piles[name][-1])
        return tuple(out)

    def check(self, color: str, piles: Sequence[str], credits: int) -> tuple[Card, ...]:
        """The cards ``piles`` would buy; raises :class:`PurchaseError` naming the first
        broken rule. Nothing changes, so a turn can be checked before it is played."""
        seen: set[str] = set()
        bought: list[Card] = []
        for name in piles:
            if name in seen:
                raise PurchaseError(f"only one card may be taken from pile {name} per turn")
            seen.add(name)
            if name not in self.piles:
                known = ", ".join(self.piles)
                raise PurchaseError(f"there is no pile {name!r} (piles: {known})")
            card = self.top(name)
            if card is None:
                raise PurchaseError(f"pile {name} is empty")
            if card.color not in (color, CardColor.MULTI):
                raise PurchaseError(
                    f"card {card.id} from pile {name} is {card.color.value}; with a {color} "
                    "decoration only that colour or multicolour cards may be taken"
                )
            bought.append(card)
        cost = sum(c.cost for c in bought)
        if cost > credits:
            raise PurchaseError(f"the cards cost {cost} credits but only {credits} were earned")
        return tuple(bought)

    def buy(self, color: str, piles: Sequence[str], credits: int) -> tuple[Card, ...]:
        """Takes the top card of each named pile; unspent credits are simply lost."""
        bought = self.check(color, piles, credits)
        for name in piles:
            self.piles[name].pop()
        return bought

    def counts(self) -> Mapping[str, int]:
        return {name: len(cards) for name, cards in self.piles.items()}
