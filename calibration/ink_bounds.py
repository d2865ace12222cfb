"""The physical bounds on a naming of a reading's colour groups (see ink_model).

However likely the ink model finds a naming, some cannot be so under any one light: a
blocked area is printed grey and is a small part of a map, a near-black group is dark
green, the inks keep their order in hue, gold is redder than light green and dark green
darker, and one ink cut in two by the light keeps its hue. The naming search
(:meth:`calibration.ink_model.InkModel.naming`) considers only the namings these allow;
the thresholds are what the wide twin's development maps showed.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray

GREY_AT_MOST = 0.65
GREY_CHROMA = 35.0
"""A blocked area is printed grey: a group is named blocked only under this share of the
other groups' median colourfulness and under ``GREY_CHROMA`` (on the wide twin's maps
blocked groups show at most 0.6 of the others' and 30). Its hue is noise, so the model's
own Gaussian for it is wide and would otherwise take any group of odd hue."""
NEAR_BLACK = 0.5
BLACK_CHROMA = 15.0
"""A group under ``BLACK_CHROMA`` colourfulness and ``NEAR_BLACK`` of the lightest group's
lightness is dark green printed near black: too dark for its hue or colourfulness to mean
anything (a blocked area is printed a mid grey, 0.58 to 0.79 of the lightest ink on the
wide twin's maps), so it is named dark green and left out of the model's sums."""
HUELESS = 12.0
"""Under this colourfulness (Lab chroma) a group's hue is noise: its hue differences are
left out of the sums (a grey, a dark green printed near black)."""
BLOCKED_SHARE = 0.15
"""A blocked area is a small part of a map: a group holding more of the inked cells read
is never named blocked. On the wide twin's maps blocked ground is at most 8 % of the
inked cells a view reads; a dark green lifted towards grey by a glossy card often holds
a third, and without this bound was named blocked (the real maps' blocked areas are not
published: a map mostly blocked would leave little to play on)."""
HUE_ORDER = "GLD"
"""The inks from the least to the most hue (Lab degrees from the red axis, towards blue)."""
HUE_ORDER_SLACK = 5.0
"""Under one light the inks' hues keep their order, gold below light green below dark
green (degrees, Lab): on the wide twin's development maps no two groups of different
inks, both of at least ``HUELESS`` colourfulness, ever showed it reversed (366 pairs),
whatever the white balance. A naming that reverses it by more than ``HUE_ORDER_SLACK``
degrees is not considered: one ink cut in two by light falling off shows its halves'
hues up to 4.4 degrees apart, either way round."""
GOLD_REDDER_SLACK = 6.0
"""Gold is redder (Lab a*) than light green under one light: by 6 to 60 units over the
development maps' 137 views showing both, whatever the colourfulness, while one ink cut
in two shows its halves' a* up to 2 apart. A naming with a group named gold less red
than one named light green by more than this is not considered. A gold printed at light
green's own hue but far more colourful (map 53050: hue 104 against 106, chroma 76 against
52, under a bright lamp) is up to 5.5 units less red by a* alone; at a slack of 3 the
bound ruled out its right naming and the two inks were read swapped (2,218 studs wrong
in its four views). 6 is the least by which gold was redder on those 137 views, so the
swapped naming of any of them stays ruled out. Offline, studs wrong: maps 53000-53059
5,410 to 3,334 (53050's four views 2,218 to 113); 51140-51199, 52000-52039 and the
Cycles frames unchanged. 5 mends three of 53050's views, 5.6 all four; 6.5 lets 51179's
glossy view swap (544 studs fewer read right)."""
DARK_LIGHTER_SLACK = 0.15
"""Dark green is darker than light green under one light: the development maps' 156
views showing both put light green from 0.09 (log) darker, on a glossy card whose
sheen lifts the dark ink most, to far lighter. A naming with a group named dark green
lighter than one named light green by more than this (log lightness) is not
considered."""
ONE_INK_HUE = 25.0
"""Two groups named alike are one ink cut in two by the light (falling off across the
board, a glossy card's sheen), and light that changes an ink's lightness and
colourfulness leaves its hue nearly where it was, white balance being one for the whole
frame. A naming that names alike two broad groups (``ONE_INK_SHARE``), both of at least
``HUELESS`` colourfulness, whose hues stand more than this many degrees apart is not
considered. Groups of one ink named alike on the development maps (51000-51139) stood
0 to 18 degrees apart; light green and gold named alike, 28 to 34 (a light green
drifted towards gold beside a gold drifted the other way named gold twice, the dark
green then light green: 51058's set-up view 631 studs wrong, 51099's glossy set-up
view 535). Development maps 51040-51139 (400 views): 9,618 studs wrong to 8,456, no view
worse; 51000-51039, 51140-51239 and the held-out 52000-52019 unchanged; 20 degrees
changed the same views, 15 made one worse, 30 left 51099 as it was."""
ONE_INK_SHARE = 0.10
"""The share of the inked cells read each of two groups must hold for
``ONE_INK_HUE`` to bound their naming alike. Smaller groups are often no ink's at all (a
piece's colour, the cells along a border, a shadow) and show any hue: on the
development maps such groups of 3 to 7 % named alike with a gold group more than 25
degrees away were named best so (51011's set-up views, 51074's palace view, 51082's
glossy set-up view: 54, 98 and 0 studs wrong, 288, 227 and 28 with no share asked).
0.05 took 51082's view to 28 wrong; 0.15 left 51058 as it was."""


def _may_be_blocked(chroma: FloatArray, large: NDArray[np.bool_], names: tuple[str, ...]
                    ) -> bool:
    """Whether every group named blocked is small and grey beside the groups named inks."""
    blocked = np.array([n == "X" for n in names])
    if not blocked.any():
        return True
    if (chroma[blocked] >= GREY_CHROMA).any() or large[blocked].any():
        return False
    return blocked.all() or bool(
        (chroma[blocked] < GREY_AT_MOST * np.median(chroma[~blocked])).all())


def hue_angles(centres: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Each group's hue angle in degrees, and whether it is colourful enough
    (``HUELESS``) to have one. Angles run over [-90, 270): a bluish dark green (b* under
    0) stays above the greens instead of wrapping to -180, and an orange gold below them."""
    hue = (np.degrees(np.arctan2(centres[:, 2], centres[:, 1])) + 90.0) % 360.0 - 90.0
    return hue, np.hypot(centres[:, 1], centres[:, 2]) >= HUELESS


def keeps_ink_order(centres: FloatArray, names: tuple[str, ...],
                    hues: tuple[FloatArray, NDArray[np.bool_]] | None = None) -> bool:
    """Whether the groups named inks keep the order the inks keep under any one light:
    their hues (``HUE_ORDER``, colourful groups only), gold redder than light green
    (``GOLD_REDDER_SLACK``) and dark green darker (``DARK_LIGHTER_SLACK``). ``hues``:
    :func:`hue_angles` of ``centres`` where the caller has them (a naming search works them
    out once, not once a naming)."""
    hue, hued = hue_angles(centres) if hues is None else hues
    lightness = np.log(np.maximum(centres[:, 0], 1.0))
    rank = [HUE_ORDER.find(n) for n in names]
    for i, j in itertools.permutations(range(len(names)), 2):
        if (rank[i] >= 0 and rank[j] > rank[i] and hued[i] and hued[j]
                and hue[i] > hue[j] + HUE_ORDER_SLACK):
            return False
        if names[i] + names[j] == "GL" and centres[i, 1] < centres[j, 1] - GOLD_REDDER_SLACK:
            return False
        if names[i] + names[j] == "LD" and lightness[i] < lightness[j] - DARK_LIGHTER_SLACK:
            return False
    return True


ONE_INK_SMALL_SHARE = 0.02
"""A group under ``ONE_INK_SHARE`` but holding at least this share of the inked cells, and
at least ``GREY_CHROMA`` colourful, is an ink's own (a piece's colour, border cells and
shadows are greyer): named alike with a broad group, the two must keep one hue too. Map
54019's set-up and glossy views showed a gold of 3.8 % (chroma 57, hue 54) beside a broad
light green (hue 92) named gold with it: 214 studs wrong in each. Offline, shares 0.01 to
0.03 with chroma 35 to 45 read every set alike (54000-54059: 1,762 wrong to 1,334, 422
more right; 53000-53059, 51140-51199, 52000-52039 and the Cycles frames unchanged);
chroma 25 unreads 291 right studs of 53000-53059 and 456 of 51140-51199, and with no
chroma asked 53049's palace and glossy views read 238 wrong more each."""


def alike_keep_hue(centres: FloatArray, names: tuple[str, ...], broad: NDArray[np.bool_],
                   hues: tuple[FloatArray, NDArray[np.bool_]] | None = None,
                   held: FloatArray | None = None) -> bool:
    """Whether every two ``broad`` groups named alike keep one hue (``ONE_INK_HUE``), as
    one ink's two parts under one light do, and so does a broad group named alike with a
    small colourful one (``ONE_INK_SMALL_SHARE`` of ``held``, the groups' shares of the
    inked cells, where given); groups under ``HUELESS`` colourfulness have no hue to
    keep. ``hues`` as :func:`keeps_ink_order`'s."""
    hue, hued = hue_angles(centres) if hues is None else hues
    kept = broad & hued
    small = np.zeros(len(names), bool) if held is None else (
        (np.asarray(held) >= ONE_INK_SMALL_SHARE) & hued
        & (np.hypot(centres[:, 1], centres[:, 2]) >= GREY_CHROMA))
    for i, j in itertools.combinations(range(len(names)), 2):
        weighed = (kept[i] and kept[j]) or (names[i] != "X" and (
            (kept[i] and small[j]) or (small[i] and kept[j])))
        if names[i] == names[j] and weighed and abs(hue[i] - hue[j]) > ONE_INK_HUE:
            return False
    return True


def naming_allowed(centres: FloatArray, names: tuple[str, ...], held: FloatArray,
                   hues: tuple[FloatArray, NDArray[np.bool_]] | None = None) -> bool:
    """Whether the bounds allow naming groups of colours ``centres`` (L, a, b on the 0..100
    scale) holding ``held`` of the inked cells (0 where not known) ``names``: every group
    named blocked small and grey (``BLOCKED_SHARE``, ``GREY_CHROMA``, ``GREY_AT_MOST``),
    the inks in order (:func:`keeps_ink_order`) and two broad groups named alike of one
    hue (:func:`alike_keep_hue`). ``hues`` as :func:`keeps_ink_order`'s."""
    hues = hue_angles(centres) if hues is None else hues
    chroma = np.hypot(centres[:, 1], centres[:, 2])
    return (_may_be_blocked(chroma, held > BLOCKED_SHARE, names)
            and keeps_ink_order(centres, names, hues)
            and alike_keep_hue(centres, names, held >= ONE_INK_SHARE, hues, held))


def names_every_ink(names: tuple[str, ...], broad: NDArray[np.bool_]) -> bool:
    """Whether a naming that names three or more ``broad`` groups inks names all three
    (light green, dark green and gold) among its groups (else
    :data:`calibration.ink_model.MISSING_INK_PRICE`).

    Three groups each of a tenth or more of the inked cells, named with one ink twice and
    one left out, read one ink cut in two by the light beside a second ink and no third;
    a frame lit nearly white squeezes the inks' lightness together, and light green and
    gold then drift to one hue while dark green is named light green."""
    inked = [n for n, b in zip(names, broad, strict=True) if b and n in "LDG"]
    return len(inked) < 3 or set("LDG") <= set(names)


NEAR_BLACK_APART = 3.0
"""Beside a near-black group (dark green, :func:`near_black`), a group at least this many
times lighter is not dark green as well (:func:`lifted_from_black`). One dark green cut
in two by the light showed its lighter half at 1.5 to 2.1 times the near-black half's
lightness on the development maps 51000-51239 (51125, 51140, 51156); light green beside a
near-black dark green stood at 1.5 to 7.4 times. Named alone against the stud tops, the
other group of 51185's palace views (light green at 3.9 times the near-black group, in a
frame whose tops stand at 1.9 times the light green's lightness) was named dark green,
722 studs each; both views now read right. Development maps 51140-51239: 7,985 studs wrong
to 6,541 (146 more read in each of those two views); no other view of 51000-51239
changed. The groups named dark green beside a near-black one there stand at 1.5 to 2.1
times it, or 3.9 (51185), so 2.5 to 3.5 would draw the same line (not run)."""


def lifted_from_black(centres: FloatArray) -> NDArray[np.bool_]:
    """Which groups stand ``NEAR_BLACK_APART`` times or more above the lightest near-black
    group's lightness (none where no group is near-black): they may not be named dark
    green. The near-black group is dark green whatever else the frame shows, and one ink
    under one light does not span such a range of lightness across the board, so a far
    lighter group beside it is another ink, whatever the stud tops make of it."""
    black = near_black(centres)
    if not black.any():
        return np.zeros(len(centres), bool)
    floor = max(float(np.max(centres[black, 0])), 1.0)
    return ~black & (centres[:, 0] >= NEAR_BLACK_APART * floor)


def near_black(centres: FloatArray) -> NDArray[np.bool_]:
    """Which groups of colours ``centres`` are near-black (``BLACK_CHROMA``,
    ``NEAR_BLACK``): named dark green unscored, since no ink model can place them."""
    chroma = np.hypot(centres[:, 1], centres[:, 2])
    return (chroma < BLACK_CHROMA) & (centres[:, 0] < NEAR_BLACK * centres[:, 0].max())

