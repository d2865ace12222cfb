"""Per-view bookkeeping: the working scale, the board's quarter turn read from the known
palace, and whether two views see the board from the same place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import PLATE_CORNERS, turned_pose
from calibration.camera import Camera, Pose, project
from calibration.evidence import BoardLocation
from rules.palace import Palace
from vision.silhouettes import View, board_box

STUD_PX = 9.0
"""Pixels per stud the decoder works at: enough for a brick's outline, few enough to be
quick. A board seen smaller than this is worked at full size."""


def working_scale(camera: Camera, pose: Pose) -> float:
    px = project(camera, pose, PLATE_CORNERS)
    side = float(np.mean([np.linalg.norm(px[i] - px[(i + 1) % 4]) for i in range(4)]))
    return float(np.clip(STUD_PX * 32 / max(side, 1.0), 0.3, 1.0))


def same_place(camera: Camera, a: Pose, b: Pose, tol_px: float = 1.5) -> bool:
    """Whether two poses put the board's corners within ``tol_px`` of each other."""
    return bool(np.abs(project(camera, a, PLATE_CORNERS)
                       - project(camera, b, PLATE_CORNERS)).max() < tol_px)


def resolve_turns(usable: Sequence[tuple[NDArray[np.uint8], BoardLocation]], camera: Camera,
                  before: Palace) -> list[tuple[NDArray[np.uint8], BoardLocation]]:
    """Locations whose quarter turn the pose left open get it from the palace before.

    The plate and its corner bricks look the same after a quarter turn; the palace does
    not (the set-up staircase alone breaks the symmetry), so the turn that puts the old
    pieces where the frame shows colours unlike the board is the board's.
    """
    out = []
    for frame, loc in usable:
        if getattr(loc, "turn_resolved", True) or loc.pose is None:
            out.append((frame, loc))
            continue
        cam = loc.camera or camera
        best = max(range(4), key=lambda k: _pieces_show(frame, cam, turned_pose(loc.pose, k),
                                                        before))
        out.append((frame, replace(loc, pose=turned_pose(loc.pose, best))))
    return out


def _pieces_show(frame: NDArray[np.uint8], camera: Camera, pose: Pose, palace: Palace) -> float:
    """How unlike the board the pixels are where ``palace``'s pieces would stand."""
    top = max((p.top for p in palace), default=1)
    box = board_box(camera, pose, top)
    if box is None:
        return -np.inf
    view = View(camera, pose, box, 0.25)
    pieces = [p for p in palace if p.kind.value != "corner"]
    view.paint_old(pieces)
    x0, y0, x1, y1 = box
    small = cv2.resize(frame[y0:y1, x0:x1], view.shape[::-1], interpolation=cv2.INTER_AREA)
    chroma = small.astype(np.float32) / (small.sum(axis=2, keepdims=True) + 6.0)
    on = np.isfinite(view.old_depth)
    if on.sum() < 4:
        return 0.0
    board = np.median(chroma[~on], axis=0)
    return float(np.linalg.norm(chroma[on] - board, axis=1).mean())
