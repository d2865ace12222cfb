"""Following the board from frame to frame without searching the whole image again.

Between two frames of a game the board barely moves, so the last pose is already within
a few pixels: one edge refinement from it (a few thousand pixel reads, no full-image
pass) gives the new pose. When that refinement stops fitting (the camera was moved, the
table bumped hard) or the ground map prefers another quarter turn (a player turned the
board), the tracker falls back to a full search.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose, view_rotation
from calibration.camera import Camera
from calibration.edges import edge_support, refine_pose
from calibration.grid import refine_on_grid
from calibration.pose import (
    EDGE_MODEL,
    MAX_RMS_PX,
    MIN_CORNER_SUPPORT,
    MIN_GRID_BLOCKS,
    MIN_MAP_MARGIN,
    PLATE_GROUP,
    RIM_MODEL,
    BoardLocation,
    gray_float,
    locate_board,
)
from calibration.turn import resolve_turn
from rules.maps import GroundMap

MAX_TRACK_SHIFT_MM = 4.0
"""Beyond this the stud lattice could have slipped a stud; a full search decides."""


@dataclass
class TrackStats:
    """How the tracker answered so far: fast path, full searches, turns noticed."""

    tracked: int = 0
    searched: int = 0
    turns: int = 0


class BoardTracker:
    """Board pose per frame, reusing the last one; ``moved`` and ``turned`` say what changed."""

    def __init__(
        self, camera: Camera, ground: GroundMap, last: BoardLocation | None = None
    ) -> None:
        self.camera = camera
        self.ground = ground
        self.last = last if last is not None and last.found else None
        self.moved = False
        self.turned = False
        self.stats = TrackStats()

    def update(self, image: NDArray[np.uint8]) -> BoardLocation:
        """The board in this frame: tracked from the last pose when possible."""
        self.moved = self.turned = False
        previous = self.last
        result = self._track(image) if previous is not None else None
        if result is None or not result.found:
            result = locate_board(image, self.camera, self.ground)
            self.stats.searched += 1
            self.moved = previous is not None and result.found
        else:
            self.stats.tracked += 1
        if result.found and previous is not None and previous.rotation != result.rotation:
            self.turned = True
            self.stats.turns += 1
        self.last = result if result.found else None
        return result

    def _track(self, image: NDArray[np.uint8]) -> BoardLocation | None:
        """One short edge fit and one lattice round from the last pose, or None."""
        assert self.last is not None and self.last.pose is not None
        camera = self.last.camera or self.camera
        gray = gray_float(image)
        fit = refine_pose(gray, camera, self.last.pose, RIM_MODEL, radii=(5, 3))
        grid = refine_on_grid(gray, camera, fit.pose, rounds=1)
        if grid is None or grid.residual_px > MAX_RMS_PX or grid.blocks < MIN_GRID_BLOCKS:
            return None
        centre = np.array([[128.0, 128.0, 0.0]])
        shift = np.linalg.norm(grid.pose.to_camera(centre) - self.last.pose.to_camera(centre))
        if shift > MAX_TRACK_SHIFT_MM:
            return None  # moved further than the lattice fit can vouch for: search afresh
        pose, margin = resolve_turn(image, camera, grid.pose, self.ground)
        if margin < MIN_MAP_MARGIN:
            return None
        support = edge_support(gray, camera, pose, EDGE_MODEL, 6.0, 4.0)
        seen = sorted(g for g, s in support.items() if g != PLATE_GROUP and s >= MIN_CORNER_SUPPORT)
        quality = float(
            min(1.0, grid.blocks / 8) * np.clip(1.5 - grid.residual_px / MAX_RMS_PX, 0, 1)
        )
        result = BoardLocation(
            True,
            "",
            pose,
            view_rotation(camera, pose),
            grid.residual_px,
            seen,
            quality,
            camera,
            self.last.focal_refined,
            margin,
        )
        if not _same_turn(result, self.last):
            self.turned = True
        return result


def _same_turn(a: BoardLocation, b: BoardLocation) -> bool:
    assert a.pose is not None and b.pose is not None
    best = min(range(4), key=lambda k: _angle(turned_pose(a.pose, k).rotation, b.pose.rotation))  # type: ignore[union-attr]
    return best == 0


def _angle(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    rvec, _ = cv2.Rodrigues(a.T @ b)
    return float(np.linalg.norm(rvec))
