"""A stud level's colour, and how surely a column's three levels differ in it.

A column and a stack of three bricks have one outline; only the colours of the levels
tell them apart (three bricks of the box's four colours rarely match, a column is one
colour). The scorer (:mod:`vision.scoring`) prices a column by how surely its levels
differ, so each level's colour is read once a turn and kept: the three columns that
share a level ask for it alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.turn import row_medians
from rules.pieces import Piece
from vision.evidence import Evidence, light_unit
from vision.seams import SeamLines

UNIFORM_WITHIN = 35.0
"""Colour units (:func:`vision.evidence.colour_features`) within which a column's three
levels count as one piece's colour. Each level is read by the median of its sides' inner
pixels (:meth:`~vision.silhouettes.View.side_pixels`): the lit top face and the
outline's pixels tinted by the board are left out. On the development turns (games 7000
on) that put columns' spreads at 5-43 (one at 104, hidden behind this turn's other
pieces) and three-brick stacks' at 59-134; the whole voxel's mean had put both at
10-58."""
MIXED_RAMP = 20.0
HUE_FROM = 20.0
"""Chromaticity alone (colour units, the light left out) from which two clearly seen
levels count as different bricks, surely so at ``HUE_FROM`` + ``HUE_RAMP``. The whole
spread's ``UNIFORM_WITHIN`` is wide because a lamp's lit and shaded sides differ in
light; they hardly differ in hue, so a step in hue alone tells bricks at less. On the
path tracer's own development pairs (200-239) a stack of three bricks whose top level
read 27 redder than the two under it (pair 217) spread 34 in all, 30 in hue alone, and
was read as a column. The true columns that show two clearly seen levels (4 of 15 on
the twin's development sets, games 6000, 7000 and 8000; 1 of 3 on those pairs) differ
there by at most 7 in hue."""
HUE_RAMP = 20.0
HUE_LEVEL_PX = 30
"""Side pixels a level needs for its hue to count (:data:`HUE_FROM`): a few pixels
beside the board or a neighbour take their tint (game 7000 turn 17: a true column's
bottom level, 24 pixels on the board, 25-30 off its upper levels' hue; turn 33: levels
of 12 and 26 pixels, 27 apart)."""
HUE_DARK_BELOW = 45.0
"""A level darker than this (its side's three channels summed) tells no hue: a true
column in deep shade (game 6000 turn 27, levels summing to 31-35) spread 45-63 in hue,
as far as bricks of their own colours do (the confidences' doubt asks the same,
:data:`vision.column_doubts.HUE_DARK`)."""
BOARD_ROWS = 2
"""The rows (of the decoder's region) at the bottom of a ground level's side whose
chromaticity the board tints: the region is softened and the frame's colour is coarser
than its light, so the green board bleeds some two rows up a piece's side. A true dark
red column on the board (game 7000 turn 24) read green shares of 117-132 in its level's
two lowest rows against 86-98 in the rows above and in its upper levels, and so priced
as three bricks of different colours. Its light is left whole: the board hardly changes
it, and a face's upper rows alone lie lighter or darker than the level above by their
shading (game 6000 turn 6, a true column then read as three bricks)."""


DARK_LIGHT_ONLY = True
"""Whether two levels, one of them darker than :data:`WHOLE_DARK_BELOW`, differ in the
whole spread by their light alone: their chromaticity is then the noise of channels of
ten or so, and a dark level on the board takes the board's green besides."""
WHOLE_DARK_BELOW = 38.0
"""The light (three channels summed) below which a level's chromaticity is left out of
the whole spread (:data:`DARK_LIGHT_ONLY`). On the development turns the dark red
columns in deep shade (game 6000 turn 27, levels summing to 31-35; game 7000 turn 17,
29-35) spread 51 and 36 in all, 9 and 16 in light; a reddish-brown brick under a dark
orange one (game 6000 turn 25, its level summing to 40.5) differs from it by 33 in
hue alone. At :data:`HUE_DARK_BELOW` (45) that stack was read as a column."""


def _apart(a: NDArray[np.float32], b: NDArray[np.float32], floor: float) -> float:
    """How far two levels' colours lie apart (colour units), in light alone where
    either is darker than ``floor`` (:data:`DARK_LIGHT_ONLY`)."""
    if min(a[2], b[2]) < floor:
        return abs(float(a[2] - b[2]))
    # np.linalg.norm's own sum for a vector (the same float), without its checks.
    return float(np.sqrt((a - b).dot(a - b)))


class LevelColours:
    """Each stud level's median side colour per view (None: too few side pixels),
    worked out when first asked and kept for the turn."""

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = list(evidence)
        self._known: list[dict[tuple[int, int, int], NDArray[np.float32] | None]] = [
            {} for _ in self.evidence]
        self._steps: dict[tuple[int, int, int, int], float] = {}
        """:meth:`steps` by the levels asked: the seams' look ahead
        (:meth:`vision.scoring.Scorer.look_ahead`) asks it before the price does."""

    def steps(self, piece: Piece) -> float:
        """0..1: how surely a column's three levels show different colours (so it is a
        stack of bricks), from the view that sees most of them: the whole colour beyond
        :data:`UNIFORM_WITHIN`, or the hue alone of clearly seen levels beyond
        :data:`HUE_FROM`."""
        key = (piece.x, piece.y, piece.z, piece.top)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = self._spread_steps(piece)
        return found

    def _spread_steps(self, piece: Piece) -> float:
        """:meth:`steps` worked out."""
        best = 0.0
        floor = light_unit(WHOLE_DARK_BELOW) if DARK_LIGHT_ONLY else -math.inf
        for i, ev in enumerate(self.evidence):
            if ev.colour is None:
                continue
            means = []
            for level in range(piece.z, piece.top):
                # A level hidden (behind the palace) says nothing; two seen still tell.
                mean = self._colour_of(i, piece.x, piece.y, level)
                if mean is not None:
                    means.append(mean)
            if len(means) < 2:
                continue
            spread = max(_apart(a, b, floor) for j, a in enumerate(means)
                         for b in means[j + 1:])
            best = max(best, min(max((spread - UNIFORM_WITHIN) / MIXED_RAMP, 0.0), 1.0))
        if best >= 1.0:
            return best
        hue = self.hue_spread(piece, HUE_DARK_BELOW, HUE_LEVEL_PX)
        return max(best, min(max((hue - HUE_FROM) / HUE_RAMP, 0.0), 1.0))

    def levels_seen(self, piece: Piece) -> int:
        """The most of a column's levels one view shows :data:`HUE_LEVEL_PX` side pixels
        of: under two, neither their colours nor the seams between them can be read. A
        question of where the sides lie, asked of every view, its colours read or not."""
        return max((sum(len(ev.view.side_pixels((piece.x, piece.y, level, 0))) >= HUE_LEVEL_PX
                        for level in range(piece.z, piece.top))
                    for ev in self.evidence), default=0)

    def hue_spread(self, piece: Piece, dark_below: float = 0.0, min_px: int = 0) -> float:
        """The most a column's levels differ in chromaticity alone (colour units, the
        light left out), in the view where they differ most; 0 where no view sees two of
        them. A shadow across a level, or a brighter fill on one, changes its light and
        hardly its hue, and so do tan and dark tan (5 units apart, 38 in light): levels
        that differ only in light leave a column in shade and a stack of tans open.
        Levels darker than ``dark_below`` (the three channels summed) tell no hue: a
        channel of ten or so is mostly noise and the compression's steps. A column whose
        levels' hue no view shows spreads 0: its colours cannot tell it either. Levels
        showing fewer than ``min_px`` side pixels in a view are left out there: a few
        pixels beside the board or a neighbour take their tint."""
        floor = light_unit(dark_below)
        best = 0.0
        for i, ev in enumerate(self.evidence):
            if ev.colour is None:
                continue
            means = [mean for level in range(piece.z, piece.top)
                     if (not min_px or len(ev.view.side_pixels((piece.x, piece.y, level, 0)))
                         >= min_px)
                     and (mean := self._colour_of(i, piece.x, piece.y, level)) is not None
                     and mean[2] >= floor]
            for j, a in enumerate(means):
                for b in means[j + 1:]:
                    d = a[:2] - b[:2]
                    best = max(best, float(np.sqrt(d.dot(d))))
        return best

    def _colour_of(self, view: int, x: int, y: int, level: int) -> NDArray[np.float32] | None:
        """The median colour of a stud level's side pixels in one view, None when fewer
        than six show. A level on the board takes its chromaticity without its
        :data:`BOARD_ROWS` lowest rows where six pixels stay: they lie beside the board,
        whose colour bleeds into them. Its light is all its pixels', as before."""
        key = (x, y, level)
        known = self._known[view]
        if key in known:
            return known[key]
        ev = self.evidence[view]
        assert ev.colour is not None
        idx = ev.view.side_pixels((x, y, level, 0))
        if len(idx) < 6:
            known[key] = None
            return None
        found = known[key] = row_medians(ev.colour[idx].T)
        if level == 0:
            # Pixels are ascending, so rows too: the lowest rows are the last pixels'.
            w = ev.view.shape[1]
            above = idx[idx // w <= int(idx[-1]) // w - BOARD_ROWS]
            if len(above) >= 6:
                found[:2] = row_medians(ev.colour[above, :2].T)
        return found


def bricks_shown(colours: LevelColours, seams: SeamLines, column: Piece) -> float:
    """0..1: how surely a column's place shows three bricks instead: levels of different
    colours, or a seam at each joint (:mod:`vision.seams`) where the bricks share a
    colour. Either alone is enough; neither says nothing for a column, which fewer
    pieces already favour. Colours already sure say all a seam could, and the seams'
    look is the dearer, so it is not asked for then."""
    steps = colours.steps(column)
    return max(steps, seams.seen(column)) if seams_needed(colours, column) else steps


def seams_needed(colours: LevelColours, column: Piece) -> bool:
    """Whether :func:`bricks_shown` asks a column's seams: not where its levels' colours
    already say three bricks surely."""
    return colours.steps(column) < 1.0
