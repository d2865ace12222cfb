"""Whether the board's sides, their pairs, the corner bricks or the rows of stud tops pin
a lattice's place, where the sides one by one do not (:func:`pinned_check`).

The per-side rule (three sides where the lattice puts the board, none elsewhere) lives in
:mod:`calibration.alias`; what may stand in for it, and over which lattices, lives here,
so that :mod:`calibration.fit` finds every stand-in for a failed side in one place.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray

from calibration.alias import SIZE_PINNING_BLOCKS, BoundaryCheck
from calibration.camera import Camera, Pose
from calibration.corner_pins import bricks_pin
from calibration.grid import GridFit
from calibration.side_pairs import side_pairs
from calibration.stud_rows import rows_pin
from calibration.vouching import SOFT_LATTICE_CLARITY, VOUCHED_RMS_PX

PAIRED_BLOCKS = 12
"""Lattice blocks from which on the sides may pin the board in pairs: the lattice then
fixes the board's size and tilt, so that its two sides along an axis move together."""


def pins_own_size(grid: GridFit) -> bool:
    """Whether the lattice is sharp, tight and broad enough for its sides to be judged
    in pairs (:mod:`calibration.side_pairs`); softer ones keep the per-side rule."""
    return (
        grid.blocks >= PAIRED_BLOCKS
        and grid.clarity >= SOFT_LATTICE_CLARITY
        and grid.residual_px <= VOUCHED_RMS_PX
    )


CORNER_SIDES_BLOCKS = SIZE_PINNING_BLOCKS
"""Lattice blocks from which on one good side along each axis, the other two sides
unclear and none a stud off, pins a sharp, tight lattice (:func:`one_side_each_way`):
the count from which the lattice fixes the board's size."""


def one_side_each_way(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """Whether two neighbouring sides where the lattice puts them, and no side elsewhere,
    pin a lattice that covers most of the board.

    A striped or checked table steps as hard as the rim a stud or two outside it, so the
    sides there read unclear however sharp the board is. Over a sharp lattice fitted
    tightly over most of the board, the board's size and tilt are the lattice's, and one
    side clearly right along each axis fixes its place: a board a stud off would move
    that side onto the card or the table, and the real rim a stud over would outstep it.
    """
    return (
        boundary.bad == 0
        and boundary.both_axes
        and grid.blocks >= CORNER_SIDES_BLOCKS
        and grid.clarity >= SOFT_LATTICE_CLARITY
        and grid.residual_px <= VOUCHED_RMS_PX
    )


def _axes_pinned(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, boundary: BoundaryCheck
) -> bool:
    """Whether each axis has a side where the pose puts it, or corner bricks that pin it
    (:mod:`calibration.corner_pins`), and no side elsewhere. Asked only of boundaries
    that did not pass, so at least one axis has no good side."""
    states = boundary.states
    sides_pin = ("good" in (states[1], states[3]), "good" in (states[0], states[2]))
    bricks = bricks_pin(image, camera, pose)
    return all(s or b for s, b in zip(sides_pin, bricks, strict=True))


def pinned_check(
    image: NDArray[np.uint8], camera: Camera, grid: GridFit, check: BoundaryCheck, *,
    corners: bool = False,
) -> tuple[BoundaryCheck, tuple[int, int]]:
    """``check`` with ``paired`` worked out, and the side pairs' stud move ((0, 0): none).

    A right pose can have a side outdone by the card's regions just inside it, or drowned
    by a table of the card's colour: both pairs of opposite sides, stepping together, say
    where the board lies (a board a stud off moves both). With ``corners`` (the first
    pose; moved ones never asked it), a board past the frame on two opposite sides may be
    pinned by its corner bricks. Last, where the sides do not pin the board (a side past
    the frame, a striped table, a card beside one), the rows of stud tops may.
    """
    move = (0, 0)
    if not check.passed and pins_own_size(grid):
        pairs = side_pairs(image, camera, grid.pose)
        check, move = dataclasses.replace(check, paired=pairs.pinned), pairs.move
    if (corners and not check.passed and not check.paired and check.bad == 0
            and pins_own_size(grid) and not one_side_each_way(grid, check)):
        check = dataclasses.replace(check, paired=_axes_pinned(image, camera, grid.pose, check))
    if not check.holds(grid.blocks) and pins_own_size(grid):
        check = dataclasses.replace(
            check, paired=rows_pin(image, camera, grid.pose, check.states))
    return check, move
