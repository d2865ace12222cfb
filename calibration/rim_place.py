"""Does the plate's rim put the board where the pose does along each of its axes?

The rim fit (:mod:`calibration.rim_agrees`) sees the board's plane but not its place in
that plane to half a stud: from true poses moved half a stud, it moved every stud under
2 px on a quarter of development frames, since the first stud row's own edges and the
plate's side face lie a few millimetres from the rim and the fit, pulled by every edge at
once, settles on any of them.

Here the board is only slid along one of its axes, its plane kept, and the two rim sides
across that axis are read at every slide: the mean grey step across the sides at their
projected place, one profile a side sample, no search. That curve peaks where the rim
is. On 40 development frames (3000 to 3039) moved 2.5 or 4 mm along one axis, the curve
of that axis peaked within :data:`PEAK_MM` of the moved pose on 0 of 320 slides at a
distinct peak of :data:`DISTINCT_PEAK` times the curve's median (1 at 2.0, 4 at 1.5),
while both axes so peaked at the truth on 19 of 40 frames (28 at 2.0). Too few truths
pass for the curve to stand as a check on every pose; it is a witness for a pose that
other checks already box in: against a rival place, such as the stud tops' colour's
half-stud move (:func:`witnesses_against`: poses moved 2 to 4 mm were vouched for
against the truth on 0 of 800 tries over 80 dev frames, the truth against such a move
on 261 of 400), and for a thin soft lattice (:func:`places_thin_fit`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import ParamSpec

import numpy as np
from numpy.typing import NDArray

from calibration.alias import BoundaryCheck, check_boundary
from calibration.board_model import slid_pose
from calibration.camera import Camera, FloatArray, Pose
from calibration.edges import EdgeModel, profiles, sample_edges
from calibration.evidence import RIM_MODEL, BoardLocation
from calibration.grid import GridFit
from calibration.rim_agrees import rim_moves, rim_witnesses
from calibration.stud_tops import (
    TopColours,
    quarters_problem,
    top_colours,
    tops_move,
    tops_problem,
)
from calibration.vouching import PLACED_BLOCKS, SIDES_VOUCHED_CLARITY, VOUCHED_RMS_PX

SLIDES_MM = np.arange(-6.0, 6.01, 0.5)
"""Slides of the board along one axis at which the rim is read: three quarters of a stud
each way, so that a pose half a stud off still has the rim inside the curve."""
PEAK_MM = 1.0
"""How far from the pose the curve's peak may lie for the rim to put the board there: the
peaks at true poses of 40 development frames lay within 1 mm on 34 of them (both axes),
and a pose moved 2.5 mm peaked 2 to 3 mm back."""
DISTINCT_PEAK = 2.5
"""How many times the curve's median its peak must be to say where the rim is (a soft
rim or one along a palace's wall reads flat). At 2.5, 0 of 320 moved axes peaked at the
moved pose, at 2.0 1, at 1.5 4; at 2.0 with :data:`OVER_RIVAL` 1.5 a pose 3 mm off a board
7 px a stud (dev 3079) was vouched for against the truth (peak 2.15 times, rival 1.57)."""
OVER_RIVAL = 2.0
"""How many times the rim's step at the pose must exceed its step at the rival place.
The right pose of dev 3004 reads 2.6 times its colour's rival (3 mm along x)."""
OVERRULED_TOPS_BLOCKS = 12
"""The fewest lattice blocks over which the plate's rim may overrule the stud tops'
colour (:func:`rim_overrules_tops`): most of the board, as a soft lattice needs (dev
3004 shows 16)."""
P = ParamSpec("P")
Later = Callable[[], BoardLocation | None]
_LATER: ContextVar[list[Later] | None] = ContextVar("placed_later", default=None)
"""The placed refits (:func:`places_thin_fit`) a search has put off to its end."""
SAMPLE_SPACING_PX = 2.0
"""Pixels between the rim's samples along its sides: a board 7 px a stud still has a
few dozen samples a side."""
MIN_SAMPLES = 10
"""The fewest rim samples in the picture for a step to be read (a side mostly out of
frame says nothing of the board's place)."""
_OUT = RIM_MODEL.outward
_SIDES = [
    EdgeModel(
        RIM_MODEL.starts[across], RIM_MODEL.ends[across],
        RIM_MODEL.groups[across], RIM_MODEL.outermost[across],
    )
    for across in (np.abs(_OUT[:, 0]) > 0.5, np.abs(_OUT[:, 1]) > 0.5)
]
"""The two rim sides across the board's x axis (the ones a slide along x moves off their
edges), then the two across y."""


def slid(pose: Pose, axis: int, mm: float) -> Pose:
    """The pose with the board slid ``mm`` along its own ``axis`` (0: x, 1: y)."""
    return slid_pose(pose, mm, 0.0) if axis == 0 else slid_pose(pose, 0.0, mm)


def rim_step(gray: NDArray[np.float32], camera: Camera, pose: Pose, axis: int) -> float:
    """Mean grey step across the two rim sides across ``axis`` where ``pose`` puts them
    (NaN where too few of their samples lie in the picture)."""
    _, px, normal, _, _ = sample_edges(camera, pose, _SIDES[axis], SAMPLE_SPACING_PX)
    h, w = gray.shape
    inside = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    if inside.sum() < MIN_SAMPLES:
        return float("nan")
    profile = profiles(gray, px[inside], normal[inside], 1)
    return float(np.mean(np.abs(profile[:, 2] - profile[:, 0]))) / 2


def rim_curve(gray: NDArray[np.float32], camera: Camera, pose: Pose, axis: int) -> FloatArray:
    """:func:`rim_step` at every slide of :data:`SLIDES_MM` along ``axis``."""
    return np.array([rim_step(gray, camera, slid(pose, axis, d), axis) for d in SLIDES_MM])


def places_axis(curve: FloatArray) -> bool:
    """Whether a :func:`rim_curve` peaks distinctly within :data:`PEAK_MM` of the pose."""
    if not np.isfinite(curve).all():
        return False
    peak = int(np.argmax(curve))
    return bool(
        abs(SLIDES_MM[peak]) <= PEAK_MM
        and curve[peak] >= DISTINCT_PEAK * float(np.median(curve))
    )


def witnesses_against(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, rival_mm: tuple[float, float]
) -> bool:
    """Whether the rim puts the board at ``pose`` rather than moved by ``rival_mm`` (x, y):
    along every axis the rival moves it (by a millimetre or more), the rim's curve peaks
    distinctly at the pose and its step there is :data:`OVER_RIVAL` times the rival's."""
    asked = [axis for axis in (0, 1) if abs(rival_mm[axis]) >= 1.0]
    for axis in asked:
        curve = rim_curve(gray, camera, pose, axis)
        rival = rim_step(gray, camera, slid(pose, axis, rival_mm[axis]), axis)
        if not places_axis(curve) or not curve[len(SLIDES_MM) // 2] >= OVER_RIVAL * rival:
            return False
    return bool(asked)


def rim_overrules_tops(
    gray: NDArray[np.float32],
    camera: Camera,
    grid: GridFit,
    boundary: BoundaryCheck,
    colours: TopColours,
    rim: Callable[[], NDArray[np.float64] | None],
) -> bool:
    """Whether the plate's rim, read along the board's axes, puts a lattice that the stud
    tops' colour puts on the gaps where the lattice does, not where the colour does.

    The colour's half-stud move swaps studs and gaps and cannot tell which is which on
    its own (:mod:`calibration.stud_tops`); a sharp-ish lattice over most of the board,
    all four sides stepping where it puts them, the rim fitted all round agreeing, is
    refused by it alone when a card's colours are as even as the tops (dev 3004, 11.6 px a
    stud: 0.17 px off over 16 blocks at 5.9, the colour's least spread 3 mm along x). The
    rim slid along that axis (:func:`witnesses_against`) is the
    witness of the board's place along its sides that the rim fit is not."""
    if grid.blocks < OVERRULED_TOPS_BLOCKS or not boundary.passed:
        return False
    if not rim_witnesses(rim()):
        return False
    rival = tops_move(colours)
    return witnesses_against(gray, camera, grid.pose, rival)


def rim_places(gray: NDArray[np.float32], camera: Camera, pose: Pose) -> bool:
    """Whether the rim's curves along both of the board's axes peak distinctly at the pose
    (:func:`places_axis`)."""
    return all(places_axis(rim_curve(gray, camera, pose, axis)) for axis in (0, 1))


def places_thin_fit(
    image: NDArray[np.uint8], gray: NDArray[np.float32], camera: Camera, grid: GridFit
) -> bool:
    """Whether the plate's rim and the board's sides vouch for a thin, soft top-blind fit.

    On small, soft boards (7 to 15 px a stud) the usual template's fit can walk 4 to 11 px
    off where the top-blind one stays within a pixel over only 7 to 9 blocks (dev 20020,
    3079): too few for the sides or the rim fit to vouch for (a thin lattice's sides have
    stepped where boards six studs off put them, and the rim fit does not see the board's
    place along its sides). Together they may: the lattice over 7 blocks or more at a
    clarity the sides may vouch for and tight, all four sides stepping where it puts them
    and none elsewhere, the rim fitted all round moving no stud over 2 px (its tilt), the
    rim slid along each axis peaking at the pose (its place; :func:`rim_places`), and the
    stud tops' colour, whole board and every quarter, putting the studs where it does.
    Top-blind fits over 7 blocks or more, tight, at 4.3 or more, from every start of the
    search within 40 px of the truth, three perturbed truths and three truths moved a
    stud (dev 3000 to 3099, 20000 to 20149): 514 passed, all within 0.91 px, 4 of them
    over 8 or 9 blocks. Of the 369 such fits over 2 px off on dev 3050 to 3099 and 20100
    to 20149, 4 had all four sides stepping where they put the board; the rim fit refused
    each.
    """
    if (
        grid.blocks < PLACED_BLOCKS
        or grid.residual_px > VOUCHED_RMS_PX
        or grid.clarity < SIDES_VOUCHED_CLARITY
    ):
        return False
    boundary = check_boundary(image, camera, grid.pose)
    if boundary.good != 4 or boundary.bad != 0:
        return False
    if not rim_witnesses(rim_moves(gray, camera, grid.pose)) or not rim_places(
        gray, camera, grid.pose
    ):
        return False
    colours = top_colours(image, camera, grid.pose)
    return not (
        tops_problem(image, camera, grid.pose, colours=colours)
        or quarters_problem(image, camera, grid.pose, colours=colours)
    )


def now_or_later(placed: Later) -> BoardLocation | None:
    """A placed refit judged now, or, within :func:`placed_last` (a first detection's
    search), put off to the search's end: it is tried only where nothing else is found.
    Tried at every refused start, it cost first detection 7 % (paired, 40 frames); at the
    end it costs only the frames no other start finds, and never changes a found one."""
    later = _LATER.get()
    if later is None:
        return placed()
    later.append(placed)
    return None


def placed_last(
    search: Callable[P, BoardLocation],
) -> Callable[P, BoardLocation]:
    """``search`` with the placed refits its starts put off (:func:`now_or_later`) tried,
    in the order of their starts, where it finds no board."""

    @functools.wraps(search)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> BoardLocation:
        token = _LATER.set([])
        try:
            result = search(*args, **kwargs)
            for placed in [] if result.found else list(_LATER.get() or []):
                found = placed()
                if found is not None:
                    found.method = "placed"
                    return found
            return result
        finally:
            _LATER.reset(token)

    return wrapper
