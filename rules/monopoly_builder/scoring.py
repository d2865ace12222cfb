"""Final scoring ("Ending the Game"): builder points, colour sets, the two bonuses, the
winner.

Scoring reads only what is on the table at the end (buildings on the island, deeds
held, cash), so it works the same on a finished :class:`~.game.Game` and on a state
file describing one. Resources in hand and half colour sets are worth nothing.

The rulebook does not say what happens when two players tie for a Builder's Bonus;
``bonus_ties`` chooses: ``"share"`` (default: every tied player takes the points) or
``"none"`` (nobody does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rules.monopoly_builder.bank import has_set
from rules.monopoly_builder.board import SET_POINTS, Board
from rules.monopoly_builder.island import Building, Island, Lot, neighbourhoods
from rules.monopoly_builder.players import Player

BILLIONAIRE_POINTS = 3
COMMUNITY_POINTS = 5
BonusTies = Literal["share", "none"]


@dataclass(frozen=True)
class PlayerScore:
    colour: str
    buildings: tuple[int, ...]  # builder points of each building
    sets: tuple[str, ...]  # complete colour sets held
    set_points: int
    neighbourhood: int  # buildings in the player's biggest neighbourhood
    billionaire: bool
    community: bool
    cash: int
    total: int
    rank: int  # 1 = winner; equal points and cash share a rank
    winner: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "colour": self.colour, "total": self.total, "rank": self.rank,
            "winner": self.winner, "building_points": list(self.buildings),
            "sets": list(self.sets), "set_points": self.set_points,
            "neighbourhood": self.neighbourhood, "billionaire_builder": self.billionaire,
            "community_builder": self.community, "cash": self.cash,
        }


@dataclass(frozen=True)
class ScoreSheet:
    players: tuple[PlayerScore, ...]  # in seat order

    @property
    def ranking(self) -> list[PlayerScore]:
        return sorted(self.players, key=lambda s: (s.rank, s.colour))

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.colour for s in self.players if s.winner)

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "ranking": [s.to_json() for s in self.ranking]}


def _bonus_holders(values: Mapping[str, int], ties: BonusTies) -> set[str]:
    """Who takes a Builder's Bonus card: the one player with the most; with nothing to
    show (no building, no cash) nobody takes it."""
    best = max(values.values(), default=0)
    if best <= 0:
        return set()
    top = {c for c, v in values.items() if v == best}
    return top if len(top) == 1 or ties == "share" else set()


def score(
    board: Board,
    island: Island,
    players: Sequence[Player],
    buildings: Mapping[Lot, Building],
    bonus_ties: BonusTies = "share",
) -> ScoreSheet:
    own = {p.colour: sorted((b for b in buildings.values() if b.colour == p.colour),
                            key=lambda b: b.lot) for p in players}
    hoods = {p.colour: (neighbourhoods(island, buildings, p.colour) or [0])[0] for p in players}
    billionaires = _bonus_holders({p.colour: p.cash for p in players}, bonus_ties)
    community = _bonus_holders(hoods, bonus_ties)
    partial = []
    for p in players:
        sets = tuple(c for c in SET_POINTS if has_set(board, p, c))
        set_points = sum(SET_POINTS[c] for c in sets)
        points = tuple(b.points for b in own[p.colour])
        total_points = (sum(points) + set_points
                        + (BILLIONAIRE_POINTS if p.colour in billionaires else 0)
                        + (COMMUNITY_POINTS if p.colour in community else 0))
        partial.append((p, points, sets, set_points, total_points))
    # "The player with the most Builder Points ... wins. If there's a tie for most
    # points, the tied player with the most money wins." Rank by both.
    keys = [(t, p.cash) for p, _, _, _, t in partial]
    out = []
    for (p, points, sets, set_points, total_points), key in zip(partial, keys, strict=True):
        rank = 1 + sum(1 for k in keys if k > key)
        out.append(PlayerScore(
            p.colour, points, sets, set_points, hoods[p.colour], p.colour in billionaires,
            p.colour in community, p.cash, total_points, rank, rank == 1,
        ))
    return ScoreSheet(tuple(out))
