"""Studs of the map that the camera could not read (``?``), opened for the turn's search.

A map read by the camera leaves a third of the board unknown at the set-up (a shadow, a
piece beside the stud, two inks in doubt), and the studs a staircase starts from lie
beside the palace, where the reading doubts most. The game names such a stud by the
decoration of the staircase built from it (``RuleSettings.name_unknown_start``), but the
staircase search draws its starting studs from the map's colours (:mod:`rules.moves`)
and would never propose one from an unknown stud: it would explain the turn as some
other staircase. So the search reads on the map with each unknown stud taken as the
colour of the nearest known stud (a map is regions several studs wide): any colour
makes the stud a starting point, and the decoration's colour is then asked of the
picture (:func:`vision.finish.name_decoration`), not of this guess.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from rules.maps import GROUND_CHARS, UNKNOWN_GROUND, GroundMap
from rules.palace import Palace

GROUND_INKS = tuple(char for char, colour in GROUND_CHARS.items() if colour is not None)
"""The map's characters of a ground colour (light green first)."""


def opened_ground(ground: GroundMap) -> GroundMap:
    """``ground`` with every unknown stud outside the starting area named by its nearest
    known stud of a ground colour (light green where there is none); ``ground`` itself
    when it has no unknown stud."""
    if not any(UNKNOWN_GROUND in row for row in ground.ground):
        return ground
    cells = np.array([list(row) for row in ground.ground])
    unknown = cells == UNKNOWN_GROUND
    for x, y in ground.start_area:
        unknown[y, x] = False
    nearest = np.full(cells.shape, np.inf, np.float32)
    named = cells.copy()
    for ink in GROUND_INKS:
        if not (cells == ink).any():
            continue
        # Distance of every stud to the nearest stud of this ink.
        distance = cv2.distanceTransform((cells != ink).astype(np.uint8), cv2.DIST_L2, 5)
        closer = unknown & (distance < nearest)
        named[closer] = ink
        nearest[closer] = distance[closer]
    named[unknown & ~np.isfinite(nearest)] = GROUND_INKS[0]
    return replace(ground, ground=tuple("".join(r) for r in named))


def opened_palace(before: Palace) -> Palace:
    """``before`` on :func:`opened_ground` (``before`` itself where nothing is unknown)."""
    ground = opened_ground(before.ground)
    if ground is before.ground:
        return before
    opened = before.copy()
    opened.ground = ground
    return opened
