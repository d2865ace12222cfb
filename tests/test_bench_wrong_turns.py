"""What a wrong turn got wrong: the forms the bench counts, on readings built by hand."""

from __future__ import annotations

from bench.wrong_turns import report_fields, wrong_form
from rules.pieces import Axis, Kind, Piece

FIRST = Piece(Kind.ARCH, 10, 10, 0, axis=Axis.X)
"""A first step on the plate: its end knobs at (10, 10) and (13, 10)."""
STEP = Piece(Kind.ARCH, 13, 10, 1, axis=Axis.Y)
"""The step on its end knob, its far leg at (13, 13) on a column."""
COLUMN = Piece(Kind.COLUMN, 13, 13, 0)
PLANT = Piece(Kind.DECORATION, 13, 13, 2, color="light_green")
TRUTH = [FIRST, STEP, COLUMN, PLANT]


def test_a_column_read_as_its_three_bricks_is_a_stack_and_so_is_the_reverse() -> None:
    bricks = [Piece(Kind.BRICK, 13, 13, z) for z in range(3)]
    read = [FIRST, STEP, *bricks, PLANT]
    assert wrong_form(TRUTH, read) == "stack"
    assert wrong_form(read, TRUTH) == "stack"
    # Three bricks a level up are not the column's: something else is wrong.
    higher = [FIRST, STEP, *(b.moved(z=b.z + 1) for b in bricks), PLANT]
    assert wrong_form(TRUTH, higher) == "other"


def test_a_moved_or_missing_decoration_alone_is_the_decoration() -> None:
    moved = [FIRST, STEP, COLUMN, PLANT.moved(x=13, y=10, z=2)]
    assert wrong_form(TRUTH, moved) == "decoration"
    assert wrong_form(TRUTH, [FIRST, STEP, COLUMN]) == "decoration"


def test_a_lone_brick_read_as_a_first_arch_on_the_plate_is_a_first_step() -> None:
    lone = [Piece(Kind.BRICK, 13, 10, 0), STEP, COLUMN, PLANT]
    assert wrong_form(lone, TRUTH) == "first step"
    assert wrong_form(TRUTH, lone) == "first step"
    # A step read a stud along is no first step: the arch on the plate is right.
    along = [FIRST, STEP, COLUMN.moved(y=14), PLANT]
    assert wrong_form(TRUTH, along) == "other"


def test_a_report_is_put_by_the_fields_that_differ() -> None:
    # Report keys as report_key makes them: legal, credits, highest, bonus.
    truth = (True, 3, True, False)
    assert report_fields(truth, truth) == []
    assert report_fields(truth, (True, 2, True, False)) == ["credits"]
    assert report_fields(truth, (False, 0, False, False)) == ["legal", "credits", "highest"]
    assert report_fields(truth, (True, 3, True, True)) == ["bonus"]


def test_a_staircase_missed_whole_is_no_first_step() -> None:
    assert wrong_form(TRUTH, []) == "other"
    assert wrong_form(TRUTH, [COLUMN]) == "other"
