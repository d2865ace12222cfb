"""The map's regions as a check on the cells read: a patch too small to be a region, two
colour groups scattered through each other cell by cell, and a small colour group
scattered in lone cells, left out of the naming.

A Ground Map is printed as regions of whole cells, nearly all of them many studs wide, so
a few cells of one name cut off from every other cell of that name are seldom a region
of their own: far more often they are two inks split across two colour groups cell by
cell (the light on a glossy card, two greens squeezed together), the edge of a shadow, a
leaf or a piece's foot. Two groups whose cells meet as often as if they were scattered
at random are no two regions either: their colours do not tell the inks apart. Read
wrong such studs would mislead the rules; as ``?`` they cost a question.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.map_inks import name_groups
from rules.maps import UNKNOWN_GROUND
from rules.pieces import BOARD_STUDS

MIN_PATCH = 3
"""The fewest cells of one name, joined through their eight neighbours, that are read.
Development maps 51140-51199 (480 views, one each), with the interleaved groups left
unknown: studs read wrong 2,656 at 1 (two alike vouch for each other), 2,480 at 3 and
2,335 at 4, for 907 and 1,794 fewer read; hidden studs read wrongly 65, 53 and 43. Four
would take the studs read down 1.3 points, more than the 1 point of studs read
we accept for it.
The random twin maps have regions under three cells (32 of 467 regions on the
development maps, the corners' blocked studs aside), never read now; the stand-in maps
have none."""


def small_patches(chars: NDArray[np.str_], min_cells: int | None = None) -> NDArray[np.bool_]:
    """Cells of a 2-D grid of names in patches of one name smaller than ``min_cells``
    (default ``MIN_PATCH``; eight-connected; ``?`` belongs to no patch)."""
    min_cells = MIN_PATCH if min_cells is None else min_cells
    out = np.zeros(chars.shape, bool)
    for name in np.unique(chars):
        if name == UNKNOWN_GROUND:
            continue
        mask = (chars == name).astype(np.uint8)
        _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        small = stats[:, cv2.CC_STAT_AREA] < min_cells
        small[0] = False  # the background
        out |= small[labels]
    return out


def in_patches(board_cells: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Whether each of ``board_cells`` (indices on the board, row-major) lies in a patch of
    at least ``MIN_PATCH`` of them (eight-connected): a region is a patch, a scatter of
    odd cells is not."""
    grid = np.full(BOARD_STUDS * BOARD_STUDS, UNKNOWN_GROUND, dtype="<U1")
    grid[board_cells] = "g"
    small = small_patches(grid.reshape(BOARD_STUDS, BOARD_STUDS)).reshape(-1)
    return ~small[board_cells]


INTERLEAVED = 0.55
"""Two colour groups whose cells meet at least this share as often as cells scattered at
random over the pair's cells would are interleaved cell by cell: regions meet along a
border, far less often, while one ink cut in two by the light, or two inks the light has
made alike, meet so. On the development maps the pairs of groups of 30 cells or more
reach 0.43 and under, but for four (51142's two views, 51153's two glossy ones) at 0.60
to 0.78, each a mix of two inks in both groups or one ink named two; 0.45, 0.5 and 0.55
read alike there: studs read wrong 3,019 to 2,480 for 937 fewer read. Held out
(52000-52039, cached locations): 3,969 wrong before this module, 3,558 after, for 1,559
fewer read."""
INTERLEAVED_AT_LEAST = 30
"""...counted only for groups of this many cells: a handful of cells meets its
neighbours as often as chance would, region or not. 15, 20, 30 and 50 read alike on the
development maps; 100 keeps 51142's set-up view (82 right studs) read."""


def interleaved(labels: NDArray[np.int32], cells: NDArray[np.intp]) -> NDArray[np.bool_]:
    """The cells of groups interleaved with another group (``labels`` per read cell,
    ``cells`` its index on the board): their colours cannot tell the two apart."""
    grid = np.full(BOARD_STUDS * BOARD_STUDS, -1)
    grid[cells] = labels
    grid = grid.reshape(BOARD_STUDS, BOARD_STUDS)
    a = np.concatenate([grid[:, :-1].ravel(), grid[:-1, :].ravel()])
    b = np.concatenate([grid[:, 1:].ravel(), grid[1:, :].ravel()])
    both = (a >= 0) & (b >= 0)
    a, b = a[both], b[both]
    sizes = np.bincount(labels, minlength=int(labels.max(initial=0)) + 1)
    mixed = np.zeros(len(sizes), bool)
    for i in range(len(sizes)):
        for j in range(i + 1, len(sizes)):
            if min(sizes[i], sizes[j]) < INTERLEAVED_AT_LEAST:
                continue
            pair = np.isin(a, (i, j)) & np.isin(b, (i, j))
            meet = int((pair & (a != b)).sum())
            chance = 2 * sizes[i] * sizes[j] / (sizes[i] + sizes[j]) ** 2 * int(pair.sum())
            if meet >= INTERLEAVED * chance:
                mixed[[i, j]] = True
    return mixed[labels]


SCATTERED_SHARE = 0.10
SCATTERED_IN_PATCHES = 0.35
"""A colour group of under ``SCATTERED_SHARE`` of the inked cells with no more than
``SCATTERED_IN_PATCHES`` of its cells in patches of ``MIN_PATCH`` (its own cells, eight-
connected) is scattered: no region of the map, but lone cells of two inks, region
borders or a lamp's glint, and it is left out of the naming (:func:`named_regions`).
Named with the others it pulls the naming: 51172's palace view (and its glossy twin)
holds 20 such cells (6 %, 3 in patches; gold and light green mixed, more colourful than
either) that took light green's name, so the light-green region was named dark green
(194 studs wrong in each). Of the dev maps' (51140-51199) groups under a fifth of the
inked cells, most of one ink have half or more of their cells in patches; a few are cut
into lone cells where little of the board shows (51194's gold, 34 cells, 13 % of the
inked ones, none in a patch: kept by the share; 51177's 12 gold cells, 0.25 in patches,
now unread). Studs wrong / read, dev (offline, from the cached locations): 1,713 /
140,742 before; 1,325 / 140,738 at 0.2 and 0.25; 1,308 / 140,644 from 0.3 to 0.5;
shares 0.08 to 0.12 read alike, 0.15 and 0.2 leave 51194's gold unread. Held out
(52000-52039, totals): 3,130 / 94,152 before; alike at 0.3; 0.35 the same with 8
fewer hidden studs read wrongly (39 to 31); 0.4 and 0.5 one stud wrong more."""


def scattered_groups(labels: NDArray[np.int32], cells: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Per colour group (``labels`` per read cell, ``cells`` its index on the board):
    whether it is small and scattered in lone cells (``SCATTERED_IN_PATCHES``)."""
    k = int(labels.max(initial=-1)) + 1
    out = np.zeros(k, bool)
    if k < 2:
        return out
    sizes = np.bincount(labels, minlength=k)
    for g in np.flatnonzero((sizes > 0) & (sizes < SCATTERED_SHARE * len(labels))):
        out[g] = float(in_patches(cells[labels == g]).mean()) <= SCATTERED_IN_PATCHES
    return out


def named_regions(lab: FloatArray, labels: NDArray[np.int32], cells: NDArray[np.intp],
                  top: FloatArray | None, widen: bool = True) -> NDArray[np.str_]:
    """:func:`calibration.map_inks.name_groups` with scattered groups
    (:func:`scattered_groups`) left out of the naming and their cells unknown: the inks
    are named by their regions, and a group that is none would pull the naming of the
    regions beside it (``lab`` rows L, a, b on the 0..100 scale; ``widen`` as there)."""
    scattered = scattered_groups(labels, cells) if len(labels) else np.zeros(0, bool)
    if not scattered.any() or scattered.all():
        return name_groups(lab, labels, top, widen)
    kept = ~scattered[labels]
    out = np.full(len(labels), UNKNOWN_GROUND, dtype="<U1")
    _, numbered = np.unique(labels[kept], return_inverse=True)
    out[kept] = name_groups(lab[kept], numbered.astype(np.int32), top, widen)
    return out
