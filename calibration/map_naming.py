"""Naming the card's inks from the colours read round its studs, and leaving unknown
what no reading can vouch for.

A reading's colours (one view's, or several fused in one board frame) are grouped per
reading and named by the groups' order and against the plate's stud tops
(:mod:`calibration.map_inks`), since white balance and drifting inks move every hue; no
colour calibration is needed. :mod:`calibration.map_read` samples the colours and fuses
the views; this module says which ink each stud shows, or ``?``.

The ground under the corner bricks, a small colour group scattered in lone cells (the
inks are named without it), a lone stud unlike all its neighbours, a stud much paler
than its ink's others, nearly as like another ink's or far from its group's colour, a
patch of dark green coloured like a blocked area beside it (one in its group), and white
too wide to be the starting area are left unknown: read wrong they would mislead the
rules.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.ink_cells import blocked_patches, strays, unlike_their_ink
from calibration.ink_model import signed_lab
from calibration.map_inks import group, settled
from calibration.map_regions import interleaved, named_regions, small_patches
from calibration.third_ink import third_ink, third_ink_beside_stray
from rules.maps import SETUP_PIECES, UNKNOWN_GROUND
from rules.pieces import corner_setup

START = "S"
"""The white starting area's character in a reading's cells (``L`` in the map file, the
area listed apart)."""
CORNER_GROUND = tuple(np.array([(y, x) for corner in corner_setup()
                                for x, y in corner.footprint()]).T)
"""Rows and columns of the cells under the four corner bricks."""
GREEN_SPLIT = 6.0
"""Where the inked cells make one group: the Lab distance between the centres of its two
k-means halves below which it is taken as one ink rather than two greens squeezed
together. A glossy card's sheen can leave the two greens 4 to 8 units apart (development
map 50104); on 600 twin maps (seeds 50200-50799) 6 left 2,000 fewer glossy studs read
wrong than 10, and cost where one ink lit unevenly splits 6 apart (52009's dark green,
then named dark and light green); 3.5 and under split single inks far more often."""


def colour_groups(lab: FloatArray, cells: NDArray[np.intp] | None = None,
                  top: FloatArray | None = None
                  ) -> tuple[NDArray[np.bool_], NDArray[np.int32], NDArray[np.float32],
                             NDArray[np.int32] | None]:
    """The white starting area's cells, and a group per other cell (rows L, a, b on the
    0..100 scale): k-means groups of inks, or, where the cells make one group, that
    group cut in two when its halves lie clearly apart (light fallen off, a dim frame or
    a lit one can squeeze two greens together; lightness alone may still part them).
    Given each row's board cell, the groups are then settled against their colours near
    each cell (:func:`calibration.map_inks.settled`), which also gives each cell's doubt
    between its group and the next (0 where the groups are not settled). Given the stud
    tops' colour as well (``top``, same scale), two settled groups hiding a third ink
    become three (:func:`calibration.third_ink.third_ink`, also beside a stray group);
    where two or three was a toss-up, the groups not taken come back as well (the last
    value, else None), for the cells the two readings name differently to be left
    unknown."""
    white = (np.hypot(lab[:, 1], lab[:, 2]) < 16) & (lab[:, 0] > 72)
    groups = np.zeros(len(lab), np.int32)
    doubt = np.zeros(len(lab), np.float32)
    inked = lab[~white]
    found = group(inked)
    found = found if found.any() else _split_one_ink(inked)
    rival = None
    if cells is None:
        groups[~white] = found
    else:
        groups[~white], doubt[~white] = settled(inked, found, cells[~white])
        three = (third_ink(inked, groups[~white], cells[~white], top)
                 or third_ink_beside_stray(inked, groups[~white], cells[~white], top))
        if three is not None:
            rival = groups.copy() if three.toss_up else None
            if three.taken:
                groups[~white], doubt[~white] = three.labels, three.doubt
            elif rival is not None:
                rival[~white] = three.labels
    return white, groups, doubt, rival


WHITE_AT_MOST = 2 * len({cell for piece in SETUP_PIECES for cell in piece.footprint()})
"""The starting area is the starting staircase's footprint (7 studs): more white cells
than twice that are not the starting area but an ink washed out (a glossy card's dark
green under a bright lamp, a blocked area lit near white), so none of them is read. On
the development maps every white cell read was such a one (the staircase stands on
the starting area in the set-up and palace views)."""
BETWEEN_GROUPS = 0.7
"""A cell whose colour lies nearly as near another group's colour round it as its own
group's (the distances' ratio above this) is not read: most such cells are at a region's
border, their samples part on one ink and part on the next, or a faint shade. On the
development maps (50000-50039 and 50100-50119, one view each) 0.8, 0.7 and 0.6 each
left fewer studs read wrong on every set (matt, a palace, glossy) for a few tenths of a
point of the studs read; 0.7 was taken."""


def name_cells(colours: FloatArray, top: FloatArray | None = None) -> NDArray[np.str_]:
    """A character per cell (L, D, G, X, S or ?) from fused Lab colours (1024 x 3, OpenCV
    8-bit scale); ``top`` is the plate's stud-top colour in the same frame, where known."""
    out = np.full(len(colours), UNKNOWN_GROUND, dtype="<U1")
    seen = np.all(np.isfinite(colours), axis=1)
    if not seen.any():
        return out
    lab = signed_lab(colours[seen])
    lightness, chroma = lab[:, 0], np.hypot(lab[:, 1], lab[:, 2])
    top = None if top is None else signed_lab(top)
    white, groups, doubt, rival = colour_groups(lab, np.flatnonzero(seen), top)
    names = np.full(len(lab), START, dtype="<U1")
    cells = np.flatnonzero(seen)[~white]
    names[~white] = named_regions(lab[~white], groups[~white], cells, top, rival is None)
    if rival is not None:
        # Two groups or three was a toss-up: where the readings differ is not known.
        inked = names[~white]
        inked[named_regions(lab[~white], rival[~white], cells, top, False) != inked] = (
            UNKNOWN_GROUND)
        names[~white] = inked
    names[unlike_their_ink(lightness, chroma, names)] = UNKNOWN_GROUND
    names[blocked_patches(lab, names, np.flatnonzero(seen))] = UNKNOWN_GROUND
    inked = names[~white]
    ink = groups[~white]
    inked[strays(lab[~white], ink, cells) | interleaved(ink, cells)] = UNKNOWN_GROUND
    names[~white] = inked
    names[doubt > BETWEEN_GROUPS] = UNKNOWN_GROUND
    if (names == START).sum() > WHITE_AT_MOST:
        names[names == START] = UNKNOWN_GROUND
    out[seen] = names
    return out


def _split_one_ink(lab: FloatArray) -> NDArray[np.int32]:
    """Two groups for cells of one ink group where k-means finds two clearly apart
    halves, else one."""
    one = np.zeros(len(lab), np.int32)
    if len(lab) < 6:
        return one
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    cv2.setRNGSeed(7)
    _, assigned, centres = cv2.kmeans(lab.astype(np.float32), 2, None, criteria, 3,
                                      cv2.KMEANS_PP_CENTERS)
    assigned = assigned.reshape(-1).astype(np.int32)
    gap = float(np.linalg.norm(centres[0] - centres[1]))
    if gap < GREEN_SPLIT or np.bincount(assigned, minlength=2).min() < 3:
        return one
    return assigned


def coherent(chars: NDArray[np.str_]) -> NDArray[np.str_]:
    """The cells read, less those no reading can vouch for: the ground under the corner
    bricks (a brick stands there in every game; what shows is the brick and its shadow),
    a lone stud named unlike its four neighbours, at least three of them read and
    agreeing, and a patch of too few studs (:mod:`calibration.map_regions`; a stud no
    eight neighbour of which is read alike is a patch of one): on a map of regions several
    studs wide such studs are a shadow's edge, a leaf, a piece's foot far more often than
    a region. As ``?`` they cost a question; read wrong they mislead the rules."""
    out = chars.copy()
    out[CORNER_GROUND] = UNKNOWN_GROUND
    padded = np.pad(out, 1, constant_values=UNKNOWN_GROUND)
    neighbours = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1],
                           padded[1:-1, :-2], padded[1:-1, 2:]])
    known = neighbours != UNKNOWN_GROUND
    unlike = (neighbours != out) & known
    _, agree = unanimous(neighbours)
    lone = (out != UNKNOWN_GROUND) & (known.sum(axis=0) >= 3) & (unlike == known).all(axis=0)
    lone &= agree
    out[lone] = UNKNOWN_GROUND
    out[small_patches(out)] = UNKNOWN_GROUND
    return out


def unanimous(stack: NDArray[np.str_]) -> tuple[NDArray[np.str_], NDArray[np.bool_]]:
    """Along the first axis of ``stack`` (readings of the same cells): the character the
    first known reading gives each cell (``?`` where none is known), and whether every
    known reading gives it (true where none is known)."""
    known = stack != UNKNOWN_GROUND
    first = np.take_along_axis(stack, known.argmax(axis=0)[None], axis=0)[0]
    return first, ((stack == first) | ~known).all(axis=0)
