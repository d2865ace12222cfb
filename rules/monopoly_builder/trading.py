"""Deals between players: one side's offer of cash, deeds, resources and kept cards.

"Properties and/or resources can be traded for cash, other properties, other
resources, and/or Get Out of Jail Free Chance cards. The negotiable amount is decided
and agreed by the players": the engine does not judge a deal's fairness, only that
each side holds what it gives.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rules.monopoly_builder import bank
from rules.monopoly_builder.board import Board
from rules.monopoly_builder.errors import CashError, PropertyError, TradeError
from rules.monopoly_builder.players import Player
from rules.monopoly_builder.resources import Resource, covers, describe, pile, take


@dataclass(frozen=True)
class Offer:
    """What one side of a deal gives."""

    cash: int = 0
    deeds: tuple[str, ...] = ()
    resources: Counter[Resource] = field(default_factory=Counter)
    jail_cards: int = 0

    @classmethod
    def of(cls, cash: int = 0, deeds: tuple[str, ...] | list[str] = (),
           resources: dict[str, int] | None = None, jail_cards: int = 0) -> Offer:
        return cls(cash, tuple(deeds), pile(resources), jail_cards)

    @property
    def empty(self) -> bool:
        return not (self.cash or self.deeds or +self.resources or self.jail_cards)

    def text(self) -> str:
        parts = []
        if self.cash:
            parts.append(f"${self.cash}")
        parts.extend(self.deeds)
        if +self.resources:
            parts.append(describe(self.resources))
        if self.jail_cards:
            parts.append(f"{self.jail_cards} Get Out of Jail Free card(s)")
        return ", ".join(parts) or "nothing"


def check_offer(board: Board, giver: Player, offer: Offer) -> None:
    if offer.cash < 0 or offer.jail_cards < 0:
        raise TradeError("a deal cannot give a negative amount")
    if offer.cash % 5:
        raise CashError(f"${offer.cash} cannot be paid: there is no bill under $5")
    if offer.cash > giver.cash:
        raise CashError(f"{giver.colour} offers ${offer.cash} but has ${giver.cash}")
    for deed_id in offer.deeds:
        if deed_id not in giver.deeds:
            name = board.deeds[deed_id].name if deed_id in board.deeds else repr(deed_id)
            raise PropertyError(f"{giver.colour} does not own {name}")
    if len(set(offer.deeds)) != len(offer.deeds):
        raise TradeError("a deed is offered twice")
    if not covers(giver.resources, offer.resources):
        raise TradeError(f"{giver.colour} offers {describe(offer.resources)} but holds "
                         f"{describe(giver.resources)}")
    if offer.jail_cards > len(giver.jail_cards):
        raise TradeError(f"{giver.colour} holds {len(giver.jail_cards)} Get Out of Jail "
                         "Free card(s)")


def exchange(giver: Player, taker: Player, offer: Offer) -> None:
    """Move a checked offer from ``giver`` to ``taker``."""
    giver.cash -= offer.cash
    taker.cash += offer.cash
    for deed_id in offer.deeds:
        bank.give_deed(giver, taker, deed_id)
    take(giver.resources, offer.resources, giver.colour)
    taker.resources.update(offer.resources)
    for _ in range(offer.jail_cards):
        taker.jail_cards.append(giver.jail_cards.pop())
