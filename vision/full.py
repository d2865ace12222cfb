"""Full mode: a whole palace, with no history, read from several views of one camera.

Turn mode compares each frame with a picture of the palace before the turn. Full mode has
none, so each view learns the bare board from itself (:mod:`vision.bare`: each pixel's
map region and place within its stud cell, the view's median colour there), and what
differs from it is a piece. The views are fused in the board frame by space carving
(:mod:`vision.carve`): a voxel is filled only where every view that sees it shows a
change there. The carving is parsed bottom up into pieces the rules let stand
(:mod:`vision.parse`), and pieces whose pixels the others already explain are left out
(:mod:`vision.explain`): the carving fills space that no view sees into.

Stages, each callable alone: :func:`locate_views` (pose per view, the quarter turn
resolved from the map's colours), :func:`bare_board` (a flat painting of the empty
board, which the turn resolution compares with), :func:`read_palace`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose, project
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from rules.maps import GroundMap
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, STUD_MM, DecorationColor, Kind, Piece
from vision.bare import board_cells, learned_bare_board
from vision.carve import Carving, balanced, carve, top_colours, view_data
from vision.change import region
from vision.explain import explained
from vision.look import TableLook
from vision.parse import LEAST, parse
from vision.reading import UNCERTAIN_BELOW, PieceReading, TurnReading
from vision.silhouettes import View, board_box
from vision.views import working_scale


def corners_only(ground: GroundMap) -> Palace:
    """The palace every game starts from less its staircase: the four corner bricks, which
    are always there and never read."""
    return Palace(ground, [p for p in ground.setup if p.kind is Kind.CORNER])


def bare_board(frame: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap,
               look: TableLook | None = None) -> NDArray[np.uint8]:
    """``frame`` with the board's plate painted as the empty board would look: each cell
    filled with its region's colour. Off the board the frame is kept, so the table and
    its clutter read as unchanged."""
    colours = dict(look.region_colours) if look is not None else {}
    chars = [[ground.char(x, y) for x in range(BOARD_STUDS)] for y in range(BOARD_STUDS)]
    corners = np.array([[x * STUD_MM, y * STUD_MM, 0.0]
                        for y in range(BOARD_STUDS + 1) for x in range(BOARD_STUDS + 1)])
    px = project(camera, pose, corners).reshape(BOARD_STUDS + 1, BOARD_STUDS + 1, 2)
    if not np.all(np.isfinite(px)):
        return frame.copy()
    missing = {c for row in chars for c in row} - set(colours)
    if missing:
        centres = (px[:-1, :-1] + px[1:, 1:]) / 2
        h, w = frame.shape[:2]
        ij = np.round(centres).astype(int)
        for char in missing:
            sel = np.array(chars) == char
            pts = ij[sel]
            ok = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
            if ok.sum():
                colours[char] = np.median(frame[pts[ok, 1], pts[ok, 0]].astype(float), axis=0)
    out = frame.copy()
    for y in range(BOARD_STUDS):
        for x in range(BOARD_STUDS):
            colour = colours.get(chars[y][x])
            if colour is None:
                continue
            quad = np.array([px[y, x], px[y, x + 1], px[y + 1, x + 1], px[y + 1, x]])
            cv2.fillConvexPoly(out, np.round(quad).astype(np.int32),
                               tuple(float(c) for c in colour))
    return out


def locate_views(frames: Sequence[NDArray[np.uint8]], camera: Camera, ground: GroundMap,
                 locations: Sequence[BoardLocation | None] | None = None,
                 look: TableLook | None = None) -> list[BoardLocation]:
    """The board's pose in each frame; where the pose leaves the quarter turn open, the
    turn whose painted map differs least from the frame (the map's regions break the
    plate's symmetry; an all-alike map does not, and the first turn stands)."""
    out = []
    for i, frame in enumerate(frames):
        given = locations[i] if locations is not None and i < len(locations) else None
        loc = given if given is not None else locate_board(frame, camera, ground)
        if loc.found and loc.pose is not None and not getattr(loc, "turn_resolved", True):
            cam = loc.camera or camera
            pose = loc.pose
            loc = replace(loc, pose=turned_pose(pose, min(
                range(4), key=lambda k: _map_misfit(frame, cam, turned_pose(pose, k),
                                                    ground, look))))
        out.append(loc)
    return out


def _map_misfit(frame: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap,
                look: TableLook | None) -> float:
    """How far the frame's plate is from the board learned under this turn: with the
    right turn each map region's pixels share a colour at each phase of the stud grid;
    with a wrong one the regions are mixed, and a grown palace (which covers more of the
    plate than the flat painting's medians allow) no longer hides that. ``look`` is not
    needed: the colours are learned from the frame."""
    box = board_box(camera, pose, 0)
    if box is None:
        return np.inf
    scale = working_scale(camera, pose)
    image = region(frame, box, scale)
    view = View(camera, pose, box, scale)
    on = board_cells(view)[1]
    if not on.any():
        return np.inf
    bare = learned_bare_board(image, view, ground)
    return float(np.median(np.abs(image - bare).sum(axis=2)[on]))


PLANTS = frozenset({DecorationColor.LIGHT_GREEN.value, DecorationColor.DARK_GREEN.value})


def read_palace(frames: Sequence[NDArray[np.uint8]], camera: Camera, *, ground: GroundMap,
                look: TableLook | None = None,
                locations: Sequence[BoardLocation | None] | None = None) -> TurnReading:
    """The whole palace ``frames`` show (views of one camera, the board possibly turned or
    moved between them), read as the pieces added to the corner bricks. The reading is
    always a physically possible palace; ``uncertain`` when some piece is doubtful."""
    started = time.perf_counter()
    if not frames:
        return TurnReading(False, "no frames", (), True, None, 0.0)
    located = locate_views(frames, camera, ground, locations, look)
    usable = [(f, loc) for f, loc in zip(frames, located, strict=True)
              if loc.found and loc.pose is not None]
    if not usable:
        reason = located[0].reason or "the board was not found"
        return TurnReading(False, f"board not found: {reason}", (), True, located[0],
                           time.perf_counter() - started)
    views = []
    for frame, loc in usable:
        assert loc.pose is not None
        vd = view_data(frame, loc.camera or camera, loc.pose, ground)
        if vd is not None:
            views.append(vd)
    first = usable[0][1]
    if not views:
        return TurnReading(False, "the board is not in view", (), True, first,
                           time.perf_counter() - started)
    views = balanced(views)
    carving = carve(views)
    base = corners_only(ground).pieces
    pieces = explained(views, parse(carving, ground, base, top_colours(views)))
    readings = tuple(PieceReading(p, piece_confidence(carving, p)) for p in pieces)
    uncertain = any(r.confidence < UNCERTAIN_BELOW for r in readings)
    return TurnReading(True, "", readings, uncertain, first, time.perf_counter() - started)


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
