"""The staircase rules A to I, credits, the bonus and the trophies, from the rulebook's examples.

Every scene is built here from coordinates on a small test map whose colours are easy
to reason about: light green for x < 16, dark green for 16 <= x < 24, gold for x >= 24,
a blocked patch and a colourless starting area. Expected values follow from the rules.
"""

from __future__ import annotations

from rules.maps import GroundMap, load_map
from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece
from rules.report import Trophies
from rules.settings import RuleSettings
from rules.staircase import analyse_added, analyse_turn, split_turn

LG, DG, GOLD = "light_green", "dark_green", "gold"


def _ground() -> GroundMap:
    rows = []
    for y in range(32):
        row = "".join("L" if x < 16 else "D" if x < 24 else "G" for x in range(32))
        if y in (28, 29):
            row = row[:12] + "XX" + row[14:]
        rows.append(row)
    return GroundMap(name="test", ground=tuple(rows),
                     start_area=frozenset((x, 30) for x in range(4, 12)))


GROUND = _ground()


def arch(x, y, z, axis="x", id=""):
    return Piece(Kind.ARCH, x, y, z, axis=Axis(axis), id=id)


def brick(x, y, z, id=""):
    return Piece(Kind.BRICK, x, y, z, id=id)


def column(x, y, z, id=""):
    return Piece(Kind.COLUMN, x, y, z, id=id)


def deco(x, y, z, color, id=""):
    return Piece(Kind.DECORATION, x, y, z, color=color, id=id)


def animal(kind, x, y, z, id=""):
    return Piece(kind, x, y, z, id=id or kind.value)


def board(*pieces):
    return Palace(GROUND, pieces)


def rules_of(report):
    return sorted(v.rule for v in report.violations)


def climb(x0, y, arches, prefix="a"):
    """A straight staircase of ``arches`` steps going towards -x from stud x0.

    Step k stands at level k: its near leg on the previous step's end knob, its far
    leg on a stack of k bricks. The first step stands on the ground at (x0, y).
    """
    pieces = []
    for k in range(arches):
        near = x0 - 3 * k
        far = near - 3
        for level in range(k):
            pieces.append(brick(far, y, level, id=f"{prefix}s{k}_{level}"))
        pieces.append(arch(far, y, k, id=f"{prefix}{k}"))
    return pieces, (x0 - 3 * arches, y, arches)  # decoration spot on the last far knob


# -- the rulebook's examples -----------------------------------------------------------


def test_setup_staircase_is_one_brick_two_arches_and_a_gold_decoration_on_the_far_end():
    ground = load_map("1")
    pieces = ground.setup
    kinds = sorted(p.kind.value for p in pieces)
    assert kinds == ["arch", "arch", "brick", "decoration"]
    palace = Palace(ground, pieces)  # physically sound, or this raises
    report = analyse_added(Palace(ground, ()), pieces)
    # The setup's own path: ground arch, then the arch stepping up onto its end knob.
    assert report.path == ("s1", "s3")
    assert report.arches == 2
    top_arch = palace["s3"]
    gold = palace["s4"]
    assert gold.color == GOLD and (gold.x, gold.y) in top_arch.knobs()
    # It stands in the colourless start area and attaches to nothing: not a turn.
    assert "A" in rules_of(report) and "E" in rules_of(report)


def test_player_one_two_arch_staircase():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.path == ("a1", "a2")
    assert report.arches == 2
    assert report.start == (2, 10) and report.start_color == LG
    assert report.decoration_highest  # first light-green decoration on the board
    assert report.credits == 2 + 1


def test_player_two_two_arches_and_one_brick():
    before = board(brick(9, 10, 0, id="old"), deco(20, 5, 0, LG, id="higher"))
    added = [arch(2, 10, 0, id="a1"), brick(8, 10, 0, id="b"), arch(5, 10, 1, id="a2"),
             deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.path == ("a1", "a2")
    assert report.arches == 2
    # The old light-green decoration tops out at level 1, the new one at level 3.
    assert report.decoration_highest and report.credits == 3


def test_six_arch_dark_green_staircase_not_the_highest_earns_six():
    steps, (dx, dy, dz) = climb(23, 10, 6)
    # An older dark-green decoration on two columns and a brick tops out at level 8.
    old = [brick(24, 10, 0, id="anchor"), column(28, 20, 0, id="c1"), column(28, 20, 3, id="c2"),
           brick(28, 20, 6, id="c3"), deco(28, 20, 7, DG, id="old_dg")]
    before = board(*old)
    report = analyse_added(before, [*steps, deco(dx, dy, dz, DG, id="d")])
    assert report.legal, report.violations
    assert report.start_color == DG
    assert report.arches == 6
    assert dz + 1 < 8 and not report.decoration_highest
    assert report.credits == 6
    assert report.path == tuple(f"a{k}" for k in range(6))


def test_three_arch_highest_light_green_staircase_earns_four():
    steps, (dx, dy, dz) = climb(12, 10, 3)
    before = board(brick(13, 10, 0, id="anchor"), brick(2, 20, 0, id="b"),
                   deco(2, 20, 1, LG, id="old_lg"))
    report = analyse_added(before, [*steps, deco(dx, dy, dz, LG, id="d")])
    assert report.legal, report.violations
    assert report.arches == 3
    assert report.decoration_highest  # top 4 against the old one's 2
    assert report.credits == 4


# -- rule A: start on an open knob of the Ground Map ----------------------------------


def test_A_start_colour_comes_from_the_far_leg_of_a_starting_arch():
    # The first arch spans light (x=14, 15) and dark (16, 17) ground; the path leaves it
    # at x=14, so the starting point is the stud at x=17.
    before = board(brick(11, 10, 0, id="old"))
    added = [arch(14, 10, 0, id="a1"), arch(11, 10, 1, id="a2"), deco(11, 10, 2, DG, id="d")]
    report = analyse_added(before, added)
    assert report.start == (17, 10) and report.start_color == DG
    assert report.legal, report.violations


def test_A_start_area_has_no_colour():
    before = board(brick(4, 29, 0, id="old"))
    added = [arch(4, 30, 0, id="a1"), brick(7, 27, 0, id="b"), arch(7, 27, 1, "y", id="a2"),
             deco(7, 27, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert not report.legal
    assert "A" in rules_of(report)
    assert report.start_color is None


def test_A_staircase_must_start_on_the_ground_not_on_old_pieces():
    before = board(brick(2, 10, 0), brick(5, 10, 0), brick(8, 10, 0), brick(8, 10, 1))
    added = [arch(2, 10, 1, id="a1"), arch(5, 10, 2, id="a2"), deco(8, 10, 3, LG, id="d")]
    report = analyse_added(before, added)
    assert [v.rule for v in report.violations] == ["A"]
    assert "a1" in report.violations[0].pieces


# -- rule B: any building brick may start ----------------------------------------------


def test_B_a_brick_may_start_the_staircase():
    before = board(brick(6, 10, 0, id="old"))
    added = [brick(2, 10, 0, id="b"), brick(5, 10, 0, id="s"), arch(2, 10, 1, id="a1"),
             deco(5, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.path == ("b", "a1") and report.start == (2, 10)


def test_B_a_column_may_start_the_staircase():
    before = board(brick(6, 10, 0, id="old"))
    added = [column(2, 10, 0, id="c"), column(5, 10, 0, id="s"), arch(2, 10, 3, id="a1"),
             deco(5, 10, 4, LG, id="d")]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.path == ("c", "a1")


def test_B_a_decoration_cannot_start_the_staircase():
    before = board(brick(5, 10, 0, id="old"))
    added = [deco(2, 10, 0, LG, id="foot"), arch(2, 10, 1, id="a1"), deco(5, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert not report.legal
    assert "B" in rules_of(report)
    assert "decoration" in rules_of(report)  # and there are two decorations


# -- rule C: the staircase ends with an arch -------------------------------------------


def test_C_decoration_on_a_brick_is_not_an_arch_end():
    before = board(brick(9, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), brick(5, 10, 1, id="b"), brick(8, 10, 0, id="b2"),
             deco(5, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert "C" in rules_of(report)
    assert any("b" in v.pieces for v in report.violations if v.rule == "C")


def test_C_no_arch_at_all():
    before = board(brick(3, 10, 0, id="old"))
    report = analyse_added(before, [brick(2, 10, 0, id="b"), deco(2, 10, 1, LG, id="d")])
    assert "C" in rules_of(report) and not report.legal


def test_C_nothing_may_be_built_on_the_decoration():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d"),
             brick(8, 10, 3, id="top")]
    report = analyse_added(before, added)
    assert "C" in rules_of(report)


# -- rule D: any open knob, never an arch's centre knobs --------------------------------


def test_D_building_on_a_decoration_is_allowed():
    # a1 stands on two stacks of two bricks; a2 steps from a1's end knob (level 3) to
    # an old pile of two bricks and a decoration, whose stud is also at level 3.
    before = board(brick(8, 10, 0), brick(8, 10, 1), deco(8, 10, 2, DG, id="old_d"))
    added = [brick(2, 10, 0, id="b1"), brick(2, 10, 1, id="b2"), brick(5, 10, 0, id="s1"),
             brick(5, 10, 1, id="s2"), arch(2, 10, 2, id="a1"), arch(5, 10, 3, id="a2"),
             deco(8, 10, 4, LG, id="d")]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.path == ("b1", "b2", "a1", "a2")


def test_D_centre_knob_of_an_arch_is_forbidden():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d"),
             brick(6, 10, 2, id="bad")]
    report = analyse_added(before, added)
    d = [v for v in report.violations if v.rule == "D"]
    assert d and d[0].pieces == ("bad", "a2")


# -- rule E: attach to the existing build -----------------------------------------------


def test_E_side_contact_attaches():
    before = board(brick(1, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), brick(8, 10, 0, id="b"), arch(5, 10, 1, id="a2"),
             deco(8, 10, 2, LG, id="d")]
    assert analyse_added(before, added).legal


def test_E_standing_nowhere_near_the_build_is_not_attached():
    before = board(brick(20, 20, 0, id="far_away"))
    added = [arch(2, 10, 0, id="a1"), brick(8, 10, 0, id="b"), arch(5, 10, 1, id="a2"),
             deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert rules_of(report) == ["E"]


def test_E_corner_bricks_do_not_count():
    # The corner brick at (1, 1) covers (1, 1), (2, 1) and (1, 2).
    before = board()
    added = [arch(3, 1, 0, id="a1"), brick(9, 1, 0, id="b"), arch(6, 1, 1, id="a2"),
             deco(9, 1, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert rules_of(report) == ["E"]


# -- rule F: fully supported ------------------------------------------------------------


def test_F_an_arch_with_a_leg_in_the_air_is_not_supported():
    before = board(brick(1, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    f = [v for v in report.violations if v.rule == "F"]
    assert f and f[0].pieces == ("a2",) and "8,10" in f[0].message


# -- rule G: no arch directly on an arch -----------------------------------------------


def test_G_arch_on_arch_is_refused():
    before = board(brick(1, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(2, 10, 1, id="a2"), deco(5, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    g = [v for v in report.violations if v.rule == "G"]
    assert g and g[0].pieces == ("a2", "a1")


# -- rule H: 90-degree turns -------------------------------------------------------------


def test_H_a_staircase_may_turn_left_or_right():
    for far_y in (7, 13):  # the second arch turns north or south
        y0 = min(10, far_y)
        before = board(brick(5, far_y + (1 if far_y > 10 else -1), 0, id="old"))
        added = [arch(2, 10, 0, id="a1"), brick(5, far_y, 0, id="b"),
                 arch(5, y0, 1, "y", id="a2"), deco(5, far_y, 2, LG, id="d")]
        report = analyse_added(before, added)
        assert report.legal, (far_y, report.violations)
        assert report.arches == 2


def test_H_doubling_back_lands_on_the_previous_arch():
    before = board(brick(1, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(2, 10, 1, id="back"), deco(2, 10, 2, LG, id="d")]
    assert "G" in rules_of(analyse_added(before, added))


# -- rule I: every arch is a direct step up --------------------------------------------


def test_I_steps_must_ascend():
    # Up onto a2, then down onto a3 whose end knob holds a2's far leg.
    before = board(brick(12, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(8, 10, 0, id="a3"), arch(5, 10, 1, id="a2"),
             deco(11, 10, 1, LG, id="d")]
    report = analyse_added(before, added)
    assert report.path == ("a1", "a2", "a3")
    msgs = [v.message for v in report.violations if v.rule == "I"]
    assert msgs == ["arch a3 is not higher than arch a2"]


def test_I_an_arch_used_as_a_support_branches_off():
    before = board(brick(9, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(8, 10, 0, "y", id="prop"), arch(5, 10, 1, id="a2"),
             deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert report.path == ("a1", "a2")
    i = [v for v in report.violations if v.rule == "I"]
    assert len(i) == 1 and i[0].pieces == ("prop",)
    assert report.arches == 2 and report.credits == 0  # illegal: no credits


def test_I_legal_staircases_ascend_strictly():
    steps, (dx, dy, dz) = climb(12, 10, 4)
    report = analyse_added(board(brick(13, 10, 0)), [*steps, deco(dx, dy, dz, LG)])
    assert report.legal
    levels = [int(pid[1:]) for pid in report.path]
    assert levels == sorted(set(levels))


# -- the decoration ---------------------------------------------------------------------


def test_decoration_colour_must_match_the_start():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, GOLD, id="d")]
    report = analyse_added(before, added)
    assert rules_of(report) == ["decoration"]
    assert "gold" in report.violations[0].message and "light-green" in report.violations[0].message


def test_decoration_must_be_on_the_far_end_knob():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(5, 10, 2, LG, id="d")]
    assert rules_of(analyse_added(before, added)) == ["decoration"]


def test_exactly_one_decoration():
    before = board(brick(8, 10, 0, id="old"))
    steps = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2")]
    assert "decoration" in rules_of(analyse_added(before, steps))
    two = [*steps, deco(8, 10, 2, LG, id="d"), deco(2, 10, 1, LG, id="d2")]
    assert "decoration" in rules_of(analyse_added(before, two))


# -- turns that are not staircases -----------------------------------------------------


def test_empty_turn_is_a_pass():
    report = analyse_added(board(brick(5, 5, 0)), [])
    assert report.passed and not report.legal
    assert rules_of(report) == ["staircase"]
    assert report.credits == 0


def test_a_stray_brick_is_not_part_of_the_staircase():
    before = board(brick(8, 10, 0, id="old"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d"),
             brick(20, 20, 0, id="stray")]
    report = analyse_added(before, added)
    assert rules_of(report) == ["staircase"] and report.violations[0].pieces == ("stray",)


def test_turn_between_two_palaces_matches_pieces_by_place_when_ids_change():
    old = [brick(8, 10, 0, id="old")]
    before = board(*old)
    after = board(brick(8, 10, 0, id="cam7"), arch(2, 10, 0, id="cam1"),
                  arch(5, 10, 1, id="cam2"), deco(8, 10, 2, LG, id="cam3"))
    report = analyse_turn(before, after)
    assert report.legal, report.violations
    assert set(report.new_pieces) == {"cam1", "cam2", "cam3"}


def test_taking_a_piece_away_is_a_violation():
    before = board(brick(8, 10, 0, id="old"), brick(20, 20, 0, id="gone"))
    after = [p for p in before if p.id != "gone"]
    after += [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d")]
    report = analyse_turn(before, after)
    assert rules_of(report) == ["removed"] and report.violations[0].pieces == ("gone",)
    added, _, moved = split_turn(before, after)
    assert {p.id for p in added} == {"a1", "a2", "d"} and not moved


def test_unnamed_pieces_get_fresh_ids():
    before = board(brick(8, 10, 0, id="new1"))
    report = analyse_added(before, [arch(2, 10, 0), arch(5, 10, 1), deco(8, 10, 2, LG)])
    assert report.legal
    assert "new1" not in report.new_pieces and len(set(report.new_pieces)) == 3


# -- highest decoration and ties ---------------------------------------------------------


def _tie_turn():
    # An old light-green decoration on a brick tops out at level 3, like the new one.
    before = board(brick(8, 10, 0, id="old"), brick(20, 20, 0), brick(20, 20, 1),
                   deco(20, 20, 2, LG, id="old_lg"))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG, id="d")]
    return before, added


def test_tie_for_highest_earns_no_credit_by_default():
    before, added = _tie_turn()
    report = analyse_added(before, added)
    assert report.legal and report.decoration_tied and not report.decoration_highest
    assert report.credits == 2


def test_tie_for_highest_earns_the_credit_with_the_house_rule():
    before, added = _tie_turn()
    report = analyse_added(before, added, RuleSettings(tie_earns_credit=True))
    assert report.decoration_tied and report.decoration_highest
    assert report.credits == 3


def test_higher_decoration_of_another_colour_does_not_matter():
    before = board(brick(8, 10, 0), column(20, 20, 0), deco(20, 20, 3, DG))
    added = [arch(2, 10, 0), arch(5, 10, 1), deco(8, 10, 2, LG)]
    report = analyse_added(before, added)
    assert report.decoration_highest and report.credits == 3
    assert not report.trophies.butterfly  # the dark-green one is taller


# -- the 5-brick bonus ---------------------------------------------------------------------


def _tower_turn(stack):
    """A one-arch staircase whose start is a stack of new pieces under its near leg.

    The far leg stands on an old pile as tall as the stack, so only the stack is new.
    """
    height = sum(p.height for p in stack)
    old = [brick(5, 10, level) for level in range(height)]
    before = board(*old)
    added = [*stack, arch(2, 10, height, id="a1"), deco(5, 10, height + 1, LG, id="d")]
    return before, added


def test_bonus_column_counts_three_and_two_bricks_make_five():
    before, added = _tower_turn([column(2, 10, 0), brick(2, 10, 3), brick(2, 10, 4)])
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.bonus_height == 5 and report.bonus_card


def test_bonus_run_of_five_bricks_qualifies_and_four_does_not():
    five = analyse_added(*_tower_turn([brick(2, 10, z) for z in range(5)]))
    four = analyse_added(*_tower_turn([brick(2, 10, z) for z in range(4)]))
    assert five.bonus_card and five.bonus_height == 5
    assert not four.bonus_card and four.bonus_height == 4


def test_bonus_arches_are_not_counted():
    # Under a1's far leg stand 3 new bricks, on its far knob 2 more: 5 bricks in one
    # vertical line, but the arch between them breaks the run into 3 and 2.
    before = board(column(8, 10, 0), column(8, 10, 3))  # old: a2's far support
    added = [brick(2, 10, z) for z in range(3)] + [brick(5, 10, z) for z in range(3)]
    added += [arch(2, 10, 3, id="a1"), brick(5, 10, 4), brick(5, 10, 5),
              arch(5, 10, 6, id="a2"), deco(8, 10, 7, LG)]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert report.arches == 2
    assert report.bonus_height == 3 and not report.bonus_card


def test_bonus_existing_pieces_count_only_with_the_setting():
    # a1 on the ground, four new bricks on its far knob, a2 from there to a pile of an
    # old column, an old brick and one new brick. New runs: 4 and 1. Counting the old
    # pieces under the second run makes it 3 + 1 + 1 = 5 (the first stands on an arch).
    before = board(column(8, 10, 0), brick(8, 10, 3))
    added = [arch(2, 10, 0, id="a1"), *(brick(5, 10, z) for z in range(1, 5)),
             brick(8, 10, 4), arch(5, 10, 5, id="a2"), deco(8, 10, 6, LG)]
    default = analyse_added(before, added)
    counted = analyse_added(before, added, RuleSettings(bonus_counts_existing=True))
    assert default.legal, default.violations
    assert default.bonus_height == 4 and not default.bonus_card
    assert counted.bonus_height == 5 and counted.bonus_card


# -- trophies --------------------------------------------------------------------------


def _gold_turn(*extra):
    before = board(brick(25, 10, 0, id="old"), arch(24, 20, 0, id="old_arch"))
    added = [arch(28, 10, 0, id="a1"), arch(25, 10, 1, id="a2"), deco(25, 10, 2, GOLD, id="d"),
             *extra]
    return before, added


def test_monkey_for_a_gold_decoration_and_where_it_sits():
    before, added = _gold_turn()
    report = analyse_added(before, added)
    assert report.legal and report.start_color == GOLD and report.trophies.monkey
    on_arch = analyse_added(*_gold_turn(animal(Kind.MONKEY, 24, 20, 1)))
    assert on_arch.legal and on_arch.trophies.monkey
    on_centre = analyse_added(*_gold_turn(animal(Kind.MONKEY, 25, 20, 1)))
    assert not on_centre.legal


def test_monkey_only_moves_for_gold():
    before = board(brick(8, 10, 0), arch(2, 20, 0))
    added = [arch(2, 10, 0), arch(5, 10, 1), deco(8, 10, 2, LG)]
    assert not analyse_added(before, added).trophies.monkey
    report = analyse_added(before, [*added, animal(Kind.MONKEY, 2, 20, 1)])
    assert rules_of(report) == ["monkey"]


def test_monkey_already_on_the_board_may_move():
    before = board(brick(25, 10, 0, id="old"), arch(24, 20, 0, id="old_arch"),
                   animal(Kind.MONKEY, 24, 20, 1))
    added = [arch(28, 10, 0), arch(25, 10, 1), deco(25, 10, 2, GOLD),
             animal(Kind.MONKEY, 27, 20, 1)]
    report = analyse_added(before, added)
    assert report.legal, report.violations
    assert "monkey" in report.new_pieces


def test_butterfly_for_the_tallest_decoration_no_ties():
    before = board(brick(8, 10, 0), deco(20, 20, 0, DG))
    added = [arch(2, 10, 0), arch(5, 10, 1), deco(8, 10, 2, LG, id="d")]
    report = analyse_added(before, added)
    assert report.trophies.butterfly
    placed = analyse_added(before, [*added, animal(Kind.BUTTERFLY, 8, 10, 3)])
    assert placed.legal and placed.trophies.butterfly
    elsewhere = analyse_added(before, [*added, animal(Kind.BUTTERFLY, 5, 10, 2)])
    assert rules_of(elsewhere) == ["butterfly"]
    off = analyse_added(before, added, RuleSettings(butterfly=False))
    assert not off.trophies.butterfly
    tied = board(brick(8, 10, 0), brick(20, 20, 0), brick(20, 20, 1), deco(20, 20, 2, DG))
    assert not analyse_added(tied, added).trophies.butterfly


def test_frog_is_taken_by_choice_and_sits_on_the_lowest_open_end_knob():
    before = board(brick(8, 10, 0))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG)]
    assert analyse_added(before, added, frog_taken=True).trophies.frog
    assert not analyse_added(before, added).trophies.frog
    off = analyse_added(before, added, RuleSettings(frog=False), frog_taken=True)
    assert not off.trophies.frog
    # a1's free end knob (2, 10) is at level 1; a2's near knob (5, 10) is at level 2.
    low = analyse_added(before, [*added, animal(Kind.FROG, 2, 10, 1)])
    assert low.legal and low.trophies.frog
    high = analyse_added(before, [*added, animal(Kind.FROG, 5, 10, 2)])
    assert rules_of(high) == ["frog"]


def test_an_illegal_turn_earns_no_trophy_the_frog_included():
    before = board(brick(8, 10, 0))
    added = [arch(2, 10, 0, id="a1"), arch(5, 10, 1, id="a2"), deco(8, 10, 2, LG)]
    high = analyse_added(before, [*added, animal(Kind.FROG, 5, 10, 2)], frog_taken=True)
    assert not high.legal and high.trophies == Trophies()
    nothing_built = analyse_added(before, [], frog_taken=True)
    assert nothing_built.passed and nothing_built.trophies == Trophies()


def test_a_corner_brick_turned_in_place_is_taken_away_and_placed():
    # Same corner, same studs' corner, another quarter turn: a different piece to a camera
    # that matches by place, so the turn both removes one and places one.
    before = board()
    corners = [p for p in before if p.kind is Kind.CORNER]
    turned = corners[0].moved(id="", turn=(corners[0].turn + 1) % 4)
    after = [turned, *corners[1:]]
    added, removed, _ = split_turn(before, after)
    assert [(p.kind, p.turn) for p in added] == [(Kind.CORNER, turned.turn)]
    assert [v.pieces for v in removed] == [(corners[0].id,)]
    unchanged, gone, _ = split_turn(before, [c.moved(id="") for c in corners])
    assert unchanged == [] and gone == []
