"""The monkey card deck, the player boards and the market's purchase rules."""

import json
from collections import Counter
from itertools import combinations_with_replacement

import pytest

from rules.cards import (
    Card,
    CardColor,
    CardDataError,
    Delivery,
    Market,
    PurchaseError,
    load_boards,
    load_cards,
)
from rules.supply import Player, Tray


def card(card_id: str, cost: int, color: str, bananas: int = 0, **kw) -> Card:
    return Card(card_id, cost, CardColor(color), bananas, **kw)


def market() -> Market:
    return Market.of([
        card("m1a", 1, "multi", 1), card("m1b", 1, "multi", 0),
        card("m2", 2, "multi", 1),
        card("g3", 3, "gold", 3), card("l3", 3, "light_green", 2),
        card("l4", 4, "light_green", 3), card("m6", 6, "multi", 6),
    ])


# -- shipped data ------------------------------------------------------------------------

def test_deck_has_67_cards_in_the_rulebooks_12_piles():
    cards = load_cards()
    assert len(cards) == 67
    piles = Counter(c.pile for c in cards)
    expected = {"multi-1", "multi-2", "multi-6"} | {
        f"{color}-{cost}" for color in ("light_green", "dark_green", "gold") for cost in (3, 4, 5)
    }
    assert set(piles) == expected


def test_boards_match_the_rulebook_examples():
    boards = load_boards()
    assert len(boards) == 4
    assert boards[0].start == Delivery(arches=2)
    assert boards[1].start == Delivery(arches=2, bricks=1)


def test_player_1s_example_recurring_delivery_can_happen():
    # "Player 1 may take 5 arches and 4 bricks": the board plus up to four top cards.
    board = load_boards()[0]
    kinds = {c.recurring for c in load_cards()}
    totals = {
        sum(combo, board.recurring)
        for n in range(5) for combo in combinations_with_replacement(kinds, n)
    }
    assert Delivery(arches=5, bricks=4) in totals


def test_some_card_delivers_two_free_choices_and_a_column():
    assert any(c.one_time == Delivery(columns=1, arch_or_brick=2) for c in load_cards())


def test_shipped_files_say_they_are_assumptions():
    from importlib import resources

    for name in ("cards.json", "boards.json"):
        data = json.loads((resources.files("rules") / "data" / name).read_text())
        assert "ASSUMED" in data["assumption"]


def test_a_corrected_deck_is_read_from_a_users_file(tmp_path):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"format": "palace-cards/1", "cards": [
        {"id": "x", "cost": 2, "color": "gold", "bananas": 9,
         "one_time": {"column": 2}, "recurring": {"arch_or_brick": 1}},
    ]}))
    (only,) = load_cards(path)
    assert only == Card("x", 2, CardColor.GOLD, 9, Delivery(columns=2), Delivery(arch_or_brick=1))


@pytest.mark.parametrize(("entry", "words"), [
    ({"id": "x", "cost": 2, "color": "purple"}, "'color'"),
    ({"id": "x", "cost": -1, "color": "gold"}, "cost"),
    ({"id": "x", "cost": 2, "color": "gold", "one_time": {"banana": 1}}, "unknown piece 'banana'"),
    ({"id": "x", "cost": 2, "color": "gold", "bananas": "lots"}, "bananas"),
])
def test_bad_card_entries_are_named(tmp_path, entry, words):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"format": "palace-cards/1", "cards": [entry]}))
    with pytest.raises(CardDataError, match=r"cards\[0\]") as err:
        load_cards(path)
    assert words in str(err.value)


def test_missing_and_broken_files_are_clear_errors(tmp_path):
    with pytest.raises(CardDataError, match="no such file"):
        load_boards(tmp_path / "nope.json")
    broken = tmp_path / "boards.json"
    broken.write_text("{")
    with pytest.raises(CardDataError, match="not valid JSON"):
        load_boards(broken)


# -- purchases ---------------------------------------------------------------------------

def test_buying_takes_the_top_cards():
    m = market()
    bought = m.buy("light_green", ["light_green-3", "multi-1"], 4)
    assert {c.id for c in bought} == {"l3", "m1b"}
    assert m.top("multi-1").id == "m1a"
    assert m.top("light_green-3") is None


def test_multicolour_cards_go_with_any_decoration():
    for color in ("light_green", "dark_green", "gold"):
        assert [c.id for c in market().buy(color, ["multi-2"], 2)] == ["m2"]


def test_wrong_colour_is_refused_and_nothing_is_taken():
    m = market()
    with pytest.raises(PurchaseError, match="gold"):
        m.buy("light_green", ["multi-1", "gold-3"], 6)
    assert m.counts()["multi-1"] == 2


def test_two_cards_from_one_pile_are_refused():
    with pytest.raises(PurchaseError, match=r"only one card .* pile multi-1"):
        market().buy("gold", ["multi-1", "multi-1"], 5)


def test_over_budget_is_refused():
    with pytest.raises(PurchaseError, match="cost 7 credits but only 6"):
        market().buy("light_green", ["light_green-4", "light_green-3"], 6)


def test_empty_and_unknown_piles_are_refused():
    m = market()
    m.buy("gold", ["gold-3"], 3)
    with pytest.raises(PurchaseError, match="pile gold-3 is empty"):
        m.buy("gold", ["gold-3"], 3)
    with pytest.raises(PurchaseError, match="no pile 'gold-9'"):
        m.buy("gold", ["gold-9"], 9)


def test_available_lists_only_the_colour_and_multicolour_tops():
    tops = {c.id for c in market().available("gold")}
    assert tops == {"m1b", "m2", "g3", "m6"}


# -- the tray and the board --------------------------------------------------------------

def test_free_choices_fall_back_to_the_other_kind():
    tray = Tray(arches=1, bricks=5, columns=0)
    got, short = tray.give(Delivery(arch_or_brick=3))
    assert (got, short) == (Delivery(arches=1, bricks=2), False)
    assert (tray.arches, tray.bricks) == (0, 3)


def test_free_choices_follow_the_players_wish():
    tray = Tray(arches=5, bricks=5)
    got, _ = tray.give(Delivery(arch_or_brick=3), free_arches=1)
    assert got == Delivery(arches=1, bricks=2)


def test_a_short_tray_gives_what_it_has_and_says_so():
    tray = Tray(arches=2, bricks=9, columns=0)
    got, short = tray.give(Delivery(arches=3, bricks=1, columns=1))
    assert short
    assert got == Delivery(arches=2, bricks=1)
    assert (tray.arches, tray.columns) == (0, 0)


def test_recurring_delivery_is_board_plus_top_cards_only():
    board = load_boards()[0]
    player = Player(0, board)
    covered = card("c", 1, "multi", recurring=Delivery(columns=5))
    player.stacks[0] = [covered, card("t", 1, "multi", recurring=Delivery(bricks=1))]
    player.stacks[2] = [card("u", 2, "multi", recurring=Delivery(arches=2))]
    assert player.recurring() == board.recurring + Delivery(arches=2, bricks=1)
