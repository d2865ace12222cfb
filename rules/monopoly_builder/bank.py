"""Money and title deeds: purchases, rent, mortgages, debts and bankruptcy.

These are the Monopoly parts of the game, shared by the turn flow (a fine, a Chance
card, rent asked for) and by actions any player may take at any time (mortgaging).
A debt is always settled at once: if the debtor's cash is short, the cheapest
unmortgaged deeds are mortgaged until it is not; if every deed is mortgaged and the
cash is still short, the debtor is bankrupt to the creditor (a player) or the bank,
as the rulebook's "In Debt & Bankruptcy" says, and stays in the game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from rules.monopoly_builder.board import Board
from rules.monopoly_builder.errors import CashError, PropertyError
from rules.monopoly_builder.players import Player
from rules.monopoly_builder.resources import Tray


def owner_of(players: Iterable[Player], deed_id: str) -> Player | None:
    return next((p for p in players if deed_id in p.deeds), None)


def has_set(board: Board, player: Player, colour: str) -> bool:
    """Both streets of ``colour``; mortgaged ones still count ("You still own that
    property")."""
    return all(d in player.deeds for d in board.streets(colour))


def rent_due(board: Board, owner: Player, deed_id: str) -> int:
    """The rent of one street: doubled with the colour set, even if the other street of
    the set is mortgaged; nothing on a mortgaged street."""
    if deed_id in owner.mortgaged:
        raise PropertyError(f"{board.deeds[deed_id].name} is mortgaged: no rent can be collected")
    deed = board.deeds[deed_id]
    return deed.rent * (2 if has_set(board, owner, deed.colour) else 1)


def mortgage(board: Board, player: Player, deed_id: str) -> int:
    _own(board, player, deed_id)
    if deed_id in player.mortgaged:
        raise PropertyError(f"{board.deeds[deed_id].name} is already mortgaged")
    player.mortgaged.add(deed_id)
    player.cash += board.deeds[deed_id].mortgage
    return board.deeds[deed_id].mortgage


def unmortgage(board: Board, player: Player, deed_id: str) -> int:
    _own(board, player, deed_id)
    deed = board.deeds[deed_id]
    if deed_id not in player.mortgaged:
        raise PropertyError(f"{deed.name} is not mortgaged")
    if player.cash < deed.unmortgage:
        raise CashError(f"unmortgaging {deed.name} costs ${deed.unmortgage}; "
                        f"{player.colour} has ${player.cash}")
    player.cash -= deed.unmortgage
    player.mortgaged.discard(deed_id)
    return deed.unmortgage


def _own(board: Board, player: Player, deed_id: str) -> None:
    if deed_id not in board.deeds:
        raise PropertyError(f"there is no title deed {deed_id!r}")
    if deed_id not in player.deeds:
        raise PropertyError(f"{player.colour} does not own {board.deeds[deed_id].name}")


def give_deed(giver: Player, taker: Player, deed_id: str) -> None:
    """A deed changes hands with its mortgage ("A new owner can ... keep the mortgage")."""
    giver.deeds.discard(deed_id)
    taker.deeds.add(deed_id)
    if deed_id in giver.mortgaged:
        giver.mortgaged.discard(deed_id)
        taker.mortgaged.add(deed_id)


def charge(
    board: Board,
    tray: Tray,
    deck: deque[str],
    debtor: Player,
    amount: int,
    creditor: Player | None,
) -> list[str]:
    """Make ``debtor`` pay ``amount`` to ``creditor`` (None: the bank); what happened, as
    sentences for the game's log."""
    events: list[str] = []
    for deed_id in sorted(debtor.deeds - debtor.mortgaged, key=lambda d: board.deeds[d].mortgage):
        if debtor.cash >= amount:
            break
        got = mortgage(board, debtor, deed_id)
        events.append(f"{debtor.colour} is in debt and mortgages {board.deeds[deed_id].name} "
                      f"for ${got}")
    if debtor.cash >= amount:
        debtor.cash -= amount
        if creditor is not None:
            creditor.cash += amount
        return events
    events.append(bankrupt(tray, deck, debtor, creditor))
    return events


def bankrupt(tray: Tray, deck: deque[str], debtor: Player, creditor: Player | None) -> str:
    """Everything but the buildings goes: to the creditor player, or back to the bank
    (deeds unowned with their mortgages cancelled, Chance cards under the deck,
    resources into the tray). Buildings stay: they cannot be deconstructed."""
    debtor.bankruptcies += 1
    if creditor is not None:
        creditor.cash += debtor.cash
        for deed_id in sorted(debtor.deeds):
            give_deed(debtor, creditor, deed_id)
        creditor.resources.update(debtor.resources)
        creditor.jail_cards.extend(debtor.jail_cards)
        to = creditor.colour
    else:
        tray.receive(debtor.resources)
        deck.extend(debtor.jail_cards)
        debtor.deeds.clear()
        debtor.mortgaged.clear()
        to = "the bank"
    debtor.cash = 0
    debtor.resources.clear()
    debtor.jail_cards.clear()
    return f"{debtor.colour} is bankrupt to {to} (and stays in the game)"
