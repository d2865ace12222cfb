"""Reading the ground map off the board: the colour of the card around every stud.

The real Ground Maps are not published and nobody wants to type 1024 letters, so the
camera reads the map: the board is located without a map (the pose needs none), the
card's colour is sampled around each stud that shows, every cell is named light green,
dark green, gold, blocked or the white starting area (:mod:`calibration.map_naming`),
and the views are fused in the board frame of the first one (:func:`read_cells`: each
later view turned the quarter turn under which the studs it names agree with the
first's). A stud hidden in every view (a piece, a hand, the picture's edge) is unknown:
``?`` in the ``palace-map/1`` file, never a starting point for the rules.

Studs beside a piece or in a shadow are not read here; a lamp's fall-off is evened
against the stud tops' light near each stud (:mod:`calibration.map_light`) before the
colours are named.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, FloatArray, Pose, lab_samples
from calibration.evidence import gray_float
from calibration.map_light import evened
from calibration.map_naming import CORNER_GROUND, START, coherent, name_cells, unanimous
from calibration.map_place import stud_cells
from calibration.pose import locate_board
from calibration.turn import CARD_OFFSETS_MM, MAP_POINTS, TURNS
from rules.maps import UNKNOWN_GROUND, GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM

MAX_STUD_TOP_DE = 14.0
"""A cell's stud top must be within this Lab distance of the board's median stud top: a
brick, a column or an arch standing there shows its own colour on top."""
SHADED = 0.75
"""A stud whose top is under this share of the plate's typical stud-top lightness stands
in a shadow (a piece's, a hand's): the card round it is shaded as well, and a shaded
light green reads as dark green, so it is not read. On the development maps
(50000-50039, 50100-50119) 0.7, 0.75 and 0.8 each left fewer studs read wrong with a
palace standing and on glossy cards, hidden ones too, for 0.6 to 1.5 points of the
studs read; 0.75 taken. Left out of the grouping instead, they moved one frame's naming
the wrong way. It only adds to the check that a stud top unlike the plate's
(``MAX_STUD_TOP_DE``) belongs to a piece: on a plate whose tops are lighter than about
56 L* a quarter darker is already that unlike, so the shade is told from a piece only on
darker plates and in darker light."""
MIN_SPREAD = 14.0
SPREAD_OVER_TYPICAL = 2.5
"""A cell whose four card samples stray from their middle by more than this many times
the board's typical stray (and at least ``MIN_SPREAD`` Lab units) is not read."""
ALIGN_MARGIN = 20
ALIGN_AGREE = 0.9
"""A later view is fused only under a quarter turn that clearly aligns it with the first
(:func:`quarter_turn`): of the studs both name, those named alike less those named
unlike must beat every other turn's by ``ALIGN_MARGIN`` and be named alike for
``ALIGN_AGREE`` of them. The board's pose does not say which way round it lies, so only
the map's own colours can; the median colour difference that aligned views before took
the wrong turn for 11 of 75 views from across the table (twin maps 20000-20039), whose
fused readings then named 4 % of the studs wrong."""
SAME_PLACE_SHARE = 0.9
"""The share of cells a view's pose must put where the first view's pose and the quarter
turn put them for the two to count as one place (a board slid a few millimetres between
settled pictures keeps nearly all its cells)."""


@dataclass(frozen=True)
class ViewRead:
    """One picture's reading: the pose it was read under, colours and which cells showed."""

    pose: Pose
    colours: FloatArray  # 1024 x 3 Lab (OpenCV 8-bit scale)
    shown: NDArray[np.bool_]  # 1024
    top: FloatArray | None = None
    """The plate's median stud-top colour (Lab, OpenCV 8-bit scale): the one colour the
    board always shows whatever map is printed on its card."""
    shaded: NDArray[np.bool_] | None = None
    """Cells read whose stud top is far darker than the plate's typical one: in a
    shadow. Their colours help group the inks; they are not read themselves."""
    camera: Camera | None = None
    """The camera the pose was found under (its focal length refined where the board
    gave it: :func:`calibration.board_pose.locate_board`), at the picture's size."""


@dataclass(frozen=True)
class MapReading:
    """The map read from one or more views, in the first located view's board frame."""

    ground: GroundMap
    pose: Pose
    camera: Camera
    views: int
    known: int
    picture: int = 0
    """Which of the pictures read (their order) the pose and camera are of."""
    fused: int = 1
    """Of the ``views``, those whose reading was fused (:func:`read_cells` leaves out a
    view no quarter turn clearly aligns with the first)."""

    def cells(self) -> NDArray[np.str_]:
        """32 x 32 characters, with the starting area as ``S``."""
        return map_cells(self.ground)


def map_cells(ground: GroundMap) -> NDArray[np.str_]:
    """A map's 32 x 32 characters, row y = string y, with its starting area as ``S``
    (the map file lists the area apart from the ground under it)."""
    grid = np.array([list(row) for row in ground.ground])
    for x, y in ground.start_area:
        grid[y, x] = START
    return grid


class MapReadError(ValueError):
    """No picture showed the board; the message names the pictures and why."""


def read_view(image: NDArray[np.uint8], camera: Camera) -> ViewRead | str:
    """The card's colours in one picture, or why the board was not found in it."""
    if (image.shape[1], image.shape[0]) != (camera.width, camera.height):
        camera = camera.scaled_to(image.shape[1], image.shape[0])
    location = locate_board(image, camera)
    if not location.found or location.pose is None:
        return location.reason
    pose = location.pose
    cam = location.camera or camera
    shown = stud_cells(gray_float(image), cam, pose, 0).reshape(-1)
    samples = lab_samples(image, cam, pose, MAP_POINTS).reshape(-1, len(CARD_OFFSETS_MM), 3)
    # The middle of the four samples around each stud: one of them on a leaf, a shadow
    # or the next region does not move it.
    colours = np.median(samples, axis=1)
    spread = np.linalg.norm(samples - colours[:, None, :], axis=2).max(axis=1)
    tops = lab_samples(image, cam, pose, stud_centres())
    usable = shown & np.all(np.isfinite(colours), axis=1) & np.all(np.isfinite(tops), axis=1)
    typical = None
    if usable.sum() >= 20:
        typical = np.median(tops[usable], axis=0)
        plate_top = np.linalg.norm(np.nan_to_num(tops - typical, nan=1e3), axis=1) < (
            MAX_STUD_TOP_DE * 255 / 100)
        usable &= plate_top
        # Samples that disagree: a region's border, a piece's shadow edge or a leaf. A
        # stud read as unknown costs little; one read wrong misleads the rules.
        usable &= spread <= max(MIN_SPREAD, SPREAD_OVER_TYPICAL * float(np.median(spread[usable])))
        # A stud whose own top shows but whose neighbour carries a piece: the piece's
        # side, seen at a slant, covers part of the card sampled around it.
        piece = (shown & ~plate_top).reshape(BOARD_STUDS, BOARD_STUDS).astype(np.uint8)
        piece[CORNER_GROUND] = 1  # the corner bricks stand in every game
        near = cv2.dilate(piece, np.ones((3, 3), np.uint8)).astype(bool).reshape(-1)
        usable &= ~near
    shaded = None if typical is None else usable & (
        np.nan_to_num(tops[:, 0], nan=0.0) < SHADED * typical[0])
    if shaded is not None:  # a lamp's fall-off across the card, measured on the tops
        colours = evened(colours, tops, usable & ~shaded).astype(np.float32)
    return ViewRead(pose, colours, usable, typical, shaded, cam)


def _normalised(view: ViewRead) -> FloatArray:
    """Colours less the view's median over shown cells (exposure and cast cancel)."""
    out = view.colours.astype(np.float64).copy()
    if view.shown.any():
        out -= np.median(out[view.shown], axis=0)
    out[~view.shown] = np.nan
    return out


def quarter_turn(reference: NDArray[np.str_], names: NDArray[np.str_]) -> int | None:
    """The quarter turn ``k`` under which a view's cells, named alone, agree with the
    reference's (1024 characters each, ``?`` unread): view cell ``TURNS[k][c]`` is
    reference cell ``c``; None where no turn clearly does (:data:`ALIGN_MARGIN`,
    :data:`ALIGN_AGREE`)."""
    scores = []
    for k in range(4):
        moved = names[TURNS[k]]
        both = (reference != UNKNOWN_GROUND) & (moved != UNKNOWN_GROUND)
        alike = int((reference[both] == moved[both]).sum())
        scores.append((2 * alike - int(both.sum()), alike, int(both.sum()), k))
    scores.sort(reverse=True)
    (net, alike, both, k), runner_up = scores[0], scores[1]
    if net - runner_up[0] < ALIGN_MARGIN or alike < ALIGN_AGREE * both:
        return None
    return k


def renamed_inks(reference: NDArray[np.str_], names: NDArray[np.str_]) -> frozenset[str]:
    """The inks a view names otherwise than the reference: where the best alignment of
    its light green, dark green and gold with the reference's, over the quarter turns
    and the renamings of the three, renames them, and there the studs both name alike
    less those named unlike come to :data:`ALIGN_MARGIN` and the alike to
    :data:`ALIGN_AGREE` of them, the inks the renaming moves. (Unlike
    :func:`quarter_turn`, no margin over the other alignments is asked: an alignment
    that holds only under a renaming already tells no turn apart as named.) One of the
    two readings named a whole ink wrong and neither says which."""
    inks = ("L", "D", "G")
    best: tuple[int, int, int, tuple[str, ...]] | None = None
    for k in range(4):
        moved = names[TURNS[k]]
        both = np.isin(reference, inks) & np.isin(moved, inks)
        for renaming in itertools.permutations(inks):
            renamed = np.array([renaming[inks.index(c)] for c in moved[both]], dtype="<U1")
            alike = int((reference[both] == renamed).sum())
            if best is None or 2 * alike - int(both.sum()) > best[0]:
                best = (2 * alike - int(both.sum()), alike, int(both.sum()), renaming)
    if best is None or best[3] == inks:
        return frozenset()
    net, alike, both, renaming = best
    if net < ALIGN_MARGIN or alike < ALIGN_AGREE * both:
        return frozenset()
    return frozenset(ink for ink, new in zip(inks, renaming, strict=True) if ink != new)


def _same_place(first: ViewRead, view: ViewRead, k: int) -> bool:
    """Whether ``view`` was taken from where ``first`` was, of the board lying as it lay
    (one webcam's settled pictures): its pose puts the board's cells where the quarter
    turn its colours chose puts them. The pose alone cannot say so (a board turned a
    quarter is found under the same pose), nor can the colours (they say nothing of the
    camera)."""
    where = cell_in(first.pose, view.pose)
    return bool(np.mean(where == TURNS[k]) >= SAME_PLACE_SHARE)


def _fuse(views: list[tuple[ViewRead, int]]) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Median colour per cell over the views it shows in (NaN where it shows in none),
    in the first view's frame (each view turned by its quarter turn), each view's
    exposure brought to the first's; and the cells shaded in every view that shows them.
    A cell some view shows lit takes its colour from the lit views only: a shadow's
    colour is no ink's, and two shaded views against one lit would otherwise outvote it."""
    first = views[0][0]
    offset = np.median(first.colours[first.shown], axis=0) if first.shown.any() else 0
    stack = [_normalised(view)[TURNS[k]] for view, k in views]
    lit = [_lit(view)[TURNS[k]] for view, k in views]
    seen_lit = np.any(lit, axis=0)
    colours = np.stack(stack)
    for i, view_lit in enumerate(lit):
        colours[i, seen_lit & ~view_lit] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # cells unread in every view
        fused = np.nanmedian(colours, axis=0)
    shaded = np.all(np.isfinite(fused), axis=1) & ~seen_lit
    return fused + offset, shaded


def _lit(view: ViewRead) -> NDArray[np.bool_]:
    """The cells a view shows out of shadow."""
    return view.shown if view.shaded is None else view.shown & ~view.shaded


def _named(views: list[tuple[ViewRead, int]]) -> NDArray[np.str_]:
    """1024 characters named from the views' colours fused in one frame."""
    colours, shaded = _fuse(views)
    names = name_cells(colours, views[0][0].top)
    names[shaded] = UNKNOWN_GROUND
    return coherent(names.reshape(BOARD_STUDS, BOARD_STUDS)).reshape(-1)


def read_cells(views: list[ViewRead]) -> tuple[NDArray[np.str_], int]:
    """32 x 32 characters read from located views (``S`` the starting area), in the
    first view's board frame, and how many of the views were fused.

    Each later view is named alone and turned the quarter turn under which it agrees
    with the first; one that agrees under none clearly (too few studs named in both,
    or its inks named otherwise) is left out. Views from the first's place (one
    webcam's settled pictures of a board left lying) have their colours fused before
    naming: a stud in a shadow or a glare in one picture shows in another. Views from
    elsewhere (another webcam, the board turned or moved) are fused by their names:
    their colours are lit and exposed otherwise, and fused they name studs wrongly
    that neither names wrongly alone. A stud they name differently is unknown. Where a
    later view aligns only with its inks renamed, the two readings name a whole ink
    differently and neither says which is right: the inks in dispute are unknown.
    """
    first = views[0]
    alone = _named([(first, 0)])
    here: list[tuple[ViewRead, int]] = [(first, 0)]
    elsewhere: list[NDArray[np.str_]] = []
    disputed: set[str] = set()
    for view in views[1:]:
        names = _named([(view, 0)])
        k = quarter_turn(alone, names)
        if k is None:
            disputed |= renamed_inks(alone, names)
            continue
        if _same_place(first, view, k):
            here.append((view, k))
        else:
            elsewhere.append(names[TURNS[k]])
    names = _named(here) if len(here) > 1 else alone
    if elsewhere:
        first_known, agreed = unanimous(np.stack([names, *elsewhere]))
        names = coherent(np.where(agreed, first_known, UNKNOWN_GROUND).reshape(
            BOARD_STUDS, BOARD_STUDS)).reshape(-1)
    names = np.where(np.isin(names, sorted(disputed)), UNKNOWN_GROUND, names)
    return names.reshape(BOARD_STUDS, BOARD_STUDS), len(here) + len(elsewhere)


Picture = tuple[str, NDArray[np.uint8]] | tuple[str, NDArray[np.uint8], Camera | None]
"""A picture to read: its name (for messages), the BGR image and, optionally, the camera
that took it (a second webcam has its own)."""


def read_map(pictures: Sequence[Picture], camera: Camera | None,
             name: str = "read") -> MapReading:
    """The map read from the pictures; a picture without its own camera is taken with
    ``camera``, or else a 60-degree webcam of its size."""
    views: list[ViewRead] = []
    misses: list[str] = []
    first_camera: Camera | None = None
    first = 0
    for k, picture in enumerate(pictures):
        label, image = picture[0], picture[1]
        own = picture[2] if len(picture) > 2 else None
        cam = own or camera or Camera.default_for(image.shape[1], image.shape[0])
        view = read_view(image, cam)
        if isinstance(view, str):
            misses.append(f"{label}: {view}")
            continue
        if not views:
            first, first_camera = k, view.camera or cam
        views.append(view)
    if not views or first_camera is None:
        raise MapReadError("board not found in any picture (" + "; ".join(misses) + ")")
    chars, fused = read_cells(views)
    start = frozenset((int(x), int(y)) for y, x in zip(*np.nonzero(chars == START), strict=True))
    chars[chars == START] = "L"
    ground = GroundMap(
        name=name,
        ground=tuple("".join(row) for row in chars),
        start_area=start,
        extra={"note": f"read by the camera from {fused} picture(s); '?' = unknown"},
    )
    known = int((chars != UNKNOWN_GROUND).sum())
    return MapReading(ground, views[0].pose, first_camera, len(views), known, first, fused)


def cell_in(reference: Pose, other: Pose) -> NDArray[np.int64]:
    """For each cell of ``reference``'s board frame, the cell of ``other``'s frame at the
    same place (both poses of the same board in the same camera), -1 off the board."""
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    pts = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
    cam = reference.to_camera(pts)
    back = (cam - other.tvec) @ other.rotation
    ij = np.floor(back[:, :2] / STUD_MM).astype(np.int64)
    ok = np.all((ij >= 0) & (ij < BOARD_STUDS), axis=1)
    return np.where(ok, ij[:, 1] * BOARD_STUDS + ij[:, 0], -1)


PNG_COLOURS = {"L": (74, 178, 132), "D": (52, 104, 48), "G": (96, 178, 214),
               "X": (90, 90, 90), START: (235, 235, 235), UNKNOWN_GROUND: (180, 0, 180)}


def map_picture(cells: NDArray[np.str_], cell_px: int = 8) -> NDArray[np.uint8]:
    """A small BGR picture of a map's cells (``?`` magenta), row y = 0 at the top."""
    grid = np.array([[PNG_COLOURS[c] for c in row] for row in cells], np.uint8)
    return cv2.resize(grid, None, fx=cell_px, fy=cell_px, interpolation=cv2.INTER_NEAREST)

