"""The camera view as the page shows it: the picture with the board drawn over it.

Drawn on the server with OpenCV, so every client gets the same picture and a tablet
does no projection: the stud grid where the board was found, every piece outlined,
this turn's pieces highlighted with the path from the starting stud to the decoration,
doubtful pieces marked. Drawing happens on a copy at most ``VIEW_WIDTH`` pixels wide,
which is all a page shows and keeps the camera loop fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose, project
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM, Kind, Piece

VIEW_WIDTH = 960
JPEG_QUALITY = 80
FRAME_MAX_SIDE = 1280
FRAME_MAX_BYTES = 400_000
"""Frames kept in the log: at most this big, so a long game stays a few megabytes."""

GRID = (190, 250, 190)
PIECE = (235, 235, 235)
NEW = (0, 215, 255)
DOUBT = (40, 40, 255)
PATH = (255, 160, 0)
_SEGMENTS = 8


@dataclass(frozen=True)
class OverlayScene:
    """What to draw: the board's pieces, this turn's, its path and its doubts."""

    palace: tuple[Piece, ...]
    new: tuple[Piece, ...] = ()
    path: tuple[str, ...] = ()
    doubtful: tuple[str, ...] = ()


def _grid_points() -> NDArray[np.float64]:
    """Both families of the 33 stud-cell lines, each cut into segments (so that lens
    distortion bends them as it bends the board)."""
    t = np.linspace(0.0, BOARD_STUDS * STUD_MM, _SEGMENTS + 1)
    lines = []
    for i in range(BOARD_STUDS + 1):
        c = i * STUD_MM
        lines.append(np.stack([np.full_like(t, c), t, np.zeros_like(t)], axis=1))
        lines.append(np.stack([t, np.full_like(t, c), np.zeros_like(t)], axis=1))
    return np.concatenate(lines)


_GRID = _grid_points()


def _box(piece: Piece) -> NDArray[np.float64]:
    """The 8 corners of a piece's bounding box in board millimetres."""
    cells = piece.footprint()
    x0, x1 = min(c[0] for c in cells) * STUD_MM, (max(c[0] for c in cells) + 1) * STUD_MM
    y0, y1 = min(c[1] for c in cells) * STUD_MM, (max(c[1] for c in cells) + 1) * STUD_MM
    z0, z1 = piece.z * BRICK_MM, piece.top * BRICK_MM
    return np.array([[x, y, z] for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)])


def _top_centre(piece: Piece) -> list[float]:
    cells = piece.footprint()
    return [(min(c[0] for c in cells) + max(c[0] for c in cells) + 1) / 2 * STUD_MM,
            (min(c[1] for c in cells) + max(c[1] for c in cells) + 1) / 2 * STUD_MM,
            piece.top * BRICK_MM]


@dataclass(frozen=True)
class CameraFrame:
    """One camera picture as the page will show it: scaled to ``VIEW_WIDTH`` (``scale``
    from the camera's pixels), with where the board was and what stood on it."""

    view: NDArray[np.uint8]
    scale: float
    camera: Camera | None = None
    pose: Pose | None = None
    scene: OverlayScene | None = None


def scaled(image: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    """A copy of the picture at most ``VIEW_WIDTH`` wide (bilinear: area averaging costs
    twenty times more at a 3/4 ratio, for no visible gain at this size)."""
    h, w = image.shape[:2]
    scale = min(1.0, VIEW_WIDTH / max(1, w))
    if scale >= 1:
        return image.copy(), 1.0
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR), scale


def draw_overlay(frame: CameraFrame) -> NDArray[np.uint8]:
    """The frame's picture with the board drawn over it; without a pose (board not
    found) the picture alone."""
    view, scale, camera, pose, scene = (frame.view.copy(), frame.scale, frame.camera,
                                        frame.pose, frame.scene)
    if camera is None or pose is None or scene is None:
        return view
    grid = project(camera, pose, _GRID) * scale
    polylines = grid.reshape(-1, _SEGMENTS + 1, 2)
    cv2.polylines(view, np.round(polylines).astype(np.int32), False, GRID, 1, cv2.LINE_AA)
    pieces = scene.palace + scene.new
    if pieces:
        corners = project(camera, pose, np.concatenate([_box(p) for p in pieces])) * scale
        new_ids = {p.id for p in scene.new}
        for i, piece in enumerate(pieces):
            pts = corners[8 * i: 8 * i + 8].astype(np.float32)
            if not np.all(np.isfinite(pts)):
                continue
            hull = cv2.convexHull(pts).astype(np.int32)
            if piece.id in scene.doubtful:
                colour, width = DOUBT, 2
            elif piece.id in new_ids:
                colour, width = NEW, 2
            elif piece.kind is Kind.CORNER:
                colour, width = GRID, 1
            else:
                colour, width = PIECE, 1
            cv2.polylines(view, [hull], True, colour, width, cv2.LINE_AA)
            if piece.id in scene.doubtful:
                x, y = hull[:, 0, 0].min(), hull[:, 0, 1].min()
                cv2.putText(view, "?", (int(x), int(y) - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                            DOUBT, 2, cv2.LINE_AA)
    by_id = {p.id: p for p in pieces}
    route = [by_id[i] for i in scene.path if i in by_id]
    route += [p for p in scene.new if p.kind is Kind.DECORATION and p not in route]
    if len(route) >= 2:
        pts = project(camera, pose, np.array([_top_centre(p) for p in route])) * scale
        cv2.polylines(view, [np.round(pts).astype(np.int32)], False, PATH, 3, cv2.LINE_AA)
        cv2.circle(view, tuple(int(v) for v in np.round(pts[0])), 6, PATH, -1, cv2.LINE_AA)
    return view


def encode_jpeg(image: NDArray[np.uint8], *, max_side: int = FRAME_MAX_SIDE,
                max_bytes: int = FRAME_MAX_BYTES, quality: int = JPEG_QUALITY) -> bytes:
    """A JPEG no larger than ``max_side`` pixels and ``max_bytes`` bytes (quality lowered
    step by step, then the picture halved, until it fits)."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w, 1))
    if scale < 1:
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                           interpolation=cv2.INTER_AREA)
    while True:
        for q in range(quality, 29, -15):
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, q])
            if ok and len(buf) <= max_bytes:
                return buf.tobytes()
        if min(image.shape[:2]) < 16:
            return buf.tobytes()
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2),
                           interpolation=cv2.INTER_AREA)

