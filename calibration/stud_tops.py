"""Are the studs where the pose puts them, or the gaps between them? The stud tops' colour.

The stud lattice (:mod:`calibration.grid`) finds the studs by their shape in grey. On a
small, soft board whose stud tops are darker than the card and whose card holes take the
card's colour, the gap between four studs can match that shape as well as a stud, and
the fit settles a fraction of a stud off (on the wide twin, 2 to 6 px with every side
still stepping where it puts them). The colours tell the two apart: every stud top is
the plate's plastic, one colour all over the board, while the card between the studs
carries the ground map's regions. Sampled at every stud centre, a right pose finds one
colour; moved by half a stud it finds the map. So the colour spread over the 1024 stud
centres is measured with the pose moved by up to half a stud each way, and the pose must
sit where that spread is least. It reads colour, which the lattice fit never looks at,
and needs no map: it checks the lattice's place, not the board's turn.

It rests on the stud tops being the more uniform of the two, and moving by half a stud
along both axes swaps studs and gaps, so it cannot tell on its own which is which: on a
card of one colour under a bright sky (glossy tops, a hot spot) the tops vary more than
the card, and there a right pose fails it (a miss) and a pose on the gaps would pass it.
That is why it is only asked about soft lattices that everything else already vouches
for, and never as a check on every pose: right poses of three Cycles frames sit at the
largest spread of the half-stud moves.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, FloatArray, Pose, lab_samples, project

SHIFTS_MM = np.arange(-4.0, 4.01, 1.0)
"""Moves of the pose along each axis: to half a stud either way, a millimetre apart."""
LIGHTNESS_WEIGHT = 0.5
"""Lightness counts half in the spread: a light falling off across the board changes it
for studs and card alike."""
MIN_RANGE = 1.2
"""The largest spread over the moves must be this many times the least, or the colours
say nothing (a card of one colour, the plate's own green everywhere)."""
MIN_PLACEMENT = 0.7
"""Where the pose's own spread must lie between the largest (0) and the least (1).
Right poses of soft boards on the wide twin gave 0.83 to 0.98, poses half a stud off 0.02,
a third of a stud off 0.49."""
ON_GAPS_PLACEMENT = 0.2
"""The placement under which a sharper lattice (clarity 5 to 6) is taken to sit on the
gaps between studs. Such a lattice does not settle a third of a stud off, only on the
gaps (half a stud: placement 0.00 on the wide twin), while right poses of it gave 0.38
to 1 (the bench's frames 1000 to 1119): their colours are less clear-cut than a soft
board's, so the soft lattice's 0.7 would refuse them."""
MIN_QUARTER_PLACEMENT = 0.3
"""The least placement any quarter of the board may have where :func:`quarters_problem`
is asked."""
QUARTER_ON_GAPS_PLACEMENT = 0.05
"""The placement under which a quarter of a sharper lattice (clarity 5 to 6) is taken to
sit on the gaps. A tracked dev board (seed 8054) was refitted 7 px off with its whole
board at 0.51 and one quarter at 0.00; right poses of that band on 200 dev frames had
quarters down to 0.10 (four of 48 under 0.2)."""
MIN_QUARTERS_TOLD = 3
"""Quarters whose colours must tell studs from gaps (a quarter of one card colour under
the plate's own green says nothing)."""
MIN_QUARTER_STUDS = 128
_GRID = np.array([(x, y) for y in SHIFTS_MM for x in SHIFTS_MM])
_QUARTER = np.array([(i % 32 >= 16) + 2 * (i // 32 >= 16) for i in range(1024)])
"""Each stud centre's quarter of the board (stud_centres is y-major, 32 x 32)."""


class TopColours(NamedTuple):
    """The stud centres' colours under every move, sampled once for both checks.

    ``lab`` is moves x studs x 3 (lightness weighted) over the studs inside the picture
    under every move, None when too few are; ``quarter`` is each of those studs' quarter
    of the board. Sampling is most of a check's cost (80 000 points projected and
    resampled), and a soft lattice is asked about the whole board and its quarters.
    """

    lab: FloatArray | None
    quarter: NDArray[np.int64]


def top_colours(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> TopColours:
    """The stud centres' colours with the pose moved by every one of the moves."""
    h, w = image.shape[:2]
    studs = stud_centres()
    moved = np.repeat(studs[None], len(_GRID), axis=0)
    moved[..., :2] += _GRID[:, None]
    px = project(camera, pose, moved.reshape(-1, 3)).astype(np.float32)
    xs = px[:, 0].reshape(len(_GRID), len(studs))
    ys = px[:, 1].reshape(len(_GRID), len(studs))
    inside = ((xs >= 0) & (xs < w - 1) & (ys >= 0) & (ys < h - 1)).all(axis=0)
    if inside.sum() < len(studs) // 2:
        return TopColours(None, _QUARTER[inside])
    # One row per move: remap takes at most 32767 columns.
    lab = cv2.cvtColor(
        cv2.remap(image, xs[:, inside], ys[:, inside], cv2.INTER_LINEAR), cv2.COLOR_BGR2LAB
    ).astype(np.float32)
    lab[..., 0] *= LIGHTNESS_WEIGHT
    return TopColours(lab, _QUARTER[inside])


def top_spreads(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, colours: TopColours | None = None
) -> FloatArray:
    """Median colour distance of the stud centres from their median colour, per move.

    Returns a len(SHIFTS_MM) x len(SHIFTS_MM) array (y major); NaN when too few stud
    centres lie in the picture under every move. ``colours``: those already sampled
    from the same image, camera and pose.
    """
    lab = (colours or top_colours(image, camera, pose)).lab
    side = len(SHIFTS_MM)
    if lab is None:
        return np.full((side, side), np.nan)
    return _spread(lab).reshape(side, side)


def quarter_spreads(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, colours: TopColours | None = None
) -> FloatArray:
    """:func:`top_spreads` for each quarter of the board (16 x 16 studs) on its own.

    Returns 4 x len(SHIFTS_MM) x len(SHIFTS_MM); a quarter with too few stud centres in
    the picture is NaN. A pose tilted a fraction of a stud off at one end and right at
    the other can keep the whole board's spread least where it is: each quarter shows it.
    """
    lab, quarter = colours or top_colours(image, camera, pose)
    side = len(SHIFTS_MM)
    quarters = np.full((4, side, side), np.nan)
    if lab is None:
        return quarters
    for q in range(4):
        chosen = quarter == q
        if chosen.sum() >= MIN_QUARTER_STUDS:
            quarters[q] = _spread(lab[:, chosen]).reshape(side, side)
    return quarters


def _spread(lab: FloatArray) -> FloatArray:
    centre = np.median(lab, axis=1, keepdims=True)
    return np.median(np.linalg.norm(lab - centre, axis=2), axis=1)


def placement(spreads: FloatArray) -> float:
    """Where the unmoved pose's spread lies between the largest (0) and the least (1);
    NaN when the spreads say nothing (too few studs, or a range under :data:`MIN_RANGE`)."""
    if not np.isfinite(spreads).all():
        return float("nan")
    low, high = float(spreads.min()), float(spreads.max())
    if high < MIN_RANGE * max(low, 1e-6):
        return float("nan")
    middle = len(SHIFTS_MM) // 2
    return (high - float(spreads[middle, middle])) / (high - low)


def quarters_problem(
    image: NDArray[np.uint8], camera: Camera, pose: Pose,
    min_placement: float = MIN_QUARTER_PLACEMENT, quarters_told: int = MIN_QUARTERS_TOLD,
    colours: TopColours | None = None,
) -> str:
    """Why some quarter of the board puts its stud tops off the pose (empty if none does).

    Asked of the softest lattices taken (see ``calibration.evidence``), where the
    whole board's placement alone has passed poses tilted off at one end; and, only
    whether a quarter sits on the gaps, of lattices up to a clarity of 6.
    """
    placements = [placement(s) for s in quarter_spreads(image, camera, pose, colours)]
    told = [p for p in placements if np.isfinite(p)]
    if len(told) < quarters_told:
        return "too few quarters of the board tell studs from the card between them"
    worst = min(told, default=1.0)
    if worst < min_placement:
        return f"a quarter of the board puts its stud tops off the grid (placement {worst:.2f})"
    return ""


def tops_problem(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, min_placement: float = MIN_PLACEMENT,
    colours: TopColours | None = None,
) -> str:
    """Why the stud tops' colour does not confirm the pose's place (empty if it does)."""
    spreads = top_spreads(image, camera, pose, colours)
    if not np.isfinite(spreads).all():
        return "too few stud tops in the picture to check the studs' place"
    placed = placement(spreads)
    if not np.isfinite(placed):
        return "the stud tops' colour does not tell studs from the card between them"
    if placed < min_placement:
        mx, my = _least_spread_move(spreads)
        return (
            f"the stud tops' colour puts the studs {mx:+.0f}, {my:+.0f} mm"
            f" from the stud grid (placement {placed:.2f})"
        )
    return ""


def _least_spread_move(spreads: FloatArray) -> tuple[float, float]:
    iy, ix = np.unravel_index(int(np.argmin(spreads)), spreads.shape)
    return float(SHIFTS_MM[ix]), float(SHIFTS_MM[iy])


def tops_move(colours: TopColours) -> tuple[float, float]:
    """The move (x, y mm) under which the stud tops' colour spreads least: where the
    colour would put the studs. (0, 0) where too few studs lie in the picture or the
    spreads do not tell studs from the card: the least spread is then noise, and a rim
    asked to overrule it must not be handed a place the colour never named."""
    if colours.lab is None:
        return 0.0, 0.0
    side = len(SHIFTS_MM)
    spreads = _spread(colours.lab).reshape(side, side)
    if not np.isfinite(placement(spreads)):
        return 0.0, 0.0
    return _least_spread_move(spreads)


def on_the_gaps(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> bool:
    """Whether the stud tops' colour puts the pose's own studs on the gaps between them
    (placement under :data:`ON_GAPS_PLACEMENT`; False where it says nothing).

    Where the usual template has settled a soft lattice on the gaps (dark tops blurred
    into their holes), this says so from colour alone: the usual fit misread the tops,
    and a top-blind refit is worth judging (:func:`calibration.fit.finish`)."""
    placed = placement(top_spreads(image, camera, pose))
    return bool(np.isfinite(placed) and placed < ON_GAPS_PLACEMENT)


PLATE_TOP_SPREAD = 3.0
"""A cell's stud top is the plate's own where its colour lies within this many times the
median distance of the reference cells' tops from their median colour. At the found
poses of 270 development boards (seeds 3000 to 3149 and 3500 to 3649) the cells it
keeps settle the turn on 263, against 251 for the stud test alone, and lose none of
those (2.5 loses one and gains one, 3.5 and 4 lose two each)."""


def plate_top_colours(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, points: FloatArray | None = None
) -> FloatArray:
    """Each cell's stud-top colour (Lab, lightness weighted as in the spread), NaN where it
    falls outside the picture; with ``points``, the colour at those board points instead
    (rows of tops moved off the board, see :mod:`calibration.stud_rows`)."""
    lab = lab_samples(image, camera, pose, stud_centres() if points is None else points)
    lab[:, 0] *= LIGHTNESS_WEIGHT
    return lab


def plate_tops_show(tops: FloatArray, reference: NDArray[np.bool_] | None) -> NDArray[np.bool_]:
    """Per cell, whether its stud top shows the plate's plastic (``tops`` from
    :func:`plate_top_colours`): a colour near the reference cells' median (all cells in
    the picture without ``reference``), within :data:`PLATE_TOP_SPREAD` times their
    median distance from it.

    The plate's stud tops are one colour all over the board, and a piece, a hand or a
    card standing on a cell puts its own colour there. Unlike a stud's rim, which blurs
    into the card on a small or soft board, the colour still tells them apart there.
    """
    seen = np.isfinite(tops).all(axis=1)
    chosen = seen if reference is None else seen & reference
    if chosen.sum() < 3:
        return seen
    # Channels as rows: medians along contiguous rows cost less than column medians.
    centre = np.median(np.ascontiguousarray(tops[chosen].T), axis=1)
    distance = np.sqrt(((tops - centre) ** 2).sum(axis=1))  # NaN outside the picture
    limit = PLATE_TOP_SPREAD * float(np.median(distance[chosen]))
    return seen & (np.nan_to_num(distance, nan=np.inf) <= limit)


EVEN_FLOOR = 1.0
"""The least stud-top lightness (weighted as in :func:`plate_top_colours`) a cell's card is
evened by: a top that dark is a hole in the picture, not a shadow."""


def even_light(colours: FloatArray, tops: FloatArray) -> FloatArray:
    """The cells' card colours (Lab, from :func:`calibration.turn.cell_colours`) with the
    light's fall across the board taken out of their lightness: each scaled by how much
    darker its own stud top is than the plate's tops' median (``tops`` from
    :func:`plate_top_colours`; NaN where a top is not seen).

    Every stud top is the same plastic, so its lightness is the light falling on that
    cell; the card around it gets the same light. Light and dark green differ mostly in
    lightness, so a lamp to one side or a shadow across half the board makes lit dark
    green look like shaded light green, and the map's agreement drops under 0.5 at the
    right turn (docs/real-tables-log.md, "The turn under uneven light"). The map read
evens the card its own way (:mod:`calibration.map_light`: a neighbourhood of tops, only
where the light clearly falls off), since it names each stud on its own."""
    lightness = tops[:, 0]
    seen = np.isfinite(lightness) & np.isfinite(colours).all(axis=1)
    out = colours.copy()
    if seen.sum() < 3:
        return out
    reference = float(np.median(lightness[seen]))
    with np.errstate(invalid="ignore"):
        out[:, 0] = colours[:, 0] * reference / np.maximum(lightness, EVEN_FLOOR)
    out[~np.isfinite(lightness)] = np.nan
    return out
