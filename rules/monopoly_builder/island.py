"""Monopoly Island: its building lots, the buildings on them, and the building rules.

A building is one player's colour, 1 to 4 regular floors, and at most the game's one
penthouse on top of a 4-floor building. What each floor costs is printed in the
rulebook ("Different Floors"); which resources pay an "[any]" is the builder's choice,
so a payment is checked against the need rather than computed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rules.monopoly_builder.errors import (
    FloorLimitError,
    LotError,
    MissingResourcesError,
    MixedColourError,
    OutOfBlocksError,
    PenthouseError,
)
from rules.monopoly_builder.resources import Resource, covers, describe, most_plentiful, total

Lot = tuple[int, int]  # (x, y): column and row on the island's grid
MAX_FLOORS = 4
BLOCKS_PER_PLAYER = 12
PENTHOUSE = MAX_FLOORS + 1  # the "level" a penthouse is built at

_R = Resource
# level -> (resources that must be of that type, how many more of any type)
NEEDS: dict[int, tuple[Counter[Resource], int]] = {
    1: (Counter(), 2),
    2: (Counter(), 3),
    3: (Counter({_R.DUMP_TRUCK: 1, _R.EXCAVATOR: 1}), 1),
    4: (Counter({_R.CRANE: 1, _R.BOAT: 2}), 0),
    PENTHOUSE: (Counter({_R.DUMP_TRUCK: 1, _R.CRANE: 1, _R.EXCAVATOR: 1, _R.BOAT: 1}), 1),
}
# "Builder Points: Having Buildings"
BUILDING_POINTS = {1: 1, 2: 3, 3: 6, 4: 10, PENTHOUSE: 16}


def level_name(level: int) -> str:
    return "the penthouse" if level == PENTHOUSE else f"floor {level}"


def need_text(level: int) -> str:
    fixed, anys = NEEDS[level]
    parts = [describe(fixed)] if fixed else []
    if anys:
        parts.append(f"{anys} of any type")
    return " + ".join(parts)


def check_payment(level: int, pay: Mapping[Resource, int]) -> None:
    """Refuse a payment that is not exactly what ``level`` needs."""
    fixed, anys = NEEDS[level]
    size = total(fixed) + anys
    if total(pay) != size or not covers(pay, fixed):
        raise MissingResourcesError(
            f"{level_name(level)} needs {need_text(level)} ({size} resources), "
            f"not {describe(pay)}"
        )


def choose_payment(level: int, hand: Mapping[Resource, int]) -> Counter[Resource]:
    """The payment a builder who did not choose makes: the fixed resources, then the
    "[any]" from whatever the hand holds most of (ties in the rulebook's order)."""
    fixed, anys = NEEDS[level]
    if not covers(hand, fixed) or total(hand) < total(fixed) + anys:
        raise MissingResourcesError(
            f"{level_name(level)} needs {need_text(level)}; the builder holds {describe(hand)}"
        )
    left = Counter(hand)
    left.subtract(fixed)
    return Counter(fixed) + most_plentiful(left, anys)


@dataclass
class Building:
    lot: Lot
    colour: str
    floors: int = 1
    penthouse: bool = False

    @property
    def points(self) -> int:
        return BUILDING_POINTS[PENTHOUSE if self.penthouse else self.floors]


@dataclass(frozen=True)
class Island:
    """The grid of lots: ``lots[y][x]`` is ``#`` for a building lot, ``.`` otherwise."""

    lots: tuple[str, ...]
    standin: bool = True

    @property
    def width(self) -> int:
        return len(self.lots[0])

    @property
    def height(self) -> int:
        return len(self.lots)

    def is_lot(self, lot: Lot) -> bool:
        x, y = lot
        return 0 <= y < self.height and 0 <= x < self.width and self.lots[y][x] == "#"

    def all_lots(self) -> list[Lot]:
        return [(x, y) for y in range(self.height) for x in range(self.width)
                if self.lots[y][x] == "#"]

    def next_door(self, lot: Lot) -> list[Lot]:
        """Side-by-side lots; diagonal ones do not count ("Community Builder")."""
        x, y = lot
        return [n for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if self.is_lot(n)]


def next_level(
    island: Island,
    buildings: Mapping[Lot, Building],
    lot: Lot,
    colour: str,
    *,
    penthouse: bool,
    penthouse_built: bool,
) -> int:
    """The level a build on ``lot`` would add, or the rule it breaks."""
    if not island.is_lot(lot):
        raise LotError(f"{lot} is not a building lot on Monopoly Island")
    building = buildings.get(lot)
    if building is not None and building.colour != colour:
        raise MixedColourError(
            f"the building on {lot} is {building.colour}; only 1 colour is allowed per "
            f"building, so {colour} cannot build on it"
        )
    if penthouse:
        if penthouse_built:
            raise PenthouseError("there is only 1 penthouse in the game and it is built")
        if building is None or building.floors < MAX_FLOORS:
            floors = 0 if building is None else building.floors
            raise PenthouseError(
                f"a penthouse needs a building with 4 floors; the one on {lot} has {floors}"
            )
        return PENTHOUSE
    if building is None:
        level = 1
    elif building.penthouse or building.floors >= MAX_FLOORS:
        raise FloorLimitError(
            f"the building on {lot} has 4 floors; a fifth regular floor is not allowed "
            "(only the penthouse can go on top)"
        )
    else:
        level = building.floors + 1
    used = blocks_used(buildings.values(), colour)
    if used >= BLOCKS_PER_PLAYER:
        raise OutOfBlocksError(f"{colour} has used all {BLOCKS_PER_PLAYER} builder's blocks")
    return level


def blocks_used(buildings: Iterable[Building], colour: str) -> int:
    return sum(b.floors for b in buildings if b.colour == colour)


def neighbourhoods(island: Island, buildings: Mapping[Lot, Building], colour: str) -> list[int]:
    """Sizes (in buildings) of ``colour``'s groups of next-door buildings, largest first."""
    own = {lot for lot, b in buildings.items() if b.colour == colour}
    sizes, seen = [], set()
    for start in sorted(own):
        if start in seen:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            lot = stack.pop()
            size += 1
            for n in island.next_door(lot):
                if n in own and n not in seen:
                    seen.add(n)
                    stack.append(n)
        sizes.append(size)
    return sorted(sizes, reverse=True)
