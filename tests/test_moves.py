"""The move generator and the bot: legal staircases found, games played end to end."""

import random

import pytest

from rules.bot import Bot, simulate_game
from rules.cards import Card, CardColor, Delivery
from rules.game import Game
from rules.maps import load_map
from rules.moves import Hand, staircases
from rules.palace import Palace
from rules.pieces import Kind
from rules.staircase import analyse_added

ALL_DECORATIONS = {"light_green": 16, "dark_green": 16, "gold": 16}


def legal(palace, candidates):
    return [c for c in candidates if analyse_added(palace, c.pieces).legal]


@pytest.mark.parametrize("name", ["1", "3"])
def test_player_1_builds_with_its_two_starting_arches(name):
    palace = Palace.setup(load_map(name))
    found = legal(palace, staircases(palace, Hand(2, 0, 0), ALL_DECORATIONS))
    assert any(c.arches == 2 for c in found)


def test_player_2_builds_with_two_arches_and_a_brick():
    palace = Palace.setup(load_map("2"))
    found = legal(palace, staircases(palace, Hand(2, 1, 0), ALL_DECORATIONS))
    assert any(c.arches == 2 for c in found)


def test_candidates_use_only_the_pieces_in_hand():
    palace = Palace.setup(load_map("1"))
    hand = Hand(3, 2, 1)
    found = staircases(palace, hand, ALL_DECORATIONS, rng=random.Random(5))
    assert found
    for c in found:
        kinds = [p.kind for p in c.pieces]
        assert kinds.count(Kind.ARCH) <= hand.arches
        assert kinds.count(Kind.BRICK) <= hand.bricks
        assert kinds.count(Kind.COLUMN) <= hand.columns
        assert kinds.count(Kind.DECORATION) == 1 and c.pieces[-1].kind is Kind.DECORATION


def test_generation_leaves_the_palace_as_it_was():
    palace = Palace.setup(load_map("1"))
    pieces, knobs = palace.pieces, palace.open_knobs()
    staircases(palace, Hand(6, 6, 2), ALL_DECORATIONS)
    assert palace.pieces == pieces
    assert palace.open_knobs() == knobs


def test_nothing_without_arches_or_decorations():
    palace = Palace.setup(load_map("1"))
    assert staircases(palace, Hand(0, 5, 5), ALL_DECORATIONS) == []
    none_left = dict.fromkeys(ALL_DECORATIONS, 0)
    assert staircases(palace, Hand(4, 4, 0), none_left) == []


def test_only_colours_with_decorations_left_are_started():
    palace = Palace.setup(load_map("1"))
    gold_only = {"light_green": 0, "dark_green": 0, "gold": 5}
    found = staircases(palace, Hand(3, 3, 0), gold_only)
    assert found and {c.color for c in found} == {"gold"}


def test_bot_prefers_the_most_bananas_it_can_afford():
    game = Game.new(2, "1", cards=[
        Card("a", 1, CardColor.MULTI, 1), Card("b", 2, CardColor.MULTI, 1),
        Card("c", 3, CardColor.GOLD, 4), Card("d", 3, CardColor.LIGHT_GREEN, 9),
        Card("e", 4, CardColor.GOLD, 3, Delivery(arches=1)),
    ])
    assert {c.id for c in Bot.purchases(game, "gold", 4)} == {"a", "c"}
    assert Bot.purchases(game, "gold", 0) == ()


def test_a_bot_game_is_played_to_the_end():
    record = simulate_game(players=3, seed=4)
    assert record.finished
    assert len(record.scenes) == len(record.turns) + 1
    per_seat = [sum(1 for t in record.turns if t.seat == s) for s in range(3)]
    assert len(set(per_seat)) == 1
    assert any(r is not None and r.arches >= 2 for r in record.reports)
    assert record.winners and max(record.scores) == record.scores[record.winners[0]]


def test_each_turn_builds_within_the_hand_the_record_keeps_for_it():
    record = simulate_game(players=3, seed=4)
    assert len(record.hands) == len(record.turns)
    built = 0
    for hand, turn in zip(record.hands, record.turns, strict=True):
        kinds = [p.kind for p in turn.placed]
        assert kinds.count(Kind.ARCH) <= hand.arches
        assert kinds.count(Kind.BRICK) <= hand.bricks
        assert kinds.count(Kind.COLUMN) <= hand.columns
        built += bool(kinds)
    assert built >= 5


def test_same_seed_same_game_other_seed_other_game():
    a, b = simulate_game(seed=11), simulate_game(seed=11)
    assert a.scenes == b.scenes and a.scores == b.scores
    assert simulate_game(seed=12).scenes != a.scenes


def test_scene_with_takes_the_first_scene_big_enough_else_the_last():
    record = simulate_game(players=3, seed=4)
    sizes = [len(s.pieces) for s in record.scenes]
    wanted = sizes[len(sizes) // 2]
    first = next(i for i, n in enumerate(sizes) if n >= wanted)
    assert record.scene_with(wanted) == record.scenes[first]
    assert record.scene_with(max(sizes) + 1) == record.scenes[-1]
