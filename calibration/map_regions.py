"""The map's regions as a check on the cells read: a patch too small to be a region.

A Ground Map is printed as regions of whole cells, nearly all of them many studs wide, so
a few cells of one name cut off from every other cell of that name are seldom a region
of their own: far more often they are two inks split across two colour groups cell by
cell (the light on a glossy card, two greens squeezed together), the edge of a shadow, a
leaf or a piece's foot. Read wrong they would mislead the rules; as ``?`` they cost a
question.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.maps import UNKNOWN_GROUND

MIN_PATCH = 4
"""The fewest cells of one name, joined through their eight neighbours, that are read.
Development maps 51140-51199 (480 views, one each): studs read wrong 3,236 to 3,019,
2,842 and 2,758 at 3, 4 and 5 cells, for 974, 1,900 and 2,500 fewer read; hidden studs
read wrongly 65 to 53, 43 and 40. Four keeps a blocked area of four studs (the stand-in
maps 3 and 4 have two) when all of it shows. The random twin maps have regions under
four cells (about 1 in 20 regions, the corners' blocked studs aside), never read now."""


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
