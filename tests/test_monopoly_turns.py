"""Monopoly Builder's turn: the seven steps, doubles, the board's spaces, property,
rent, mortgages, trades, debt and Jail, each checked against the rulebook's text.

Board positions come from the shipped stand-in board: 0 GO, 2 Collect 2 dump trucks,
4 Chance, 5/7 light blue, 6 Roll for Resources, 8 Jail, 10 Collect 2 cranes, 12 Steal,
16 Free Parking, 24 Go to Jail, 31 Boardwalk.
"""

from __future__ import annotations

import random
from collections import Counter, deque

import pytest

from rules.monopoly_builder import (
    CashError,
    DecisionPendingError,
    InJailError,
    MissingResourcesError,
    NotYourTurnError,
    PropertyError,
    Resource,
    TooManyResourcesError,
    TradeError,
    WrongStepError,
)
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import Building
from rules.monopoly_builder.table import Step
from rules.monopoly_builder.trading import Offer

DT, CR, EX, BO = Resource.DUMP_TRUCK, Resource.CRANE, Resource.EXCAVATOR, Resource.BOAT


def _game(colours=("red", "purple")):
    # Red starts with 2 dump trucks, 1 excavator, 1 boat; purple with 2 cranes, 1 dump
    # truck, 1 boat (the stand-in reference cards); both with $900.
    return Game(list(colours), seed=0, first=0)


def _hand(g, colour, hand):
    p = g.by_colour(colour)
    g.tray.receive(p.resources)
    p.resources = Counter()
    p.resources.update(g.tray.give(hand))


def test_a_seeded_game_rolls_the_same_dice():
    a, b, c = Game(["red", "purple"], seed=5), Game(["red", "purple"], seed=5), \
        Game(["red", "purple"], seed=6)
    rolls = [[g.dice() for _ in range(10)] for g in (a, b, c)]
    assert rolls[0] == rolls[1] != rolls[2]
    assert list(a.deck) == list(b.deck) and a.current == b.current
    injected = Game(["red", "purple"], rng=random.Random(5))
    seeded = Game(["red", "purple"], seed=5)
    assert [injected.dice() for _ in range(10)] == [seeded.dice() for _ in range(10)]


def test_title_deeds_pay_every_owner_on_a_matching_roll_unless_mortgaged():
    g = _game()
    purple = g.by_colour("purple")
    purple.deeds |= {"pink-1", "red-2"}  # both pay on a 4: 2 boats, 2 excavators
    purple.mortgaged.add("red-2")
    g.by_colour("red").position = 2
    g.roll("red", (3, 1))
    assert purple.resources == Counter({CR: 2, DT: 1, BO: 1 + 2})


def test_a_six_pays_every_reference_card():
    g = _game()
    g.roll("red", (2, 4))
    assert g.by_colour("red").resources[DT] == 2 + 2
    assert g.by_colour("purple").resources[CR] == 2 + 2


def test_an_empty_tray_pays_what_is_left():
    g = _game()
    g.by_colour("purple").deeds.add("pink-1")  # 2 boats on a 4
    g.tray.counts[BO] = 1
    g.by_colour("red").position = 2
    g.roll("red", (1, 3))
    assert g.by_colour("purple").resources[BO] == 1 + 1 and g.tray.counts[BO] == 0


def test_doubles_roll_again_without_dropping_and_without_step_5():
    g = _game()
    _hand(g, "red", {DT: 2, EX: 2, BO: 2})
    g.roll("red", (1, 1))  # to 2: collect 2 dump trucks, now 8 resources
    assert g.by_colour("red").held == 8
    assert g.next_step("red") is Step.ROLL_AGAIN
    with pytest.raises(WrongStepError):
        g.deal("red", "purple", Offer.of(cash=5), Offer())
    g.roll("red", (1, 2))  # no drop asked for
    assert g.step is Step.SPACE and g.by_colour("red").position == 5


def test_end_turn_after_doubles_is_refused_unchanged():
    g = _game()
    g.roll("red", (1, 1))
    with pytest.raises(WrongStepError, match="must roll again"):
        g.end_turn("red")
    assert g.step is Step.SPACE and g.player.colour == "red"
    g.next_step("red")
    g.roll("red", (3, 5))  # Collect 2 cranes
    g.end_turn("red")
    assert g.player.colour == "purple" and g.step is Step.START


def test_three_doubles_send_to_jail_after_paying_step_3():
    g = _game()
    g.by_colour("purple").deeds.add("pink-2")  # 2 dump trucks on a 10
    g.roll("red", (1, 1))
    g.next_step("red")
    g.roll("red", (3, 3))  # a 6: reference cards pay; lands on Just Visiting
    g.next_step("red")
    g.roll("red", (5, 5))
    red, purple = g.by_colour("red"), g.by_colour("purple")
    assert red.in_jail and red.position == 8 and purple.resources[DT] == 1 + 2
    assert g.player is purple and g.step is Step.START


def test_go_to_jail_space_ends_the_turn_even_after_doubles():
    g = _game()
    red = g.by_colour("red")
    red.position = 20
    g.roll("red", (2, 2))
    assert red.in_jail and red.position == 8 and red.cash == 900
    assert g.player.colour == "purple"


def test_passing_go_pays_200():
    g = _game()
    g.by_colour("red").position = 30
    g.roll("red", (1, 3))
    assert g.by_colour("red").cash == 1100 and g.by_colour("red").position == 2


def test_collect_and_roll_for_resources_spaces():
    g = _game()
    g.roll("red", (4, 6))
    assert g.by_colour("red").resources[CR] == 2
    g = _game()
    g.roll("red", (2, 4))  # Roll for Resources (and a 6)
    with pytest.raises(DecisionPendingError, match="roll for resources"):
        g.next_step("red")
    assert g.roll_for_resources("red", (5, 6)) is BO  # 11 -> boats on the stand-in table
    assert g.by_colour("red").resources[BO] == 1 + 2


def test_steal_one_resource_is_optional():
    g = _game()
    g.by_colour("red").position = 9
    g.roll("red", (1, 2))
    with pytest.raises(MissingResourcesError):
        g.steal("red", "purple", "excavator")
    g.steal("red", "purple", "crane")
    assert g.by_colour("red").resources[CR] == 1 and g.by_colour("purple").resources[CR] == 1
    g = _game()
    g.by_colour("red").position = 9
    g.roll("red", (1, 2))
    assert g.next_step("red") is Step.TRADE  # declining is allowed


@pytest.mark.parametrize("card", ["go-to-jail-1", "jail-free-1", "pay-100", "back-3",
                                  "advance-go", "collect-from-each", "boats"])
def test_chance_cards(card):
    g = _game()
    g.deck = deque([card, *[c for c in g.deck if c != card]])
    g.roll("red", (1, 3))
    red, purple = g.by_colour("red"), g.by_colour("purple")
    kept = card == "jail-free-1"
    assert (card in red.jail_cards) == kept and (g.deck[-1] == card) != kept
    if card == "go-to-jail-1":
        assert red.in_jail and g.player is purple
    elif card == "pay-100":
        assert red.cash == 800
    elif card == "back-3":
        assert red.position == 1 and "buy_or_auction" in g.pending
    elif card == "advance-go":
        assert red.position == 0 and red.cash == 1100
    elif card == "collect-from-each":
        assert (red.cash, purple.cash) == (910, 890)
    elif card == "boats":
        assert red.resources[BO] == 3


def test_forced_trade_swaps_properties():
    g = _game()
    red, purple = g.by_colour("red"), g.by_colour("purple")
    red.deeds.add("brown-1")
    purple.deeds.add("green-1")
    g.deck = deque(["forced-trade-1", *[c for c in g.deck if c != "forced-trade-1"]])
    g.roll("red", (1, 3))
    with pytest.raises(DecisionPendingError):
        g.next_step("red")
    with pytest.raises(PropertyError):
        g.forced_trade("red", "brown-1", "brown-2")
    g.forced_trade("red", "brown-1", "green-1")
    assert red.deeds == {"green-1"} and purple.deeds == {"brown-1"}


def test_free_parking_trades_two_for_one_only_there():
    g = _game()
    red = g.by_colour("red")
    red.position = 12
    _hand(g, "red", {BO: 5})
    g.roll("red", (1, 3))
    g.bank_trade("red", "boat", "crane")
    g.bank_trade("red", "boat", "crane")
    assert red.resources == Counter({BO: 1, CR: 2})
    g.next_step("red")
    with pytest.raises(TradeError, match="needs 4 crane"):
        g.bank_trade("red", "crane", "boat")
    g = _game()
    g.roll("red", (4, 6))
    with pytest.raises(WrongStepError, match="Free Parking"):
        g.bank_trade("red", "crane", "boat")


def test_bank_trade_four_for_one_in_step_5():
    g = _game()
    g.roll("red", (4, 6))
    g.next_step("red")
    _hand(g, "red", {DT: 5})
    with pytest.raises(TradeError, match="different type"):
        g.bank_trade("red", "dump_truck", "dump_truck")
    tray_boats = g.tray.counts[BO]
    g.bank_trade("red", "dump_truck", "boat")
    assert g.by_colour("red").resources == Counter({DT: 1, BO: 1})
    assert g.tray.counts[BO] == tray_boats - 1
    _hand(g, "red", {DT: 4})
    g.tray.counts[EX] = 0
    with pytest.raises(TradeError, match="bank has 0"):
        g.bank_trade("red", "dump_truck", "excavator")


def test_an_unowned_street_is_bought_or_auctioned():
    g = _game()
    g.roll("red", (2, 3))  # Oriental Avenue, $100
    with pytest.raises(DecisionPendingError, match="buy or auction"):
        g.next_step("red")
    g.buy("red")
    assert g.by_colour("red").cash == 800 and "light_blue-1" in g.by_colour("red").deeds
    g = _game()
    g.roll("red", (2, 3))
    for price, error in ((5, CashError), (12, CashError), (905, CashError)):
        with pytest.raises(error):
            g.auction("red", "purple", price)
    g.auction("red", "purple", 15)
    assert g.by_colour("purple").cash == 885 and g.owner("light_blue-1").colour == "purple"
    g = _game()
    g.roll("red", (2, 3))
    g.auction("red", None)  # nobody bids: the street stays with the bank
    assert g.owner("light_blue-1") is None and g.next_step("red") is Step.TRADE
    g = _game()
    g.by_colour("red").cash = 95
    g.roll("red", (2, 3))
    with pytest.raises(CashError, match="auctioned"):
        g.buy("red")


def test_rent_is_paid_only_when_asked_and_doubled_for_a_set():
    g = _game()
    red, purple = g.by_colour("red"), g.by_colour("purple")
    purple.deeds |= {"light_blue-1", "light_blue-2"}
    purple.mortgaged.add("light_blue-2")  # the set still doubles the other street's rent
    g.roll("red", (2, 3))
    assert g.ask_rent("purple", "light_blue-1") == 20
    assert (red.cash, purple.cash) == (880, 920)
    with pytest.raises(PropertyError):
        g.ask_rent("purple", "light_blue-1")
    # Not asked before the turn is over: not owed.
    g = _game()
    g.by_colour("purple").deeds.add("light_blue-1")
    g.roll("red", (2, 3))
    g.end_turn("red")
    with pytest.raises(PropertyError, match="nobody owes"):
        g.ask_rent("purple", "light_blue-1")
    # A mortgaged street collects no rent.
    g = _game()
    g.by_colour("purple").deeds.add("light_blue-1")
    g.roll("red", (2, 3))
    g.mortgage("purple", "light_blue-1")
    with pytest.raises(PropertyError, match="mortgaged"):
        g.ask_rent("purple", "light_blue-1")


def test_mortgage_and_unmortgage():
    g = _game()
    red = g.by_colour("red")
    red.deeds.add("brown-1")
    assert g.mortgage("red", "brown-1") == 30 and red.cash == 930
    with pytest.raises(PropertyError, match="already"):
        g.mortgage("red", "brown-1")
    with pytest.raises(PropertyError, match="does not own"):
        g.mortgage("purple", "brown-1")
    assert g.unmortgage("red", "brown-1") == 35 and red.cash == 895
    red.mortgaged.add("brown-1")
    red.cash = 30
    with pytest.raises(CashError):
        g.unmortgage("red", "brown-1")


def test_bankrupt_to_a_player_gives_everything_but_buildings_and_stays_in():
    g = _game()
    red, purple = g.by_colour("red"), g.by_colour("purple")
    red.cash, red.position = 5, 27
    red.deeds.add("brown-1")
    red.jail_cards.append("jail-free-1")
    g.deck.remove("jail-free-1")
    g.buildings[(1, 0)] = Building((1, 0), "red", 2)
    purple.deeds.add("dark_blue-2")  # Boardwalk, rent 50
    g.roll("red", (1, 3))
    g.ask_rent("purple", "dark_blue-2")
    # Red mortgages Mediterranean ($30) for $35 in all, still short of $50: bankrupt.
    assert red.cash == 0 and not red.deeds and not red.resources and red.bankruptcies == 1
    assert purple.cash == 935 and "brown-1" in purple.mortgaged
    assert purple.jail_cards == ["jail-free-1"] and purple.resources[EX] == 1
    assert g.buildings[(1, 0)].colour == "red"
    g.next_step("red")  # red plays on
    assert g.step is Step.TRADE


def test_bankrupt_to_the_bank_returns_deeds_resources_and_cards():
    g = _game()
    red = g.by_colour("red")
    red.cash = 0
    red.deeds.add("brown-1")
    red.mortgaged.add("brown-1")
    red.jail_cards.append("jail-free-2")
    g.deck.remove("jail-free-2")
    g.deck = deque(["pay-100", *[c for c in g.deck if c != "pay-100"]])
    g.roll("red", (1, 3))
    assert g.owner("brown-1") is None and not red.mortgaged
    assert list(g.deck)[-2:] == ["jail-free-2", "pay-100"] and not red.jail_cards
    assert red.held == 0 and sum(g.tray.counts.values()) + g.by_colour("purple").held == 80


def test_jail_pay_the_fine_then_drop_and_roll_with_doubles():
    g = _game()
    red = g.by_colour("red")
    red.in_jail, red.position = True, 8
    _hand(g, "red", {DT: 4, BO: 4})
    with pytest.raises(InJailError):
        g.drop("red")  # staying In Jail: no drop
    g.pay_fine("red")
    assert red.cash == 850 and not red.in_jail
    with pytest.raises(TooManyResourcesError):
        g.roll("red", (1, 1))
    g.drop("red")
    assert g.ground[8].total() == 2  # dropped on Just Visiting
    g.roll("red", (1, 1))
    assert g.next_step("red") is Step.ROLL_AGAIN  # paying out keeps the extra turn


def test_jail_card_and_leaving_on_doubles_without_another_turn():
    g = _game()
    red = g.by_colour("red")
    red.in_jail, red.position = True, 8
    with pytest.raises(PropertyError):
        g.use_jail_card("red")
    red.jail_cards.append(g.deck.popleft())
    g.use_jail_card("red")
    assert not red.in_jail and not red.jail_cards
    g = _game()
    red = g.by_colour("red")
    red.in_jail, red.position = True, 8
    g.roll("red", (1, 1))  # doubles: out for free, moves 2 to Collect 2 cranes
    assert not red.in_jail and red.position == 10
    assert g.next_step("red") is Step.TRADE  # no further turn


def test_jail_doubles_with_more_than_6_drop_first_then_move():
    g = _game()
    red = g.by_colour("red")
    red.in_jail, red.position = True, 8
    _hand(g, "red", {DT: 4, BO: 4})
    g.roll("red", (1, 1))
    assert g.step is Step.JAIL_DROP and red.position == 8
    g.drop("red", {"dump_truck": 2})
    assert red.position == 10 and red.resources == Counter({DT: 2, BO: 4, CR: 2})
    assert g.ground[8] == Counter({DT: 2})


def test_jail_failed_attempts_then_pay_and_take_the_turn():
    g = _game()
    red = g.by_colour("red")
    red.in_jail, red.position = True, 8
    g.roll("red", (1, 2))
    assert red.in_jail and red.jail_attempts == 1 and g.step is Step.TRADE
    g.end_turn("red")
    g.roll("purple", (4, 6))
    g.end_turn("purple")
    red.jail_attempts = 2
    g.roll("red", (1, 2))  # third failure: pay $50, then roll as usual
    assert not red.in_jail and red.cash == 850 and g.step is Step.START
    g.roll("red", (2, 3))
    assert red.position == 13


def test_resources_on_the_ground_are_picked_up_on_landing():
    g = _game()
    g.ground[10] = Counter({BO: 2})
    g.roll("red", (4, 6))
    assert g.by_colour("red").resources[BO] == 1 + 2 and 10 not in g.ground


def test_resources_are_picked_up_on_every_space_landed_on_in_a_turn():
    # "You can pick up for multiple board spaces in one turn": doubles land twice.
    g = _game()
    g.ground[2] = Counter({BO: 1})
    g.ground[10] = Counter({CR: 1})
    g.ground[6] = Counter({EX: 3})  # passed over, not landed on: stays
    g.roll("red", (1, 1))
    g.next_step("red")
    g.roll("red", (4, 4))
    red = g.by_colour("red")
    assert red.resources == Counter({DT: 2 + 2, EX: 1, BO: 1 + 1, CR: 1 + 2})
    assert g.ground == {6: Counter({EX: 3})}


def test_deals_in_step_5_with_the_current_player():
    g = _game(("red", "purple", "green"))
    red, purple = g.by_colour("red"), g.by_colour("purple")
    red.deeds.add("brown-1")
    purple.jail_cards.append(g.deck.popleft())
    with pytest.raises(WrongStepError):
        g.deal("red", "purple", Offer.of(cash=100), Offer())
    g.roll("red", (4, 6))
    g.next_step("red")
    with pytest.raises(NotYourTurnError):
        g.deal("purple", "green", Offer.of(cash=100), Offer())
    with pytest.raises(CashError):
        g.deal("red", "purple", Offer.of(cash=101), Offer())
    with pytest.raises(PropertyError):
        g.deal("red", "purple", Offer.of(deeds=["brown-2"]), Offer())
    g.deal("red", "purple", Offer.of(cash=100, deeds=["brown-1"]),
           Offer.of(resources={"crane": 2}, jail_cards=1))
    assert red.cash == 800 and purple.cash == 1000 and purple.deeds == {"brown-1"}
    assert red.resources[CR] == 2 + 2 and len(red.jail_cards) == 1


def test_out_of_turn_and_out_of_step_are_refused():
    g = _game()
    with pytest.raises(NotYourTurnError):
        g.roll("purple")
    g.roll("red", (4, 6))
    with pytest.raises(WrongStepError):
        g.roll("red")
