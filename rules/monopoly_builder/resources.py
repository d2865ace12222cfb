"""The four resources, a pile of them, and the bank's tray that holds 20 of each.

A pile is a plain ``Counter`` keyed by :class:`Resource`; the helpers here are the
only place that adds, takes and checks piles, so a count can never go negative. The
tray is finite: when it runs out of a type, players owed that type get what is left
("Lack of Resources"), which is why every resource leaves and enters through it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum

from rules.monopoly_builder.errors import MissingResourcesError, RefusedAction, TradeError

RESOURCES_PER_TYPE = 20


class Resource(StrEnum):
    DUMP_TRUCK = "dump_truck"
    CRANE = "crane"
    EXCAVATOR = "excavator"
    BOAT = "boat"

    @property
    def chip_colour(self) -> str:
        return _CHIP_COLOURS[self]


_CHIP_COLOURS = {
    Resource.DUMP_TRUCK: "red",
    Resource.CRANE: "purple",
    Resource.EXCAVATOR: "green",
    Resource.BOAT: "yellow",
}

_ORDER = list(Resource)


def resource(name: str | Resource) -> Resource:
    """The resource called ``name``, or a refusal listing the four names."""
    try:
        return Resource(name)
    except ValueError:
        names = ", ".join(r.value for r in Resource)
        raise RefusedAction(f"no resource called {name!r}; the four are {names}") from None


def pile(counts: Mapping[str, int] | Iterable[Resource] | None = None) -> Counter[Resource]:
    """A pile from ``{"boat": 2}``-style counts or an iterable of resources."""
    out: Counter[Resource] = Counter()
    if counts is None:
        return out
    if isinstance(counts, Mapping):
        for name, n in counts.items():
            if n < 0:
                raise MissingResourcesError(f"a pile cannot hold {n} {name}")
            if n:
                out[resource(name)] += n
        return out
    out.update(resource(r) for r in counts)
    return out


def total(p: Mapping[Resource, int]) -> int:
    return sum(p.values())


def covers(have: Mapping[Resource, int], need: Mapping[Resource, int]) -> bool:
    return all(have.get(r, 0) >= n for r, n in need.items())


def take(have: Counter[Resource], need: Mapping[Resource, int], who: str) -> None:
    """Remove ``need`` from ``have`` or refuse, naming what ``who`` lacks."""
    if not covers(have, need):
        raise MissingResourcesError(
            f"{who} does not hold {describe(need)} (holds {describe(have)})"
        )
    have.subtract(need)
    for r in [r for r, n in have.items() if n <= 0]:
        del have[r]


def most_plentiful(hand: Mapping[Resource, int], n: int) -> Counter[Resource]:
    """``n`` resources taken one by one from whatever ``hand`` holds most of (ties in
    the rulebook's order): the choice made for a player who does not choose."""
    left, out = Counter(hand), Counter()
    for _ in range(n):
        r = max(Resource, key=lambda k: (left[k], -_ORDER.index(k)))
        left[r] -= 1
        out[r] += 1
    return out


def describe(p: Mapping[Resource, int]) -> str:
    parts = [f"{p[r]} {r.value.replace('_', ' ')}" for r in Resource if p.get(r, 0) > 0]
    return ", ".join(parts) or "nothing"


def to_json(p: Mapping[Resource, int]) -> dict[str, int]:
    return {r.value: p.get(r, 0) for r in Resource}


class Tray:
    """The bank's resource tray: what no player holds and no board space carries."""

    def __init__(self, counts: Mapping[Resource, int] | None = None) -> None:
        self.counts: Counter[Resource] = Counter(
            counts if counts is not None else dict.fromkeys(Resource, RESOURCES_PER_TYPE)
        )

    def give(self, owed: Mapping[Resource, int]) -> Counter[Resource]:
        """As much of ``owed`` as the tray holds; the rest is simply not collected."""
        got: Counter[Resource] = Counter()
        for r, n in owed.items():
            k = min(n, self.counts[r])
            if k:
                got[r] = k
                self.counts[r] -= k
        return got

    def give_exactly(self, r: Resource, n: int) -> None:
        if self.counts[r] < n:
            raise TradeError(f"the bank has {self.counts[r]} {r.value.replace('_', ' ')} left")
        self.counts[r] -= n

    def receive(self, p: Mapping[Resource, int]) -> None:
        self.counts.update(p)
