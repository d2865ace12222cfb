"""Monopoly Builder's final scoring: every rule of "Ending the Game", on described tables."""

from __future__ import annotations

import pytest

from rules.monopoly_builder.data import shipped
from rules.monopoly_builder.state import parse_state, score_state

BOARD = shipped()[0]


def _sheet(players, buildings=(), ties="share"):
    state = parse_state({"format": "monopoly-builder-state/1", "players": players,
                         "buildings": list(buildings)})
    return {s.colour: s for s in score_state(state, ties).players}


def _b(x, y, colour, floors, penthouse=False):
    return {"lot": [x, y], "color": colour, "floors": floors, "penthouse": penthouse}


@pytest.mark.parametrize(("floors", "penthouse", "points"),
                         [(1, False, 1), (2, False, 3), (3, False, 6), (4, False, 10),
                          (4, True, 16)])
def test_builder_points_per_building(floors, penthouse, points):
    # Equal cash and no other building: red's points are the building's alone, plus
    # the shared-nothing bonuses (yellow has no building, so red alone is Community
    # Builder; the cash tie gives both the Billionaire card by default).
    s = _sheet([{"color": "red"}, {"color": "yellow"}], [_b(1, 0, "red", floors, penthouse)])
    assert s["red"].buildings == (points,)
    assert s["red"].total == points + 5 + 3
    assert s["yellow"].total == 3


def test_points_add_up_over_several_buildings():
    # 1 + 3 + 10 = 14 builder points; the three are not next door to each other.
    s = _sheet([{"color": "red", "cash": 100}, {"color": "green", "cash": 200}],
               [_b(1, 0, "red", 1), _b(4, 0, "red", 2), _b(0, 3, "red", 4)])
    assert sorted(s["red"].buildings) == [1, 3, 10]
    assert s["red"].total == 14 + 5  # biggest neighbourhood (1 building vs none)
    assert s["green"].total == 3  # most cash


@pytest.mark.parametrize(("colour", "points"),
                         [("brown", 2), ("light_blue", 2), ("pink", 3), ("orange", 3),
                          ("red", 4), ("yellow", 4), ("green", 5), ("dark_blue", 5)])
def test_colour_set_points(colour, points):
    deeds = BOARD.streets(colour)
    s = _sheet([{"color": "red", "cash": 100, "deeds": deeds}, {"color": "purple", "cash": 200}])
    assert s["red"].sets == (colour,)
    assert s["red"].total == points


def test_half_a_set_and_resources_score_nothing():
    s = _sheet([{"color": "red", "cash": 100, "deeds": ["green-1", "brown-1"],
                 "resources": {"boat": 6, "crane": 5}},
                {"color": "purple", "cash": 200}])
    assert s["red"].sets == ()
    assert s["red"].total == 0


def test_a_mortgaged_street_still_completes_the_set():
    # "You still own that property": holding both streets is what counts.
    s = _sheet([{"color": "red", "cash": 100, "deeds": ["green-1", "green-2"],
                 "mortgaged": ["green-1"]}, {"color": "purple", "cash": 200}])
    assert s["red"].set_points == 5


def test_billionaire_builder_goes_to_the_most_cash():
    s = _sheet([{"color": "red", "cash": 500}, {"color": "purple", "cash": 495},
                {"color": "green", "cash": 0}])
    assert [c for c, x in s.items() if x.billionaire] == ["red"]
    assert s["red"].total == 3


@pytest.mark.parametrize(("ties", "expected"), [("share", 3), ("none", 0)])
def test_bonus_ties_follow_the_setting(ties, expected):
    s = _sheet([{"color": "red", "cash": 500}, {"color": "purple", "cash": 500}], ties=ties)
    assert s["red"].total == s["purple"].total == expected


def test_community_builder_counts_side_by_side_not_diagonal():
    # Red: (1,0)-(2,0)-(2,1) side by side = neighbourhood of 3.
    # Green: (4,0),(5,1),(4,2)... diagonals: (4,0)/(5,1) and (5,1)/(4,2) touch only at
    # corners, so green's biggest neighbourhood is 1 despite having 3 buildings.
    s = _sheet([{"color": "red", "cash": 100}, {"color": "green", "cash": 100}],
               [_b(1, 0, "red", 1), _b(2, 0, "red", 1), _b(2, 1, "red", 1),
                _b(4, 0, "green", 1), _b(5, 1, "green", 1), _b(4, 2, "green", 1)])
    assert s["red"].neighbourhood == 3 and s["red"].community
    assert s["green"].neighbourhood == 1 and not s["green"].community
    assert s["red"].total == 3 + 5 + 3  # buildings, Community, shared Billionaire (tied cash)
    assert s["green"].total == 3 + 3


def test_community_builder_needs_a_building():
    s = _sheet([{"color": "red", "cash": 100}, {"color": "green", "cash": 200}])
    assert not any(x.community for x in s.values())


def test_winner_most_points_then_most_cash():
    # Both have one 2-floor building (3) in separate places (a Community tie, shared);
    # green has more cash: Billionaire 3 puts green ahead outright.
    s = _sheet([{"color": "red", "cash": 100}, {"color": "green", "cash": 150}],
               [_b(1, 0, "red", 2), _b(4, 4, "green", 2)])
    assert (s["green"].total, s["red"].total) == (3 + 5 + 3, 3 + 5)
    assert s["green"].winner and not s["red"].winner
    # With bonus ties set to "none" (the 1-building neighbourhoods tie, so nobody is
    # Community Builder), a colour set and a taller building can weigh the same:
    s = _sheet([{"color": "red", "cash": 100, "deeds": BOARD.streets("brown")},
                {"color": "yellow", "cash": 100}, {"color": "green", "cash": 300}],
               [_b(1, 0, "red", 1), _b(1, 4, "yellow", 2), _b(4, 4, "green", 1)], ties="none")
    # red 1 + 2 (brown) = 3; yellow 3; green 1 + Billionaire 3 = 4: green wins alone.
    assert (s["red"].total, s["yellow"].total, s["green"].total) == (3, 3, 4)
    assert [c for c, x in s.items() if x.winner] == ["green"]
    assert s["red"].rank == s["yellow"].rank == 2  # same points and cash share a rank


def test_points_tie_broken_by_cash():
    s = _sheet([{"color": "red", "cash": 100}, {"color": "yellow", "cash": 105},
                {"color": "green", "cash": 105}],
               [_b(1, 0, "red", 2), _b(1, 4, "yellow", 2), _b(4, 4, "green", 2)], ties="none")
    # All have 3 points; cash 105 = 105 > 100: yellow and green share the win.
    assert {c for c, x in s.items() if x.winner} == {"yellow", "green"}
    assert s["red"].rank == 3
