"""Monopoly Builder's building rules ("How to Build"): each refused build says why and
changes nothing; legal floors take exactly the printed resources."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.monopoly_builder import (
    FloorLimitError,
    GameOverError,
    InJailError,
    LotError,
    MissingResourcesError,
    MixedColourError,
    NotYourTurnError,
    OutOfBlocksError,
    PenthouseError,
    Resource,
    TooManyResourcesError,
    WrongStepError,
)
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import Building, next_level
from rules.monopoly_builder.state import state_of
from rules.monopoly_builder.table import Step
from rules.monopoly_builder.trading import Offer

DT, CR, EX, BO = Resource.DUMP_TRUCK, Resource.CRANE, Resource.EXCAVATOR, Resource.BOAT


def _game(hand=None, colours=("red", "purple")):
    g = Game(list(colours), seed=0, first=0)
    if hand is not None:
        _hand(g, hand)
    return g


def _hand(g, hand):
    """The current player holds exactly ``hand`` (the rest back in the bank's tray)."""
    g.tray.receive(g.player.resources)
    g.player.resources = Counter()
    g.player.resources.update(g.tray.give(hand))


def _to_step_6(g, hand):
    """Red rolls 4+6 from GO onto a Collect 2 Resources space (10), ends step 4 and
    then holds ``hand``."""
    c = g.player.colour
    g.roll(c, (4, 6))
    g.next_step(c)
    _hand(g, hand)
    return c


def _refused(g, error, action, *args, **kwargs):
    before, log = state_of(g), len(g.log)
    with pytest.raises(error) as info:
        action(*args, **kwargs)
    assert state_of(g) == before and len(g.log) == log
    return str(info.value)


def test_floors_take_exactly_the_printed_resources():
    g = _game()
    c = _to_step_6(g, {DT: 3, CR: 4, EX: 3, BO: 4})
    tray = Counter(g.tray.counts)
    assert g.build(c, (1, 0), {"boat": 1, "excavator": 1}) == 1  # [any] + [any]
    assert g.build(c, (1, 0), {"dump_truck": 1, "crane": 1, "boat": 1}) == 2
    assert g.build(c, (1, 0), {"dump_truck": 1, "excavator": 1, "crane": 1}) == 3
    assert g.build(c, (1, 0), {"crane": 1, "boat": 2}) == 4  # crane + boat + boat
    assert g.buildings[(1, 0)] == Building((1, 0), "red", 4)
    assert g.player.resources == Counter({DT: 1, CR: 1, EX: 1})
    spent = Counter({BO: 4, EX: 2, DT: 2, CR: 3})
    assert g.tray.counts == tray + spent  # used resources go back to the bank's tray
    assert g.step is Step.BUILD


def test_penthouse_needs_one_of_each_plus_any_and_ends_the_game():
    g = _game()
    g.buildings[(1, 0)] = Building((1, 0), "red", 4)
    c = _to_step_6(g, {DT: 2, CR: 1, EX: 1, BO: 1})
    assert g.build(c, (1, 0), penthouse=True) == 5
    assert g.buildings[(1, 0)].penthouse and g.is_over
    assert "penthouse" in _refused(g, GameOverError, g.build, "purple", (4, 4))


def test_floor_without_the_right_resources_is_refused():
    g = _game()
    g.buildings[(1, 0)] = Building((1, 0), "red", 2)
    c = _to_step_6(g, {DT: 1, CR: 5})
    msg = _refused(g, MissingResourcesError, g.build, c, (1, 0))
    assert "floor 3 needs 1 dump truck, 1 excavator + 1 of any type" in msg
    msg = _refused(g, MissingResourcesError, g.build, c, (1, 0), {"crane": 3})
    assert "not 3 crane" in msg
    # A right-shaped payment the builder does not hold.
    assert "does not hold" in _refused(g, MissingResourcesError, g.build, c, (1, 0),
                                       {"dump_truck": 1, "excavator": 1, "crane": 1})
    # 4th floor: crane + boat + boat, no substitutes.
    g.buildings[(1, 0)].floors = 3
    assert "floor 4 needs 1 crane, 2 boat" in _refused(
        g, MissingResourcesError, g.build, c, (1, 0), {"crane": 3})


def test_mixed_colour_building_is_refused():
    g = _game()
    g.buildings[(1, 0)] = Building((1, 0), "purple", 1)
    c = _to_step_6(g, {DT: 3, CR: 3})
    assert "only 1 colour" in _refused(g, MixedColourError, g.build, c, (1, 0))


def test_fifth_floor_is_refused():
    g = _game()
    g.buildings[(1, 0)] = Building((1, 0), "red", 4)
    c = _to_step_6(g, {DT: 3, CR: 3, BO: 3})
    assert "fifth regular floor" in _refused(g, FloorLimitError, g.build, c, (1, 0))


def test_penthouse_only_on_four_floors_and_only_once():
    g = _game()
    g.buildings[(1, 0)] = Building((1, 0), "red", 3)
    c = _to_step_6(g, {DT: 3, CR: 3, EX: 3, BO: 3})
    assert "has 3" in _refused(g, PenthouseError, g.build, c, (1, 0), penthouse=True)
    # A second penthouse: the table already has one (here described by hand; in play
    # the first one ends the game, which refuses everything after it).
    g.buildings[(1, 0)].floors = 4
    g.buildings[(4, 4)] = Building((4, 4), "purple", 4, penthouse=True)
    assert "only 1 penthouse" in _refused(g, PenthouseError, g.build, c, (1, 0),
                                          penthouse=True)
    with pytest.raises(PenthouseError):
        next_level(g.island, g.buildings, (1, 0), "red", penthouse=True, penthouse_built=True)


def test_building_in_jail_is_refused():
    g = _game()
    p = g.player
    p.in_jail, p.position = True, 8
    g.roll(p.colour, (1, 2))  # no doubles: stays In Jail, may still trade (step 5)
    assert g.step is Step.TRADE and p.in_jail
    assert "In Jail" in _refused(g, InJailError, g.build, p.colour, (1, 0))


def test_building_out_of_turn_is_refused():
    g = _game()
    _to_step_6(g, {DT: 3, CR: 3})
    g.by_colour("purple").resources.update({BO: 2})
    assert "own turn" in _refused(g, NotYourTurnError, g.build, "purple", (1, 0))


def test_building_before_step_6_is_refused():
    g = _game()
    assert "step 6" in _refused(g, WrongStepError, g.build, "red", (1, 0))
    g.roll("red", (4, 6))
    assert "step 6" in _refused(g, WrongStepError, g.build, "red", (1, 0))


def test_building_ends_step_5():
    g = _game()
    c = _to_step_6(g, {DT: 3, CR: 3})
    g.build(c, (1, 0))
    offer = Offer.of(cash=10)
    assert "step 5" in _refused(g, WrongStepError, g.deal, c, "purple", offer, Offer())


def test_more_than_6_resources_carried_into_a_turn_is_refused():
    g = _game({DT: 4, BO: 4})
    msg = _refused(g, TooManyResourcesError, g.roll, "red")
    assert "holds 8 resources" in msg and "drop 2" in msg
    assert "exactly 2" in _refused(g, TooManyResourcesError, g.drop, "red", {"boat": 1})
    g.drop("red", {"boat": 2})
    assert g.ground == {0: Counter({BO: 2})} and g.player.held == 6
    g.roll("red", (4, 6))  # now allowed


def test_not_a_lot_and_out_of_blocks_are_refused():
    g = _game()
    c = _to_step_6(g, {DT: 5, CR: 5, EX: 5, BO: 5})
    assert "not a building lot" in _refused(g, LotError, g.build, c, (0, 0))
    for lot in ((1, 0), (2, 0), (3, 0)):
        g.buildings[lot] = Building(lot, "red", 4)  # 12 blocks used
    assert "12 builder's blocks" in _refused(g, OutOfBlocksError, g.build, c, (1, 1))
    # The penthouse is its own piece, not one of the 12 blocks.
    assert g.build(c, (1, 0), penthouse=True) == 5
