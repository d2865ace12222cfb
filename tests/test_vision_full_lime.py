"""Lime plants put on the reading's open arch end knobs by their top colour, after the
search: only on an arch's end knob, the limest first, none within a leaf's reach of
another plant."""

from __future__ import annotations

import numpy as np

from rules import load_map
from rules.pieces import COLOR_RGB, Axis, DecorationColor, Kind, Piece
from vision.carve import LEVELS
from vision.full import corners_only, lime_confidence, lime_tops

LIME = DecorationColor.LIGHT_GREEN.value
TAN = (158, 205, 228)
"""The tan building colour as BGR: what an empty top shows in these tests."""


def _bgr(name: str) -> tuple[int, int, int]:
    r, g, b = COLOR_RGB[name]
    return b, g, r


def _read(limes: dict[tuple[int, int, int], str], pieces: list[Piece]) -> list[Piece]:
    ground = load_map("1")
    colours = np.zeros((32, 32, LEVELS, 3), np.float32)
    colours[...] = TAN
    for (x, y, z), name in limes.items():
        colours[x, y, z] = _bgr(name)
    return lime_tops(ground, corners_only(ground).pieces, pieces, colours)


ARCH = Piece(Kind.ARCH, 10, 10, 0, axis=Axis.X)
BRICK = Piece(Kind.BRICK, 20, 20, 0)


def test_a_lime_top_on_an_arch_end_is_a_plant() -> None:
    got = _read({(10, 10, 1): LIME, (13, 10, 1): "tan"}, [ARCH])
    assert [(p.kind, p.x, p.y, p.z, p.color) for p in got] == [
        (Kind.DECORATION, 10, 10, 1, LIME)]


def test_lime_on_a_brick_or_an_arch_middle_is_no_plant() -> None:
    assert _read({(20, 20, 1): LIME, (11, 10, 1): LIME, (12, 10, 1): LIME},
                 [ARCH, BRICK]) == []


def test_other_decoration_colours_put_nothing() -> None:
    assert _read({(10, 10, 1): DecorationColor.GOLD.value,
                  (13, 10, 1): DecorationColor.DARK_GREEN.value}, [ARCH]) == []


def test_a_knob_within_a_leafs_reach_of_a_plant_gets_none() -> None:
    near = Piece(Kind.ARCH, 10, 12, 0, axis=Axis.X)
    got = _read({(10, 10, 1): LIME, (10, 12, 1): LIME}, [ARCH, near])
    assert len(got) == 1
    plant = Piece(Kind.DECORATION, 13, 12, 1, color=LIME)
    assert _read({(13, 10, 1): LIME}, [ARCH, near, plant]) == []


def test_both_ends_of_an_arch_far_apart_each_get_one() -> None:
    got = _read({(10, 10, 1): LIME, (13, 10, 1): LIME}, [ARCH])
    assert sorted((p.x, p.z) for p in got) == [(10, 1), (13, 1)]


def test_a_plant_put_by_its_colour_is_as_sure_as_its_top_is_lime() -> None:
    colours = np.zeros((32, 32, LEVELS, 3), np.float32)
    colours[1, 1, 1] = _bgr(LIME)
    colours[2, 2, 1] = _bgr(DecorationColor.GOLD.value)
    colours[3, 3, 1] = (np.array(_bgr(LIME)) + np.array(_bgr(DecorationColor.GOLD.value))) / 2
    sure = [lime_confidence(colours, Piece(Kind.DECORATION, i, i, 1, color=LIME))
            for i in (1, 2, 3)]
    assert sure[0] == 1.0 and sure[1] == 0.0
    assert 0.3 < sure[2] < 0.7
