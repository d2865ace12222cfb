"""When the board's sides, or the plate's rim, may vouch for a lattice not trusted alone.

A lattice fit stands on its own when it is sharp (:data:`SOFT_LATTICE_CLARITY`), or
soft over most of the board (:data:`MIN_SOFT_GRID_BLOCKS`), and seen in
:data:`TRUSTED_GRID_BLOCKS` blocks or more. Softer or thinner, it can settle a fraction
of a stud off, locked on the gaps between studs in part of the board, or leave its
plane's tilt open; the rest of the picture may then vouch for it, and each rule here
says what must agree:

- Mild blur (a slow lens, a hand-held phone) softens the studs without moving them:
  all four sides stepping where the lattice puts them, and the map's regions crisp,
  vouch for a soft lattice (:func:`vouches_for_soft_lattice`).
- Small boards under hard light give the lattice a clarity of 3.7 to 5 at the right
  pose: all four sides where the lattice puts them, no side elsewhere, and a tight fit
  over most of the board vouch for it (:func:`sides_vouch_for_soft_lattice`); softer,
  or over fewer blocks, only if every quarter's stud tops also put the studs where the
  lattice does (:func:`sides_vouch_for_blurred_lattice`).
- A sharp lattice seen in 7 to 9 blocks is right to the stud wherever all four sides
  step where it puts them, but its plane is pinned loosely: the plate's rim, fitted at
  full size all round the board, may pin its tilt
  (:func:`rim_may_vouch_for_thin_lattice`).
- A soft lattice seen in 10 or 11 blocks leaves its plane's tilt open as a thin one
  does, and the quarters' stud tops do not see a tilt of a fraction of a stud: the rim
  fitted all round, all four sides and the whole board's stud tops may vouch for it
  (:func:`rim_may_vouch_for_soft_lattice`).

:func:`calibration.evidence.judge` and :func:`calibration.fit.finish` ask these rules;
the thresholds they share with :func:`calibration.evidence.lattice_problem` live here,
below both.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from calibration.alias import BoundaryCheck
from calibration.grid import GridFit

TRUSTED_GRID_BLOCKS = 10
"""Blocks from which on a lattice fit may use the whole residual allowance."""
SOFT_LATTICE_CLARITY = 5.0
MIN_SOFT_GRID_BLOCKS = 12
"""A soft lattice seen in a few blocks only can settle a few pixels off: it needs most
of the board to vouch for it."""
VOUCHED_RMS_PX = 0.6
CRISP_MAP_MARGIN = 10.0
"""A map margin this clear says the card's regions are sharp in the picture: blur
smears their colours across region boundaries and brings the margin down first."""
SIDES_VOUCHED_CLARITY = 4.3
"""The least clarity a soft lattice may have when all four sides vouch for it."""
BLURRED_SIDES_CLARITY = 3.7
"""The least clarity a lattice may have when all four sides and every quarter's stud
tops vouch for it (:func:`sides_vouch_for_blurred_lattice`)."""
MIN_BLURRED_GRID_BLOCKS = 11
"""Blocks a lattice vouched for by the sides and every quarter's stud tops needs from a
clarity of :data:`SIDES_VOUCHED_CLARITY` on; under it, :data:`MIN_SOFT_GRID_BLOCKS`.
With 10, two dev boards (clarity 4.6 to 4.8) were taken 1.1 to 1.7 px off: ten blocks
leave a soft lattice's plane loose, and the stud tops cannot see a fifth of a stud."""
VOUCHED_GRID_BLOCKS = 10
"""The fewest blocks of a lattice that the rest of the picture may vouch for."""
RIM_SOFT_BLOCKS = VOUCHED_GRID_BLOCKS
"""The fewest blocks of a soft lattice that the plate's rim, all four sides and the whole
board's stud tops may vouch for together (:func:`rim_may_vouch_for_soft_lattice`): the
lattice's own allowance for a vouched fit."""
THIN_WITNESSED_BLOCKS = 7
"""The fewest blocks of a sharp lattice that the plate's rim, all four sides and three
corner bricks may vouch for together (:func:`rim_may_vouch_for_thin_lattice`)."""
PLACED_BLOCKS = 7
"""The fewest blocks of a thin, soft top-blind fit that the rim's slide along the board's
axes may place (:func:`calibration.rim_place.places_thin_fit`): from 7 blocks, 514 such
fits from starts near the truth on dev 3000-3099 and 20000-20149 passed the rule, all
within 0.91 px; of 369 fits over 2 px off, none passed."""
BLIND_SHARP_CLARITY = 7.0
"""The clarity from which a top-blind refit is judged at its own clarity, by a sharp
lattice's rules, rather than as a soft lattice (:func:`as_soft`). Dark tops on boards
10 to 14 px a stud mislead the usual template into a fit a side or two off, or over too
few blocks, while the blind one reads them at 7 to 8 over 10 to 14 blocks within half a
pixel: as a soft lattice, a side unclear under a card or 10 blocks refused it (dev
20197, 3198). The blind fit that the soft rules stand against read 5.5 (dev 20118, 2.7
px off); among the blind refits of every lattice start and perturbed truth of 200 dev
frames, none at 6 or more was taken off the truth when judged at its own clarity."""


def vouches_for_soft_lattice(boundary: BoundaryCheck, margin: float) -> bool:
    """Whether the rest of the picture is sharp enough to trust a soft lattice further.

    All four sides stepping where the lattice puts them, and the map's regions crisp:
    over 200 frames blurred beyond the twin's range (3 to 5 px), no pose passing both
    was more than 2 px off, while without them a soft lattice was 2 to 9 px off in 11.
    """
    return boundary.good == 4 and margin >= CRISP_MAP_MARGIN


def sides_vouch_for_soft_lattice(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """Whether the board's four sides vouch for a soft lattice over most of the board.

    Small boards under hard light (stud tops darker than the card, holes the card's
    colour) give the lattice a clarity of 4.3 to 5 at the right pose. The soft lattices
    that settle off the truth do so by a fraction of a stud, locked on the gaps between
    studs in part of the board: on the wide twin they were seen in 10 or 11 blocks, or
    had a side off or unclear, or a clarity under 4.2 (2.4 to 8 px off, over 160 dev
    frames with every start of the search and perturbed true poses finished). So all
    four sides must step where the lattice puts them, no side elsewhere, and the
    lattice must agree tightly over at least 12 of 16 blocks.
    """
    return (
        _tight_within_four_sides(grid, boundary)
        and grid.blocks >= MIN_SOFT_GRID_BLOCKS
        and grid.clarity >= SIDES_VOUCHED_CLARITY
    )


def _tight_within_four_sides(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """All four sides step where the lattice puts them, none elsewhere, and the lattice
    fits its blocks tightly: what both kinds of sides' vouching start from."""
    return boundary.good == 4 and boundary.bad == 0 and grid.residual_px <= VOUCHED_RMS_PX


def sides_vouch_for_blurred_lattice(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """Whether the four sides may vouch for a lattice softer or thinner than
    :func:`sides_vouch_for_soft_lattice` allows, *provided* every quarter of the board's
    stud tops also puts the studs where the lattice does (asked in ``calibration.fit``).

    Small boards under a hard light give right lattices a clarity of 3.7 to 4.3, or 11
    blocks a little sharper. There the lattice can settle a fraction of a stud
    off in part of the board with all four sides still stepping where it puts them, and
    the whole board's stud tops can still sit near their least spread; the quarters,
    each read on its own, see the part that is off.
    """
    if not _tight_within_four_sides(grid, boundary):
        return False
    if grid.clarity >= SIDES_VOUCHED_CLARITY:
        return grid.blocks >= MIN_BLURRED_GRID_BLOCKS
    return grid.clarity >= BLURRED_SIDES_CLARITY and grid.blocks >= MIN_SOFT_GRID_BLOCKS


def rim_may_vouch_for_thin_lattice(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """Whether a thin lattice is sharp, tight and boxed in enough by its sides for the
    plate's rim to be asked to vouch for it (``rim_witness`` of
    :func:`calibration.evidence.judge`).

    A sharp lattice seen in 7 to 9 blocks (a hand or a palace over the rest) is right to
    the stud wherever all four sides step where it puts them (moved a stud, two sides
    read off), but its plane is pinned loosely: what it leaves open is the tilt, which
    the plate's rim, fitted at full size all round the board, pins (asked in
    ``calibration.fit``).
    """
    return (
        THIN_WITNESSED_BLOCKS <= grid.blocks < TRUSTED_GRID_BLOCKS
        and grid.clarity >= SOFT_LATTICE_CLARITY
        and _tight_within_four_sides(grid, boundary)
    )


def rim_may_vouch_for_soft_lattice(grid: GridFit, boundary: BoundaryCheck) -> bool:
    """Whether a soft lattice seen in too few blocks for the sides alone is boxed in
    enough by them for the plate's rim to be asked to vouch for it (as for a thin sharp
    lattice: ``calibration.fit`` asks the rim, and the whole board's stud tops).

    Soft lattices over 10 or 11 blocks within a pixel of the truth had all four sides
    and the stud tops agreeing, and so had the top-blind fits of one small board tilted
    2.6 to 2.8 px off (dev 20118, 7 px a stud, every quarter's stud tops agreeing too):
    what parts them is the tilt, which the rim fitted all round pins (those fits moved
    a corner stud 2.8 to 3.2 px, the right ones 1.3). Of 62 such fits over the 400 dev
    frames (from truths, perturbed and moved truths; 6 over 2 px off), the stud tops
    alone passed one 3.4 px off, the rim and the stud tops together none over 1.2 px.
    Under 10 blocks (fits passing both 1.97 px off), or softer than the sides may vouch
    for, the rim is not asked.
    """
    return (
        RIM_SOFT_BLOCKS <= grid.blocks < MIN_SOFT_GRID_BLOCKS
        and SIDES_VOUCHED_CLARITY <= grid.clarity < SOFT_LATTICE_CLARITY
        and _tight_within_four_sides(grid, boundary)
    )


def as_soft(grid: GridFit) -> GridFit:
    """The top-blind fit with its clarity taken no higher than a soft lattice's, unless it
    reads :data:`BLIND_SHARP_CLARITY` or more: then it is judged at its own clarity."""
    if grid.clarity >= BLIND_SHARP_CLARITY:
        return grid
    soft = float(np.nextafter(SOFT_LATTICE_CLARITY, 0.0))
    return dataclasses.replace(grid, clarity=min(grid.clarity, soft))
