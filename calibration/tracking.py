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

from calibration.board_model import turned_pose
from calibration.camera import Camera
from calibration.edges import refine_pose
from calibration.pose import (
    RIM_MODEL,
    BoardLocation,
    finish,
    gray_float,
    locate_board,
)
from rules.maps import GroundMap


@dataclass
class TrackStats:
    """How the tracker answered so far: fast path, full searches, turns noticed."""

    tracked: int = 0
    searched: int = 0
    turns: int = 0


class BoardTracker:
    """Board pose per frame, reusing the last one; ``moved`` and ``turned`` say what changed."""

    def __init__(self, camera: Camera, ground: GroundMap, last: BoardLocation | None = None) -> None:
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
        assert self.last is not None and self.last.pose is not None
        camera = self.last.camera or self.camera
        gray = gray_float(image)
        fit = refine_pose(gray, camera, self.last.pose, RIM_MODEL, radii=(6, 4))
        result = finish(image, gray, camera, fit.pose, self.ground, self.last.focal_refined)
        if not result.found or result.pose is None:
            return None
        # The map picking another quarter turn than before means the board was turned:
        # the geometry fit is still right, so the new answer stands, flagged as a turn.
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
