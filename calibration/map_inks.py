"""Naming the ground map's inks in one reading: which colour group is which ink.

A fixed hue limit cannot name them: the print's inks drift (sand towards orange, light
green darker and more saturated, dark green from near black to a lifted grey) and a
frame's white balance turns every hue of the board by the same few tens of degrees, so
a light green under warm light shows the hue a gold print shows under cool light. So the
inked cells are grouped first (k-means, the number of groups being the most whose every
pair stands clearly apart; two groups hiding a third ink the model names are split
again, :mod:`calibration.third_ink`), and the groups are named together, by the most likely
assignment of inks to groups under a small statistical model (:mod:`calibration.ink_model`):

- each group against the plate's stud tops, the one colour every board shows whatever
  its map, lit by the same light: its hue less theirs, and the logs of its colourfulness
  and its lightness over theirs;
- each pair of groups against each other: their hue difference, the log of their
  lightness ratio and how much redder one is (Lab a*);
- two groups named alike (one ink cut in two by light falling off) pay a fixed price.

The model's Gaussians are fitted on the wide twin's maps by a recipe in ``training``;
where the stud tops are not seen, the pairs alone name the groups.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.ink_bounds import near_black
from calibration.ink_model import INK_MODEL
from rules.maps import UNKNOWN_GROUND
from rules.pieces import BOARD_STUDS

MAX_GROUPS = 4
GROUP_SEPARATION = 3.3
"""Two groups are two inks when their centres lie this many of their spreads apart
along the line between them: one ink lit unevenly and cut in two by k-means gives about
2 to 3, two inks 3.4 to 12 on the wide twin."""
MIN_GROUP_GAP = 6.0
"""...and at least this far apart in (a, b, lightness / 2): noise alone makes no ink."""
LIGHTNESS_SCALE = 0.5
"""Lightness counts half in grouping: light falling off across the board moves it."""
TOP_SHINE = 0.55
"""Stud tops whose colourfulness (Lab chroma) is under this share of their lightness
shine: a lamp's highlight on the plastic, not the plate's green, so their hue and
colourfulness are no reference and the groups are named by their pairs alone. On the
fitting maps (seeds 50200-50499) the tops of 23 of 2,549 group samples lay under 0.55
and the group term alone named 0.43 of those groups right, against 0.92 above it (0.55
to 0.65: 7 of 7); the development map 50117's palace view (0.38, a bluish top 85 L*
light) had its dark green named light green against them."""
SHINE_DARK = 0.8
"""A group under this share of shining stud tops' lightness is dark green
(:func:`darker_than_shine`). On the development maps 51040-51239 (16 views with shining
tops) light green and gold stood at 0.91 of the tops' lightness or above, dark green
at 0.72 or under, or, in frames lit nearly white, at 0.89 to 0.95 (left to the pairs);
0.7 and 0.9 read those maps alike."""
LONE_GOLD_A = 5.0
LONE_GOLD_HUE = 90.0
"""Gold seen alone with no stud tops to measure it against: on the wide twin's maps gold
lies at a* -15 to 28 and hue 56 to 101 degrees (a cool light turns it towards green),
light green at a* -51 to -16 and hue 101 to 150; only the plainly orange side is named
gold."""


def grouping_features(lab: FloatArray) -> NDArray[np.float32]:
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


def min_group(cells: int) -> int:
    """The fewest cells a colour group may hold: noise alone makes smaller ones."""
    return max(4, cells // 100)


def seeded_kmeans(x: NDArray[np.float32], k: int) -> tuple[NDArray[np.int32], NDArray[np.float32]]:
    """k-means labels and centres, seeded alike every time (a reading reads the same)."""
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.05)
    cv2.setRNGSeed(7)
    _, labels, centres = cv2.kmeans(x, k, None, criteria, 4, cv2.KMEANS_PP_CENTERS)
    return labels.reshape(-1).astype(np.int32), centres


def group(lab: FloatArray) -> NDArray[np.int32]:
    """Group labels per cell (rows L, a, b on the 0..100 scale): the most groups up to
    ``MAX_GROUPS`` whose every pair stands apart."""
    x = grouping_features(lab)
    best = np.zeros(len(lab), np.int32)
    min_size = min_group(len(lab))
    for k in range(2, MAX_GROUPS + 1):
        if len(lab) < k * min_size:
            break
        labels, centres = seeded_kmeans(x, k)
        if np.bincount(labels, minlength=k).min() < min_size:
            continue
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        if all(np.linalg.norm(centres[i] - centres[j]) >= MIN_GROUP_GAP
               and _separation(x, labels, i, j) >= GROUP_SEPARATION for i, j in pairs):
            best = labels
    return best


def gaussian_kernel(sigma: float, reach: int) -> NDArray[np.float32]:
    """A 1-D Gaussian of ``sigma`` studs over ``-reach..reach``, unnormalised: the
    neighbourhood sums (:func:`near_sums`) normalise by their own weights."""
    return np.exp(-0.5 * (np.arange(-reach, reach + 1) / sigma) ** 2).astype(np.float32)


def near_sums(cells: NDArray[np.intp], weights: NDArray[np.float32], values: FloatArray,
               kernel: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """At each of ``cells`` (row-major on the 32 x 32 board), the weights and the values
    (one per cell, or a row of channels) of the cells round it summed under ``kernel``
    (both axes), the cell itself included: the board-frame neighbourhood that a group's
    local colour and a cell's smoothed hue are both read from."""
    rows, cols = np.divmod(cells, BOARD_STUDS)
    weight = np.zeros((BOARD_STUDS, BOARD_STUDS), np.float32)
    total = np.zeros((BOARD_STUDS, BOARD_STUDS, *values.shape[1:]), np.float32)
    weight[rows, cols] = weights
    total[rows, cols] = values
    near_w = cv2.sepFilter2D(weight, -1, kernel, kernel, borderType=cv2.BORDER_CONSTANT)
    near_t = cv2.sepFilter2D(total, -1, kernel, kernel, borderType=cv2.BORDER_CONSTANT)
    return near_w[rows, cols], near_t[rows, cols]


LOCAL_SIGMA = 2.5
"""Studs: how far round a cell its neighbours' colours count when it is matched to the
groups (a Gaussian's sigma). The map's regions are several studs wide; on the wide
twin's development maps 1.5 and 4 settle fewer cells right."""
LOCAL_SUPPORT = 1.0
"""A group needs this much weight of its own cells round a cell (the cell itself left
out) for their colour to stand for the group there; with less, the group's median over
the whole board does."""


def local_colour(x: NDArray[np.float32], members: NDArray[np.bool_],
                  cells: NDArray[np.intp]) -> NDArray[np.float32]:
    """At each cell, the mean colour (grouping features ``x``) of the group's ``members``
    round it (``LOCAL_SIGMA``), the cell itself left out; the group's median over the
    whole board where it has under ``LOCAL_SUPPORT`` of its cells' weight there (infinite
    for an empty group)."""
    reach = int(3 * LOCAL_SIGMA)
    kernel = gaussian_kernel(LOCAL_SIGMA, reach)
    kernel /= kernel[reach]  # the cell's own weight is 1, taken out again below
    own = members.astype(np.float32)
    near_w, near_x = near_sums(cells, own, x * own[:, None], kernel)
    near_w = near_w - own
    near_x = near_x - x * own[:, None]
    whole = np.median(x[members], axis=0) if members.any() else np.full(3, np.inf)
    return np.where((near_w >= LOCAL_SUPPORT)[:, None],
                    near_x / np.maximum(near_w, 1e-6)[:, None], whole).astype(np.float32)


GROUP_SETTLE_ROUNDS = 3
"""Rounds of :func:`settled` at most (it stops when a round moves no cell): a cell moved
in one round changes its neighbours' group colours for the next."""


def settled(lab: FloatArray, labels: NDArray[np.int32], cells: NDArray[np.intp]
            ) -> tuple[NDArray[np.int32], NDArray[np.float32]]:
    """Group labels moved to the group whose colour near each cell is nearest its own,
    and each cell's doubt.

    k-means measures every cell against the groups' centres over the whole board, but
    light falls off across it and a glossy card's sheen lifts one part: at the dim end
    of a light-green region a cell lies nearer the dark green's centre than its own
    ink's. Near it, though, its own ink's cells are as dim as it is. So each cell is
    matched against each group's colour round it (its own colour left out), a few times
    over. ``cells`` is each row's cell on the board (row-major, 32 x 32); groups left
    empty are dropped and the rest numbered from 0. The doubt is the cell's distance to
    its group's colour round it over its distance to the nearest other group's (0 where
    it matches its own exactly, 1 where it lies as near another; 0 with one group)."""
    k = int(labels.max()) + 1 if len(labels) else 0
    if k < 2:
        return labels, np.zeros(len(labels), np.float32)
    x = grouping_features(lab)
    out = labels.copy()
    for _ in range(GROUP_SETTLE_ROUNDS):
        far = np.empty((k, len(x)), np.float32)
        for g in range(k):
            far[g] = np.linalg.norm(x - local_colour(x, out == g, cells), axis=1)
        moved = far.argmin(axis=0).astype(np.int32)
        if np.array_equal(moved, out):
            break
        out = moved
    # The doubt from the last round's distances (the rounds run at least once).
    nearest = np.sort(far, axis=0)
    doubt = (nearest[0] / np.maximum(nearest[1], 1e-6)).astype(np.float32)
    used, numbered = np.unique(out, return_inverse=True)
    return (numbered.astype(np.int32) if len(used) < k else out), doubt


def centres_and_shares(lab: FloatArray, labels: NDArray[np.int32]
                        ) -> tuple[FloatArray, FloatArray]:
    """Each group's median colour and its share of the cells."""
    k = int(labels.max()) + 1
    centres = np.array([np.median(lab[labels == g], axis=0) for g in range(k)])
    return centres, np.bincount(labels, minlength=k) / len(labels)


POOR_FIT = -5.5
"""A naming scoring under this (log) per term it sums (each group against the stud tops,
each pair of groups; the naming's prices included) fits the colours poorly: no naming
explains them well, and its lead over the next means less. On the dev maps (51140-51199)
two-group views named right score -5.0 per term and above (51148's glossy view, -4.99;
most over -3.5), those whose groups were named wrong -5.9 and under (51170's glossy
palace view, both groups a mix of light green and gold, -5.9: one named gold, the other
contested). -5.5, -5.0 and -4.5 read the dev maps alike (with ``POOR_FIT_MARGIN``), -4.5
the Cycles frames a little otherwise (3 studs fewer wrong for 21 fewer read)."""
POOR_FIT_MARGIN = 4.0
"""The naming margin (log) that stands for ``NAMING_MARGIN`` where a naming fits poorly
(``POOR_FIT``). Development maps 51140-51199, studs wrong / read (offline): 1,308 /
140,644 with the margin of 1 everywhere; 4 and 6: 1,085 / 140,344 (51170's glossy
palace view, 223 wrong of 300, unread); 3 reads as 1 (the next naming of 51170's view
stands 3.2 behind). 6 leaves 422 more studs of the Cycles frames unread, none wrong;
held out (52000-52039, totals) 4 and 6 read as 1."""


def naming_margin(centres: FloatArray, score: float) -> float | None:
    """The margin within which another naming contests the best one (scoring ``score``
    for groups of colours ``centres``): ``POOR_FIT_MARGIN`` where it fits poorly, else
    None (the model's own ``NAMING_MARGIN``). The terms counted are those the score
    sums: near-black groups are named unscored."""
    n = int((~near_black(centres)).sum())
    terms = n + n * (n - 1) // 2
    return POOR_FIT_MARGIN if terms and score < POOR_FIT * terms else None


def name_groups(lab: FloatArray, labels: NDArray[np.int32],
                top: FloatArray | None = None, widen: bool = True) -> NDArray[np.str_]:
    """L, D, G or X per cell (or unknown: a stray group left unnamed, or a group another
    naming nearly as likely names otherwise, :func:`naming_margin`): the most likely
    naming of its group among all the groups' namings (rows L, a, b on the 0..100 scale;
    ``top`` the plate's stud-top colour on the same scale, where known). Without
    ``widen`` the margin is the model's own even where the naming fits poorly: where
    a third ink has already been weighed against the two groups (a toss-up, its
    disputed cells unknown), that is what the poor fit was."""
    k = int(labels.max()) + 1 if len(labels) else 0
    if k == 0:
        return np.full(0, "L", dtype="<U1")
    centres, shares = centres_and_shares(lab, labels)
    seen_top, top = top, reference_top(top)
    dark = darker_than_shine(centres, None if top is not None else seen_top)
    if k == 1 and top is None:
        return np.full(len(labels), "D" if dark[0] else lone_ink(centres[0]))
    best = INK_MODEL.naming(centres, top, shares, dark)
    names = np.array(best[0])
    if k >= 2 and top is not None:
        # A group another naming nearly as likely names otherwise: a toss-up between
        # inks, read as unknown rather than maybe a whole ink wrong.
        margin = naming_margin(centres, best[1]) if widen else None
        names[INK_MODEL.contested(centres, top, best, shares, margin)
              | INK_MODEL.one_ink_contested(centres, top, best, shares)] = UNKNOWN_GROUND
    return names[labels]


def reference_top(top: FloatArray | None) -> FloatArray | None:
    """The stud tops' colour as the naming's reference (L, a, b on the 0..100 scale), or
    None where none is seen or the tops shine (``TOP_SHINE``)."""
    if top is None or float(np.hypot(top[1], top[2])) < TOP_SHINE * float(top[0]):
        return None
    return top


def darker_than_shine(centres: FloatArray, shine: FloatArray | None) -> NDArray[np.bool_]:
    """Which groups of colours ``centres`` stand under ``SHINE_DARK`` of the lightness of
    stud tops that shine (``shine``; none where no such tops are given): dark green.

    A lamp's highlight only lifts the tops, and light green and gold are printed lighter
    than the plate's green, so under shining tops those two inks stand at about the
    tops' lightness or above, and a group well under it is dark green. Without this the
    pairs alone name the groups, and one dark green cut in two by the light is named
    gold and dark green, or light green and dark green, the halves' lightness ratio
    being all that tells them."""
    if shine is None:
        return np.zeros(len(centres), bool)
    return np.asarray(centres)[:, 0] < SHINE_DARK * float(shine[0])


def lone_ink(centre: FloatArray) -> str:
    """Gold or light green for the only ink a reading shows (L, a, b on the 0..100 scale)
    when no stud top is seen either: gold when plainly yellow-orange, light green
    otherwise, which a map shows more often."""
    hue = float(np.degrees(np.arctan2(centre[2], centre[1])))
    return "G" if centre[1] >= LONE_GOLD_A and hue <= LONE_GOLD_HUE else "L"
