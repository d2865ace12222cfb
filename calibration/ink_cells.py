"""Cells named an ink yet unlike its other cells, left unknown by the map read.

A blocked area too small to make a colour group of its own, the grey of a shadow or an
occluder's edge joins the group of the ink nearest in colour: being nearest is not being
near. Such a cell is something else, and which it is cannot be told from its colour, so
it is not read: read as the ink it would mislead the rules. Three tests find them: much
paler than the ink's own cells and of another lightness (:func:`unlike_their_ink`), far
from its group's colour round it (:func:`strays`), or a patch of dark green coloured
like a blocked area beside it (:func:`blocked_patches`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.ink_model import INK_MODEL, pair_features
from calibration.map_inks import grouping_features, local_colour
from calibration.map_regions import MIN_PATCH, in_patches

PALER_THAN_INK = 0.75
LIGHTNESS_OFF = 0.16
"""A cell named an ink with under ``PALER_THAN_INK`` times the median colourfulness of
that ink's cells, and lightness more than ``LIGHTNESS_OFF`` (log) away from theirs, is
not read. On the wide twin's development maps an ink's own cells lie at 0.8 to 1.24
times its median chroma and 0.8 to 1.23 times its lightness; blocked cells taken into
an ink's group at 0.36 to 1.07 and 0.61 to 2.8."""


GREY_PALER = 0.9
"""A cell named dark green with under this share of its cells' median colourfulness and
more than ``LIGHTNESS_OFF`` (log) lighter than them is not read either: a blocked area
is a mid grey, lighter and greyer than dark green on the wide twin and on the
independent renderer's frames alike (its hue is no cue: warm on the one, bluish on the
other), and a small one joins dark green's group, often only a little paler than the
two-sided ``PALER_THAN_INK`` asks. Development maps 51000-51039 (160 views): blocked
studs read as dark green 211 to 166, all studs read wrong 941 to 891, for 266 studs
of 89,017 read (0.9 and 0.1 log: 147 and 872 for 544; 0.8 and 0.1: 183 and 912 for
222)."""


def unlike_their_ink(lightness: FloatArray, chroma: FloatArray,
                     names: NDArray[np.str_]) -> NDArray[np.bool_]:
    """Cells named an ink yet much paler than its other cells and of another lightness:
    the paleness is what names them, since a grey taken into a group by nearness keeps
    the greyness the ink's own cells lack."""
    out = np.zeros(len(names), bool)
    for ink in "LDG":
        cells = names == ink
        if cells.sum() < 20:
            continue
        light = np.log(np.maximum(lightness, 1.0) / np.median(lightness[cells]))
        paler = chroma < PALER_THAN_INK * np.median(chroma[cells])
        out |= cells & paler & (np.abs(light) > LIGHTNESS_OFF)
        if ink == "D":
            out |= cells & (chroma < GREY_PALER * np.median(chroma[cells])) & (
                light > LIGHTNESS_OFF)
    return out


STRAYS = True
"""Whether cells far from their group's colour round them are left unknown
(:func:`strays`). Development maps 51000-51039: blocked studs read as dark green 171 to
101, all studs read wrong 896 to 809, for 224 of 89,336 read; held out (52000-52019)
1,673 to 1,626 for 156 of 51,656; on the bench a little better on every set (the Cycles
frames 1,262 to 1,245 wrong for 312 fewer read)."""
STRAY_FROM_GROUP = 5.0
"""A cell whose colour lies this many times farther from its group's colour round it
than the group's cells typically lie is not read (:func:`strays`). On the development
maps 3, 4, 5 and 6 left 735, 781, 809 and 834 studs wrong for 2,098, 606, 224 and 100
fewer read: below 5 the right studs unread outnumber the wrong ones mended ten to one."""
STRAY_AT_LEAST = 3.0
"""...and at least this far (grouping units): a group of nearly alike cells would
otherwise shed its cells for noise."""


def strays(lab: FloatArray, labels: NDArray[np.int32], cells: NDArray[np.intp]
           ) -> NDArray[np.bool_]:
    """Cells far from their group's colour round them, far beyond its own cells' spread.

    The group's colour round each cell is the one the groups are settled
    against (:func:`calibration.map_inks.settled`), so light falling off across the
    board does not count. None when :data:`STRAYS` is off."""
    x = grouping_features(lab)
    out = np.zeros(len(lab), bool)
    if len(labels) == 0 or not STRAYS:
        return out
    for g in range(int(labels.max()) + 1):
        members = labels == g
        if members.sum() < 2:
            continue
        far = np.linalg.norm(x[members] - local_colour(x, members, cells)[members], axis=1)
        typical = float(np.median(far))
        out[members] = far > max(STRAY_FROM_GROUP * typical, STRAY_AT_LEAST)
    return out


BLOCKED_LIKELY = -8.0
"""A patch of at least ``MIN_PATCH`` cells named dark green (eight-connected), each of
log likelihood over this as blocked beside dark green (the ink model's ``XD`` pair: the
cell's colour against dark green's median colour), is not read. A blocked area too
small for a group of its own joins dark green's group; on the wide twin its studs are
warmer than dark green's (median 34 degrees) and lighter (median 0.19 log) but as
colourful (0.85 to 1.27 times, quartiles), so ``GREY_PALER`` misses them. Stud by stud
the pair likelihood catches them with as many right dark-green studs; a patch of them
is a region, dark green's own noise is not. Development maps 51140-51199 (480 views),
studs wrong / read (hidden read wrongly): 1,923 / 141,031 (53) without; -7.5, patches
of 4: 1,809 / 140,899 (53); -8, of 3: 1,713 / 140,742 (46); -8, of 4: 1,756 / 140,810
(51); -8, of 6: 1,801 / 140,891 (53); -8.5, of 3: 1,671 / 140,561 (46); -9, of 4: 1,675
/ 140,440 (41); -7.5 with no patch: 1,749 / 140,666 (53). -8 with the patch
size of the map's regions (``MIN_PATCH``) mends 210 wrong studs for 79 right ones
unread; -8.5 mends 252 for 218."""
DARK_CENTRE_CELLS = 20
"""Fewer cells named dark green than this and their median is no measure of dark green's
colour to weigh the blocked print against (a handful of cells may be the blocked area
itself): the rule is not applied. Not varied; a region of the stand-in maps is 3 cells
and more, and a view naming dark green names hundreds."""


def blocked_patches(lab: FloatArray, names: NDArray[np.str_],
                    cells: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Cells named dark green in a patch whose colours look like a blocked area's beside
    dark green (``BLOCKED_LIKELY``): a blocked area taken into dark green's group.
    ``lab`` rows L, a, b on the 0..100 scale; ``cells`` gives each row's board cell."""
    out = np.zeros(len(names), bool)
    dark = names == "D"
    if dark.sum() < DARK_CENTRE_CELLS:
        return out
    centre = np.median(lab[dark], axis=0)
    blocked = INK_MODEL.pairs["XD"]
    odd = np.zeros(len(names), bool)
    odd[dark] = [blocked.log_likelihood(pair_features(colour, centre)) > BLOCKED_LIKELY
                 for colour in lab[dark]]
    if odd.sum() < MIN_PATCH:
        return out
    out[odd] = in_patches(cells[odd])
    return out
