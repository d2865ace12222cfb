"""A column's level colours (vision/colours.py): what tells three bricks from a column."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from rules.pieces import Kind, Piece
from vision.colours import BOARD_ROWS, LevelColours

WIDTH = 10
RED = (190.0, 88.0)
GREEN = (120.0, 130.0)


def _light(total: float) -> float:
    """colour_features' light unit for a pixel whose three channels sum to ``total``."""
    return 100.0 * math.log(total + 6.0)


def _colours(levels: dict[int, list[tuple[int, tuple[float, float, float]]]]) -> LevelColours:
    """LevelColours over one fake view: each level's side pixels given as rows of the
    region, each row ``WIDTH`` pixels of one colour (colour_features' units)."""
    rows = max(r for pixels in levels.values() for r, _ in pixels) + 1
    colour = np.zeros((rows * WIDTH, 3), np.float32)
    sides: dict[int, np.ndarray] = {}
    for level, pixels in levels.items():
        idx = []
        for row, feature in pixels:
            span = np.arange(row * WIDTH, (row + 1) * WIDTH)
            colour[span] = feature
            idx.append(span)
        sides[level] = np.sort(np.concatenate(idx))  # ascending, as a view gives them
    view = SimpleNamespace(shape=(rows, WIDTH),
                           side_pixels=lambda voxel: sides[voxel[2]])
    return LevelColours([SimpleNamespace(colour=colour, view=view)])  # type: ignore[list-item]


COLUMN = Piece(Kind.COLUMN, 4, 4, 0)


def test_a_ground_levels_board_tinted_rows_are_left_out() -> None:
    lit = _light(200.0)
    # A column on the board: its bottom level's lowest rows tinted green, more rows
    # of them than of its own colour.
    tinted = [(9 - k, (*GREEN, lit)) for k in range(BOARD_ROWS + 1)]
    levels = {0: [(5, (*RED, lit)), (6, (*RED, lit)), *tinted],
              1: [(3, (*RED, lit)), (4, (*RED, lit))],
              2: [(0, (*RED, lit)), (1, (*RED, lit))]}
    assert _colours(levels).steps(COLUMN) == 0.0
    # A brick of its own colour at the bottom still shows, its lowest rows left out.
    bricks = dict(levels)
    bricks[0] = [(5, (*GREEN, lit)), (6, (*GREEN, lit)), *tinted]
    assert _colours(bricks).steps(COLUMN) == 1.0
    # A level off the board keeps its lowest rows: a column standing on a brick.
    high = Piece(Kind.COLUMN, 4, 4, 1)
    up = {1: levels[0], 2: levels[1], 3: levels[2]}
    assert _colours(up).steps(high) == 1.0


def test_a_ground_levels_light_is_all_its_rows() -> None:
    # A column whose bottom level's upper rows lie lighter by the shading: its light is
    # the whole level's, the same as the levels above, and it stays one piece.
    lit, lighter = _light(200.0), _light(200.0) + 50.0
    levels = {0: [(5, (*RED, lighter)), (6, (*RED, lighter)), (7, (*RED, lit)),
                  (8, (*RED, lit)), (9, (*RED, lit))],
              1: [(3, (*RED, lit)), (4, (*RED, lit))],
              2: [(0, (*RED, lit)), (1, (*RED, lit))]}
    assert _colours(levels).steps(COLUMN) == 0.0


def _rows(first: int, count: int, feature: tuple[float, float, float]
          ) -> list[tuple[int, tuple[float, float, float]]]:
    return [(first + k, feature) for k in range(count)]


def test_a_step_in_hue_alone_tells_bricks() -> None:
    # Three clearly seen levels (30 side pixels each), the top one 30 units off the two
    # under it in hue and alike in light: 30 in all is within the whole spread's
    # tolerance (a lamp's lit and shaded sides), but hue is what shading hardly moves.
    lit = _light(300.0)
    other = (RED[0] - 24.0, RED[1] + 18.0)  # 30 units of chromaticity away
    levels = {0: _rows(6, 3, (*RED, lit)), 1: _rows(3, 3, (*RED, lit)),
              2: _rows(0, 3, (*other, lit))}
    assert _colours(levels).steps(COLUMN) == 0.5
    # The same levels differing as much in light alone stay one piece.
    shaded = {**levels, 2: _rows(0, 3, (*RED, lit - 30.0))}
    assert _colours(shaded).steps(COLUMN) == 0.0
    # A level of 20 side pixels, or one in deep shade, tells no hue.
    few = {**levels, 2: _rows(0, 2, (*other, lit))}
    assert _colours(few).steps(COLUMN) == 0.0
    dark = _light(30.0)
    deep = {0: _rows(6, 3, (*RED, dark)), 1: _rows(3, 3, (*RED, dark)),
            2: _rows(0, 3, (*other, dark))}
    assert _colours(deep).steps(COLUMN) == 0.0
