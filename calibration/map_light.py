"""The card's colours evened against the light on the plate's stud tops near each stud.

A lamp to one side lights the board unevenly: on the far side of the card a light green
falls to a dark green's lightness and the grouping takes a whole shaded stretch of it
into dark green's group (development map 51198: light green L* 33-37 on the dim side,
44-47 on the lit one, its dark green 23-28 beside it). Every cell's stud top is the same
plate green whatever the map, and lies in the same light as the card round it, so the
tops' lightness near a stud measures the light there: the stud tops of 51198 fall from
L* 50-54 to 36-38 across the board, and a cell's card lightness follows its top's
(correlation 0.89 over the light green cells, 0.89 over the gold). Each cell's colour is
scaled as if lit like the board's typical stud top, where the light falls off that far.
Where it is nearly even the grouping's local colours (:func:`calibration.map_inks.settled`)
already cope, and evening narrows each ink's spread, which the naming's doubts (a poor
fit, a third ink's toss-up, :mod:`calibration.third_ink`) had read as a view that cannot
tell: on nearly evenly lit views a mix of light green and gold was then read as one ink.

The turn's own evening (:func:`calibration.stud_tops.even_light`) is not reused: it scales
each cell by its own stud top, lightness only, always, because the turn compares the map
against the card (a few noisy tops average out over the whole map). The map read names
each stud's ink on its own, so one top dimmed by a leaf or lit by a sheen must not move
its cell (hence a neighbourhood median), and a*, b* shrink with the light as L* + 16 does.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from calibration.camera import FloatArray
from rules.pieces import BOARD_STUDS

LIGHT_REACH = 3
"""The light near a stud is the median stud-top lightness over the studs this many
cells round it (a 7 x 7 window): wide enough that one top lit by a sheen or dimmed by a
leaf does not move it, narrow enough to follow a lamp's fall-off. Development maps
51140-51199, evened everywhere (studs wrong / read): reach 3, 1,166 / 142,068; 2 (5
tops at least), 1,199 / 141,898; 4, 1,190 / 142,181; 6, 1,240 / 142,229."""
LIGHT_SAMPLES = 9
"""Fewer lit stud tops than this in the window (the board's edge, a palace standing)
and the cell's colour is left as it is. Not varied: nine is a quarter of the window, and
the windows the board's edge or a palace thins are few on the development maps."""
LIGHT_FALL_OFF = 1.25
"""The board's light counts as falling off where the scale that evens its dimmest tenth of
cells is this much (a ratio) over the one that evens its brightest tenth (90th and 10th
percentiles of the cells' scales: the dimmest cells need the largest scale). Development
maps 51140-51199 (offline, studs wrong / read): 1,086 / 140,395 not evened; evened
everywhere 1,166 / 142,068 (the dim stretch of 51198 mended, 88 fewer wrong in each of
its views, but 51170's glossy palace view, 51161's glossy set-up view and Cycles frame
037, each lit within 6 to 18 %, read a mix of light green and gold as one ink: 134, 144
and 132 wrong); from 1.2 to 1.26, 887 to 901 wrong; 1.25 reads the most right. Held out
(52000-52039, totals): 3,320 / 93,147 not evened, 3,227 (1.2), 3,149 (1.23) and 3,305 /
93,189 (1.25); the Cycles frames are lit within 1.2 and read alike."""
MAX_LIGHT_SCALE = 1.35
"""The most a cell's light is scaled by (either way): beyond it the stud tops are in a
piece's shadow or under its foot, which the read leaves out elsewhere. 1.15 reads the
development maps nearly alike (1,167 / 142,090 evened everywhere, against 1,166 /
142,068)."""


def local_light(tops_l: FloatArray, lit: NDArray[np.bool_]) -> FloatArray:
    """Each cell's median stud-top lightness over the lit cells round it (NaN where
    fewer than ``LIGHT_SAMPLES``); ``tops_l`` and ``lit`` per cell, row-major."""
    grid = np.where(lit, tops_l, np.nan).reshape(BOARD_STUDS, BOARD_STUDS)
    padded = np.pad(grid, LIGHT_REACH, constant_values=np.nan)
    windows = sliding_window_view(padded, (2 * LIGHT_REACH + 1,) * 2).reshape(
        BOARD_STUDS * BOARD_STUDS, -1)
    count = np.isfinite(windows).sum(axis=1)
    out = np.full(len(windows), np.nan)
    enough = count >= LIGHT_SAMPLES
    out[enough] = np.nanmedian(windows[enough], axis=1)
    return out


def evened(colours: FloatArray, tops: FloatArray, lit: NDArray[np.bool_]) -> FloatArray:
    """``colours`` (cells x 3, OpenCV 8-bit Lab) as if each cell were lit like the
    board's typical stud top, measured on the stud tops (``tops``, same scale) of the
    ``lit`` cells round it. Dimming light by a factor scales L* + 16 and a*, b* alike by
    its cube root (CIE Lab's cube-root segment), so the three are scaled together by
    the ratio of the typical top's L* + 16 to the local one's. Where the light is
    nearly even (``LIGHT_FALL_OFF``) the colours are returned as they are."""
    out = np.asarray(colours, np.float64).copy()
    tops_l = np.asarray(tops, np.float64)[:, 0] * 100 / 255
    lit = lit & np.isfinite(tops_l)
    if lit.sum() < LIGHT_SAMPLES:
        return out
    typical = float(np.median(tops_l[lit]))
    near = local_light(tops_l, lit)
    if not np.isfinite(near).any():
        return out
    scale = np.where(np.isfinite(near), (typical + 16) / (np.nan_to_num(near) + 16), 1.0)
    dim, bright = np.percentile(scale[np.isfinite(near)], [90, 10])
    if dim < LIGHT_FALL_OFF * bright:
        return out
    scale = np.clip(scale, 1 / MAX_LIGHT_SCALE, MAX_LIGHT_SCALE)
    lightness = out[:, 0] * 100 / 255
    out[:, 0] = ((lightness + 16) * scale - 16) * 255 / 100
    out[:, 1:] = (out[:, 1:] - 128) * scale[:, None] + 128
    return out
