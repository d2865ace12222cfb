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


def test_an_arch_is_not_lowered_through_what_is_not_a_brick_of_the_turn() -> None:
    column = [Piece(Kind.COLUMN, 10, 10, 0), Piece(Kind.COLUMN, 10, 13, 0),
              Piece(Kind.ARCH, 10, 10, 3, axis=Axis.Y)]
    lowered = [e for e in edits(column) if any(p.kind is Kind.ARCH and p.z < 3 for p in e)]
    assert lowered == []


def test_only_pieces_nothing_stands_on_are_left_out() -> None:
    dropped = [e for e in edits(PROPPED)
               if len(e) == len(PROPPED) - 1 and keys(e) <= keys(PROPPED)]
    assert [{place_key(p) for p in PROPPED} - keys(e) for e in dropped] == [
        {place_key(PROPPED[-1])}]  # the decoration: the arch and bricks hold something up


def test_slides_move_every_piece_one_stud() -> None:
    slid = list(edits([ARCH_ON_OLD, DECO]))[:4]
    assert {(p.x - ARCH_ON_OLD.x, p.y - ARCH_ON_OLD.y) for p in slid[0] if p.kind is Kind.ARCH} \
        == {(1, 0)}
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
