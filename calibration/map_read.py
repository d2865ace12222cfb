"""Reading the ground map off the board: the colour of the card around every stud.

The real Ground Maps are not published and nobody wants to type 1024 letters, so the
camera reads the map: the board is located without a map (the pose needs none), the
card's colour is sampled around each stud that shows, the views are fused in the board
frame of the first one (each later view turned the quarter turn under which its colours
agree best with what is read so far), and every cell is named light green, dark green,
gold, blocked or the white starting area. A stud hidden in every view (a piece, a hand,
the picture's edge) is unknown: ``?`` in the ``palace-map/1`` file, never a starting
point for the rules.

Naming needs no colour calibration: the inks are grouped per reading and named by their
order and against the plate's stud tops (:mod:`calibration.map_inks`), since white
balance and drifting inks move every hue; a lamp's fall-off is evened against the stud
tops' light near each stud (:mod:`calibration.map_light`). The ground under the corner bricks, studs
beside a piece or in a shadow, a small colour group scattered in lone cells (the inks
are named without it), a lone stud unlike all its neighbours, a stud much paler than its
ink's others, nearly as like another ink's or far from its group's colour, a patch of
dark green coloured like a blocked area beside it (one in its group), and white too
wide to be the starting area are left unknown: read wrong they would mislead the rules.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, FloatArray, Pose, lab_samples
from calibration.evidence import gray_float
from calibration.ink_cells import blocked_patches, strays, unlike_their_ink
from calibration.ink_model import signed_lab
from calibration.map_inks import group, settled
from calibration.map_light import evened
from calibration.map_place import stud_cells
from calibration.map_regions import interleaved, named_regions, small_patches
from calibration.pose import locate_board
from calibration.third_ink import third_ink, third_ink_beside_stray
from calibration.turn import CARD_OFFSETS_MM, MAP_POINTS, TURNS
from rules.maps import SETUP_PIECES, UNKNOWN_GROUND, GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM, corner_setup

START = "S"
MAX_STUD_TOP_DE = 14.0
"""A cell's stud top must be within this Lab distance of the board's median stud top: a
brick, a column or an arch standing there shows its own colour on top."""
CORNER_GROUND = tuple(np.array([(y, x) for corner in corner_setup()
                                for x, y in corner.footprint()]).T)
"""Rows and columns of the cells under the four corner bricks."""
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
GREEN_SPLIT = 6.0
"""Where the inked cells make one group: the Lab distance between the centres of its two
k-means halves below which it is taken as one ink rather than two greens squeezed
together. A glossy card's sheen can leave the two greens 4 to 8 units apart (development
map 50104); on 600 twin maps (seeds 50200-50799) 6 left 2,000 fewer glossy studs read
wrong than 10, and cost where one ink lit unevenly splits 6 apart (52009's dark green,
then named dark and light green); 3.5 and under split single inks far more often."""


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

    def cells(self) -> NDArray[np.str_]:
        """32 x 32 characters, with the starting area as ``S``."""
        grid = np.array([list(row) for row in self.ground.ground])
        for x, y in self.ground.start_area:
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


def align(reference: FloatArray, view: ViewRead) -> int:
    """The quarter turn of ``view``'s cells that agrees best with ``reference`` (1024 x 3,
    NaN where unread): view cell ``TURNS[k][c]`` is reference cell ``c``."""
    colours = _normalised(view)
    best, best_k = np.inf, 0
    for k in range(4):
        moved = colours[TURNS[k]]
        both = np.all(np.isfinite(moved), axis=1) & np.all(np.isfinite(reference), axis=1)
        if both.sum() < 20:
            continue
        cost = float(np.median(np.linalg.norm(moved[both] - reference[both], axis=1)))
        if cost < best:
            best, best_k = cost, k
    return best_k


def _fuse(views: list[ViewRead]) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Median colour per cell over the views it shows in (NaN where it shows in none),
    in the first view's frame, each view's exposure brought to the first's; and the
    cells shaded in every view that shows them. A cell some view shows lit takes its
    colour from the lit views only: a shadow's colour is no ink's, and two shaded views
    against one lit would otherwise outvote it."""
    first = views[0]
    offset = np.median(first.colours[first.shown], axis=0) if first.shown.any() else 0
    stack = [_normalised(first)]
    lit = [_lit(first)]
    for view in views[1:]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            reference = np.nanmedian(np.stack(stack), axis=0)
        k = align(reference, view)
        stack.append(_normalised(view)[TURNS[k]])
        lit.append(_lit(view)[TURNS[k]])
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


def read_cells(views: list[ViewRead]) -> NDArray[np.str_]:
    """32 x 32 characters read from located views (``S`` the starting area)."""
    colours, shaded = _fuse(views)
    names = name_cells(colours, views[0].top)
    names[shaded] = UNKNOWN_GROUND
    return coherent(names.reshape(BOARD_STUDS, BOARD_STUDS))


def colour_groups(lab: FloatArray, cells: NDArray[np.intp] | None = None,
                  top: FloatArray | None = None
                  ) -> tuple[NDArray[np.bool_], NDArray[np.int32], NDArray[np.float32],
                             NDArray[np.int32] | None]:
    """The white starting area's cells, and a group per other cell (rows L, a, b on the
    0..100 scale): k-means groups of inks, or, where the cells make one group, that
    group cut in two when its halves lie clearly apart (light fallen off, a dim frame or
    a lit one can squeeze two greens together; lightness alone may still part them).
    Given each row's board cell, the groups are then settled against their colours near
    each cell (:func:`calibration.map_inks.settled`), which also gives each cell's doubt
    between its group and the next (0 where the groups are not settled). Given the stud
    tops' colour as well (``top``, same scale), two settled groups hiding a third ink
    become three (:func:`calibration.third_ink.third_ink`, also beside a stray group);
    where two or three was a toss-up, the groups not taken come back as well (the last
    value, else None), for the cells the two readings name differently to be left
    unknown."""
    white = (np.hypot(lab[:, 1], lab[:, 2]) < 16) & (lab[:, 0] > 72)
    groups = np.zeros(len(lab), np.int32)
    doubt = np.zeros(len(lab), np.float32)
    inked = lab[~white]
    found = group(inked)
    found = found if found.any() else _split_one_ink(inked)
    rival = None
    if cells is None:
        groups[~white] = found
    else:
        groups[~white], doubt[~white] = settled(inked, found, cells[~white])
        three = (third_ink(inked, groups[~white], cells[~white], top)
                 or third_ink_beside_stray(inked, groups[~white], cells[~white], top))
        if three is not None:
            rival = groups.copy() if three.toss_up else None
            if three.taken:
                groups[~white], doubt[~white] = three.labels, three.doubt
            elif rival is not None:
                rival[~white] = three.labels
    return white, groups, doubt, rival


WHITE_AT_MOST = 2 * len({cell for piece in SETUP_PIECES for cell in piece.footprint()})
"""The starting area is the starting staircase's footprint (7 studs): more white cells
than twice that are not the starting area but an ink washed out (a glossy card's dark
green under a bright lamp, a blocked area lit near white), so none of them is read. On
the development maps every white cell read was such a one (the staircase stands on
the starting area in the set-up and palace views)."""
BETWEEN_GROUPS = 0.7
"""A cell whose colour lies nearly as near another group's colour round it as its own
group's (the distances' ratio above this) is not read: most such cells are at a region's
border, their samples part on one ink and part on the next, or a faint shade. On the
development maps (50000-50039 and 50100-50119, one view each) 0.8, 0.7 and 0.6 each
left fewer studs read wrong on every set (matt, a palace, glossy) for a few tenths of a
point of the studs read; 0.7 was taken."""


def name_cells(colours: FloatArray, top: FloatArray | None = None) -> NDArray[np.str_]:
    """A character per cell (L, D, G, X, S or ?) from fused Lab colours (1024 x 3, OpenCV
    8-bit scale); ``top`` is the plate's stud-top colour in the same frame, where known."""
    out = np.full(len(colours), UNKNOWN_GROUND, dtype="<U1")
    seen = np.all(np.isfinite(colours), axis=1)
    if not seen.any():
        return out
    lab = signed_lab(colours[seen])
    lightness, chroma = lab[:, 0], np.hypot(lab[:, 1], lab[:, 2])
    top = None if top is None else signed_lab(top)
    white, groups, doubt, rival = colour_groups(lab, np.flatnonzero(seen), top)
    names = np.full(len(lab), START, dtype="<U1")
    cells = np.flatnonzero(seen)[~white]
    names[~white] = named_regions(lab[~white], groups[~white], cells, top, rival is None)
    if rival is not None:
        # Two groups or three was a toss-up: where the readings differ is not known.
        inked = names[~white]
        inked[named_regions(lab[~white], rival[~white], cells, top, False) != inked] = (
            UNKNOWN_GROUND)
        names[~white] = inked
    names[unlike_their_ink(lightness, chroma, names)] = UNKNOWN_GROUND
    names[blocked_patches(lab, names, np.flatnonzero(seen))] = UNKNOWN_GROUND
    inked = names[~white]
    ink = groups[~white]
    inked[strays(lab[~white], ink, cells) | interleaved(ink, cells)] = UNKNOWN_GROUND
    names[~white] = inked
    names[doubt > BETWEEN_GROUPS] = UNKNOWN_GROUND
    if (names == START).sum() > WHITE_AT_MOST:
        names[names == START] = UNKNOWN_GROUND
    out[seen] = names
    return out


def _split_one_ink(lab: FloatArray) -> NDArray[np.int32]:
    """Two groups for cells of one ink group where k-means finds two clearly apart
    halves, else one."""
    one = np.zeros(len(lab), np.int32)
    if len(lab) < 6:
        return one
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    cv2.setRNGSeed(7)
    _, assigned, centres = cv2.kmeans(lab.astype(np.float32), 2, None, criteria, 3,
                                      cv2.KMEANS_PP_CENTERS)
    assigned = assigned.reshape(-1).astype(np.int32)
    gap = float(np.linalg.norm(centres[0] - centres[1]))
    if gap < GREEN_SPLIT or np.bincount(assigned, minlength=2).min() < 3:
        return one
    return assigned


def read_map(pictures: list[tuple[str, NDArray[np.uint8]]], camera: Camera | None,
             name: str = "read") -> MapReading:
    """The map read from the pictures (name, BGR image); cameras default to a 60-degree
    webcam of each picture's size."""
    views: list[ViewRead] = []
    misses: list[str] = []
    first_camera: Camera | None = None
    first = 0
    for k, (label, image) in enumerate(pictures):
        cam = camera or Camera.default_for(image.shape[1], image.shape[0])
        view = read_view(image, cam)
        if isinstance(view, str):
            misses.append(f"{label}: {view}")
            continue
        if not views:
            first, first_camera = k, view.camera or cam
        views.append(view)
    if not views or first_camera is None:
        raise MapReadError("board not found in any picture (" + "; ".join(misses) + ")")
    chars = read_cells(views)
    start = frozenset((int(x), int(y)) for y, x in zip(*np.nonzero(chars == START), strict=True))
    chars[chars == START] = "L"
    ground = GroundMap(
        name=name,
        ground=tuple("".join(row) for row in chars),
        start_area=start,
        extra={"note": f"read by the camera from {len(views)} picture(s); '?' = unknown"},
    )
    known = int((chars != UNKNOWN_GROUND).sum())
    return MapReading(ground, views[0].pose, first_camera, len(views), known, first)


def coherent(chars: NDArray[np.str_]) -> NDArray[np.str_]:
    """The cells read, less those no reading can vouch for: the ground under the corner
    bricks (a brick stands there in every game; what shows is the brick and its shadow),
    a lone stud named unlike its four neighbours, at least three of them read and
    agreeing, and a patch of too few studs (:mod:`calibration.map_regions`; a stud no
    eight neighbour of which is read alike is a patch of one): on a map of regions several
    studs wide such studs are a shadow's edge, a leaf, a piece's foot far more often than
    a region. As ``?`` they cost a question; read wrong they mislead the rules."""
    out = chars.copy()
    out[CORNER_GROUND] = UNKNOWN_GROUND
    padded = np.pad(out, 1, constant_values=UNKNOWN_GROUND)
    neighbours = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1],
                           padded[1:-1, :-2], padded[1:-1, 2:]])
    known = neighbours != UNKNOWN_GROUND
    unlike = (neighbours != out) & known
    first = np.take_along_axis(neighbours, known.argmax(axis=0)[None], axis=0)[0]
    agree = ((neighbours == first) | ~known).all(axis=0)
    lone = (out != UNKNOWN_GROUND) & (known.sum(axis=0) >= 3) & (unlike == known).all(axis=0)
    lone &= agree
    out[lone] = UNKNOWN_GROUND
    out[small_patches(out)] = UNKNOWN_GROUND
    return out


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

