"""Naming the ground map's inks in one reading: which colour group is which ink.

A fixed hue limit cannot name them: the print's inks drift (sand towards orange, light
green darker and more saturated) and a frame's white balance turns every hue of the
board by the same few tens of degrees, so a light green under warm light shows the hue
a gold print shows under cool light. What holds in every frame is the inks' order: gold
is the yellowest (lowest Lab hue) and the reddest, dark green the greenest and darkest,
light green between them in hue and about as light as gold. So the inked cells are
grouped first (k-means, the number of groups being the most whose every pair stands
clearly apart), and the groups are named by that order. Where the plate's stud tops
are seen, they are the reference the order lacks: the plate's green lit by the same
light, so an ink's hue measured from theirs holds under any white balance, and two inks
are named by the pair they most likely make rather than by their order alone.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray

MAX_GROUPS = 4
GROUP_SEPARATION = 3.3
"""Two groups are two inks when their centres lie this many of their spreads apart
along the line between them: one ink lit unevenly and cut in two by k-means gives about
2 to 3, two inks 3.4 to 12 on the wide twin."""
MIN_GROUP_GAP = 6.0
"""...and at least this far apart in (a, b, lightness / 2): noise alone makes no ink."""
LIGHTNESS_SCALE = 0.5
"""Lightness counts half in grouping: light falling off across the board moves it."""
GOLD_REDDER = 14.0
GOLD_STEP = 25.0
DARK_PAIR_RATIO = 0.65
LIGHT_PAIR_RATIO = 0.9
"""Of two inks, the yellower is gold when it lies ``GOLD_STEP`` degrees yellower and
``GOLD_REDDER`` or more towards red (Lab a*) of the greener (gold beside light green:
19 to 44 redder on the wide twin; light beside dark green: -9 to 16), the greener then
being dark green when under ``DARK_PAIR_RATIO`` times as light (dark green and gold,
light green hidden or absent). Otherwise the greener is dark green when under
``LIGHT_PAIR_RATIO`` times as light as the other."""
MIN_HUE_STEP = 6.0
REDDER = 5.0
"""A light group this much yellower (degrees) or redder (Lab a*) than the greenest light
group is gold: gold and light green can share a hue under warm light, not a*."""
LONE_GOLD_A = 5.0
LONE_GOLD_HUE = 90.0
"""Gold seen alone: on the wide twin's development maps gold lies at a* -15 to 28 and
hue 56 to 101 degrees (a cool light turns it towards green), light green at a* -51 to
-16 and hue 101 to 150; only the plainly orange side is named gold without a second ink
to compare with."""
DARKER_THAN_TOP = 0.55
"""A lone ink under this share of the plate's stud tops' lightness is dark green: on the
wide twin's development maps dark green shows 0.17 to 1.5 times the tops' lightness,
light green 0.61 to 2.35 and gold 0.71 to 2.8 (the tops themselves drawn from 0.55 to
1.9 times as light as the card beside them)."""
GREY_CHROMA = 22.0
GREY_OVER_INKS = 0.5
GREEN_HUE = 125.0
NEAR_BLACK = 0.5
"""A group of little colour (under ``GREY_CHROMA`` and half the groups' median) is a
blocked area, unless green in hue, or near black: the darkest group and under
``NEAR_BLACK`` times as light as the lightest. Dark green printed near black has little
colour and no hue to speak of, while a blocked area is printed a mid grey (0.58 to 0.79
of the lightest ink on the wide twin's development maps; dark green seen near black,
0.30 to 0.44)."""


def _features(lab: FloatArray) -> NDArray[np.float32]:
    return np.stack([lab[:, 1], lab[:, 2], lab[:, 0] * LIGHTNESS_SCALE], axis=1).astype(
        np.float32)


def _separation(x: NDArray[np.float32], labels: NDArray[np.int32], i: int, j: int) -> float:
    """Centre distance over the two groups' spread along the line joining them."""
    a, b = x[labels == i], x[labels == j]
    axis = b.mean(axis=0) - a.mean(axis=0)
    gap = float(np.linalg.norm(axis))
    if gap == 0:
        return 0.0
    axis /= gap
    spread = np.sqrt((np.var(a @ axis) + np.var(b @ axis)) / 2) + 0.5
    return gap / float(spread)


def group(lab: FloatArray) -> NDArray[np.int32]:
    """Group labels per cell (rows L, a, b on the 0..100 scale): the most groups up to
    ``MAX_GROUPS`` whose every pair stands apart."""
    x = _features(lab)
    best = np.zeros(len(lab), np.int32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.05)
    min_size = max(4, len(lab) // 100)
    for k in range(2, MAX_GROUPS + 1):
        if len(lab) < k * min_size:
            break
        cv2.setRNGSeed(7)
        _, labels, centres = cv2.kmeans(x, k, None, criteria, 4, cv2.KMEANS_PP_CENTERS)
        labels = labels.reshape(-1).astype(np.int32)
        if np.bincount(labels, minlength=k).min() < min_size:
            continue
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        if all(np.linalg.norm(centres[i] - centres[j]) >= MIN_GROUP_GAP
               and _separation(x, labels, i, j) >= GROUP_SEPARATION for i, j in pairs):
            best = labels
    return best


def name_groups(lab: FloatArray, labels: NDArray[np.int32],
                top: FloatArray | None = None) -> NDArray[np.str_]:
    """L, D, G or X per cell from its group's place in the inks' order; ``top`` is the
    plate's stud-top colour (L, a, b on the 0..100 scale) where known."""
    k = int(labels.max()) + 1 if len(labels) else 0
    names = np.full(k, "L", dtype="<U1")
    if k < 2:
        return names[labels]
    centres = np.array([np.median(lab[labels == g], axis=0) for g in range(k)])
    light = centres[:, 0]
    hue = np.degrees(np.arctan2(centres[:, 2], centres[:, 1]))
    chroma = np.hypot(centres[:, 1], centres[:, 2])
    inks = list(range(k))
    grey = (chroma < GREY_CHROMA) & (chroma < GREY_OVER_INKS * np.median(chroma))
    darkest = int(np.argmin(light))
    near_black = bool(grey[darkest] and light[darkest] < NEAR_BLACK * light.max())
    for g in range(k):
        if grey[g] and hue[g] < GREEN_HUE and not (near_black and g == darkest):
            names[g] = "X"
            inks.remove(g)
    if near_black:
        # Dark green with no hue left to order by: the other inks are named among
        # themselves (light green and gold), a lone one by its own colour.
        names[darkest] = "D"
        inks.remove(darkest)
        if len(inks) == 1:
            names[inks[0]] = lone_ink(centres[inks[0]])
        elif inks:
            _name_golds(names, centres, hue, inks)
    elif len(inks) == 2 and top is not None:
        yellow, green = sorted(inks, key=lambda g: hue[g])
        names[green], names[yellow] = _pair_by_plate(centres[green], centres[yellow], top)
    elif len(inks) == 2:
        yellow, green = sorted(inks, key=lambda g: hue[g])
        ratio = light[green] / max(light[yellow], 1.0)
        if (centres[yellow, 1] - centres[green, 1] >= GOLD_REDDER
                and hue[green] - hue[yellow] >= GOLD_STEP):
            names[yellow] = "G"
            if ratio < DARK_PAIR_RATIO:
                names[green] = "D"  # dark green and gold, light green hidden or absent
        elif ratio < LIGHT_PAIR_RATIO:
            names[green] = "D"
        elif _redder(centres, yellow, green):
            names[yellow] = "G"
        elif _redder(centres, green, yellow):
            names[green] = "G"
        else:
            names[green if light[green] < light[yellow] else yellow] = "D"
    elif len(inks) > 2:
        darkest = min(inks, key=lambda g: light[g])
        greenest = max(inks, key=lambda g: hue[g])
        if darkest == greenest and light[darkest] < LIGHT_PAIR_RATIO * light[inks].max():
            names[darkest] = "D"
            inks.remove(darkest)
        _name_golds(names, centres, hue, inks)
    return names[labels]


PAIRS = ("DL", "LG", "DG")
PAIR_MEANS = np.array([[-6.42, -23.58, -0.71, -6.51],
                       [-23.41, -69.24, -0.12, 32.9],
                       [-6.62, -68.29, -0.78, 25.89]])
PAIR_COVARIANCE = np.array([[45.357, 24.511, -0.175, 2.082],
                            [24.511, 180.352, -0.568, -89.882],
                            [-0.175, -0.568, 0.09, 1.17],
                            [2.082, -89.882, 1.17, 110.229]])
"""How two inks seen together stand to each other and to the plate's stud tops, per
pair (greener ink first): the greener's hue less the tops' hue (degrees), the yellower's
hue less the tops' hue, the log of the greener's lightness over the yellower's, and how
far the yellower lies towards red (Lab a*). Means per pair and their shared covariance,
measured on the wide twin's development maps (seeds 50000 to 50099, 393 pairs)."""
_PAIR_PRECISION = np.linalg.inv(PAIR_COVARIANCE)


def _pair_by_plate(green: FloatArray, yellow: FloatArray, top: FloatArray) -> tuple[str, str]:
    """The names of two inks (L, a, b on the 0..100 scale, ``green`` the greener) from
    the pair they most likely make.

    The stud tops are the one colour every board shows whatever its map: the plate's
    green under the frame's light. Light falling warm or cool turns the tops' hue as it
    turns the inks', so an ink's hue measured from the tops' is what the print gave it;
    with the inks' lightness ratio and how much redder the yellower is, that tells dark
    green beside light green from light green beside gold or dark green beside gold,
    which the inks' order alone confuses when one ink is hidden or absent."""
    def hue(c: FloatArray) -> float:
        return float(np.degrees(np.arctan2(c[2], c[1])))

    def turn(d: float) -> float:
        return (d + 180.0) % 360.0 - 180.0

    x = np.array([turn(hue(green) - hue(top)), turn(hue(yellow) - hue(top)),
                  np.log(max(green[0], 1.0) / max(yellow[0], 1.0)), yellow[1] - green[1]])
    d = x[None] - PAIR_MEANS
    distance = np.einsum("ki,ij,kj->k", d, _PAIR_PRECISION, d)
    pair = PAIRS[int(np.argmin(distance))]
    return pair[0], pair[1]


def _name_golds(names: NDArray[np.str_], centres: FloatArray, hue: FloatArray,
                inks: list[int]) -> None:
    """Among light inks, those clearly yellower or redder than the greenest are gold."""
    greenest = max(inks, key=lambda g: hue[g])
    for g in inks:
        if hue[greenest] - hue[g] >= MIN_HUE_STEP or _redder(centres, g, greenest):
            names[g] = "G"


def lone_ink(centre: FloatArray, top_light: float | None = None) -> str:
    """Gold or light green for the only light ink a reading shows (L, a, b on the 0..100
    scale), with nothing to order it against: gold when it is plainly yellow-orange
    (a* above ``LONE_GOLD_A`` and hue under ``LONE_GOLD_HUE`` degrees), light green
    otherwise, which a map shows more often."""
    if top_light is not None and centre[0] < DARKER_THAN_TOP * top_light:
        return "D"
    hue = float(np.degrees(np.arctan2(centre[2], centre[1])))
    return "G" if centre[1] >= LONE_GOLD_A and hue <= LONE_GOLD_HUE else "L"


def _redder(centres: FloatArray, a: int, b: int) -> bool:
    """Whether group ``a`` lies clearly towards red (Lab a*) of group ``b``: gold does,
    beside a light green of the same hue."""
    return bool(centres[a, 1] - centres[b, 1] >= REDDER)
