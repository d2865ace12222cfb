"""Full mode: a whole palace, with no history, read from several views of one camera.

Turn mode compares each frame with a picture of the palace before the turn. Full mode has
no such picture, so it makes one: the bare board, drawn into each view from the ground
map (each region's colour as this table shows it, learned by :class:`~vision.look.TableLook`
at set-up or, failing that, the median colour the frame itself shows over that region's
cells, which pieces cover only in part). What differs from the bare board is a piece;
the decoder (:mod:`vision.decode`) then finds the physically possible palace, built on
the corner bricks alone, that best explains the difference in every view at once. The
views are fused in the board frame by the decoder itself: a candidate piece is scored by
the pixels it covers in each view, so a voxel that one view sees as bare board costs
what it would cover there (the space-carving argument, weighed rather than hard).

Stages, each callable alone: :func:`locate_views` (pose per view, the quarter turn
resolved from the map's colours), :func:`bare_board` (the expected picture of the empty
board), :func:`view_evidence` (per view, in the decoder's units), :func:`read_palace`.
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
from rules.pieces import BOARD_STUDS, STUD_MM, Kind
from vision.change import change_evidence, region
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.evidence import (
    COST_LEVEL,
    HOT_LEVEL,
    LEAF_GAIN,
    Evidence,
    colour_features,
    hot_cells,
)
from vision.finish import name_decoration
from vision.look import TableLook
from vision.reading import UNCERTAIN_BELOW, TurnReading
from vision.silhouettes import View, board_box
from vision.views import working_scale

TOP_LEVELS = 12
"""Levels the views' regions reach: a 120-piece palace rarely stands higher."""


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
    box = board_box(camera, pose, 0)
    if box is None:
        return np.inf
    bare = bare_board(frame, camera, pose, ground, look)
    return float(change_evidence(region(frame, box, 0.25), region(bare, box, 0.25)).mean())


def view_evidence(frame: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap,
                  before: Palace, look: TableLook | None = None) -> Evidence | None:
    """One view's evidence that a pixel shows a piece and not the bare board, in the
    decoder's units: the change from the painted bare board less a level's cost."""
    box = board_box(camera, pose, TOP_LEVELS)
    if box is None:
        return None
    scale = working_scale(camera, pose)
    after = region(frame, box, scale)
    bare = region(bare_board(frame, camera, pose, ground, look), box, scale)
    view = View(camera, pose, box, scale)
    view.paint_old(before.pieces)
    change = change_evidence(after, bare).ravel()
    weight = change - COST_LEVEL
    return Evidence(view, weight.astype(np.float32), change > HOT_LEVEL,
                    np.maximum(change - HOT_LEVEL, 0) * LEAF_GAIN, colour_features(after))


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
    before = corners_only(ground)
    evidence = []
    for frame, loc in usable:
        assert loc.pose is not None
        ev = view_evidence(frame, loc.camera or camera, loc.pose, ground, before, look)
        if ev is not None:
            evidence.append(ev)
    first = usable[0][1]
    if not evidence:
        return TurnReading(False, "the board is not in view", (), True, first,
                           time.perf_counter() - started)
    decoder = Decoder(before, evidence, one_staircase=False)
    pieces = decoder.run(hot_cells(evidence, TOP_LEVELS - 6))
    pieces = name_decoration(before, pieces, usable[0][0], evidence[0].view)
    readings = rate_pieces(decoder, pieces)
    uncertain = any(r.confidence < UNCERTAIN_BELOW for r in readings)
    return TurnReading(True, "", readings, uncertain, first, time.perf_counter() - started)
