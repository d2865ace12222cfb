"""Actions on money, deeds and resources: the space's decisions (buy or auction,
steal, reroll, forced trade), trades with the bank and between players, rent asked
for, mortgages.

Buying and auctions settle an unowned street the current player landed on ("You
cannot decline both options"); rent is owed only while the lander's turn lasts and
only if the owner asks; mortgages can be taken or repaid by anyone at any time.
"""

from __future__ import annotations

from rules.monopoly_builder import bank
from rules.monopoly_builder.board import FREE_PARKING
from rules.monopoly_builder.errors import (
    CashError,
    NotYourTurnError,
    PropertyError,
    TradeError,
    WrongStepError,
)
from rules.monopoly_builder.resources import Resource, describe, resource, take
from rules.monopoly_builder.table import Dice, Step, Table
from rules.monopoly_builder.trading import Offer, check_offer, exchange

BANK_RATE, FREE_PARKING_RATE = 4, 2
MIN_BID, BID_STEP = 10, 5


class Dealing(Table):
    """The actions on money, deeds and resources (see the module's docstring)."""

    def buy(self, colour: str) -> None:
        p = self._decision(colour, "buy_or_auction")
        deed = self.board.deed_at(p.position)
        assert deed is not None
        if p.cash < deed.price:
            raise CashError(f"{deed.name} costs ${deed.price}; {colour} has ${p.cash}: "
                            "it must be auctioned")
        p.cash -= deed.price
        p.deeds.add(deed.id)
        self.pending.discard("buy_or_auction")
        self.note(f"{colour} buys {deed.name} for ${deed.price}")

    def auction(self, colour: str, winner: str | None, price: int = 0) -> None:
        """The auction's outcome: ``winner`` pays ``price`` (from $10 in steps of $5), or
        nobody bid and the street stays with the bank."""
        p = self._decision(colour, "buy_or_auction")
        deed = self.board.deed_at(p.position)
        assert deed is not None
        if winner is not None:
            w = self.by_colour(winner)
            if price < MIN_BID or price % BID_STEP:
                raise CashError(f"bids start at ${MIN_BID} and rise by ${BID_STEP}; "
                                f"${price} is not a bid")
            if w.cash < price:
                raise CashError(f"{winner} bid ${price} but has ${w.cash}")
            w.cash -= price
            w.deeds.add(deed.id)
            self.note(f"{winner} wins the auction of {deed.name} for ${price}")
        else:
            self.note(f"nobody bids for {deed.name}; it stays with the bank")
        self.pending.discard("buy_or_auction")

    def steal(self, colour: str, victim: str, kind: str) -> None:
        p = self._decision(colour, "steal")
        v = self.by_colour(victim)
        if v is p:
            raise TradeError("a player cannot steal from themselves")
        r = resource(kind)
        take(v.resources, {r: 1}, victim)
        p.resources[r] += 1
        self.pending.discard("steal")
        self.note(f"{colour} steals {describe({r: 1})} from {victim}")

    def roll_for_resources(self, colour: str, dice: Dice | None = None) -> Resource:
        p = self._decision(colour, "roll_for_resources")
        dice = dice if dice is not None else self.dice()
        kind = self.board.reroll[sum(dice)]
        got = self.tray.give({kind: 2})
        p.resources.update(got)
        self.pending.discard("roll_for_resources")
        self.note(f"{colour} rerolls {sum(dice)} and collects {describe(got)}")
        return kind

    def forced_trade(self, colour: str, give: str, take_deed: str) -> None:
        p = self._decision(colour, "forced_trade")
        other = self.owner(take_deed)
        if give not in p.deeds:
            raise PropertyError(f"{colour} does not own {give!r}")
        if other is None or other is p:
            raise PropertyError(f"{take_deed!r} is not another player's property")
        bank.give_deed(p, other, give)
        bank.give_deed(other, p, take_deed)
        self.pending.discard("forced_trade")
        self.note(f"forced trade: {colour} swaps {give} for {other.colour}'s {take_deed}")


    # -- step 5: trades --------------------------------------------------------------
    def bank_trade(self, colour: str, give: str, get: str) -> None:
        """4 of one type for 1 of another; 2 for 1 on Free Parking in step 4."""
        p = self._turn(colour, Step.SPACE, Step.TRADE)
        if self.step is Step.SPACE:
            if "free_parking" not in self.pending or p.position != FREE_PARKING:
                raise WrongStepError("bank trades are made in step 5 (or on Free Parking)")
            rate = FREE_PARKING_RATE
        else:
            rate = BANK_RATE
        g, w = resource(give), resource(get)
        if g is w:
            raise TradeError("a bank trade gives one type for a different type")
        if p.resources[g] < rate:
            raise TradeError(f"{colour} needs {rate} {give.replace('_', ' ')} to trade, "
                             f"holds {p.resources[g]}")
        self.tray.give_exactly(w, 1)
        take(p.resources, {g: rate}, colour)
        self.tray.receive({g: rate})
        p.resources[w] += 1
        self.note(f"{colour} trades {describe({g: rate})} for {describe({w: 1})} with the bank")

    def deal(self, colour: str, other: str, gives: Offer, gets: Offer) -> None:
        """A deal between the current player and another, agreed at the table."""
        p = self._live_player(colour)
        o = self.by_colour(other)
        if self.player not in (p, o) or p is o:
            raise NotYourTurnError("deals are made with the player whose turn it is")
        jailed_start = self.step is Step.START and self.player.in_jail
        if self.step is not Step.TRADE and not jailed_start:
            raise WrongStepError("deals are made in step 5 of a turn")
        check_offer(self.board, p, gives)
        check_offer(self.board, o, gets)
        if gives.empty and gets.empty:
            raise TradeError("an empty deal")
        exchange(p, o, gives)
        exchange(o, p, gets)
        self.note(f"deal: {colour} gives {gives.text()}; {other} gives {gets.text()}")


    # -- any time --------------------------------------------------------------------
    def ask_rent(self, owner: str, deed_id: str) -> int:
        """The owner asks for rent before the lander's turn is over."""
        self._live()
        claim = next((c for c in self.rent_claims if c[0] == deed_id and c[2] == owner), None)
        if claim is None:
            raise PropertyError(f"nobody owes {owner} rent for {deed_id!r} now")
        o, payer = self.by_colour(owner), self.by_colour(claim[1])
        if deed_id not in o.deeds:
            raise PropertyError(f"{owner} no longer owns {deed_id!r}")
        amount = bank.rent_due(self.board, o, deed_id)
        self.rent_claims.remove(claim)
        self.note(f"{owner} asks {payer.colour} for ${amount} rent")
        self.charge(payer, amount, o)
        return amount

    def mortgage(self, colour: str, deed_id: str) -> int:
        got = bank.mortgage(self.board, self._live_player(colour), deed_id)
        self.note(f"{colour} mortgages {deed_id} for ${got}")
        return got

    def unmortgage(self, colour: str, deed_id: str) -> int:
        paid = bank.unmortgage(self.board, self._live_player(colour), deed_id)
        self.note(f"{colour} unmortgages {deed_id} for ${paid}")
        return paid

