"""The map's regions as a check on the cells read: a patch too small to be a region, and
two colour groups scattered through each other cell by cell.

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
