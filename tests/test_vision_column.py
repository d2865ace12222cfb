"""A column (1x1x3) told from three stacked 1x1 bricks: by the levels' colours with a
dark level's hue left out, by the pieces the box and the builder's hand hold, and left
uncertain where the picture cannot tell."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pytest

from rules import Kind, Piece
from rules.moves import Hand
from tests.turn_fixtures import read_on_setup
from twin import RenderOptions
from vision import colours, stacks
from vision.colours import LevelColours
from vision.reading import UNCERTAIN_BELOW

PLAIN = RenderOptions(clutter=False, color_jitter=0.0, settled=True, seams=False)
"""A frame without seams: nothing but the colours tells three tan bricks from a column."""
TAN_STACK = [Piece(Kind.BRICK, 14, 13, z, color="tan") for z in range(3)]
BOX_OF_COLUMNS = [Piece(Kind.COLUMN, 24 + i % 4, 24 + i // 4, 0) for i in range(16)]
"""The box's sixteen columns, standing on the far corner of the board before the turn."""


def test_three_bricks_of_one_colour_without_seams_are_an_uncertain_column() -> None:
    reading = read_on_setup(TAN_STACK, PLAIN)
    (column,) = reading.added
    assert (column.piece.kind, column.piece.z) == (Kind.COLUMN, 0)
    assert reading.uncertain and column.confidence < UNCERTAIN_BELOW
    # The other reading (three bricks, named by the lowest) is the one offered instead.
    assert any(a.kind is Kind.BRICK and (a.x, a.y, a.z) == (14, 13, 0)
               for a in column.alternatives)


def _steps(monkeypatch: pytest.MonkeyPatch,
           levels: Sequence[tuple[float, float, float] | None]) -> float:
    """:meth:`LevelColours.steps` of a column at level 0 whose levels read ``levels``
    (colour features, None: hidden) in one view that shows each level's side well."""
    view = SimpleNamespace(side_pixels=lambda key: np.arange(60))
    found = LevelColours([SimpleNamespace(colour=np.zeros((1, 3)), view=view)])  # type: ignore[list-item]
    known = [None if c is None else np.array(c, np.float32) for c in levels]
    monkeypatch.setattr(LevelColours, "_colour_of",
                        lambda self, i, x, y, level: known[level])
    return found.steps(Piece(Kind.COLUMN, 2, 18, 0))


def test_a_dark_columns_levels_differ_by_their_light_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Game 6000 turn 27: a reddish-brown column in deep shade (levels summing to 31-35),
    # its level on the board tinted green.
    shade = [(102.0, 93.0, 368.0), (147.0, 68.0, 371.0), (141.0, 59.0, 362.0)]
    assert _steps(monkeypatch, shade) == 0.0
    # Game 6000 turn 25: a reddish-brown brick (summing to 40.5) under a dark orange one
    # still tells three bricks by its hue.
    bricks = [None, (126.0, 75.0, 384.0), (155.0, 90.0, 421.0)]
    assert _steps(monkeypatch, bricks) > 0.5
    monkeypatch.setattr(colours, "DARK_LIGHT_ONLY", False)
    assert _steps(monkeypatch, shade) > 0.5


def test_three_bricks_are_read_where_the_box_has_no_column_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = read_on_setup(TAN_STACK, PLAIN, old=BOX_OF_COLUMNS)
    assert sorted((r.piece.kind, r.piece.z) for r in read.added) == [
        (Kind.BRICK, z) for z in range(3)]
    # Without the box's count the same frame reads the column, as with columns to spare.
    monkeypatch.setattr(stacks, "TRAY_COUNTS", False)
    read = read_on_setup(TAN_STACK, PLAIN, old=BOX_OF_COLUMNS)
    assert [(r.piece.kind, r.piece.z) for r in read.added] == [(Kind.COLUMN, 0)]


WALLS = [Piece(Kind.COLUMN, x, y, 0, color="dark_tan")
         for x, y in ((13, 13), (15, 13), (14, 12), (14, 14))]
"""Four columns standing round (14, 13) before the turn: a stack built there shows its
top and nothing of its sides."""
MIXED_STACK = [Piece(Kind.BRICK, 14, 13, z, color=c)
               for z, c in enumerate(("reddish_brown", "tan", "dark_orange"))]


def test_a_stack_whose_sides_no_view_shows_is_read_as_bricks_and_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reading = read_on_setup(MIXED_STACK, PLAIN, old=WALLS)
    assert sorted((r.piece.kind, r.piece.z) for r in reading.added) == [
        (Kind.BRICK, z) for z in range(3)]
    # Nothing in the picture told the bricks: they are put to the players.
    assert reading.uncertain
    # Without the hidden stack's rule the fewer pieces win: the same frame reads a column.
    monkeypatch.setattr(stacks, "HIDDEN_STACKS_AS_BRICKS", False)
    reading = read_on_setup(MIXED_STACK, PLAIN, old=WALLS)
    assert [(r.piece.kind, r.piece.z) for r in reading.added] == [(Kind.COLUMN, 0)]


HIDDEN_COLUMN = [Piece(Kind.COLUMN, 14, 13, 0, color="dark_orange")]


@pytest.mark.parametrize(("hand", "built", "read"), [
    (Hand(arches=2, bricks=1, columns=1), HIDDEN_COLUMN, [(Kind.COLUMN, 0)]),
    (Hand(arches=2, bricks=3, columns=0), MIXED_STACK, [(Kind.BRICK, z) for z in range(3)]),
    (Hand(arches=2, bricks=0, columns=1), MIXED_STACK, [(Kind.COLUMN, 0)]),
])
def test_a_hidden_stack_is_what_the_builders_hand_could_build(
        hand: Hand, built: list[Piece], read: list[tuple[Kind, int]]) -> None:
    """Where no view shows a stack's sides, the hand decides: a player holding one
    brick or none built no run of three, one holding no column (nor the Frog's) built
    none, and the bricks are not doubted against a column they could not be."""
    reading = read_on_setup(built, PLAIN, old=WALLS, hand=hand)
    assert sorted((r.piece.kind, r.piece.z) for r in reading.added) == read
    if read[0][0] is Kind.BRICK:
        assert not any(a.kind is Kind.COLUMN for r in reading.added for a in r.alternatives)


def test_a_hidden_column_with_no_hand_known_is_read_as_the_commoner_bricks() -> None:
    """The same picture read as ``palace reconstruct`` reads a photo, with no game: the
    box's odds make it three bricks, put to the players."""
    reading = read_on_setup(HIDDEN_COLUMN, PLAIN, old=WALLS)
    assert sorted((r.piece.kind, r.piece.z) for r in reading.added) == [
        (Kind.BRICK, z) for z in range(3)]
    assert reading.uncertain
    assert all(any(a.kind is Kind.COLUMN for a in r.alternatives) for r in reading.added)
