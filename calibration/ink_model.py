"""The ink model: how likely a naming of a reading's colour groups is (see map_inks).

Every quantity is measured against something lit by the same light, so that white
balance and exposure cancel: a group against the plate's stud tops (hue difference,
log colourfulness ratio, log lightness ratio), and a pair of groups against each other
(hue difference, log colourfulness and lightness ratios, Lab a* difference). Each ink,
and each ordered pair of inks, has a Gaussian over its quantities, fitted on the wide
twin's maps (matt and glossy cards) by ``python3 -m training fit_inks`` and stored in
``ink_model.json`` beside this module. A naming's score is the sum of its groups' and
its pairs' log likelihoods; the best of all namings (four inks to at most four groups:
256) allowed by the physical bounds of :mod:`calibration.ink_bounds` (a blocked area is
grey and small, a near-black group is dark green, the inks keep their order in hue,
gold is redder than light green and dark green darker) is the reading's.
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
from calibration.ink_bounds import (
    ONE_INK_SHARE,
    hue_angles,
    lifted_from_black,
    names_every_ink,
    naming_allowed,
    near_black,
)
from rules.maps import UNKNOWN_GROUND

INKS = "LDGX"
"""Light green, dark green, gold, blocked: the inks a group can be named."""
MODEL_FILE = Path(__file__).with_name("ink_model.json")
MISSING_INK_PRICE = -5.3
"""Log price of a naming of three or more broad groups (``ONE_INK_SHARE``) as inks that
leaves one ink out (:func:`calibration.ink_bounds.names_every_ink`). On the development
maps 51000-51239 only seven views named three broad groups with an ink twice: two right
(each with a fourth group naming the third ink), five wrong by 75 to 677 studs (51100's
four views, a frame lit nearly white: light green and gold at L* 96 named gold twice,
dark green light green). Studs read wrong, 51040-51139: 7,442 to 4,872 (51100's views
2,638 to 68); 51140-51239: 8,253 to 7,411 (51169's set-up views 434 to 36 each, 51227's
glossy palace view 57 to 11); 51000-51039: 811 to 861 (51004's glossy palace view, two
greens merged in two mixed groups, 31 to 81, 102 studs more read); no other view
changed. A price of 5 left 51100's set-up views contested (1,354 studs fewer read), 20
named 51100's palace views worse (5,115 wrong). Lowered from 10 to 5.3 for maps with no
dark green: map 53015's glossy view under a lamp lit near white showed light green cut in
two by the sheen beside gold (L* 95 to 98, three groups of a third each), and the price
pushed the naming onto dark green for one light green half (750 studs wrong of 805). At
5.3 the naming with light green twice comes within the poor fit's margin
(``POOR_FIT_MARGIN``) and the two groups it names otherwise are left unknown (218 wrong of
272 read). Offline, studs wrong / read: maps 53000-53059 2,778 / 126,765 to 2,246 /
126,232 (one right stud fewer); 51140-51199, 52000-52039, 54000-54059 and the Cycles
frames unchanged. The view turns at 5.56; 5.0 leaves 51169's set-up and glossy views
contested (862 right studs unread for 8 wrong), so 5.3, the middle of 5.1 to 5.55."""
GOLD_WITHOUT_LIGHT_PRICE = -1.0
"""Log price of a naming that names a broad group (``ONE_INK_SHARE``) gold and no group
light green: a prior on which ink a map leaves out. Of the wide twin's maps (seeds
50200-50799, inks holding a tenth of the inked cells or more) 171 show light green and no
gold, 65 gold and no light green (log of their ratio -0.97). Where one ink stands beside
dark green, the stud tops alone rarely tell which: light green lit warm sits 40 to 50
degrees from the tops, where the gold the model knows sits too (51179's set-up view)."""
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

ONE_INK_MARGIN = 3.0
"""Where a naming's broad groups (``ONE_INK_SHARE``) are dark green and one ink only,
light green or gold, that group is left unknown unless the naming leads the one with it
named the other ink by at least this much (log). With no pair of the two light inks to
weigh, only the group against the stud tops and against dark green tells them apart, and
there the model's two inks overlap: on maps 53000-53059 and 54000-54059 light green named
right stood 8 to 57 degrees from the tops, gold 39 to 96, the views read swapped 28 to 58.
Offline (studs wrong / read): maps 53000-53059 3,334 / 127,563 to 2,778 / 126,765 (53056's
glossy view 465 wrong and 53035's set-up view 90 unread, 53035's palace view 211 right
unread); 51140-51199 835 / 140,277 to 828 / 139,756 (51161's set-up view 469 right
unread); the Cycles frames 1,045 / 40,540 to 499 / 39,942 (frame 063, 546 wrong, unread);
52000-52039 and 54000-54059 unchanged; the bench's default maps (seed 20000) 905 right
studs unread, none wrong mended. 2.5 to 3.0 read alike but for 53035's set-up view; 2.0
mends nothing on 53000-53059; 3.5 unreads 855 right studs there for 803 wrong."""

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


def signed_lab(lab: FloatArray) -> FloatArray:
    """OpenCV's 8-bit Lab (L 0..255, a and b offset by 128) as L 0..100 and signed a, b:
    the scale the inks' rules are written in."""
    return (np.asarray(lab, np.float64) - (0.0, 128.0, 128.0)) * (100 / 255, 1.0, 1.0)


def _inverse(cov: FloatArray) -> tuple[FloatArray, float]:
    """A covariance's inverse and the log of its determinant."""
    return np.linalg.inv(cov), float(np.linalg.slogdet(cov)[1])


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
            hue_angles(centres)[1])


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
        three groups are weighed as three inks (:func:`calibration.third_ink.third_ink`),
        the price would push the naming of one ink cut in two onto all three."""
        held = _held(centres, shares)
        black = near_black(centres)
        rest = np.flatnonzero(~black)
        only_dark = (np.zeros(len(centres), bool) if dark is None
                     else np.asarray(dark, bool))[rest]
        not_dark = lifted_from_black(centres)[rest]
        stray = (np.zeros(len(centres), bool) if shares is None
                 else np.asarray(shares) < STRAY_SHARE)[rest]
        best, score = self._best(centres[rest], top, held[rest],
                                 np.zeros(len(rest), bool), only_dark, every_ink, not_dark)
        if score < ABSURD_SCORE and stray.any():
            best, score = self._best(centres[rest], top, held[rest], stray,
                                     only_dark, every_ink, not_dark)
        out = ["D"] * len(centres)
        if len(best) != len(rest):
            # No naming the physical bounds allow (a reading of shadows and clutter more
            # than of card): every group not near-black is left unnamed, its cells
            # unknown, rather than named against the bounds.
            best = (UNNAMED,) * len(rest)
        for g, name in zip(rest, best, strict=True):
            out[g] = name
        return tuple(out), score

    def _best(self, centres: FloatArray, top: FloatArray | None, held: FloatArray,
              stray: NDArray[np.bool_], dark: NDArray[np.bool_], every_ink: bool,
              not_dark: NDArray[np.bool_]) -> tuple[tuple[str, ...], float]:
        """The best naming allowed by the physical bounds and its score, the ``stray``
        groups free to stay unnamed at ``STRAY_PRICE`` each (scored without them)."""
        best: tuple[str, ...] = ()
        best_score = -np.inf
        for names, score in self._allowed(centres, top, held, stray, dark, every_ink,
                                          not_dark):
            if score > best_score:
                best, best_score = names, score
        return best, best_score

    def _allowed(self, centres: FloatArray, top: FloatArray | None, held: FloatArray,
                 stray: NDArray[np.bool_], dark: NDArray[np.bool_], every_ink: bool,
                 not_dark: NDArray[np.bool_]
                 ) -> Iterator[tuple[tuple[str, ...], float]]:
        """Every naming the physical bounds allow, with its score (see :meth:`_best`);
        ``held`` is each group's share of the inked cells (0 where not known), ``dark``
        the groups that may only be dark green, ``not_dark`` those that may not be
        (:func:`calibration.ink_bounds.lifted_from_black`); a group flagged both is dark
        green."""
        choices = []
        for s, d, up in zip(stray, dark, not_dark, strict=True):
            open_inks = INKS + UNNAMED if s else INKS
            choices.append("D" if d else open_inks.replace("D", "") if up else open_inks)
        measures: dict[tuple[int, ...], _Measures] = {}
        broad = held >= ONE_INK_SHARE
        hue, hued = hue_angles(centres)
        for names in itertools.product(*choices):
            named = tuple(i for i, n in enumerate(names) if n != UNNAMED)
            inks = tuple(names[i] for i in named)
            kept = list(named)
            if not (named and naming_allowed(centres[kept], inks, held[kept],
                                             (hue[kept], hued[kept]))):
                continue
            if named not in measures:
                measures[named] = _Measures.of(centres[kept], top)
            yield names, (self._score(measures[named], inks)
                          + STRAY_PRICE * (len(names) - len(named))
                          + (0.0 if not every_ink or names_every_ink(inks, broad[kept])
                             else MISSING_INK_PRICE)
                          + (GOLD_WITHOUT_LIGHT_PRICE if gold_without_light(inks, broad[kept])
                             else 0.0))

    def contested(self, centres: FloatArray, top: FloatArray | None,
                  best: tuple[tuple[str, ...], float],
                  shares: FloatArray | None = None, margin: float | None = None
                  ) -> NDArray[np.bool_]:
        """Which groups another naming within ``margin`` (log; ``NAMING_MARGIN`` unless
        given) of the best (``best``, what :meth:`naming` gives for the same arguments)
        would name otherwise: the colours cannot tell which ink such a group is, and a
        whole ink named wrong is hundreds of studs read wrong. Near-black groups are
        never contested, nor are groups where a stray group was left unnamed (the bounds
        had bent every naming there)."""
        names, score = best
        margin = NAMING_MARGIN if margin is None else margin
        out = np.zeros(len(centres), bool)
        if UNNAMED in names:
            return out
        held = _held(centres, shares)
        rest = np.flatnonzero(~near_black(centres))
        chosen = np.array([names[g] for g in rest])
        # No group is flagged dark here: only a frame whose stud tops shine (no top to
        # read) flags one, and groups are contested only against a top.
        none = np.zeros(len(rest), bool)
        for other, other_score in self._allowed(centres[rest], top, held[rest], none, none,
                                                every_ink=True,
                                                not_dark=lifted_from_black(centres)[rest]):
            if other_score >= score - margin:
                out[rest[np.array(other) != chosen]] = True
        return out

    def one_ink_contested(self, centres: FloatArray, top: FloatArray | None,
                          best: tuple[tuple[str, ...], float],
                          shares: FloatArray | None = None) -> NDArray[np.bool_]:
        """The group a naming ``best`` (as :meth:`contested`'s) names light green or gold
        where its broad groups are that ink and dark green alone, if the naming with it
        named the other light ink scores within ``ONE_INK_MARGIN`` of it: one ink beside
        dark green is told from the other on little evidence (no pair of the two)."""
        names, score = best
        out = np.zeros(len(centres), bool)
        if shares is None or UNNAMED in names:
            return out
        broad = [g for g, n in enumerate(names) if shares[g] >= ONE_INK_SHARE and n != "X"]
        kinds = {names[g] for g in broad}
        if "D" not in kinds or len(kinds) != 2 or not kinds & {"L", "G"}:
            return out
        one = next(g for g in broad if names[g] in "LG")
        swapped = list(names)
        swapped[one] = "G" if names[one] == "L" else "L"
        rest = np.flatnonzero(~near_black(centres))
        none = np.zeros(len(rest), bool)
        wanted = tuple(swapped[g] for g in rest)
        for other, other_score in self._allowed(
                centres[rest], top, _held(centres, shares)[rest], none, none,
                every_ink=True, not_dark=lifted_from_black(centres)[rest]):
            if other == wanted and other_score >= score - ONE_INK_MARGIN:
                out[one] = True
        return out

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.model_dump(), indent=1) + "\n")


def gold_without_light(names: tuple[str, ...], broad: NDArray[np.bool_]) -> bool:
    """Whether a naming names a ``broad`` group gold and no group light green
    (``GOLD_WITHOUT_LIGHT_PRICE``)."""
    return "L" not in names and any(n == "G" and b for n, b in zip(names, broad, strict=True))


INK_MODEL = InkModel.model_validate_json(MODEL_FILE.read_text())
"""The committed model."""
