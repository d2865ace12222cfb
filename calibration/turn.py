"""Which way round the board lies: the ground map's colours under four candidate poses.

The plate and its corner bricks are four-fold symmetric, so the geometric fit leaves
four poses a quarter turn apart. Under the right one, the image's colours at the card
around each stud group by the map's regions; under the others they mix. The score needs
no colour calibration (only that the map's regions differ from each other), so warm
light or a colour cast does not matter.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose
from calibration.camera import Camera, FloatArray, Pose, project
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM


def map_sample_points() -> tuple[FloatArray, NDArray[np.int32]]:
    """Two points on the card beside each stud (clear of it, opposite corners) per cell."""
    offsets = np.array([[3.0, 3.0], [-3.0, -3.0]])
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
    pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    cells = np.repeat(np.arange(len(centres)), len(offsets)).astype(np.int32)
    return np.hstack([pts, np.zeros((len(pts), 1))]), cells


MAP_POINTS, MAP_CELLS = map_sample_points()


def map_fisher_score(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, labels: NDArray[np.int32]
) -> float:
    """How well the ground map's colour classes separate in the image under ``pose``.

    Between-class over within-class scatter of per-cell colours: no colour calibration
    is needed, so warm light or a colour cast does not matter, only that the map's
    regions differ from each other.
    """
    px = project(camera, pose, MAP_POINTS).astype(np.float32)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
    bgr = cv2.remap(image, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR)
    samples = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    samples[~inside] = np.nan
    per_cell = np.mean(samples.reshape(-1, len(MAP_POINTS) // len(labels), 3), axis=1)
    valid = np.all(np.isfinite(per_cell), axis=1)
    colours, lab_ids = per_cell[valid], labels[valid]
    if len(colours) < 50:
        return 0.0
    mean = colours.mean(axis=0)
    between = 0.0
    within = 0.0
    for c in np.unique(lab_ids):
        group = colours[lab_ids == c]
        if len(group) < 3:
            continue
        between += len(group) * float(np.sum((group.mean(axis=0) - mean) ** 2))
        within += float(np.sum((group - group.mean(axis=0)) ** 2))
    return between / max(within, 1e-6)


def map_labels(ground: GroundMap) -> NDArray[np.int32]:
    """The map's ground characters as class numbers, cell order y-major like the samples."""
    codes = {"L": 0, "D": 1, "G": 2, "X": 3}
    return np.array(
        [codes[ground.char(x, y)] for y in range(BOARD_STUDS) for x in range(BOARD_STUDS)],
        dtype=np.int32,
    )


def resolve_turn(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
) -> tuple[Pose, float]:
    """The quarter turn of ``pose`` the ground map agrees with, and by what margin."""
    labels = map_labels(ground)
    scores = [map_fisher_score(image, camera, turned_pose(pose, k), labels) for k in range(4)]
    order = np.argsort(scores)[::-1]
    best, second = scores[order[0]], scores[order[1]]
    margin = best / max(second, 1e-6)
    return turned_pose(pose, int(order[0])), margin
