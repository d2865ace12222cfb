"""The ink model: how likely a naming of a reading's colour groups is (see map_inks).

Every quantity is measured against something lit by the same light, so that white
balance and exposure cancel: a group against the plate's stud tops (hue difference,
log colourfulness ratio, log lightness ratio), and a pair of groups against each other
(hue difference, log colourfulness and lightness ratios, Lab a* difference). Each ink,
and each ordered pair
of inks, has a Gaussian over its quantities, fitted on the wide twin's maps (matt and
glossy cards) by ``python3 -m training fit_inks`` and stored in ``ink_model.json``
beside this module. A naming's score is the sum of its groups' and its pairs' log
likelihoods; the best of all namings (four inks to at most four groups: 256) allowed by
a few physical bounds (a blocked area is grey and small, a near-black group is dark
green, the inks keep their order in hue, gold is redder than light green and dark
green darker) is the reading's.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from calibration.camera import FloatArray
from rules.maps import UNKNOWN_GROUND

INKS = "LDGX"
"""Light green, dark green, gold, blocked: the inks a group can be named."""
MODEL_FILE = Path(__file__).with_name("ink_model.json")
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
GOLD_REDDER_SLACK = 3.0
"""Gold is redder (Lab a*) than light green under one light: by 6 to 60 units over the
development maps' 137 views showing both, whatever the colourfulness, while one ink cut
in two shows its halves' a* up to 2 apart. A naming with a group named gold less red
than one named light green by more than this is not considered."""
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
MISSING_INK_PRICE = -10.0
"""Log price of a naming of three or more broad groups (``ONE_INK_SHARE``) as inks that
leaves one ink out (:func:`names_every_ink`). On the development maps 51000-51239 only
seven views named three broad groups with an ink twice: two right (each with a fourth
group naming the third ink), five wrong by 75 to 677 studs (51100's four views, a frame
lit nearly white: light green and gold at L* 96 named gold twice, dark green light
green). Studs read wrong, 51040-51139: 7,442 to 4,872 (51100's views 2,638 to 68);
51140-51239: 8,253 to 7,411 (51169's set-up views 434 to 36 each, 51227's glossy palace
view 57 to 11); 51000-51039: 811 to 861 (51004's glossy palace view, two greens merged
in two mixed groups, 31 to 81, 102 studs more read); no other view changed. A price of
5 left 51100's set-up views contested (1,354 studs fewer read), 20 named 51100's palace
views worse (5,115 wrong)."""
UNSEEN_PAIR = -20.0
"""Log likelihood of two inks side by side that the fitting maps never showed together."""
ABSURD_SCORE = -40.0
"""A naming's score (log) under which the bounds have bent it round a stray group
(``STRAY_PRICE``)."""
STRAY_SHARE = 0.02
"""The most of the inked cells a group left unnamed as a stray may hold."""
STRAY_PRICE = -10.0
"""Where the best naming the bounds allow still scores under ``ABSURD_SCORE`` (log), the
bounds have bent it round a stray group: a group of under ``STRAY_SHARE`` of the inked
cells (a few border cells or a fleck, a light green at dark green's hue) whose order
against the others rules out every sensible naming, so that dark green was named gold
(scores of -100 to -250). Such a group may then stay unnamed (``UNNAMED``, its cells
unknown) at ``STRAY_PRICE``. On 600 maps of the wide twin (seeds 50200-50799, 2,400
views) studs read wrong fell from 14,105 / 15,516 / 53,379 (set-up, palace, glossy
card) to 13,358 / 14,941 / 52,521 (floors of -25 and -60 did less); the development
maps (50000-50119, 51000-51019, 52000-52039) changed by 2 studs. A share of 0.05 did
more on the twin but lost on the independent renderer's frames (1,335 to 1,749 wrong),
which 0.02 leaves as they were."""
UNNAMED = UNKNOWN_GROUND
"""What a stray group left unnamed reads as: its cells unknown."""
NAMING_MARGIN = 1.0
"""A group that a naming scoring within this much (log) of the best names another ink is
left unknown (:meth:`InkModel.contested`): the two namings are then within a factor of
e of each other, and the colours cannot tell which ink the group is. Two inks often
stand so close in a view (a glossy card's light green beside gold, a dark frame's dark
green) that the best naming is a toss-up and names a whole ink wrong. On 200 wide-twin
maps (seeds 50200-50399, 1,600 views) it left 9,286 studs unknown of 495,000 read, 3,961
of them read wrong; 0.5 left 7,135 (2,921 wrong), 2 left 21,642 (7,821 wrong)."""


def _hue(lab: FloatArray) -> float:
    return float(np.degrees(np.arctan2(lab[2], lab[1])))


def _turn(degrees: float) -> float:
    return (degrees + 180.0) % 360.0 - 180.0


def _relation(colour: FloatArray, other: FloatArray) -> list[float]:
    """How one colour stands to another lit alike (both L, a, b on the 0..100 scale): the
    hue difference, and the logs of the colourfulness and lightness ratios."""
    return [
        _turn(_hue(colour) - _hue(other)),
        float(np.log(max(float(np.hypot(colour[1], colour[2])), 1.0)
                     / max(float(np.hypot(other[1], other[2])), 1.0))),
        float(np.log(max(float(colour[0]), 1.0) / max(float(other[0]), 1.0))),
    ]


def group_features(centre: FloatArray, top: FloatArray) -> FloatArray:
    """A group's colour against the stud tops' (both L, a, b on the 0..100 scale)."""
    return np.array(_relation(centre, top))


def pair_features(first: FloatArray, second: FloatArray) -> FloatArray:
    """How one group's colour stands to another's: their relation, and how much redder
    the first is (Lab a*)."""
    return np.array([*_relation(first, second), float(first[1] - second[1])])


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


def _hues(centres: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
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
    :func:`_hues` of ``centres`` where the caller has them (a naming search works them
    out once, not once a naming)."""
    hue, hued = _hues(centres) if hues is None else hues
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


def alike_keep_hue(centres: FloatArray, names: tuple[str, ...], broad: NDArray[np.bool_],
                   hues: tuple[FloatArray, NDArray[np.bool_]] | None = None) -> bool:
    """Whether every two ``broad`` groups named alike keep one hue (``ONE_INK_HUE``), as
    one ink's two parts under one light do; groups under ``HUELESS`` colourfulness have
    no hue to keep. ``hues`` as :func:`keeps_ink_order`'s."""
    hue, hued = _hues(centres) if hues is None else hues
    kept = broad & hued
    for i, j in itertools.combinations(range(len(names)), 2):
        if names[i] == names[j] and kept[i] and kept[j] and abs(hue[i] - hue[j]) > ONE_INK_HUE:
            return False
    return True


def names_every_ink(names: tuple[str, ...], broad: NDArray[np.bool_]) -> bool:
    """Whether a naming that names three or more ``broad`` groups inks names all three
    (light green, dark green and gold) among its groups (else ``MISSING_INK_PRICE``).

    Three groups each of a tenth or more of the inked cells, named with one ink twice and
    one left out, read one ink cut in two by the light beside a second ink and no third;
    a frame lit nearly white squeezes the inks' lightness together, and light green and
    gold then drift to one hue while dark green is named light green."""
    inked = [n for n, b in zip(names, broad, strict=True) if b and n in "LDG"]
    return len(inked) < 3 or set("LDG") <= set(names)


def signed_lab(lab: FloatArray) -> FloatArray:
    """OpenCV's 8-bit Lab (L 0..255, a and b offset by 128) as L 0..100 and signed a, b:
    the scale the inks' rules are written in."""
    return (np.asarray(lab, np.float64) - (0.0, 128.0, 128.0)) * (100 / 255, 1.0, 1.0)


def _inverse(cov: FloatArray) -> tuple[FloatArray, float]:
    """A covariance's inverse and the log of its determinant."""
    return np.linalg.inv(cov), float(np.linalg.slogdet(cov)[1])


def near_black(centres: FloatArray) -> NDArray[np.bool_]:
    """Which groups of colours ``centres`` are near-black (``BLACK_CHROMA``,
    ``NEAR_BLACK``): named dark green unscored, since no ink model can place them."""
    chroma = np.hypot(centres[:, 1], centres[:, 2])
    return (chroma < BLACK_CHROMA) & (centres[:, 0] < NEAR_BLACK * centres[:, 0].max())


def _flags(centres: FloatArray, flags: NDArray[np.bool_] | None) -> NDArray[np.bool_]:
    """A flag per group, none set where not given."""
    return np.zeros(len(centres), bool) if flags is None else np.asarray(flags, bool)


def _held(centres: FloatArray, shares: FloatArray | None) -> FloatArray:
    """Each group's share of the inked cells, 0 where the shares are not given (then no
    bound that asks a group's size holds it back)."""
    return (np.zeros(len(centres)) if shares is None
            else np.asarray(shares, dtype=np.float64))


@dataclass(frozen=True)
class _Measures:
    """One reading's groups measured once, for every naming to be scored on: each group
    against the stud tops (None where no top is seen), each pair of groups, and which
    groups have a hue to speak of."""

    groups: list[FloatArray] | None
    pairs: dict[tuple[int, int], FloatArray]
    hued: NDArray[np.bool_]

    @classmethod
    def of(cls, centres: FloatArray, top: FloatArray | None) -> _Measures:
        return cls(
            None if top is None else [group_features(c, top) for c in centres],
            {(i, j): pair_features(centres[i], centres[j])
             for i, j in itertools.combinations(range(len(centres)), 2)},
            np.hypot(centres[:, 1], centres[:, 2]) >= HUELESS)


class Gaussian(BaseModel):
    """A normal distribution of a few measured quantities."""

    model_config = ConfigDict(frozen=True)
    mean: list[float]
    covariance: list[list[float]]
    samples: int = Field(ge=1)

    @cached_property
    def _precision(self) -> tuple[FloatArray, float]:
        return _inverse(np.array(self.covariance))

    def log_likelihood(self, x: FloatArray, hue: bool = True) -> float:
        """Log density at ``x``; without ``hue`` the first quantity (a hue difference) is
        left out, the density taken over the others alone."""
        if hue:
            precision, log_det = self._precision
            d = np.asarray(x) - np.array(self.mean)
        else:
            precision, log_det = self._hueless
            d = np.asarray(x)[1:] - np.array(self.mean[1:])
        return float(-0.5 * d @ precision @ d - 0.5 * log_det)

    @cached_property
    def _hueless(self) -> tuple[FloatArray, float]:
        return _inverse(np.array(self.covariance)[1:, 1:])

    @classmethod
    def fit(cls, samples: FloatArray, floor: float = 1e-3) -> Gaussian:
        """The Gaussian of ``samples`` (rows), its covariance kept from collapsing."""
        x = np.asarray(samples, np.float64)
        cov = np.cov(x.T).reshape(x.shape[1], x.shape[1]) + np.eye(x.shape[1]) * floor
        return cls(mean=[round(float(v), 5) for v in x.mean(axis=0)],
                   covariance=[[round(float(v), 6) for v in row] for row in cov],
                   samples=len(x))


class InkModel(BaseModel):
    """The fitted model (``palace-ink-model/1``)."""

    model_config = ConfigDict(frozen=True)
    format: Literal["palace-ink-model/1"] = "palace-ink-model/1"
    fitted_on: str
    inks: dict[str, Gaussian]
    """Per ink: :func:`group_features` of its groups."""
    pairs: dict[str, Gaussian]
    """Per ordered pair of inks ("LD": an L group less a D group): :func:`pair_features`."""
    same_ink: float
    """Log price of naming two groups alike."""

    def score(self, centres: FloatArray, top: FloatArray | None, names: tuple[str, ...]) -> float:
        """Log likelihood of ``names`` for groups of colours ``centres``."""
        return self._score(_Measures.of(centres, top), names)

    def _score(self, measures: _Measures, names: tuple[str, ...]) -> float:
        total = 0.0
        hued = measures.hued
        if measures.groups is not None:
            total += sum(self.inks[n].log_likelihood(f, bool(h))
                         for f, n, h in zip(measures.groups, names, hued, strict=True))
        for (i, j), features in measures.pairs.items():
            pair = self.pairs.get(names[i] + names[j])
            total += (pair.log_likelihood(features, bool(hued[i] and hued[j]))
                      if pair is not None else UNSEEN_PAIR)
            if names[i] == names[j]:
                total += self.same_ink
        return total

    def most_likely(self, centres: FloatArray, top: FloatArray | None,
                    shares: FloatArray | None = None) -> tuple[str, ...]:
        """The best naming of groups of colours ``centres`` (L, a, b on the 0..100 scale)
        holding ``shares`` of the inked cells; ``?`` for a stray group left unnamed
        (``STRAY_SHARE``)."""
        return self.naming(centres, top, shares)[0]

    def naming(self, centres: FloatArray, top: FloatArray | None,
               shares: FloatArray | None = None, dark: NDArray[np.bool_] | None = None,
               every_ink: bool = True) -> tuple[tuple[str, ...], float]:
        """:meth:`most_likely`'s naming and its score (log likelihood, near-black groups
        left out of it), so that two groupings of one reading can be weighed; the groups
        flagged ``dark`` may only be named dark green
        (:func:`calibration.map_inks.darker_than_shine`). Without ``every_ink`` a naming
        that leaves an ink out of three broad groups pays no ``MISSING_INK_PRICE``: where
        three groups are weighed as three inks (:func:`calibration.map_inks.third_ink`),
        the price would push the naming of one ink cut in two onto all three."""
        chroma = np.hypot(centres[:, 1], centres[:, 2])
        held = _held(centres, shares)
        black = near_black(centres)
        rest = np.flatnonzero(~black)
        only_dark = _flags(centres, dark)[rest]
        stray = (np.zeros(len(centres), bool) if shares is None
                 else np.asarray(shares) < STRAY_SHARE)[rest]
        best, score = self._best(centres[rest], top, chroma[rest], held[rest],
                                 np.zeros(len(rest), bool), only_dark, every_ink)
        if score < ABSURD_SCORE and stray.any():
            best, score = self._best(centres[rest], top, chroma[rest], held[rest], stray,
                                     only_dark, every_ink)
        out = ["D"] * len(centres)
        for g, name in zip(rest, best, strict=True):
            out[g] = name
        return tuple(out), score

    def _best(self, centres: FloatArray, top: FloatArray | None, chroma: FloatArray,
              held: FloatArray, stray: NDArray[np.bool_], dark: NDArray[np.bool_],
              every_ink: bool) -> tuple[tuple[str, ...], float]:
        """The best naming allowed by the physical bounds and its score, the ``stray``
        groups free to stay unnamed at ``STRAY_PRICE`` each (scored without them)."""
        best: tuple[str, ...] = ()
        best_score = -np.inf
        for names, score in self._allowed(centres, top, chroma, held, stray, dark, every_ink):
            if score > best_score:
                best, best_score = names, score
        return best, best_score

    def _allowed(self, centres: FloatArray, top: FloatArray | None, chroma: FloatArray,
                 held: FloatArray, stray: NDArray[np.bool_], dark: NDArray[np.bool_],
                 every_ink: bool = True) -> Iterator[tuple[tuple[str, ...], float]]:
        """Every naming the physical bounds allow, with its score (see :meth:`_best`);
        ``held`` is each group's share of the inked cells (0 where not known), ``dark``
        the groups that may only be dark green."""
        choices = ["D" if d else INKS + UNNAMED if s else INKS
                   for s, d in zip(stray, dark, strict=True)]
        measures: dict[tuple[int, ...], _Measures] = {}
        large, broad = held > BLOCKED_SHARE, held >= ONE_INK_SHARE
        hue, hued = _hues(centres)
        for names in itertools.product(*choices):
            named = tuple(i for i, n in enumerate(names) if n != UNNAMED)
            inks = tuple(names[i] for i in named)
            kept = list(named)
            if not (named and _may_be_blocked(chroma[kept], large[kept], inks)):
                continue
            hues = (hue[kept], hued[kept])
            if not (keeps_ink_order(centres[kept], inks, hues)
                    and alike_keep_hue(centres[kept], inks, broad[kept], hues)):
                continue
            if named not in measures:
                measures[named] = _Measures.of(centres[kept], top)
            yield names, (self._score(measures[named], inks)
                          + STRAY_PRICE * (len(names) - len(named))
                          + (0.0 if not every_ink or names_every_ink(inks, broad[kept])
                             else MISSING_INK_PRICE))

    def contested(self, centres: FloatArray, top: FloatArray | None,
                  best: tuple[tuple[str, ...], float],
                  shares: FloatArray | None = None, dark: NDArray[np.bool_] | None = None
                  ) -> NDArray[np.bool_]:
        """Which groups another naming within ``NAMING_MARGIN`` of the best (``best``,
        what :meth:`naming` gives for the same arguments) would name otherwise: the
        colours cannot tell which ink such a group is, and a whole ink named wrong is
        hundreds of studs read wrong. Near-black groups are never contested, nor are
        groups where a stray group was left unnamed (the bounds had bent every naming
        there)."""
        names, score = best
        out = np.zeros(len(centres), bool)
        if UNNAMED in names:
            return out
        chroma = np.hypot(centres[:, 1], centres[:, 2])
        held = _held(centres, shares)
        rest = np.flatnonzero(~near_black(centres))
        chosen = np.array([names[g] for g in rest])
        for other, other_score in self._allowed(centres[rest], top, chroma[rest], held[rest],
                                                np.zeros(len(rest), bool),
                                                _flags(centres, dark)[rest]):
            if other_score >= score - NAMING_MARGIN:
                out[rest[np.array(other) != chosen]] = True
        return out

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.model_dump(), indent=1) + "\n")


INK_MODEL = InkModel.model_validate_json(MODEL_FILE.read_text())
"""The committed model."""
