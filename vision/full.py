"""Full mode: a whole palace, with no history, read from several views of one camera.

Turn mode compares each frame with a picture of the palace before the turn. Full mode has
none, so each view learns the bare board from itself (:mod:`vision.bare`: each pixel's
map region and place within its stud cell, the view's median colour there), and what
differs from it is a piece. The views are fused in the board frame by space carving
(:mod:`vision.carve`): a voxel is filled only where every view that sees it shows a
change there. The carving is parsed bottom up into pieces the rules let stand
(:mod:`vision.parse`), pieces whose pixels the others already explain are left out
(:mod:`vision.explain`): the carving fills space that no view sees into; and the rest
is picked again by what each view would show of it (:mod:`vision.pick`; each tower of
arches offered again whole, :mod:`vision.towers`).

Stages, each callable alone: :func:`locate_views` (pose per view, the quarter turn
resolved from the map's colours), then the stages' own modules, and :func:`read_palace`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation
from rules.maps import GroundMap
from rules.palace import Palace
from rules.pieces import COLOR_RGB, DecorationColor, Kind, Piece
from vision.bare import learned_bare_board, plate_points
from vision.carve import Carving, balanced, carve, top_colours, view_data
from vision.change import region
from vision.explain import explained
from vision.parse import LEAF_REACH, LEAST, colour_distance, nearest_colour, on_arch_end, parse
from vision.pick import picked
from vision.reading import UNCERTAIN_BELOW, PieceReading, TurnReading, board_not_found
from vision.silhouettes import View
from vision.surface import SURFACE_MODEL
from vision.views import board_box, given_or_located, usable_views, working_scale


def corners_only(ground: GroundMap) -> Palace:
    """The palace every game starts from less its staircase: the four corner bricks, which
    are always there and never read."""
    return Palace(ground, [p for p in ground.setup if p.kind is Kind.CORNER])


def locate_views(frames: Sequence[NDArray[np.uint8]], camera: Camera, ground: GroundMap,
                 locations: Sequence[BoardLocation | None] | None = None
                 ) -> list[BoardLocation]:
    """The board's pose in each frame; where the pose leaves the quarter turn open, the
    turn under which the plate differs least from the bare board learned under it
    (:func:`_map_misfit`: the map's regions break the plate's symmetry; an all-alike map
    does not, and the first turn stands)."""
    out = []
    for frame, loc in zip(frames, given_or_located(frames, camera, ground, locations),
                          strict=True):
        if loc.found and loc.pose is not None and not loc.turn_resolved:
            cam = loc.camera or camera
            pose = loc.pose
            loc = replace(loc, pose=turned_pose(pose, min(
                range(4), key=lambda k: _map_misfit(frame, cam, turned_pose(pose, k),
                                                    ground))))
        out.append(loc)
    return out


def _map_misfit(frame: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
                ) -> float:
    """How far the frame's plate is from the board learned under this turn: with the
    right turn each map region's pixels share a colour at each phase of the stud grid;
    with a wrong one the regions are mixed, and a grown palace (which covers more of the
    plate than a flat painting of the regions' medians allows) no longer hides that."""
    box = board_box(camera, pose, 0)
    if box is None:
        return np.inf
    scale = working_scale(camera, pose)
    image = region(frame, box, scale)
    view = View(camera, pose, box, scale)
    pts, on = plate_points(view)
    if not on.any():
        return np.inf
    bare = learned_bare_board(image, ground, pts, on)
    return float(np.median(np.abs(image - bare).sum(axis=2)[on]))


PLANTS = frozenset({DecorationColor.LIGHT_GREEN.value, DecorationColor.DARK_GREEN.value})


def read_palace(frames: Sequence[NDArray[np.uint8]], camera: Camera, *, ground: GroundMap,
                locations: Sequence[BoardLocation | None] | None = None,
                model: bool = False, pick: bool = True) -> TurnReading:
    """The whole palace ``frames`` show (views of one camera, the board possibly turned or
    moved between them), read as the pieces added to the corner bricks. The reading is
    always a physically possible palace; ``uncertain`` when some piece is doubtful.
    ``model`` lets the learned surface model (:mod:`vision.surface`) empty the space
    above what each view shows; off by default, since its heights are not yet sharp
    enough to read more pieces right (docs/vision-log.md, "The space above what
    each view shows"). ``pick`` runs the
    local search over the parse's pieces (:func:`vision.pick.picked`)."""
    started = time.perf_counter()
    if not frames:
        return TurnReading(False, "no frames", (), True, None, 0.0)
    located = locate_views(frames, camera, ground, locations)
    usable = usable_views(located)
    if not usable:
        return board_not_found(located, started)
    views = []
    for frame, loc in ((frames[i], located[i]) for i in usable):
        assert loc.pose is not None
        vd = view_data(frame, loc.camera or camera, loc.pose, ground,
                       model=SURFACE_MODEL if model else None)
        if vd is not None:
            views.append(vd)
    first = located[usable[0]]
    if not views:
        return TurnReading(False, "the board is not in view", (), True, first,
                           time.perf_counter() - started)
    views = balanced(views)
    carving = carve(views)
    base = corners_only(ground).pieces
    colours = top_colours(views)
    pieces = explained(views, parse(carving, ground, base, colours))
    if pick:
        palace = Palace(ground, base)
        pieces = picked(views, carving, palace,
                        [palace.place(p) for p in sorted(pieces, key=lambda p: p.z)])
        pieces = [p.moved(id="") for p in pieces]
    readings = (*(PieceReading(p, piece_confidence(carving, p)) for p in pieces),
                *(PieceReading(p, lime_confidence(colours, p))
                  for p in lime_tops(ground, base, pieces, colours)))
    uncertain = any(r.confidence < UNCERTAIN_BELOW for r in readings)
    return TurnReading(True, "", readings, uncertain, first, time.perf_counter() - started)


LIME = DecorationColor.LIGHT_GREEN.value


def lime_tops(ground: GroundMap, base: Sequence[Piece], pieces: Sequence[Piece],
              colours: NDArray[np.float32]) -> list[Piece]:
    """Light-green plants on the reading's open arch end knobs whose top colour
    (:func:`vision.carve.top_colours`) is the plant's lime, the limest first, none within
    a leaf's reach of another plant: the parse looks for plants before the search has
    put the arches they stand on, and by the carving's plant score, which a plant that
    one view sees against other greens leaves low; lime is no building colour nor the
    plate's, and every view sees a top."""
    palace = Palace(ground, base)
    for p in sorted(pieces, key=lambda p: p.z):
        # Unpicked readings may hold a piece whose support was explained away.
        unnamed = p.moved(id="")
        if palace.fits(unnamed):
            palace.place(unnamed)
    plants = [p for p in pieces if p.kind is Kind.DECORATION and p.color in PLANTS]
    levels = colours.shape[2]
    knobs = sorted((colour_distance(colours[x, y, z], LIME), (x, y, z))
                   for x, y, z in palace.open_knobs()
                   if z < levels and on_arch_end(palace, x, y, z)
                   and nearest_colour(colours[x, y, z]) == LIME)
    out: list[Piece] = []
    for _, (x, y, z) in knobs:
        if any(abs(p.x - x) <= LEAF_REACH and abs(p.y - y) <= LEAF_REACH and abs(p.z - z) <= 1
               for p in [*plants, *out]):
            continue
        piece = Piece(Kind.DECORATION, x, y, z, color=LIME)
        if palace.fits(piece):
            out.append(palace.place(piece).moved(id=""))
    return out


LIME_APART = min(colour_distance(np.asarray(rgb[::-1], np.float64), LIME)
                 for name, rgb in COLOR_RGB.items() if name != LIME)
"""How far the lime plant's colour shares lie from the nearest other LEGO colour's (the
gold decoration's, 0.211; :func:`vision.parse.colour_distance`): a top halfway there
reads at 0.5. On the development palaces the tops of the plants :func:`lime_tops` put
rightly lay 0.025-0.091 from lime (0.57-0.88), the wrong ones 0.054-0.148 (0.30-0.74)."""


def lime_confidence(colours: NDArray[np.float32], plant: Piece) -> float:
    """How surely a plant :func:`lime_tops` put is there: as sure as its top's colour
    is lime (its carving's green score, which :func:`piece_confidence` weighs, is what
    left it out of the parse)."""
    bgr = colours[plant.x, plant.y, plant.z]
    return float(np.clip(1.0 - colour_distance(bgr, LIME) / LIME_APART, 0.0, 1.0))


def piece_confidence(carving: Carving, piece: Piece) -> float:
    """How surely the carving holds the piece: its voxels' mean score (an arch's middle
    cells by their roofs, a plant by its green), from the least a piece may show (0) to
    sure (1). A piece the rules added under another's leg, which every view hides, reads
    low."""
    levels = carving.full.shape[2]
    score = carving.green if piece.kind is Kind.DECORATION and piece.color in PLANTS \
        else carving.full
    middle = set(piece.forbidden_top())
    got = [float((carving.roof if (x, y) in middle else score)[x, y, z])
           for x, y, z in piece.voxels() if z < levels]
    if not got:
        return 0.0
    return float(np.clip((np.mean(got) - LEAST) / (1.0 - LEAST), 0.0, 1.0))
