"""A column (1x1x3) told from three stacked 1x1 bricks: by the levels' colours with a
dark level's hue left out, by the pieces the box holds, and left uncertain where the
picture cannot tell."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pytest

from rules import Kind, Piece
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
