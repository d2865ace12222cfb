"""A whole reading's stacks told again: a column for three bricks and back, every one."""

from __future__ import annotations

from collections.abc import Sequence

from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece, place_key
from vision.candidates import built_on
from vision.stacks import restack

BEFORE = Palace(load_map("1"), [])


class Reading:
    """A reading judged by how many columns it has (``per_column`` each), taken as the
    decoder takes one: placed again from the palace before, with fresh ids."""

    def __init__(self, pieces: Sequence[Piece], per_column: float) -> None:
        built = built_on(BEFORE, pieces)
        assert built is not None
        self.added = built[1]
        self.per_column = per_column

    def judge(self, pieces: Sequence[Piece]) -> float:
        return self.per_column * sum(p.kind is Kind.COLUMN for p in pieces)

    def take(self, pieces: Sequence[Piece]) -> bool:
        built = built_on(BEFORE, pieces)
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
