"""Which way round the board lies: the ground map's colours under four candidate poses.

The plate and its corner bricks are four-fold symmetric, so the geometric fit leaves
four poses a quarter turn apart. Under the right one, the image's colours at the card
around each stud group by the map's regions; under the others they mix. The score needs
no colour calibration (only that the map's regions differ from each other), so warm
light or a colour cast does not matter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import quarter_turn, turned_pose, view_rotation
from calibration.camera import Camera, FloatArray, Pose, lab_samples
from calibration.stud_tops import even_light, plate_top_colours, plate_tops_show
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM
from rules.random_map import random_map


def map_sample_points() -> tuple[FloatArray, NDArray[np.int32]]:
    """Four points on the card around each stud (clear of it, at its diagonals) per cell.

    The four diagonals make the point set the same after a quarter turn, so one set of
    samples serves all four candidate turns.
    """
    centres = _cell_centres()
    cells = np.repeat(np.arange(len(centres)), len(CARD_OFFSETS_MM)).astype(np.int32)
    return card_points(centres), cells


CARD_OFFSETS_MM = np.array([[3.0, 3.0], [-3.0, 3.0], [-3.0, -3.0], [3.0, -3.0]])


def card_points(centres: FloatArray) -> FloatArray:
    """The card points around each cell centre (N x 2 mm), cell by cell, on the plate."""
    pts = (centres[:, None, :] + CARD_OFFSETS_MM[None]).reshape(-1, 2)
    return np.hstack([pts, np.zeros((len(pts), 1))])


def _cell_centres() -> FloatArray:
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def turn_permutations() -> NDArray[np.int64]:
    """Row k: the cell that ``turned_pose(pose, k)`` sees where ``pose`` sees each cell.

    Under the turned pose board cell c appears where the untouched pose shows cell
    ``perm[k, c]``, so the colours sampled once under ``pose`` serve every turn.
    """
    centres = _cell_centres()
    perms = []
    for k in range(4):
        t = quarter_turn(k)
        moved = centres @ t[:2, :2].T + t[:2, 3]
        ij = np.rint(moved / STUD_MM - 0.5).astype(np.int64)
        perms.append(ij[:, 1] * BOARD_STUDS + ij[:, 0])
    return np.array(perms)


VISIBLE_STUD = 1.3
"""A cell's stud shows when its rim's edges are this many times its top's."""
MIN_SHOWN_CELLS = 150
LIGHTNESS_WEIGHT = 0.25
"""Weight of Lab lightness against a and b in the map score: over 600 twin frames at the
true pose it halves the frames where the right turn wins by less than 4 (10 to 3)."""
UNKNOWN_CLASS = 4
AGREEMENT_LIGHTNESS = 0.6
"""Lightness weight in the agreement: more than in the turn score, since light and dark
green differ mostly in lightness and a cell is named by its nearest region here."""
NULL_MAPS = 16
"""Unrelated random layouts a map must beat before it may say which way round the board
lies: a wrong map (a stand-in, another sheet) has scored a margin of 15 between its own
turns on twin frames, so its turns alone cannot vouch for it."""
MIN_AGREEMENT = 0.5
AGREEMENT_OVER_NULL = 0.15
"""The agreement is Cohen's kappa of naming each cell after its nearest region mean. At
the true pose on 48 twin frames (24 classic, 24 wide; random maps and map 1) the right
map's kappa was 0.49 to 0.99 and 0.19 to 0.76 above the best of 64 unrelated layouts in
all but one frame (0.30, +0.06: left unresolved); a wrong map's at most 0.31 and at most
0.08 above the unrelated layouts' best; on the wide twin bench one wrong map reached
0.43 (0.20 above that best) at a found pose, hence 0.5."""
MAP_POINTS, MAP_CELLS = map_sample_points()
TURNS = turn_permutations()
UNTURN = np.argsort(TURNS, axis=1)
"""Row k: where under turn k each cell's label goes; ``colours[TURNS[k]]`` scored with
``labels`` is ``colours`` scored with ``labels[UNTURN[k]]``."""


def cell_colours(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> FloatArray:
    """Mean Lab colour of the card around each cell's stud (NaN where out of the picture)."""
    return card_means(lab_samples(image, camera, pose, MAP_POINTS))


def card_means(samples: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of each cell's card samples (from :func:`card_points`), cell by cell."""
    per_cell = len(CARD_OFFSETS_MM)
    grouped = samples.reshape(-1, per_cell, 3)
    # Summed point by point in order, as np.mean would, without its slow strided reduction.
    total = grouped[:, 0].copy()
    for k in range(1, per_cell):
        total += grouped[:, k]
    return total / np.float32(per_cell)


def fisher_score(per_cell: FloatArray, labels: NDArray[np.int32]) -> float:
    """How well the ground map's colour classes separate: between over within scatter.

    No colour calibration is needed, so warm light or a colour cast does not matter,
    only that the map's regions differ from each other. Class centres are medians and
    each cell's share of the within-class scatter is capped, so that a hand or an arm
    lying across a third of the board (colours no map region has) cannot line up with
    a region under a wrong turn and outvote the cells that are still seen. Lightness
    counts a quarter as much as the two colour axes: light falling off across the
    board (a lamp to one side, the camera's vignetting) changes it within a region,
    while the regions differ mostly in colour.
    """
    return float(fisher_scores(per_cell, labels[None])[0])


def turn_scores(
    colours: FloatArray, labels: NDArray[np.int32], turns: tuple[int, ...] = (0, 1, 2, 3)
) -> FloatArray:
    """The map score of colours sampled under a pose, for each of ``turns`` of that pose."""
    return fisher_scores(colours, labels[UNTURN[list(turns)]])


def fisher_scores(per_cell: FloatArray, labelings: NDArray[np.int32]) -> FloatArray:
    """:func:`fisher_score` of the same cells under each row of ``labelings`` (T x cells).

    Scoring the four turns is scoring one set of colours under four labelings (a turn
    moves the map's labels, not the colours), so the cells are filtered, weighted and
    their overall median taken once, and every class median of every labeling comes
    out of one sort: a third of the cost of four separate scores.
    """
    finite = np.isfinite(per_cell)
    valid = finite[:, 0] & finite[:, 1] & finite[:, 2]
    ids = labelings[:, valid]
    count, n = ids.shape
    if n < 50:
        return np.zeros(count)
    # Channels as rows: medians along contiguous rows cost a fraction of column medians.
    channels = np.ascontiguousarray(per_cell[valid].T)
    channels[0] *= LIGHTNESS_WEIGHT
    centre = row_medians(channels)
    classes = int(ids.max()) + 1
    groups = (ids + classes * np.arange(count)[:, None]).ravel()
    sizes = np.bincount(groups, minlength=count * classes)
    starts = np.cumsum(sizes) - sizes
    # The middle one or two of each group once sorted (an empty group points anywhere).
    low = np.minimum(starts + np.maximum(sizes - 1, 0) // 2, len(groups) - 1)
    high = np.minimum(starts + sizes // 2, len(groups) - 1)
    # One sort of all groups of all channels: each value raised by its group's number
    # times the channels' span, so that groups sort apart and values within them.
    floor = channels.min(axis=1, keepdims=True).astype(np.float64)
    span = float(np.ceil((channels.max(axis=1, keepdims=True) - floor).max())) + 1.0
    lift = np.repeat(np.arange(count * classes) * span, sizes)
    tiled = np.tile(channels, (1, count))  # every labeling's cells side by side
    keys = (tiled - floor) + (groups * span)[None]
    keys.sort(axis=1)
    keys -= lift[None]
    medians = (keys[:, low] + keys[:, high]) / 2 + floor
    used = sizes >= 3
    gap = ((medians - centre[:, None]) ** 2).sum(axis=0)
    between = (np.where(used, sizes * gap, 0.0)).reshape(count, classes).sum(axis=1)
    spread = ((tiled - medians[:, groups]) ** 2).sum(axis=0)
    residual = np.where(used[groups], spread, 0.0).reshape(count, n)
    cap = 4.0 * row_medians(residual)[:, None] + 1e-6
    within = np.minimum(residual, cap).sum(axis=1)
    return between / np.maximum(within, 1e-6)


def row_medians(values: NDArray[np.floating]) -> NDArray[np.floating]:
    """``np.median(values, axis=1)`` for rows without NaN, the same numbers at a third the cost.

    A tracked frame takes a dozen medians of a few hundred numbers, and the turn decoder
    hundreds of a few dozen (each stud level's colour), where numpy's own checks and
    copies cost more than the selection itself.
    """
    n = values.shape[1]
    half = n // 2
    if n % 2:
        return np.partition(values, half, axis=1)[:, half]
    part = np.partition(values, (half - 1, half), axis=1)
    return (part[:, half - 1] + part[:, half]) / 2


def map_labels(ground: GroundMap) -> NDArray[np.int32]:
    """The map's ground characters as class numbers, cell order y-major like the samples."""
    return _labels(ground.ground)


@functools.lru_cache(maxsize=16)
def _labels(rows: tuple[str, ...]) -> NDArray[np.int32]:
    """Computed once per map: a tracked frame should not spend time re-reading the map."""
    # "?" (a stud read as unknown) gets a class of its own that is never scored.
    codes = {"L": 0, "D": 1, "G": 2, "X": 3, "?": UNKNOWN_CLASS}
    labels = np.array([codes[c] for row in rows for c in row[:BOARD_STUDS]], dtype=np.int32)
    labels.setflags(write=False)
    return labels


def shown_cell_colours(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, studs: FloatArray | None,
    evened: bool = False,
) -> FloatArray:
    """Each cell's card colour under ``pose`` (:func:`cell_colours`), NaN where a stud
    shows the cell covered (:func:`hide_covered`, the stud tops asked too); all cells
    without ``studs``. What the map's turn is scored on, at the first detection and
    while tracking alike. ``evened``: the light's fall across the board taken out by
    the stud tops (:func:`calibration.stud_tops.even_light`)."""
    colours = cell_colours(image, camera, pose)
    if studs is None and not evened:
        return colours
    tops = plate_top_colours(image, camera, pose)
    if studs is not None:
        colours = hide_covered(colours, studs, tops)
    return even_light(colours, tops) if evened else colours


def hide_covered(
    colours: FloatArray, studs: FloatArray, tops: FloatArray | None = None
) -> FloatArray:
    """The cells' colours with those whose stud does not show set to NaN.

    An arm, a hand, a card or a piece of the palace on a cell hides its stud and shows
    colours no map region has. Capped residuals keep them from outvoting the map, but
    with two thirds of the board covered they still blur it: a wrong turn has won by
    2.8 times that way, where the same cells without the covered ones give the right
    turn by 27. Without ``tops``, when too few studs show (a soft, blurred frame) every
    cell is kept. With ``tops`` (:func:`calibration.stud_tops.plate_top_colours`) a cell
    shows where its stud top has the plate's colour
    (:func:`calibration.stud_tops.plate_tops_show`), the cells the rims pass giving that
    colour: on a small or soft board the rims pass a fifth to two thirds of the cells,
    covered ones about as often as shown ones (on 14 dev boards the map agreed 0.14 to
    0.60 on them, 0.49 to 0.93 on the cells shown).
    There no fallback keeps every cell: where few tops show the plate's colour the map
    has little to go on, its margin stays short and the turn is left open, which is
    what a board that covered should get.
    """
    if len(studs) != len(colours):
        return colours
    shown = studs >= VISIBLE_STUD
    if tops is not None:
        shown = plate_tops_show(tops, shown if shown.sum() >= MIN_SHOWN_CELLS else None)
    elif shown.sum() < MIN_SHOWN_CELLS:
        return colours
    out = colours.copy()
    out[~shown] = np.nan
    return out


def winning_turn(scores: FloatArray) -> tuple[int, float, float]:
    """Which of the turns' map scores wins, by how many times the runner-up, and its score."""
    order = np.argsort(scores)[::-1]
    best, second = float(scores[order[0]]), float(scores[order[1]])
    return int(order[0]), best / max(second, 1e-6), best


def agreements(per_cell: FloatArray, labelings: NDArray[np.int32]) -> FloatArray:
    """Per labeling (rows of ``labelings``), how well a layout explains the card: the
    share of scored cells whose colour lies nearest their own class's mean, less what
    chance would give with the same class shares (Cohen's kappa; 0 chance, 1 every
    cell). Unlike the between/within ratio it does not grow with the number of layouts
    tried, and unlike the raw share it does not favour a layout that is mostly one colour.

    Cells without colour (NaN) and cells of the unknown class do not count.
    """
    finite = np.isfinite(per_cell)
    valid = finite[:, 0] & finite[:, 1] & finite[:, 2]
    colours = per_cell[valid].astype(np.float32)
    colours[:, 0] *= AGREEMENT_LIGHTNESS
    ids = labelings[:, valid]
    count, n = ids.shape
    if n < 50:
        return np.zeros(count)
    classes = UNKNOWN_CLASS
    # Class membership as 0/1 rows: class sums and sizes are then two matrix products.
    member = (ids[:, None, :] == np.arange(classes, dtype=ids.dtype)[None, :, None]).astype(
        np.float32)
    sizes = member.sum(axis=2)
    means = (member @ colours) / np.maximum(sizes, 1)[..., None]
    used = sizes >= 3
    # Squared distance less the cell's own |c|^2, the same for every class: one product.
    cross = means @ colours.T
    dist = np.where(used, (means**2).sum(-1), np.inf)[:, :, None] - 2 * cross
    nearest = np.argmin(dist, axis=1)
    scored = ids < classes
    counted = scored & np.take_along_axis(used, np.minimum(ids, classes - 1), axis=1)
    right = (nearest == ids) & counted
    total = np.maximum(counted.sum(axis=1), 1)
    observed = right.sum(axis=1) / total
    # Less what naming every cell after the same shares of classes would get by chance
    # (Cohen's kappa): a layout that is mostly one colour agrees with a card that is
    # mostly one colour wherever its regions lie.
    shares = (member * counted[:, None, :]).sum(axis=2) / total[:, None]
    named = np.stack([((nearest == k) & counted).sum(axis=1) for k in range(classes)], axis=1)
    chance = (shares * named / total[:, None]).sum(axis=1)
    return (observed - chance) / np.maximum(1 - chance, 1e-6)


@functools.lru_cache(maxsize=2)
def null_labelings(count: int = NULL_MAPS) -> NDArray[np.int32]:
    """Unrelated random layouts under all four turns (4 * count rows), made once."""
    rows = []
    for i in range(count):
        labels = map_labels(random_map(np.random.default_rng(90_000 + i)))
        rows.extend(labels[UNTURN[k]] for k in range(4))
    out = np.array(rows, dtype=np.int32)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class TurnEvidence:
    """What the ground map says about the quarter turn, and how far it can be trusted.

    ``pose`` is the map's winning turn of the pose when a map was given, else the pose
    turned so that its row y = 0 faces the camera (a fixed choice, not a claim).
    ``margin`` is the winning turn's score over the runner-up's, ``agreement`` the
    share of cells the map explains under it and ``null`` the best share of unrelated
    layouts (see :data:`NULL_MAPS`).
    """

    pose: Pose
    margin: float = 0.0
    score: float = 0.0
    agreement: float = 0.0
    null: float = 0.0
    mapped: bool = False
    turn: int = 0
    """The winning quarter turn relative to the pose the evidence was weighed under."""
    colours: FloatArray | None = field(default=None, repr=False, compare=False)
    """The cells' colours it was weighed on (for :func:`with_null` later)."""
    evened: bool = False
    """Whether those colours were evened by the stud tops (:func:`shown_cell_colours`):
    the view a tracked frame must score the kept turn on, since its scores are compared
    with these."""

    def with_null(self) -> TurnEvidence:
        """The same evidence with the unrelated layouts' best agreement worked out: the
        costly part, left until the geometry has accepted the pose."""
        if self.colours is None:
            return self
        null = float(agreements(self.colours, null_labelings()).max())
        return replace(self, null=null)


def canonical_turn(camera: Camera, pose: Pose) -> Pose:
    """The quarter turn of ``pose`` whose row y = 0 faces the camera (rotation 0)."""
    for k in range(4):
        turned = turned_pose(pose, k)
        if view_rotation(camera, turned) == 0:
            return turned
    return pose


def weigh_turn(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap | None,
    studs: FloatArray | None = None, null: bool = True, evened: bool = False,
) -> TurnEvidence:
    """The map's evidence about the turn of ``pose`` (none without a map); without
    ``null`` the unrelated layouts are left out (``null`` 1.0, see :meth:`with_null`);
    ``evened`` weighs the colours with the light's fall taken out (:func:`shown_cell_colours`)."""
    if ground is None:
        return TurnEvidence(canonical_turn(camera, pose))
    colours = shown_cell_colours(image, camera, pose, studs, evened)
    labels = map_labels(ground)
    turn, margin, score = winning_turn(turn_scores(colours, labels))
    agreement = float(agreements(colours, labels[UNTURN[turn]][None])[0])
    evidence = TurnEvidence(turned_pose(pose, turn), margin, score, agreement, 1.0, True, turn,
                            colours, evened)
    return evidence.with_null() if null else evidence


def map_explains(agreement: float, null: float) -> bool:
    """Whether a map explains the card far better than unrelated layouts would."""
    return agreement >= MIN_AGREEMENT and agreement >= null + AGREEMENT_OVER_NULL
