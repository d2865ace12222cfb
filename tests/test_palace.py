"""Placement checks and queries of the stud grid, built from explicit coordinates."""

from __future__ import annotations

import pytest

from rules.maps import GroundMap, load_map
from rules.palace import Palace, PalaceError
from rules.pieces import Axis, Kind, Piece, corner_setup
from rules.placement import impossible_violations, physics_violations


def _ground() -> GroundMap:
    rows = ["L" * 32 for _ in range(32)]
    rows[20] = "L" * 10 + "XX" + "L" * 20  # studs (10, 20) and (11, 20) are blocked
    return GroundMap(name="flat", ground=tuple(rows))


GROUND = _ground()


def arch(x, y, z, axis="x", id=""):
    return Piece(Kind.ARCH, x, y, z, axis=Axis(axis), id=id)


def brick(x, y, z, id=""):
    return Piece(Kind.BRICK, x, y, z, id=id)


def rules_of(violations):
    return [v.rule for v in violations]


def test_empty_palace_has_the_four_corner_bricks():
    palace = Palace(GROUND)
    assert sorted(p.kind.value for p in palace) == ["corner"] * 4
    # corner (1, 1) turn 0 covers (1, 1), (2, 1), (1, 2) but not (2, 2).
    corner = palace.occupant(1, 1, 0)
    assert corner is not None and corner.kind is Kind.CORNER
    assert palace.occupant(2, 2, 0) is None


def test_collision_is_refused_and_names_both_pieces():
    palace = Palace(GROUND, [brick(5, 5, 0, id="b1")])
    problems = palace.check(arch(3, 5, 0, id="a1"))  # covers x = 3..6 on row 5
    assert rules_of(problems) == ["overlap"]
    assert problems[0].pieces == ("a1", "b1") and "5,5" in problems[0].message
    with pytest.raises(PalaceError):
        palace.place(arch(3, 5, 0, id="a1"))


def test_nothing_may_stand_inside_an_arch_opening():
    palace = Palace(GROUND, [arch(3, 5, 0, id="a1")])
    assert rules_of(palace.check(brick(4, 5, 0))) == ["overlap"]


def test_support_every_leg_must_stand_on_a_knob():
    palace = Palace(GROUND, [brick(3, 5, 0, id="b1")])
    problems = palace.check(arch(3, 5, 1, id="a1"))  # far leg over (6, 5): nothing there
    assert rules_of(problems) == ["F"] and "6,5" in problems[0].message
    palace.place(brick(6, 5, 0, id="b2"))
    assert palace.check(arch(3, 5, 1, id="a1")) == []


def test_arch_centre_knobs_are_forbidden():
    palace = Palace(GROUND, [arch(3, 5, 0, id="a1")])
    for x in (4, 5):
        problems = palace.check(brick(x, 5, 1, id="b"))
        assert rules_of(problems) == ["D"] and problems[0].pieces == ("b", "a1")
    for x in (3, 6):
        assert palace.check(brick(x, 5, 1)) == []


def test_an_arch_s_other_end_knob_is_the_far_one_either_way():
    along_y = Piece(Kind.ARCH, 3, 5, 0, axis=Axis.Y)
    assert along_y.other_end((3, 5)) == (3, 8) and along_y.other_end((3, 8)) == (3, 5)
    with pytest.raises(ValueError, match="not an end knob"):
        along_y.other_end((3, 6))  # a middle stud


def test_arch_directly_on_an_arch_is_refused_but_one_leg_on_its_end_is_fine():
    palace = Palace(GROUND, [arch(3, 5, 0, id="a1"), brick(9, 5, 0, id="b1"),
                             brick(6, 8, 0, id="b2")])
    assert rules_of(palace.check(arch(3, 5, 1, id="a2"))) == ["G"]
    assert palace.check(arch(6, 5, 1, id="a3")) == []  # a1's end knob and b1
    assert palace.check(arch(6, 5, 1, "y", id="a4")) == []  # a 90-degree turn, onto b2


def test_blocked_ground_cannot_be_built_on():
    palace = Palace(GROUND)
    problems = palace.check(brick(10, 20, 0, id="b"))
    assert rules_of(problems) == ["blocked"] and "10,20" in problems[0].message
    # An arch whose opening spans the blocked patch has no leg on it.
    assert palace.check(arch(9, 20, 0)) == []


def test_corner_bricks_are_not_built_on():
    palace = Palace(GROUND)
    problems = palace.check(brick(1, 1, 1, id="b"))
    assert rules_of(problems) == ["corner"]
    assert not palace.is_open_knob(1, 1, 1)


def test_corner_inset_moves_the_corner_bricks():
    far = corner_setup(inset=3)
    assert {(p.x, p.y) for p in far} == {(3, 3), (27, 3), (27, 27), (3, 27)}


def test_off_the_plate_is_refused():
    assert rules_of(Palace(GROUND).check(arch(30, 5, 0, id="a"))) == ["off-plate"]
    assert rules_of(Palace(GROUND).check(brick(3, 5, -1, id="b"))) == ["off-plate"]


def test_on_plate_covers_the_whole_footprint_and_the_level():
    assert arch(28, 5, 0).on_plate() and brick(31, 31, 0).on_plate()
    assert not arch(29, 5, 0).on_plate()                   # its far end at x = 32
    assert not arch(5, -1, 0, axis="y").on_plate()
    assert not brick(3, 5, -1).on_plate()


def test_open_knobs_and_heights():
    palace = Palace(GROUND, [arch(3, 5, 0, id="a1"), brick(3, 5, 1, id="b1")])
    assert palace.is_open_knob(6, 5, 1)  # a1's free end knob
    assert not palace.is_open_knob(3, 5, 1)  # covered by b1
    assert palace.is_open_knob(3, 5, 2)  # b1's stud
    assert not palace.is_open_knob(4, 5, 1)  # centre knob
    assert palace.stack_height(3, 5) == 2
    assert palace.stack_height(4, 5) == 1  # the arch's opening is part of its volume
    knobs = palace.open_knobs()
    assert (6, 5, 1) in knobs and (3, 5, 2) in knobs and (4, 5, 1) not in knobs


def test_remove_refuses_while_something_rests_on_it():
    palace = Palace(GROUND, [brick(3, 5, 0, id="b1"), brick(3, 5, 1, id="b2")])
    with pytest.raises(PalaceError, match="b2 rests on it"):
        palace.remove("b1")
    palace.remove("b2")
    palace.remove("b1")
    assert palace.check(brick(3, 5, 0)) == []


def test_copy_is_independent():
    palace = Palace(GROUND, [brick(3, 5, 0, id="b1")])
    other = palace.copy()
    other.place(brick(3, 5, 1, id="b2"))
    assert "b2" in other and "b2" not in palace
    assert palace.is_open_knob(3, 5, 1)


def test_decorations_by_colour_and_highest():
    pieces = [brick(3, 5, 0), Piece(Kind.DECORATION, 3, 5, 1, color="gold", id="g1"),
              Piece(Kind.DECORATION, 8, 5, 0, color="gold", id="g2"),
              Piece(Kind.DECORATION, 12, 5, 0, color="light_green", id="l1"),
              brick(14, 5, 0), Piece(Kind.DECORATION, 14, 5, 1, color="light_green", id="l2")]
    palace = Palace(GROUND, pieces)
    assert {d.id for d in palace.decorations("gold")} == {"g1", "g2"}
    assert palace.highest_decoration_level("gold") == 2
    assert palace.highest_decoration_level("dark_green") is None
    # g1 and l2 both top out at level 2: a tie for the tallest decoration.
    assert {d.id for d in palace.highest_decorations()} == {"g1", "l2"}


def test_supporters_and_resting_on():
    palace = Palace(GROUND, [arch(3, 5, 0, id="a1"), brick(9, 5, 0, id="b1"),
                             arch(6, 5, 1, id="a2")])
    assert {p.id for p in palace.supporters(palace["a2"])} == {"a1", "b1"}
    assert [p.id for p in palace.resting_on(palace["a1"])] == ["a2"]


def test_physics_violations_lists_every_problem_of_a_scene():
    pieces = [brick(3, 5, 0, id="b1"), brick(3, 5, 0, id="b2"), brick(20, 20, 4, id="fly"),
              arch(30, 5, 0, id="off")]
    problems = physics_violations(pieces, GROUND)
    assert {(v.rule, v.pieces[0]) for v in problems} == {
        ("overlap", "b2"), ("F", "fly"), ("off-plate", "off")}


def test_impossible_violations_separate_floating_from_rule_breaking():
    one_leg = [brick(3, 5, 0), arch(3, 5, 1, id="half")]  # a leg in the air: possible
    assert impossible_violations(one_leg, GROUND) == []
    floating = [brick(20, 20, 4, id="fly")]
    problems = impossible_violations(floating, GROUND)
    assert rules_of(problems) == ["floating"] and "fly" in problems[0].message


def test_palace_refuses_a_bad_scene_naming_the_piece():
    with pytest.raises(PalaceError, match="fly"):
        Palace(GROUND, [brick(20, 20, 4, id="fly")])


def test_setup_position_of_map_one_is_sound():
    ground = load_map("1")
    palace = Palace.setup(ground)
    assert len(palace) == 4 + 4
    assert all(ground.color(x, y) is None for p in ground.setup for x, y in p.footprint())


def _stands_by_placing(palace, pieces):
    placed = []
    try:
        for p in pieces:
            placed.append(palace.place(p).id)
    except PalaceError:
        return False
    finally:
        for pid in reversed(placed):
            palace.remove(pid)
    return True


@pytest.mark.parametrize("move", [
    [brick(5, 5, 0), brick(8, 5, 0), arch(5, 5, 1)],      # two stacks and the arch on them
    [brick(5, 5, 0), arch(5, 5, 1)],                      # one leg in the air
    [arch(5, 5, 0), brick(6, 5, 1)],                      # on the arch's centre knob
    [brick(10, 20, 0)],                                   # blocked ground
    [brick(5, 5, 0), brick(5, 5, 0)],                     # the second overlaps the first
    [arch(5, 5, 0), arch(5, 5, 1)],                       # an arch straight on an arch
    [brick(5, 5, 0).moved(id="p1")],                      # an id the palace already uses
])
def test_stands_answers_as_placing_and_taking_off_and_leaves_the_palace_alike(move):
    asked, placed = Palace(GROUND), Palace(GROUND)
    asked.place(brick(20, 20, 0))
    placed.place(brick(20, 20, 0))
    assert asked.stands(move) == _stands_by_placing(placed, move)
    # The same palace after, and the ids the pieces would have had are used up alike.
    assert [(p.id, p) for p in asked] == [(p.id, p) for p in placed]
    assert asked.place(brick(25, 25, 0)).id == placed.place(brick(25, 25, 0)).id


def test_fits_says_what_an_empty_check_says_of_every_piece_near_a_built_palace():
    palace = Palace(GROUND)
    for p in (brick(5, 5, 0), brick(8, 5, 0), arch(5, 5, 1), brick(9, 20, 0),
              brick(12, 20, 0), arch(9, 20, 1), brick(5, 5, 2),
              Piece(Kind.MONKEY, 5, 8, 0), Piece(Kind.COLUMN, 14, 14, 0),
              Piece(Kind.COLUMN, 14, 11, 0), arch(14, 11, 3, "y")):
        palace.place(p)
    animal = next(p for p in palace if p.kind is Kind.MONKEY)
    asked = fitting = 0
    for kind in (Kind.BRICK, Kind.ARCH, Kind.COLUMN, Kind.DECORATION, Kind.CORNER):
        for x in range(-1, 17):
            for y in (-1, 0, 1, 4, 5, 6, 8, 11, 12, 14, 19, 20, 21, 31):
                for z in range(0, 5):
                    for axis in ("x", "y") if kind is Kind.ARCH else ("x",):
                        piece = Piece(kind, x, y, z, axis=Axis(axis))
                        asked += 1
                        fitting += palace.fits(piece)
                        assert palace.fits(piece) == (not palace.check(piece)), piece
    for x, y in animal.footprint():
        assert not palace.fits(brick(x, y, animal.top))
    assert 0 < fitting < asked


def test_a_piece_given_an_id_is_the_one_dataclasses_replace_gives() -> None:
    import dataclasses

    piece = Piece(Kind.ARCH, 3, 4, 2, axis=Axis.Y, turn=1, color="tan", id="p7",
                  extra={"note": 1})
    for changes in ({"id": "p9"}, {"id": ""}, {"z": 3}, {"id": "p2", "color": "gold"}):
        made, want = piece.moved(**changes), dataclasses.replace(piece, **changes)
        assert made == want and repr(made) == repr(want) and made.extra is want.extra


def test_the_plate_check_kept_with_a_piece_is_the_one_worked_out() -> None:
    for piece in (Piece(Kind.ARCH, 29, 5, 0), Piece(Kind.ARCH, 28, 5, 0),
                  Piece(Kind.BRICK, -1, 0, 0), Piece(Kind.BRICK, 0, 0, -1),
                  Piece(Kind.ARCH, 5, 29, 1, axis=Axis.Y), Piece(Kind.COLUMN, 31, 31, 4)):
        worked_out = piece.z >= 0 and all(0 <= x < 32 and 0 <= y < 32
                                          for x, y in piece.footprint())
        assert piece.on_plate() is worked_out and piece.on_plate() is worked_out
