"""A third ink hidden in one of two colour groups: where the reading's colours are in
doubt between two inks and three.

A glossy card or a dim frame can bring two inks so near that the grouping's separation
test (:func:`calibration.map_inks.group`) keeps them in one group beside the third ink;
that merged group then takes one ink's name and the other ink's cells are read wrong by
the hundred. So two groups are tried as three (the three-group k-means, and each group
cut in two by its hue averaged over its neighbours) and the ink model weighs the two
namings: three groups it names the three inks are taken within a price, and where the
choice is close either way, the cells the two readings name differently are left
unknown rather than read wrong.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.ink_bounds import near_black
from calibration.ink_model import INK_MODEL, NAMING_MARGIN
from calibration.map_inks import (
    centres_and_shares,
    gaussian_kernel,
    grouping_features,
    min_group,
    near_sums,
    reference_top,
    seeded_kmeans,
    settled,
)

THIRD_INK_PRICE = 10.0
"""Where two colour groups are found, the three-group k-means, settled, is taken instead
when the ink model names its groups the three inks and its naming scores at most this
much (log) below the two groups' best naming. A glossy card or a dim frame can bring two
inks so near that the grouping's separation test keeps them in one group beside the
third ink; that merged group then takes one ink's name and the other ink's cells are
read wrong by the hundred. On the fitting maps (seeds 50200-50549) 99 two-group views
split so were named three inks; taken in all, their studs read wrong fell from 14,229 to
9,950; within the price, in 50 of them, from 7,388 to 2,953 (4,400 fewer over all views
there, 4,900 fewer on 50550-50799). A price of 12 did more on those maps but lost 172
studs on the independent renderer's frames; 8 and under did less."""


THIRD_INK_TOSS_UP = True
"""Whether three groups taken by a naming within ``NAMING_MARGIN`` (log) of the
``THIRD_INK_PRICE`` bound are a toss-up against the two groups: the cells the two
readings name differently are then left unknown (:func:`calibration.map_naming.name_cells`),
as :meth:`calibration.ink_model.InkModel.contested` leaves a group two namings within
the margin name otherwise. The price is a threshold on scores that differ by a fraction
of a log unit either side of it; development map 51006's palace view (two inks, its
light green cut in two by hue and the lighter half named gold 0.4 inside the price)
read 461 studs of light green as gold."""


HUE_SPLIT = True
"""Whether each of two groups cut in two by hue (:func:`_hue_halves`) is tried as three
inks as well (:func:`third_ink`). Studs read wrong, one view each: fitting maps
50200-50399 20 views better by 1,159, 7 worse by 431; dev 40000-40099 6 better by 600,
1 worse by 31; 50400-50799 33 better by 1,611, 21 worse by 761; held out 60000-60059 13
better by 123, 4 worse by 22; on the bench a wash (a glossy card 461 fewer, a palace
standing 457 more; the Cycles frames as before)."""


THIRD_INK_DOUBT = 20.0
"""Three groups the ink model names the three inks, their naming more than
``THIRD_INK_PRICE`` (log) but at most this much further below the two groups' best, are
not taken, yet leave the two groups in doubt: the cells the two readings name
differently are left unknown (:class:`ThirdInk`). The price bars most true splits along
with the false ones (two greens merged beside gold: development maps 51181 and 51158's
glossy views, 515 and 275 studs read wrong; a light green named gold beside a near-black
dark green, 51179's glossy view, 555; beside a greyed dark green, 51161's, 354). Dev maps
51140-51199 (one view each, 480 views), studs read wrong / read: 5,600 / 146,253 with
none, 4,981 / 145,586 at 5, 4,716 / 145,105 at 10, 3,782 / 143,539 at 20, 30 and 60
alike (every such candidate lies within 20); held out 52000-52039 4,629 / 98,127 to
3,969 / 96,308; the Cycles frames 1,245 / 41,959 to 1,057 / 40,853."""


class ThirdInk(NamedTuple):
    """Three settled groups found in two (:func:`third_ink`) and how far they stand."""

    labels: NDArray[np.int32]
    doubt: NDArray[np.float32]
    """Each cell's doubt between its group and the next (:func:`settled`)."""
    toss_up: bool
    """The cells the two readings name differently are left unknown."""
    taken: bool = True
    """The three groups replace the two (else only their toss-up counts)."""


THIRD_NOT_BLACK = True
"""Whether a near-black group (:func:`calibration.ink_bounds.near_black`) keeps the three
groups from being taken."""


HUE_SPLIT_SIGMA = 1.0
"""Studs: each cell's hue is averaged over its own group's cells this near (a Gaussian's
sigma) before a group is cut in two by hue (:func:`_hue_halves`)."""


def _smoothed(values: FloatArray, cells: NDArray[np.intp], sigma: float) -> FloatArray:
    """Each cell's value averaged with the given cells near it on the board (a Gaussian
    of ``sigma`` studs, weights normalised over the cells present)."""
    reach = int(3 * sigma) + 1
    kernel = gaussian_kernel(sigma, reach)
    near_w, near_t = near_sums(cells, np.ones(len(cells), np.float32), values, kernel)
    return (near_t / near_w).astype(np.float64)


def _two_means_cut(values: FloatArray, min_size: int) -> float | None:
    """The cut of sorted ``values`` into two runs of at least ``min_size`` each with the
    least spread within them (1-D two-means, exact), or None when too few."""
    ordered = np.sort(values)
    n = len(ordered)
    if n < 2 * min_size:
        return None
    sums, squares = np.cumsum(ordered), np.cumsum(ordered * ordered)
    low = np.arange(min_size, n - min_size + 1)
    low_sum, high_sum = sums[low - 1], sums[-1] - sums[low - 1]
    spread = (squares[-1] - low_sum ** 2 / low - high_sum ** 2 / (n - low))
    at = int(low[np.argmin(spread)])
    return float((ordered[at - 1] + ordered[at]) / 2)


def _hue_halves(lab: FloatArray, labels: NDArray[np.int32], cells: NDArray[np.intp],
                g: int, min_size: int) -> NDArray[np.int32] | None:
    """``labels`` with group ``g`` cut in two by its cells' hue averaged over its own
    cells near each (``HUE_SPLIT_SIGMA``), the lower half numbered 2; None where too few.

    Light green and gold drift together as the light falls off across a glossy card, so
    the groups' k-means, which follows the falloff's lightness, does not part them; but
    gold stands a few degrees lower in hue than light green beside it, and the inks are
    printed in regions several studs wide, so the hue averaged over a cell's neighbours
    parts them where one cell's does not."""
    inside = np.flatnonzero(labels == g)
    # On 0..360: the greens lie near 90-180 and gold below them, so a dark green whose
    # b* dips under 0 stays beside its kin (at -180 it would leap to the far end).
    hue = np.degrees(np.arctan2(lab[inside, 2], lab[inside, 1])) % 360.0
    near = _smoothed(hue, cells[inside], HUE_SPLIT_SIGMA)
    cut = _two_means_cut(near, min_size)
    if cut is None:
        return None
    out = labels.copy()
    out[inside[near < cut]] = 2
    return out


def third_ink(lab: FloatArray, labels: NDArray[np.int32], cells: NDArray[np.intp],
              top: FloatArray | None) -> ThirdInk | None:
    """Three settled groups (and each cell's doubt) where ``labels`` holds two and a third
    ink hides in one of them (``THIRD_INK_PRICE``), else None; ``top`` as for
    :func:`name_groups`. Without a stud top the pairs alone cannot weigh it.

    The three groups tried are the three-group k-means and, with ``HUE_SPLIT``, each of
    the two groups cut in two by hue (:func:`_hue_halves`); the best named of those that
    pass is taken. Taking them is a toss-up (``THIRD_INK_TOSS_UP``) where their naming
    scored within ``NAMING_MARGIN`` of the price. Where none passes, the best named the
    three inks within ``THIRD_INK_DOUBT`` below the price comes back not taken, a
    toss-up: the two groups stand, less the cells the three name otherwise."""
    top = reference_top(top)
    if top is None or len(labels) == 0 or labels.max() != 1:
        return None
    min_size = min_group(len(lab))
    two_centres, two_shares = centres_and_shares(lab, labels)
    _, two_score = INK_MODEL.naming(two_centres, top, two_shares)
    tries = [seeded_kmeans(grouping_features(lab), 3)[0]]
    if HUE_SPLIT:
        tries += [halves for g in (0, 1)
                  if (halves := _hue_halves(lab, labels, cells, g, min_size)) is not None]
    best: tuple[float, NDArray[np.int32], NDArray[np.float32]] | None = None
    near: tuple[float, NDArray[np.int32], NDArray[np.float32]] | None = None
    for three in tries:
        if np.bincount(three, minlength=3).min() < min_size:
            continue
        three, doubt = settled(lab, three, cells)
        if three.max() != 2:
            continue
        centres, shares = centres_and_shares(lab, three)
        if THIRD_NOT_BLACK and near_black(centres).any():
            # A near-black group is named dark green unscored: a shadow cut off two inks
            # would pass as the third ink at no cost.
            continue
        names, score = INK_MODEL.naming(centres, top, shares, every_ink=False)
        if sorted(names) != ["D", "G", "L"]:
            continue
        if score < two_score - THIRD_INK_PRICE:
            if (score >= two_score - THIRD_INK_PRICE - THIRD_INK_DOUBT
                    and (near is None or score > near[0])):
                near = (score, three, doubt)
        elif best is None or score > best[0]:
            best = (score, three, doubt)
    if best is None:
        return None if near is None else ThirdInk(near[1], near[2], True, taken=False)
    toss_up = THIRD_INK_TOSS_UP and best[0] < two_score - THIRD_INK_PRICE + NAMING_MARGIN
    return ThirdInk(best[1], best[2], toss_up)


BESIDE_A_STRAY = True
"""Whether three groups one of which is a stray (under ``BESIDE_STRAY_SHARE`` of the inked
cells: a few border cells, a fleck) are weighed as the two others would be
(:func:`third_ink_beside_stray`). The stray is no ink and must not keep two merged inks
from being doubted: development map 51158's first glossy view (two greens in one group
named dark green beside the gold, itself named light green, and 12 cells of a stray)
read 564 of 641 studs wrong, and 18 of 90 with it; no other view of the development
maps 51140-51199, of the held-out maps 52000-52039 or of the Cycles frames changed."""


BESIDE_STRAY_SHARE = 0.03
"""The most of the inked cells the stray beside two groups may hold
(:func:`third_ink_beside_stray`); wider than the naming's ``STRAY_SHARE`` (0.02), as the
stray is only set aside to weigh the two others, never named away. Development map
51158's set-up view (dark green at the board's edge in light green's group beside a
stray of 16 reddish edge cells, 2.3 % of the inked ones) read 67 of 624 studs wrong at
0.02, 1 of 552 at 0.025 to 0.035; no other dev view changed. Offline, studs wrong / read
on dev 51140-51199 901 / 140,349 to 835 / 140,277, held out 52000-52039 (totals) 3,305 /
93,189 to 3,192 / 93,065, the Cycles frames unchanged; at 0.04 and 0.05 dev read 181
studs fewer right for nothing more mended."""


def third_ink_beside_stray(lab: FloatArray, labels: NDArray[np.int32],
                           cells: NDArray[np.intp], top: FloatArray | None
                           ) -> ThirdInk | None:
    """:func:`third_ink` of the two groups beside a stray where ``labels`` holds three
    groups and one is a stray (``BESIDE_A_STRAY``, ``BESIDE_STRAY_SHARE``), the stray's
    cells numbered 3 in the labels; never taken, only a toss-up (one view was all that
    asked for it). None otherwise."""
    if not BESIDE_A_STRAY or len(labels) == 0 or labels.max() != 2:
        return None
    small = np.flatnonzero(np.bincount(labels, minlength=3) < BESIDE_STRAY_SHARE * len(labels))
    if len(small) != 1:
        return None
    rest = labels != small[0]
    two = np.unique(labels[rest], return_inverse=True)[1].astype(np.int32)
    found = third_ink(lab[rest], two, cells[rest], top)
    if found is None:
        return None
    out = np.full(len(labels), 3, np.int32)
    out[rest] = found.labels
    return ThirdInk(out, np.zeros(len(labels), np.float32), True, taken=False)
