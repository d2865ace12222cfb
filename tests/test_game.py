"""The game flow: turns, purchases, deliveries, trophies, the end and the winner.

The staircases are the rulebook's own first turns, built on a plain light-green test
map whose starting studs are recoloured where a test needs another colour.
"""

import pytest

from rules.cards import BoardSpec, Card, CardColor, Delivery, PurchaseError
from rules.game import BONUS_CARDS, Game, GameError, IllegalTurnError
from rules.maps import SETUP_PIECES, GroundMap
from rules.moves import Hand
from rules.pieces import Axis, Kind, Piece
from rules.settings import RuleSettings

BOARD = BoardSpec(0, start=Delivery(arches=2), recurring=Delivery(arches=1, bricks=1))
CARDS = [
    Card("m1", 1, CardColor.MULTI, 1, Delivery(columns=1, arch_or_brick=2), Delivery(bricks=1)),
    Card("m2", 2, CardColor.MULTI, 2, Delivery(arches=1), Delivery(arches=1)),
    Card("l3", 3, CardColor.LIGHT_GREEN, 3, Delivery(bricks=2), Delivery(columns=1)),
    Card("g3", 3, CardColor.GOLD, 4),
    Card("g4", 4, CardColor.GOLD, 5),
]


def make_game(players: int = 4, colors: dict | None = None, **settings) -> Game:
    rows = [["L"] * 32 for _ in range(32)]
    for (x, y), char in (colors or {}).items():
        rows[y][x] = char
    start_area = frozenset(c for p in SETUP_PIECES for c in p.footprint())
    ground = GroundMap("test", tuple("".join(r) for r in rows), start_area, SETUP_PIECES)
    return Game(ground, players, seed=1, settings=RuleSettings(**settings), cards=CARDS,
                boards=[BOARD] * 4)


def arch(x, y, z, axis="x"):
    return Piece(Kind.ARCH, x, y, z, axis=Axis(axis))


def deco(x, y, z, color="light_green"):
    return Piece(Kind.DECORATION, x, y, z, color=color)


def first_staircase(color="light_green"):
    """Player 1's example: an arch on the ground and one up onto the starting staircase."""
    return [arch(9, 12, 0, "y"), arch(9, 15, 1), deco(12, 15, 2, color)]


def second_staircase(color="light_green"):
    """Two more arches landing on the free end knob of the first staircase."""
    return [arch(6, 9, 0, "y"), arch(6, 12, 1), deco(9, 12, 2, color)]


def column_staircase(color="light_green"):
    """A column lifts an arch onto the starting staircase's decoration."""
    return [Piece(Kind.COLUMN, 18, 12, 0), arch(18, 12, 3, "y"), deco(18, 15, 4, color)]


def tall_staircase():
    """A column and two bricks (5 bricks tall) lift an arch onto two bricks on the
    starting staircase's decoration: worth a bonus card."""
    return [Piece(Kind.COLUMN, 18, 12, 0), Piece(Kind.BRICK, 18, 12, 3),
            Piece(Kind.BRICK, 18, 12, 4), Piece(Kind.BRICK, 18, 15, 3),
            Piece(Kind.BRICK, 18, 15, 4), arch(18, 12, 5, "y"), deco(18, 15, 6)]


def snapshot(game: Game):
    return (len(game.palace), game.current, game.round, game.market.counts(),
            [p.pieces() for p in game.players], dict(game.trophies), game.tray.snapshot())


# -- a turn ------------------------------------------------------------------------------

def test_setup_takes_pieces_from_the_tray():
    game = make_game()
    # Starting staircase: 2 arches, 1 brick, 1 gold decoration; 4 players start with 2 arches.
    assert (game.tray.arches, game.tray.bricks) == (80 - 2 - 8, 80 - 1)
    assert game.tray.decorations["gold"] == 15
    assert [p.pieces() for p in game.players] == [{"arch": 2, "brick": 0, "column": 0}] * 4


def test_a_legal_turn_buys_cards_and_takes_both_deliveries():
    game = make_game()
    result = game.play_turn(first_staircase(), ["multi-1", "multi-2"])
    assert result.report.credits == 3  # two arches and the highest light-green decoration
    assert [c.id for c in result.cards] == ["m1", "m2"]
    # one-time: 2 free (arches first) + column + arch; recurring: board 1A 1B + m1's brick
    # + m2's arch (both new cards sit on empty spaces, so both are top cards)
    assert result.received == Delivery(arches=2 + 1 + 1 + 1, bricks=1 + 1, columns=1)
    assert game.players[0].pieces() == {"arch": 5, "brick": 2, "column": 1}
    assert game.current == 1
    assert game.tray.decorations["light_green"] == 15
    assert {p.id for p in result.placed} <= {p.id for p in game.palace}


def test_purchase_errors_leave_the_game_unchanged():
    game = make_game()
    before = snapshot(game)
    with pytest.raises(PurchaseError, match="gold"):
        game.play_turn(first_staircase(), ["gold-3"])
    with pytest.raises(PurchaseError, match="cost 4 credits but only 3"):
        game.play_turn(first_staircase(), ["multi-1", "light_green-3"])
    assert snapshot(game) == before


def test_unspent_credits_are_lost():
    game = make_game()
    game.play_turn(first_staircase(), [])  # 3 credits, none spent
    for _ in range(3):
        game.pass_turn()
    game.players[0].arches = 2
    with pytest.raises(PurchaseError, match="only 2 were earned"):
        game.play_turn(second_staircase(), ["light_green-3"])


def test_a_turn_can_be_played_from_the_scene_after_it():
    game = make_game(colors={(9, 12): "G"})
    after = [*game.palace.pieces, *first_staircase("gold")]
    result = game.play_scene(after)
    assert result.report.legal and result.trophies == ("monkey",)
    assert len(game.palace) == len(after) + 1  # and the Monkey


def test_a_scene_may_show_where_the_player_put_the_monkey():
    game = make_game(colors={(9, 12): "G"})
    monkey = Piece(Kind.MONKEY, 15, 15, 2)
    game.play_scene([*game.palace.pieces, *first_staircase("gold"), monkey])
    (placed,) = [p for p in game.palace if p.kind is Kind.MONKEY]
    assert (placed.x, placed.y, placed.z) == (15, 15, 2)
    assert game.trophies["monkey"] == 0


def test_a_scene_with_a_piece_taken_away_is_refused():
    game = make_game()
    after = [p for p in game.palace.pieces if p.id != "s4"] + first_staircase()
    with pytest.raises(IllegalTurnError, match="s4"):
        game.play_scene(after)


def test_an_illegal_staircase_raises_with_its_report():
    game = make_game()
    before = snapshot(game)
    lonely = [arch(2, 20, 0, "x"), deco(5, 20, 1)]
    with pytest.raises(IllegalTurnError) as err:
        game.play_turn(lonely)
    assert "E" in {v.rule for v in err.value.report.violations}
    assert snapshot(game) == before


def test_pieces_the_player_does_not_have_are_refused():
    game = make_game()
    report = game.check_turn(column_staircase())
    assert not report.legal
    assert any(v.rule == "pieces" and "column" in v.message for v in report.violations)


def test_a_pass_only_takes_the_recurring_delivery():
    game = make_game()
    result = game.pass_turn()
    assert result.passed
    assert result.received == BOARD.recurring
    assert game.players[0].pieces() == {"arch": 3, "brick": 1, "column": 0}


def test_new_cards_fill_empty_spaces_then_cover_the_weakest_stack():
    game = make_game()
    player = game.players[0]
    filler = [Card(f"f{i}", 1, CardColor.MULTI, 0, recurring=Delivery(bricks=i)) for i in range(4)]
    player.stacks = [[filler[1]], [filler[0]], [filler[2]], []]
    with pytest.raises(GameError, match="empty spaces first"):
        game.play_turn(first_staircase(), ["multi-1"], stacks=[0])
    game.play_turn(first_staircase(), ["multi-1", "multi-2"])
    # m1 fills space 3; m2 then covers space 1, whose top card paid nothing.
    assert [s[-1].id for s in player.stacks] == ["f1", "m2", "f2", "m1"]


def test_several_new_cards_may_go_on_one_stack():
    game = make_game()
    player = game.players[0]
    player.stacks = [[Card(f"f{i}", 1, CardColor.MULTI, 0)] for i in range(4)]
    game.play_turn(first_staircase(), ["multi-1", "multi-2"], stacks=[2, 2])
    assert [c.id for c in player.stacks[2]] == ["f2", "m1", "m2"]


def test_a_colour_without_decorations_left_cannot_be_built():
    game = make_game()
    game.tray.decorations["light_green"] = 0
    report = game.check_turn(first_staircase())
    assert not report.legal
    assert any("no light_green decoration left" in v.message for v in report.violations)


def test_free_choices_are_the_players_to_make():
    game = make_game()
    result = game.play_turn(first_staircase(), ["multi-1"], free_arches=0)
    # m1's two free choices taken as bricks, its column, then the board's arch and brick
    # and m1's recurring brick.
    assert result.received == Delivery(arches=1, bricks=2 + 1 + 1, columns=1)


def test_no_bonus_card_when_the_pile_is_empty():
    game = make_game()
    game.bonus_pile = 0
    player = game.players[0]
    player.columns, player.bricks = 1, 4
    result = game.play_turn(tall_staircase())
    assert result.report.bonus_card and not result.bonus_card
    assert player.bonus_cards == 0


# -- trophies ------------------------------------------------------------------------------

def test_the_monkey_trophy_moves_between_players():
    game = make_game(colors={(9, 12): "G", (6, 9): "G"})
    first = game.play_turn(first_staircase("gold"))
    assert first.trophies == ("monkey",)
    assert game.trophies["monkey"] == 0
    second = game.play_turn(second_staircase("gold"))
    assert "monkey" in second.trophies
    assert game.trophies["monkey"] == 1
    monkeys = [p for p in game.palace if p.kind is Kind.MONKEY]
    assert len(monkeys) == 1
    under = game.palace.knob_owner(monkeys[0].x, monkeys[0].y, monkeys[0].z)
    assert under is not None and under.kind is Kind.ARCH
    scores = game.scores()
    assert scores[1] - scores[0] == 2


def test_the_monkey_goes_where_the_player_puts_it():
    game = make_game(colors={(9, 12): "G"})
    game.play_turn(first_staircase("gold"), monkey_at=(15, 15, 2))
    (monkey,) = [p for p in game.palace if p.kind is Kind.MONKEY]
    assert (monkey.x, monkey.y, monkey.z) == (15, 15, 2)


def test_the_monkey_cannot_sit_off_an_arch_knob():
    game = make_game(colors={(9, 12): "G"})
    before = snapshot(game)
    with pytest.raises(GameError, match="open arch end knob"):
        game.play_turn(first_staircase("gold"), monkey_at=(12, 15, 2))  # the decoration's stud
    assert snapshot(game) == before


def test_the_frog_gives_an_extra_column_and_sits_low():
    game = make_game()
    columns = game.tray.columns
    result = game.play_turn(column_staircase(), frog=True)
    assert "frog" in result.trophies
    assert game.tray.columns == columns - 1
    assert game.players[0].columns == 0  # the extra column was built
    (frog,) = [p for p in game.palace if p.kind is Kind.FROG]
    under = game.palace.knob_owner(frog.x, frog.y, frog.z)
    assert under.kind is Kind.ARCH and under.id in result.report.path
    assert game.scores()[0] == game.players[0].card_bananas() - 3 + 2  # frog, butterfly


def test_the_frog_cannot_be_taken_twice_in_a_row_or_when_off():
    game = make_game()
    game.play_turn(first_staircase(), frog=True)
    for _ in range(3):
        game.pass_turn()
    game.players[0].arches = 2
    with pytest.raises(GameError, match="already holds the Frog"):
        game.play_turn(second_staircase(), frog=True)
    with pytest.raises(GameError, match="not in play"):
        make_game(frog=False).play_turn(first_staircase(), frog=True)


def test_the_hand_counts_the_frogs_column_only_while_it_may_be_taken():
    game = make_game()
    player = game.players[0]
    assert game.hand() == Hand(player.arches, player.bricks, player.columns + 1)
    game.play_turn(first_staircase(), frog=True)
    for _ in range(3):
        game.pass_turn()
    # The Frog is the first player's now: their hand is their own pieces alone.
    player = game.players[0]
    assert not game.frog_free
    assert game.hand() == Hand(player.arches, player.bricks, player.columns)
    off = make_game(frog=False)
    assert off.hand().columns == off.players[0].columns


def test_the_butterfly_goes_to_the_tallest_decoration_only():
    game = make_game()
    tie = game.play_turn(first_staircase())  # top 3 like the starting gold decoration
    assert "butterfly" not in tie.trophies
    game.players[1].columns = 1
    tall = game.play_turn(column_staircase())
    assert "butterfly" in tall.trophies
    (butterfly,) = [p for p in game.palace if p.kind is Kind.BUTTERFLY]
    assert (butterfly.x, butterfly.y, butterfly.z) == (18, 15, 5)


def test_a_tall_stack_takes_a_bonus_card():
    game = make_game()
    player = game.players[0]
    player.columns, player.bricks = 1, 4
    result = game.play_turn(tall_staircase())
    assert result.bonus_card
    assert (player.bonus_cards, game.bonus_pile) == (1, BONUS_CARDS - 1)


# -- the end ---------------------------------------------------------------------------------

def test_a_short_tray_ends_the_game_after_the_round():
    game = make_game()
    game.pass_turn()
    game.tray.arches = 1  # Player 2 is owed an arch and a brick: enough
    assert not game.pass_turn().short
    result = game.pass_turn()  # Player 3 is owed an arch: none left
    assert result.short and game.end_triggered and not game.is_over
    game.pass_turn()  # Player 4 still plays
    assert game.is_over
    assert [sum(1 for t in game.history if t.seat == s) for s in range(4)] == [1, 1, 1, 1]
    with pytest.raises(GameError, match="over"):
        game.pass_turn()


def test_a_short_tray_on_the_last_seat_ends_at_once():
    game = make_game(players=2)
    game.pass_turn()
    game.tray.bricks = 0
    game.pass_turn()
    assert game.is_over


def test_scores_count_cards_bonus_cards_and_trophies():
    game = make_game(players=3)
    p0, p1, _ = game.players
    p0.stacks[0] = [CARDS[2], CARDS[4]]  # covered cards count too: 3 + 5
    p1.bonus_cards = 2
    game.trophies.update(monkey=1, butterfly=2, frog=0)
    assert game.scores() == [8 - 3, 8 + 2, 2]


def test_a_tie_goes_to_the_monkey_holder():
    game = make_game(players=3)
    game.players[0].bonus_cards = 1  # 4
    game.players[1].stacks[0] = [CARDS[1]]  # 2 + monkey 2 = 4
    game.trophies["monkey"] = 1
    assert game.winners() == (1,)


def test_a_tie_without_the_monkey_is_shared():
    game = make_game(players=3)
    game.players[0].bonus_cards = 1
    game.players[2].bonus_cards = 1
    game.trophies["monkey"] = 1  # Player 2 holds it but is behind with 2
    assert game.winners() == (0, 2)


def test_player_count_is_checked():
    with pytest.raises(GameError, match="2 to 4"):
        make_game(players=5)


# -- a map read by the camera: unknown studs ---------------------------------------------

def test_a_staircase_from_an_unknown_stud_names_it_by_its_decoration():
    """The camera left stud 9,12 unknown; the players built from it with a dark-green
    decoration: the turn scores, and the game's map keeps the stud dark green (its
    neighbours stay as they were)."""
    game = make_game(colors={(9, 12): "?"})
    result = game.play_turn(first_staircase("dark_green"))
    assert result.report.legal and result.report.start_named
    assert result.report.start == (9, 12) and result.report.start_color == "dark_green"
    assert result.report.credits == 3
    assert game.palace.ground.char(9, 12) == "D" and game.palace.ground.char(9, 11) == "L"


def test_an_unknown_stud_stays_no_starting_point_without_the_house_rule():
    game = make_game(colors={(9, 12): "?"}, name_unknown_start=False)
    before = snapshot(game)
    with pytest.raises(IllegalTurnError) as err:
        game.play_turn(first_staircase("dark_green"))
    assert any("unknown" in v.message for v in err.value.report.violations)
    assert not err.value.report.start_named and snapshot(game) == before
    assert game.palace.ground.char(9, 12) == "?"


def test_only_a_decoration_of_a_ground_colour_names_an_unknown_stud():
    game = make_game(colors={(9, 12): "?"})
    undecorated = first_staircase()[:2]
    report = game.check_turn(undecorated)
    assert not report.legal and not report.start_named
    assert any("unknown" in v.message for v in report.violations)
    assert game.palace.ground.char(9, 12) == "?"
