"""The ink model's recipe: the map read's colour groups on wide-twin maps, and their fit.

Each seed's set-up and palace views (:mod:`twin.map_views`), with a matt card and with a
glossy one, are read as the camera would read them (pose found without a map, card
colours sampled, cells grouped); a group whose visible cells are at least ``PURE`` one
ink is a sample of that ink, and every two such groups of one view a sample of their
pair. The Gaussians of :mod:`calibration.ink_model` are fitted on those samples.

The groups are the reader's own, settled against their colours near each cell
(:func:`calibration.map_inks.settled`), so that the model describes the groups it will
name. Refitted so, the development maps (50000-50039, 50100-50119) read as before on
matt cards and better on glossy ones (94.47 to 94.95 % of the studs read right on the
first set).

Seeds: the fit takes 50200 onwards; the map read's development views are 50000-50199
and its bench 20000 onwards, never fitted on.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.ink_model import (
    INKS,
    Gaussian,
    InkModel,
    group_features,
    pair_features,
    signed_lab,
)
from calibration.map_inks import reference_top
from calibration.map_naming import colour_groups
from calibration.map_read import ViewRead, cell_in, read_view
from rules.maps import UNKNOWN_GROUND
from twin.map_views import map_views, truth_cells, visible_cells

PURE = 0.9
"""Share of a group's visible cells that must be one ink for it to teach that ink."""
SAME_INK = -6.0
"""Log price of two groups named alike: one ink cut in two by light falling off is
rarer than two inks (chosen on the fitting maps: -3 left more views misnamed, -10 none
fewer)."""
MIN_SAMPLES = 8
"""A pair of inks seen fewer times than this gets no Gaussian (it stays unlikely)."""


@dataclass(frozen=True)
class GroupSample:
    """One colour group of one view: its median colour, the view's stud tops, its ink."""

    view: str
    centre: FloatArray
    top: FloatArray
    ink: str


def view_samples(name: str, read: ViewRead, truth: NDArray[np.str_],
                 seen: NDArray[np.bool_]) -> list[GroupSample]:
    """The pure groups of one read view; ``truth`` and ``seen`` per cell of the read's
    board frame (``seen``: the cell's card truly shows)."""
    if read.top is None or reference_top(signed_lab(read.top)) is None:
        return []  # no reference the reader would measure its groups against
    usable = read.shown & seen & (truth != UNKNOWN_GROUND)
    lab = signed_lab(read.colours[read.shown])
    white, groups, _, _ = colour_groups(lab, np.flatnonzero(read.shown))
    inked = ~white
    cell_truth = np.where(usable, truth, UNKNOWN_GROUND)[read.shown][inked]
    groups = groups[inked]
    top = signed_lab(read.top)
    samples = []
    for g in range(int(groups.max()) + 1 if len(groups) else 0):
        members = groups == g
        inks, counts = np.unique(cell_truth[members & (cell_truth != UNKNOWN_GROUND)],
                                 return_counts=True)
        if not len(counts) or counts.max() < PURE * members.sum():
            continue
        ink = str(inks[int(np.argmax(counts))])
        if ink in INKS:
            samples.append(GroupSample(name, np.median(lab[inked][members], axis=0), top, ink))
    return samples


def twin_samples(first_seed: int, maps: int) -> Iterator[GroupSample]:
    """The pure groups of the seeds' set-up and palace views, each rendered twice: with a
    matt card and with the card's gloss (which lifts dark inks towards grey)."""
    for seed, gloss in itertools.product(range(first_seed, first_seed + maps), (False, True)):
        for view in map_views(seed, sheen=gloss):
            read = read_view(view.frame.image, view.camera)
            if isinstance(read, str):
                continue
            where = cell_in(read.pose, view.pose)
            on_board = where >= 0
            truth = np.where(on_board, truth_cells(view.ground)[np.maximum(where, 0)],
                             UNKNOWN_GROUND)
            seen = on_board & visible_cells(view.frame)[np.maximum(where, 0)]
            name = f"{seed} {'set-up' if view.setup else 'palace'}{' gloss' if gloss else ''}"
            yield from view_samples(name, read, truth, seen)


def fit(samples: list[GroupSample], fitted_on: str) -> InkModel:
    """The ink model of the samples."""
    inks = {ink: Gaussian.fit(np.array([group_features(s.centre, s.top)
                                        for s in samples if s.ink == ink]))
            for ink in INKS}
    by_view: dict[str, list[GroupSample]] = defaultdict(list)
    for s in samples:
        by_view[s.view].append(s)
    pairs: dict[str, list[FloatArray]] = defaultdict(list)
    for groups in by_view.values():
        for a, b in itertools.permutations(groups, 2):
            pairs[a.ink + b.ink].append(pair_features(a.centre, b.centre))
    kept = {key: Gaussian.fit(np.array(rows)) for key, rows in sorted(pairs.items())
            if len(rows) >= MIN_SAMPLES}
    return InkModel(fitted_on=fitted_on, inks=inks, pairs=kept, same_ink=SAME_INK)
