"""The parse's use of the rules on a made-up carving (no rendering: seconds)."""

from __future__ import annotations

import numpy as np

from rules import Kind, load_map
from vision.carve import LEVELS, Carving
from vision.full import corners_only
from vision.parse import PROP_DEPTH, parse


def _carving(sure: list[tuple[int, int, int]], kept: list[tuple[int, int, int]]) -> Carving:
    """Every voxel empty but ``sure`` ones, which every view fills, and ``kept`` ones,
    which no view sees through but none shows filled either."""
    full = np.zeros((32, 32, LEVELS), np.float32)
    for x, y, z in kept:
        full[x, y, z] = 0.6
    for x, y, z in sure:
        full[x, y, z] = 1.0
    return Carving(full=full, roof=full.copy(), green=np.zeros_like(full))


def test_a_leg_is_held_up_by_one_hidden_brick_but_not_by_a_tall_hidden_stack() -> None:
    """The carving keeps the space under anything it cannot see past, so an arch it
    is sure of, one level up, has its legs' bricks put back; one floating high over
    space the carving merely kept would need a stack of bricks no view saw, and is not
    read."""
    ground = load_map("1")
    base = corners_only(ground).pieces
    arch = [(x, 10, 1) for x in range(10, 14)]
    read = parse(_carving(arch, [(10, 10, 0), (13, 10, 0)]), ground, base)
    assert {(p.kind, p.x, p.z) for p in read} == {
        (Kind.BRICK, 10, 0), (Kind.BRICK, 13, 0), (Kind.ARCH, 10, 1)}
    high = [(x, 20, PROP_DEPTH + 1) for x in range(10, 14)]
    stack = [(x, 20, z) for x in (10, 13) for z in range(PROP_DEPTH + 1)]
    assert parse(_carving(high, stack), ground, base) == []


def test_a_leg_is_held_up_by_a_hidden_stack_of_two_bricks() -> None:
    """An arch the carving is sure of two levels up, over space it merely kept, stands on
    two hidden bricks a leg: the upper pieces of a palace stand on stacks its
    neighbours hide (on the development palaces one brick a leg read fewer of them)."""
    ground = load_map("1")
    base = corners_only(ground).pieces
    arch = [(x, 10, 2) for x in range(10, 14)]
    stack = [(x, 10, z) for x in (10, 13) for z in (0, 1)]
    read = parse(_carving(arch, stack), ground, base)
    assert {(p.kind, p.x, p.z) for p in read} == {
        (Kind.BRICK, 10, 0), (Kind.BRICK, 10, 1), (Kind.BRICK, 13, 0), (Kind.BRICK, 13, 1),
        (Kind.ARCH, 10, 2)}


def test_a_brick_over_a_hidden_stack_of_two_is_not_read() -> None:
    """Two hidden bricks hold up an arch's leg, not a brick's: a brick the carving is sure
    of two levels up, over space it merely kept, is the phantom layer over a palace (a
    staircase's upper steps are arches)."""
    ground = load_map("1")
    base = corners_only(ground).pieces
    read = parse(_carving([(20, 10, 2)], [(20, 10, 0), (20, 10, 1)]), ground, base)
    assert read == []
