"""The board's pose from one frame: outline, rim, stud lattice, sides, ground map.

Coarse to fine: outlines of the plate in a quarter-size image (:mod:`calibration.corners`)
give poses within tens of pixels (:mod:`calibration.outline_pose`); the plate's rim at half
size pulls one within a few pixels (:mod:`calibration.edges`); the stud lattice brings it
to a tenth of a pixel (:mod:`calibration.grid`), and the board's four sides, each a step
from board to table, say which stud of the lattice is the edge's (:mod:`calibration.alias`;
over a sharp lattice, its pairs of opposite sides stepping together,
:mod:`calibration.side_pairs`). The plate and its four corner bricks look the same after a
quarter turn, so geometry alone gives four equally good poses; the ground map's colours
pick one of them (:mod:`calibration.turn`).

Most frames are found from the first outline of the stud-texture mask. When no
outline explains the board (a sleeve across two sides, a hand over a corner), the stud
lattice alone gives the plane and the turn (:mod:`calibration.lattice_pose`), and the
sides, searched a few studs each way, give its place; where they are hidden, the ground
map's layout slid over the plane does (:mod:`calibration.map_place`). Harder frames
still (a green table, a card against the board's side) get the outlines of two more
masks, then the stud lattice looked at again with windows twice as dense (a small
board). Last come the poses from every three corners of every outline, ranked by how
much rim they explain and how well they cover the board-coloured region. That slow path
runs under a budget of CPU time, so a frame without a findable board costs about a second
of computing, and the same frame gets the same answer however busy the machine is.

Every answer carries the evidence behind it (lattice residual, sides found, corner-brick
outlines found, how clearly the map chose the turn), judged in :mod:`calibration.evidence`:
any weak link turns the answer into "not found" with the reason. A frame where no start is
taken reports the refusal of the start that came closest (the highest quality among those
past the lattice's own checks), else the first outline's; with the focal length refined
from outlines (``refine_focal``), the first outline's refusal.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.alias import stud_moves
from calibration.board_model import in_front, moved_pose
from calibration.camera import Camera, Pose, project
from calibration.corners import PlateSearch, search_plate
from calibration.edges import refine_pose
from calibration.evidence import (
    PLATE_GROUP,
    RIM_MODEL,
    BoardLocation,
    first_found,
    gray_float,
)
from calibration.fit import FURTHER_IN, finish
from calibration.focal_search import locate_with_focal, sweep_focal
from calibration.grid import align_on_grid, refine_on_grid
from calibration.lattice_patches import DENSE_STRIDE_PX, STRIDE_PX, Patch, lattice_patches
from calibration.lattice_pose import lattice_poses
from calibration.map_place import place_by_map
from calibration.outline_pose import (
    OUTLINE_POINTS,
    initial_pose,
    outline_hypotheses,
    rim_fit,
    rim_score,
    same_outline,
)
from calibration.rim_place import placed_last
from calibration.side_pinning import pins_own_size
from calibration.side_profiles import shares_reads
from rules.maps import GroundMap

MAX_CANDIDATES = 8
FAST_CANDIDATES = 1
"""Outlines of the quick search tried before the stud lattice. Its second outline found
one board of 150 development frames, which the full search's outlines find as well,
and cost a refused fit (a rim and two lattice looks, some 12 ms) on 63 of the 69
frames the lattice found: those are half of all first detections."""
LATTICE_FIRST_RIM = 0.45
"""Share of the plate's rim found along the quick outline under which the stud lattice is
asked before the outline's own lattice fit. On 150 development frames the outlines from
which the quick search found a board had 0.51 to 1.0 of their rim, while 30 of the 68
boards the lattice found had an outline under 0.5 (a sleeve across a side, a card
against one), each refused after two lattice looks and a fit (about 10 ms). The outline
is still fitted, right after the lattice, if the lattice finds nothing. The one change
of this round's first-detection work that can change an answer: where both would find
the board, the lattice's pose is now the one reported (and of refusals equally close, the
lattice's reason); on the development frames and the bench's it never did."""
SLOW_CANDIDATES = 4
MIN_HYPOTHESIS_RIM = 0.3
MAX_MAP_REACH = 10
MAP_OVER_SIDES = 1.5
"""How much better the map must fit its own place than the sides' place to be tried."""
SEARCH_BUDGET_S = 0.9
"""Seconds of the calling thread's CPU time a first detection may spend before the slow
path gives up. Frames found on the slow path take 0.4 to 0.8 s; the ones that are not
found there would take 1.2 s. CPU time, not the clock on the wall: on a busy machine the
same frame then gets the same answer, only later (a wall-clock budget lost boards near
it whenever other work shared the cores, so benches and tests read differently from one
run to the next)."""


@shares_reads
@placed_last
def locate_board(
    image: NDArray[np.uint8],
    camera: Camera,
    ground: GroundMap | None = None,
    *,
    refine_focal: bool = False,
    sweep_fields: bool = True,
    budget_s: float = SEARCH_BUDGET_S,
) -> BoardLocation:
    """The board's pose in one BGR frame, searched from scratch.

    The pose rests on the plate, its studs and the corner bricks alone; ``ground`` (the
    map on the board, when known) only says which way round it lies, and only when it
    explains the card far better than unrelated layouts do (``turn_resolved``).

    ``refine_focal``: the camera's focal length is a guess, refined on the board; where
    the plate's outline gives none, and ``sweep_fields``, the whole search is run under
    the webcams' fields of view (seconds where no board is in view: a loop may ask it
    only now and then).

    ``budget_s`` bounds the slow path (poses from every three corners of every outline,
    the rim at full size); the outlines' own poses are always tried.
    """
    started = time.thread_time()
    if (image.shape[1], image.shape[0]) != (camera.width, camera.height):
        camera = camera.scaled_to(image.shape[1], image.shape[0])
    gray = gray_float(image)
    h, w = gray.shape
    half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    tried: list[Pose] = []
    if refine_focal:
        result = locate_with_focal(image, gray, half, camera, ground, MAX_CANDIDATES)
        if not result.found and sweep_fields:
            swept = sweep_focal(image, camera,
                                lambda guess: locate_board(image, guess, ground, budget_s=budget_s))
            result = swept if swept.found else result
        return _found_by(result, "focal") if result.found else result
    # Cheapest first: the quick search's first outline (stud texture alone) with the rim
    # at half size, which finds half the boards (an outline whose rim is mostly missing
    # is finished only after the lattice); then the stud lattice's plane; then the full
    # search's outlines (three masks); then, within the time budget, poses from every
    # three corners of every outline, ranked by the rim they explain; last, for every
    # outline, the rim at full size and the outline's own pose.
    fitted: list[tuple[Pose, Pose]] = []
    deadline = started + budget_s
    closest = _Closest()
    quick = search_plate(image, camera, quick=True)
    deferred: list[Pose] = []
    result = _fit_outlines(
        image, gray, half, camera, ground, quick, FAST_CANDIDATES, tried, fitted, closest,
        deferred,
    )
    if result.found:
        return _found_by(result, "outline")
    first = result  # the best outline's reason is the one worth reporting
    # The stud lattice next: it needs no outline at all, so it finds the boards that
    # arms and sleeves hide the outline of, in a tenth of what the other masks' outlines
    # cost when they fail.
    patches = lattice_patches(gray, half=half)
    lattice = _search_lattice(image, gray, camera, ground, tried, closest, patches=patches)
    if lattice is not None:
        return _found_by(lattice, "lattice")
    for coarse in deferred:
        # A quick outline whose rim was mostly missing, fitted only now.
        first = closest.note(finish(image, gray, camera, coarse, ground, False))
        if first.found:
            return _found_by(first, "outline")
    search = search_plate(image, camera, prior=quick)
    result = _fit_outlines(
        image, gray, half, camera, ground, search, MAX_CANDIDATES, tried, fitted, closest
    )
    if result.found:
        return _found_by(result, "outline")
    if not quick.quads:
        first = result
    # The stud lattice again, its windows twice as dense: a board 250 px across shows
    # too few whole windows to the first look (and its outline is often broken too).
    # Not only after a first look with few windows: boards it found had shown 3 to 14
    # windows to the first look, but one 68. Its time (0.1 to 0.2 s) is not taken
    # from the slow path's budget, which finds boards of its own (a Cycles frame found
    # there at 0.35 s was lost to the budget on a busy machine when it was).
    began = time.thread_time()
    lattice = _search_lattice(image, gray, camera, ground, tried, closest, DENSE_STRIDE_PX)
    if lattice is not None:
        return _found_by(lattice, "lattice")
    deadline += time.thread_time() - began
    if not search.quads:
        return closest.result or BoardLocation(
            False, "no board-coloured, stud-textured region in the image"
        )
    # The slow path, under a time budget: a frame that none of the outlines explains
    # is usually one where the board is not to be found (an arm across half of it),
    # and a tracker is better served by a quick "not found" and the next frame.
    result = _search_hypotheses(
        image, gray, half, camera, ground, search, tried, deadline, closest
    )
    if result is not None:
        return _found_by(result, "corners")
    for pose, coarse_pose in fitted:
        if time.thread_time() > deadline:
            break
        # The rim at full size, for a board small in the picture; the outline's own
        # pose, for a hand or a sleeve over the rim that pulled the rim fit off.
        rim = refine_pose(gray, camera, coarse_pose, RIM_MODEL, radii=(6, 4, 4))
        for start in (rim.pose, pose):
            result = closest.note(
                finish(image, gray, camera, start, ground, False, quarters=True)
            )
            if result.found:
                return _found_by(result, "rim")
    return closest.result or first


class _Closest:
    """The refusal that came closest to a board, to be reported when none is found.

    The first outline's reason is usually about an outline hundreds of pixels off ("the
    stud grid does not fit over 5 blocks"), while a later start had the board's lattice
    and was refused for its sides or its softness: that is what the user needs to hear.
    A refusal that got past the lattice's own checks carries a quality (rim, residual,
    blocks, corner bricks); the highest is kept.
    """

    def __init__(self) -> None:
        self.result: BoardLocation | None = None

    def note(self, result: BoardLocation) -> BoardLocation:
        if not result.found and result.quality > 0 and (
            self.result is None or result.quality > self.result.quality
        ):
            self.result = result
        return result


def _found_by(result: BoardLocation, method: str) -> BoardLocation:
    result.method = method
    return result


def _fit_outlines(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    half: NDArray[np.float32],
    camera: Camera,
    ground: GroundMap | None,
    search: PlateSearch,
    budget: int,
    tried: list[Pose],
    fitted: list[tuple[Pose, Pose]],
    closest: _Closest,
    deferred: list[Pose] | None = None,
) -> BoardLocation:
    """The first ``budget`` new outlines, each fitted by its rim at half size and finished.

    Returns the first found board, or the first outline's reason for not finding it.
    With ``deferred``, an outline whose rim fit found under :data:`LATTICE_FIRST_RIM` of
    the plate's rim is not finished but handed back there (rim-fitted), to be finished
    after the stud lattice; the reason returned is then a placeholder.
    """

    def results() -> Iterator[BoardLocation]:
        for quad in search.quads[:budget]:
            pose = initial_pose(quad, camera)
            if pose is None or any(same_outline(camera, pose, t, 6.0) for t in tried):
                continue
            tried.append(pose)
            rim = rim_fit(half, camera, pose)
            coarse = rim.pose
            fitted.append((pose, coarse))
            if (deferred is not None
                    and rim.group_support.get(PLATE_GROUP, 0.0) < LATTICE_FIRST_RIM):
                deferred.append(coarse)
                continue
            yield closest.note(finish(image, gray, camera, coarse, ground, False))

    return first_found(results())


def _search_lattice(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    ground: GroundMap | None,
    tried: list[Pose],
    closest: _Closest,
    stride: int = STRIDE_PX,
    patches: list[Patch] | None = None,
) -> BoardLocation | None:
    """The first of the lattice's poses that :func:`finish` accepts, if any.

    The dense look (``stride`` under :data:`STRIDE_PX`) skips the poses already tried.
    """
    further_in: list[Pose] = []
    for placed in lattice_starts(image, gray, camera, ground, stride, patches, further_in):
        if stride < STRIDE_PX and any(same_outline(camera, placed, t, 2.0) for t in tried):
            continue
        tried.append(placed)
        result = closest.note(finish(image, gray, camera, placed, ground, False))
        if result.found:
            return result
        if result.reason.startswith(FURTHER_IN):
            further_in.append(placed)
    return None


def lattice_starts(
    image: NDArray[np.uint8], gray: NDArray[np.float32], camera: Camera,
    ground: GroundMap | None, stride: int = STRIDE_PX, patches: list[Patch] | None = None,
    further_in: list[Pose] | None = None,
) -> Iterator[Pose]:
    """Poses from the stud lattice's squeeze across the picture, slid onto the board's sides.

    The lattice gives the plane and the turn but leaves the board's place in it to a few
    studs: the lattice fit puts every stud on a stud, and the sides, searched as many
    studs each way as the lattice left open, pick which stud is the edge's. The fit
    starts from the squeeze's pose slid onto the lattice first (which keeps its plane
    from tilting when few blocks show), then from the squeeze's pose itself. Then come
    the places where the ground map fits clearly better than where the sides put it (an
    arm over a side, a card against one), and last, for a lattice that fixes the board's
    size (:func:`~calibration.side_pinning.pins_own_size`) whose sides' place the caller has put
    in ``further_in`` by the time they are asked (refused, as :data:`FURTHER_IN`, for a
    rim-like step studs away), the sides' runner-up place along each axis
    (:func:`~calibration.alias.stud_moves`): a card against a side or a sleeve along it
    can outstep the rim a few studs off, and the rim is then the next peak. Not after
    every refusal: a small board's sides' place refused at the truth (for the rim or a
    side) had its runner-up taken 5 and 6 studs off (dev, 2 of 150 frames).

    Lazily, in that order: the caller stops at the first start that :func:`finish`
    takes, and the later starts' fits and the map's placements (which only follow the
    sides' starts) are then never worked out.
    """
    starts: list[Pose] = []
    for_map: list[tuple[Pose, int, tuple[int, int]]] = []
    runners_up: list[tuple[Pose, list[Pose]]] = []
    for start in lattice_poses(gray, camera, stride=stride, patches=patches):
        for i, begin in enumerate((align_on_grid(gray, camera, start.pose), start.pose)):
            grid = refine_on_grid(gray, camera, begin)
            if grid is None or not in_front(grid.pose):
                continue
            move, *others = stud_moves(image, camera, grid.pose, start.reach)
            placed = moved_pose(grid.pose, *move)
            if not any(same_outline(camera, placed, s, 2.0) for s in starts):
                starts.append(placed)
                yield placed
            if further_in is not None and pins_own_size(grid):
                runners_up.append((placed, [moved_pose(grid.pose, *m) for m in others]))
            if i == 0 and ground is not None:
                for_map.append((grid.pose, min(start.reach + 1, MAX_MAP_REACH), move))
    by_map: list[Pose] = []
    for pose, reach, move in for_map if ground is not None else []:
        found = place_by_map(image, gray, camera, pose, ground, reach, move)
        if found is not None and found.score >= MAP_OVER_SIDES * found.rival and found.explains():
            by_map.append(found.apply(pose))
    # Last, a lattice sharp and broad enough to fix the board's size, whose sides' place
    # was refused for a rim-like step studs away, at the sides' runner-up along one axis
    # (a card or a sleeve outstepping the rim).
    refused = further_in or []
    tried_too = [
        p for placed, others in runners_up
        if any(same_outline(camera, placed, r, 2.0) for r in refused) for p in others
    ]
    for placed in by_map + tried_too:
        if not any(same_outline(camera, placed, s, 2.0) for s in starts):
            starts.append(placed)
            yield placed


def _search_hypotheses(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    half: NDArray[np.float32],
    camera: Camera,
    ground: GroundMap | None,
    search: PlateSearch,
    tried: list[Pose],
    deadline: float,
    closest: _Closest,
) -> BoardLocation | None:
    """The slow path: every outline's poses ranked by the rim they explain, best few fitted."""
    h, w = gray.shape
    quarter = cv2.resize(half, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    cam_q = camera.scaled_to(w // 4, h // 4)
    pinhole = Camera(camera.width, camera.height, camera.camera_matrix, np.zeros(5))
    scored = [
        (rim_score(quarter, cam_q, p) * search.overlap(project(pinhole, p, OUTLINE_POINTS)), p)
        for p in outline_hypotheses(search.quads, camera)
    ]
    scored.sort(key=lambda item: -item[0])
    fitted = 0
    for score, pose in scored:
        if fitted == SLOW_CANDIDATES or score < MIN_HYPOTHESIS_RIM:
            break
        if time.thread_time() > deadline:
            break
        if any(same_outline(camera, pose, t, 6.0) for t in tried):
            continue
        tried.append(pose)
        fitted += 1
        coarse = refine_pose(
            half, camera.scaled_to(w // 2, h // 2), pose, RIM_MODEL, radii=(6, 4), spacing_px=4.0
        )
        for start in (coarse.pose, pose):
            result = closest.note(finish(image, gray, camera, start, ground, False))
            if result.found:
                return result
    return None
