"""Whole-reading edits: a staircase slid one stud, a step lowered off the bricks under it."""

from __future__ import annotations

from collections.abc import Sequence

from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece, place_key
from vision.refine import edits, refine

BEFORE = Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0, id="old"),
                                Piece(Kind.BRICK, 10, 13, 0, id="old2")])
ARCH_ON_OLD = Piece(Kind.ARCH, 10, 10, 1, axis=Axis.Y)
DECO = Piece(Kind.DECORATION, 10, 13, 2, color="gold")
PROPPED = [Piece(Kind.BRICK, 10, 10, 1), Piece(Kind.BRICK, 10, 13, 1),
           Piece(Kind.ARCH, 10, 10, 2, axis=Axis.Y),
           Piece(Kind.DECORATION, 10, 13, 3, color="gold")]


def keys(pieces: Sequence[Piece]) -> set[tuple[object, ...]]:
    return {place_key(p) for p in pieces}


def test_a_step_propped_on_bricks_is_lowered_with_what_stands_on_it() -> None:
    lowered = [e for e in edits(PROPPED) if len(e) == 2]
    assert [keys(e) for e in lowered] == [keys([ARCH_ON_OLD, DECO])]


def test_an_arch_is_not_lowered_through_what_is_not_the_turn_s() -> None:
    # The arch stands on the older bricks of the palace before: nothing of the turn fills
    # the level under it.
    lowered = [e for e in edits([ARCH_ON_OLD, DECO])
               if any(p.kind is Kind.ARCH and p.z < ARCH_ON_OLD.z for p in e)]
    assert lowered == []


def test_a_step_on_columns_is_lowered_onto_the_bricks_they_stand_for() -> None:
    apart = Piece(Kind.COLUMN, 20, 20, 0)  # a stack elsewhere stays a column
    on_columns = [Piece(Kind.COLUMN, 10, 10, 0), Piece(Kind.COLUMN, 10, 13, 0),
                  Piece(Kind.ARCH, 10, 10, 3, axis=Axis.Y), apart]
    lowered = [keys(e) for e in edits(on_columns)
               if any(p.kind is Kind.ARCH and p.z < 3 for p in e)]
    assert keys([Piece(Kind.BRICK, x, y, z) for x, y in ((10, 10), (10, 13)) for z in (0, 1)]
                + [Piece(Kind.ARCH, 10, 10, 2, axis=Axis.Y), apart]) in lowered
    assert len(lowered) == 2  # a level down on two bricks each, two down on one each


def test_only_pieces_nothing_stands_on_are_left_out() -> None:
    dropped = [e for e in edits(PROPPED)
               if len(e) == len(PROPPED) - 1 and keys(e) <= keys(PROPPED)]
    assert [{place_key(p) for p in PROPPED} - keys(e) for e in dropped] == [
        {place_key(PROPPED[-1])}]  # the decoration: the arch and bricks hold something up


def test_slides_move_every_piece_one_stud_the_decoration_in_both_outlines() -> None:
    slid = list(edits([ARCH_ON_OLD, DECO]))[:8]
    arches = [next(p for p in e if p.kind is Kind.ARCH) for e in slid]
    assert [(a.x - ARCH_ON_OLD.x, a.y - ARCH_ON_OLD.y) for a in arches] == [
        (1, 0), (1, 0), (-1, 0), (-1, 0), (0, 1), (0, 1), (0, -1), (0, -1)]
    colours = [next(p.color for p in e if p.kind is Kind.DECORATION) for e in slid]
    # The slide moves the staircase's start: its decoration is tried in both outlines.
    assert colours[::2] == ["gold"] * 4 and "gold" not in colours[1::2]
    assert all(len(e) == 2 for e in slid)


def test_a_run_of_bricks_is_tried_as_an_arch_over_it() -> None:
    run = [Piece(Kind.BRICK, 5, 20, 0), Piece(Kind.BRICK, 6, 20, 0), Piece(Kind.BRICK, 7, 20, 0)]
    arches = [e for e in edits(run) if len(e) == 1 and e[0].kind is Kind.ARCH]
    assert {(a[0].x, a[0].y, a[0].axis) for a in arches} == {(5, 20, Axis.X), (4, 20, Axis.X)}


def test_two_bricks_an_arch_s_length_apart_are_tried_as_the_arch_on_them() -> None:
    legs = [Piece(Kind.BRICK, 12, 21, 0), Piece(Kind.BRICK, 15, 21, 0),
            Piece(Kind.ARCH, 15, 21, 1, axis=Axis.Y)]
    arches = [e for e in edits(legs) if len(e) == 2
              and {p.kind for p in e} == {Kind.ARCH}]
    assert [keys(e) for e in arches] == [keys([Piece(Kind.ARCH, 12, 21, 0, axis=Axis.X),
                                              legs[2]])]


def test_a_full_run_s_arch_is_tried_once() -> None:
    # Four bricks in a line are a run and two legs an arch's length apart at once.
    run = [Piece(Kind.BRICK, x, 20, 0) for x in range(5, 9)]
    arches = [e for e in edits(run) if len(e) == 1 and e[0].kind is Kind.ARCH]
    assert [(a[0].x, a[0].y, a[0].axis) for a in arches] == [(5, 20, Axis.X)]


def test_a_decoration_is_tried_on_the_arch_s_other_end() -> None:
    moved = [e for e in edits([ARCH_ON_OLD, DECO])
             if keys(e) == keys([ARCH_ON_OLD, DECO.moved(y=10)])]
    assert len(moved) == 1


def test_a_decoration_is_tried_as_a_final_arch_with_the_decoration_on_its_far_end() -> None:
    # The step below's decoration, as one view shows a final arch end on: the arch is
    # tried leading away each way from its knob, the decoration on its far end knob.
    finals = [e for e in edits([ARCH_ON_OLD, DECO]) if len(e) == 3]
    wanted = [ARCH_ON_OLD, Piece(Kind.ARCH, 10, 13, 2, axis=Axis.Y),
              Piece(Kind.DECORATION, 10, 16, 3, color="gold")]
    assert keys(wanted) in [keys(e) for e in finals]
    tops = {(p.x, p.y, p.z) for e in finals for p in e if p.kind is Kind.DECORATION}
    assert tops == {(13, 13, 3), (7, 13, 3), (10, 16, 3), (10, 10, 3)}


def test_a_final_arch_on_the_plate_is_tried_a_level_up_on_a_first_step_and_a_brick() -> None:
    final = [Piece(Kind.ARCH, 11, 16, 0, axis=Axis.X),
             Piece(Kind.DECORATION, 14, 16, 1, color="gold")]
    raised = [e for e in edits(final) if len(e) == 4]
    firsts = {(a.x, a.y, a.axis) for e in raised for a in e if a.kind is Kind.ARCH and a.z == 0}
    # Under the near leg (11, 16), leading away each way but back under the final arch.
    assert firsts == {(8, 16, Axis.X), (11, 16, Axis.Y), (11, 13, Axis.Y)}
    wanted = [Piece(Kind.ARCH, 11, 13, 0, axis=Axis.Y), Piece(Kind.ARCH, 11, 16, 1, axis=Axis.X),
              Piece(Kind.BRICK, 14, 16, 0), Piece(Kind.DECORATION, 14, 16, 2, color="gold")]
    assert keys(wanted) in [keys(e) for e in raised]


def test_a_brick_on_a_lowest_step_s_knob_is_tried_under_it_the_step_raised() -> None:
    read = [Piece(Kind.ARCH, 0, 19, 0, axis=Axis.Y), Piece(Kind.BRICK, 0, 19, 1),
            Piece(Kind.ARCH, 0, 19, 2, axis=Axis.X),
            Piece(Kind.DECORATION, 3, 19, 3, color="gold")]
    wanted = [Piece(Kind.BRICK, 0, 19, 0), Piece(Kind.ARCH, 0, 19, 1, axis=Axis.Y),
              Piece(Kind.ARCH, 0, 22, 0, axis=Axis.X), *read[2:]]
    assert keys(wanted) in [keys(e) for e in edits(read)]


def test_an_arch_holding_two_pieces_is_not_raised() -> None:
    # A step with a piece on each end knob is no lowest step: nothing can go under it.
    both = [Piece(Kind.ARCH, 10, 10, 0, axis=Axis.Y), Piece(Kind.BRICK, 10, 10, 1),
            Piece(Kind.BRICK, 10, 13, 1)]
    assert not [e for e in edits(both)
                if any(p.kind is Kind.BRICK and p.z == 0 for p in e)]


class Judge:
    """A reading whose judge prefers ``wanted``, the more of it the better."""

    def __init__(self, start: list[Piece], wanted: list[Piece]) -> None:
        self.before = BEFORE
        self.added = start
        self.wanted = keys(wanted)

    def judged(self, pieces: Sequence[Piece], floor: float = -1e9) -> float:
        return len(keys(pieces) & self.wanted) - len(keys(pieces) - self.wanted)

    def take(self, pieces: Sequence[Piece]) -> bool:
        self.added = list(pieces)
        return True


def test_refine_keeps_an_edit_only_when_the_whole_reading_scores_better() -> None:
    judge = Judge(list(PROPPED), [ARCH_ON_OLD, DECO])
    score = refine(judge, judge.judged(PROPPED))
    assert keys(judge.added) == keys([ARCH_ON_OLD, DECO]) and score == 2
    stray = Piece(Kind.BRICK, 20, 20, 0)
    extra = Judge([ARCH_ON_OLD, DECO, stray], [ARCH_ON_OLD, DECO])
    assert refine(extra, 1) == 2 and keys(extra.added) == keys([ARCH_ON_OLD, DECO])
    settled = Judge([ARCH_ON_OLD, DECO], [ARCH_ON_OLD, DECO])
    assert refine(settled, 2) == 2 and keys(settled.added) == keys([ARCH_ON_OLD, DECO])
