"""A whole reading's stacks told again: a column for three bricks and back, every one,
within what the box and the builder's hand hold, and a column and its bricks in the
other order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.maps import load_map
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece, place_key
from vision.candidates import built_on
from vision.decode import BEYOND_HAND_PRICE
from vision.rival_readings import reordered
from vision.stacks import Supply, restack

BEFORE = Palace(load_map("1"), [])


class Reading:
    """A reading judged by how many columns it has (``per_column`` each), taken as the
    decoder takes one: placed again from the palace before, with fresh ids."""

    def __init__(self, pieces: Sequence[Piece], per_column: float,
                 before: Palace = BEFORE, hand: Hand | None = None) -> None:
        self.before = before
        self.supply = Supply.of(before, hand)
        built = built_on(before, pieces)
        assert built is not None
        self.added = built[1]
        self.per_column = per_column

    def judge(self, pieces: Sequence[Piece]) -> float:
        return self.per_column * sum(p.kind is Kind.COLUMN for p in pieces)

    def take(self, pieces: Sequence[Piece]) -> bool:
        built = built_on(self.before, pieces)
        if built is None:
            return False
        self.added = built[1]
        return True


def two_stacks() -> list[Piece]:
    """Two columns six levels high under an arch's legs: what the moves build there."""
    return [Piece(Kind.COLUMN, 5, 5, 0), Piece(Kind.COLUMN, 5, 5, 3),
            Piece(Kind.COLUMN, 5, 8, 0), Piece(Kind.COLUMN, 5, 8, 3),
            Piece(Kind.ARCH, 5, 5, 6, axis=Axis.Y)]


def test_every_column_is_told_as_bricks_when_that_judges_better() -> None:
    # Each swap takes the reading again with fresh ids: the other columns must still be
    # found and swapped after the first.
    reading = Reading(two_stacks(), per_column=-1.0)
    assert restack(reading, reading.judge) == 4
    assert not any(p.kind is Kind.COLUMN for p in reading.added)
    assert sum(p.kind is Kind.BRICK for p in reading.added) == 12


def test_runs_of_bricks_become_columns_and_nothing_changes_when_no_swap_pays() -> None:
    bricks = Reading(two_stacks(), per_column=-1.0)
    restack(bricks, bricks.judge)
    back = Reading(bricks.added, per_column=1.0)
    assert restack(back, back.judge) == 4
    assert sorted(map(place_key, back.added), key=repr) == sorted(
        map(place_key, two_stacks()), key=repr)
    settled = Reading(two_stacks(), per_column=1.0)
    assert restack(settled, settled.judge) == 0


def _box_nearly_full(columns: int) -> Palace:
    """The board with ``columns`` columns standing on its far corner before the turn."""
    return Palace(load_map("1"), [Piece(Kind.COLUMN, 24 + i % 4, 24 + i // 4, 0)
                                  for i in range(columns)])


def test_restacking_keeps_to_the_columns_the_box_holds() -> None:
    bricks = [Piece(Kind.BRICK, 14, 13, z) for z in range(3)]
    spare = Reading(bricks, per_column=1.0, before=_box_nearly_full(15))
    assert restack(spare, spare.judge) == 1
    assert [p.kind for p in spare.added] == [Kind.COLUMN]
    # The sixteenth column stands already: the three bricks stay, whatever they judge.
    full = Reading(bricks, per_column=1.0, before=_box_nearly_full(16))
    assert restack(full, full.judge) == 0


def test_a_reading_beyond_the_box_is_restacked_whatever_it_judges() -> None:
    reading = Reading([Piece(Kind.COLUMN, 14, 13, 0)], per_column=1.0,
                      before=_box_nearly_full(16))
    assert restack(reading, reading.judge) == 1
    assert sorted((p.kind, p.z) for p in reading.added) == [(Kind.BRICK, z) for z in range(3)]


def test_what_the_bricks_are_owed_decides_a_swap_the_judge_leans_against() -> None:
    # The judge prefers each column by 1; bricks owed 1.5 over a column are read instead,
    # and owed 0.5 are not.
    owed = Reading(two_stacks(), per_column=1.0)
    assert restack(owed, owed.judge, lambda column: 1.5) == 4
    assert not any(p.kind is Kind.COLUMN for p in owed.added)
    short = Reading(two_stacks(), per_column=1.0)
    assert restack(short, short.judge, lambda column: 0.5) == 0


SIX_BRICKS = [Piece(Kind.BRICK, 14, 13, z) for z in range(6)]


def priced(reading: Reading, evidence: Callable[[Sequence[Piece]], float]
           ) -> Callable[[Sequence[Piece]], float]:
    """``evidence`` less the hand's price, as the decoder judges a reading."""
    return lambda pieces: evidence(pieces) - BEYOND_HAND_PRICE * reading.supply.beyond_hand(pieces)


def test_the_builders_hand_is_weighed_by_the_judge_not_as_a_bound() -> None:
    # Six bricks where the player held three and a column: one run becomes the column
    # where the evidence leans only a little towards bricks...
    hand = Hand(arches=2, bricks=3, columns=1)
    reading = Reading(SIX_BRICKS, per_column=-1.0, hand=hand)
    assert restack(reading, priced(reading, reading.judge)) == 1
    assert sorted(p.kind.value for p in reading.added) == ["brick"] * 3 + ["column"]
    # ...but bricks the picture plainly shows stay bricks: the game's record of a hand
    # may be wrong, and the rules then say what it lacks.
    plain = Reading(SIX_BRICKS, per_column=-200.0, hand=hand)
    assert restack(plain, priced(plain, plain.judge)) == 0
    # A column the player could not have (none held, the Frog not free) is told as bricks.
    column = Reading([Piece(Kind.COLUMN, 14, 13, 0)], per_column=1.0,
                     hand=Hand(arches=2, bricks=3, columns=0))
    assert restack(column, priced(column, column.judge)) == 1
    assert sorted((p.kind, p.z) for p in column.added) == [(Kind.BRICK, z) for z in range(3)]


def test_a_column_and_its_three_bricks_are_tried_in_the_other_order() -> None:
    # The hand holds three bricks and one column, so telling either run the other way
    # costs the hand's price; only the order is left to the evidence.
    hand = Hand(arches=2, bricks=3, columns=1)
    column_on_top = [*SIX_BRICKS[:3], Piece(Kind.COLUMN, 14, 13, 3)]
    low = Reading(column_on_top, per_column=0.0, hand=hand)
    judge = priced(low, lambda pieces: -sum(p.z for p in pieces if p.kind is Kind.COLUMN))
    assert restack(low, judge) == 1
    assert sorted((p.kind.value, p.z) for p in low.added) == [
        ("brick", 3), ("brick", 4), ("brick", 5), ("column", 0)]
    # And back, where the evidence prefers the column high.
    high = Reading(low.added, per_column=0.0, hand=hand)
    judge = priced(high, lambda pieces: sum(p.z for p in pieces if p.kind is Kind.COLUMN))
    assert restack(high, judge) == 1
    assert sorted((p.kind.value, p.z) for p in high.added) == [
        ("brick", 0), ("brick", 1), ("brick", 2), ("column", 3)]


def test_every_level_of_a_column_and_its_bricks_is_doubted_by_the_other_order() -> None:
    column_on_top = [*SIX_BRICKS[:3], Piece(Kind.COLUMN, 14, 13, 3)]
    for i in range(4):
        (trial, alternative), = reordered(column_on_top, i)
        assert (alternative.kind, alternative.z) == (Kind.COLUMN, 0)
        assert sorted((p.kind.value, p.z) for p in trial) == [
            ("brick", 3), ("brick", 4), ("brick", 5), ("column", 0)]
    # A column with no run of three bricks on or under it has no such rival.
    assert not list(reordered([*SIX_BRICKS[:2], Piece(Kind.COLUMN, 14, 13, 2)], 2))
