"""Cells named an ink yet unlike its other cells, left unknown by the map read.

A blocked area too small to make a colour group of its own, the grey of a shadow or an
occluder's edge joins the group of the ink nearest in colour; much paler than that ink's
own cells and of another lightness, it is something else. Which it is cannot be told
from its colour, so it is not read: read as the ink it would mislead the rules.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray

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
    """Cells named an ink yet much paler than its other cells and of another lightness.

    Such a cell is something else taken into the nearest ink's group: a blocked area
    too small to make a group of its own, the grey of a shadow or an occluder's edge.
    Which it is cannot be told from its colour, so it is left unknown; read as the ink
    it would mislead the rules."""
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
