"""Which way round the board lies: the ground map's colours under four candidate poses.

The plate and its corner bricks are four-fold symmetric, so the geometric fit leaves
four poses a quarter turn apart. Under the right one, the image's colours at the card
around each stud group by the map's regions; under the others they mix. The score needs
no colour calibration (only that the map's regions differ from each other), so warm
light or a colour cast does not matter.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import quarter_turn, turned_pose
from calibration.camera import Camera, FloatArray, Pose, project
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM


def map_sample_points() -> tuple[FloatArray, NDArray[np.int32]]:
    """Four points on the card around each stud (clear of it, at its diagonals) per cell.

    The four diagonals make the point set the same after a quarter turn, so one set of
    samples serves all four candidate turns.
    """
    offsets = np.array([[3.0, 3.0], [-3.0, 3.0], [-3.0, -3.0], [3.0, -3.0]])
    centres = _cell_centres()
    pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    cells = np.repeat(np.arange(len(centres)), len(offsets)).astype(np.int32)
    return np.hstack([pts, np.zeros((len(pts), 1))]), cells


def _cell_centres() -> FloatArray:
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def turn_permutations() -> NDArray[np.int64]:
    """Row k: the cell that ``turned_pose(pose, k)`` sees where ``pose`` sees each cell.

    Under the turned pose board cell c appears where the untouched pose shows cell
    ``perm[k, c]``, so the colours sampled once under ``pose`` serve every turn.
    """
    centres = _cell_centres()
    perms = []
    for k in range(4):
        t = quarter_turn(k)
        moved = centres @ t[:2, :2].T + t[:2, 3]
        ij = np.rint(moved / STUD_MM - 0.5).astype(np.int64)
        perms.append(ij[:, 1] * BOARD_STUDS + ij[:, 0])
    return np.array(perms)


MAP_POINTS, MAP_CELLS = map_sample_points()
TURNS = turn_permutations()


def cell_colours(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> FloatArray:
    """Mean Lab colour of the card around each cell's stud (NaN where out of the picture)."""
    px = project(camera, pose, MAP_POINTS).astype(np.float32)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
    bgr = cv2.remap(image, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR)
    samples = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    samples[~inside] = np.nan
    per_cell = len(MAP_POINTS) // (BOARD_STUDS * BOARD_STUDS)
    return np.mean(samples.reshape(-1, per_cell, 3), axis=1)


def fisher_score(per_cell: FloatArray, labels: NDArray[np.int32]) -> float:
    """How well the ground map's colour classes separate: between over within scatter.

    No colour calibration is needed, so warm light or a colour cast does not matter,
    only that the map's regions differ from each other. Class centres are medians and
    each cell's share of the within-class scatter is capped, so that a hand or an arm
    lying across a third of the board (colours no map region has) cannot line up with
    a region under a wrong turn and outvote the cells that are still seen.
    """
    valid = np.all(np.isfinite(per_cell), axis=1)
    colours, ids = per_cell[valid], labels[valid]
    if len(colours) < 50:
        return 0.0
    centre = np.median(colours, axis=0)
    residual = np.zeros(len(colours))
    between = 0.0
    for c in np.unique(ids):
        members = ids == c
        if members.sum() < 3:
            continue
        median = np.median(colours[members], axis=0)
        between += int(members.sum()) * float(np.sum((median - centre) ** 2))
        residual[members] = np.sum((colours[members] - median) ** 2, axis=1)
    cap = 4.0 * float(np.median(residual)) + 1e-6
    within = float(np.minimum(residual, cap).sum())
    return between / max(within, 1e-6)


def map_labels(ground: GroundMap) -> NDArray[np.int32]:
    """The map's ground characters as class numbers, cell order y-major like the samples."""
    return _labels(ground.ground)


@functools.lru_cache(maxsize=16)
def _labels(rows: tuple[str, ...]) -> NDArray[np.int32]:
    """Computed once per map: a tracked frame should not spend time re-reading the map."""
    codes = {"L": 0, "D": 1, "G": 2, "X": 3}
    labels = np.array([codes[c] for row in rows for c in row[:BOARD_STUDS]], dtype=np.int32)
    labels.setflags(write=False)
    return labels


def resolve_turn(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
) -> tuple[Pose, float]:
    """The quarter turn of ``pose`` the ground map agrees with, and by what margin."""
    pose, margin, _ = resolve_turn_scored(image, camera, pose, ground)
    return pose, margin


def resolve_turn_scored(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
) -> tuple[Pose, float, float]:
    """As :func:`resolve_turn`, with the winning turn's score for a tracker to compare."""
    return best_turn(pose, cell_colours(image, camera, pose), map_labels(ground))


def best_turn(
    pose: Pose, colours: FloatArray, labels: NDArray[np.int32]
) -> tuple[Pose, float, float]:
    """As :func:`resolve_turn_scored`, from colours already sampled under ``pose``."""
    scores = [fisher_score(colours[TURNS[k]], labels) for k in range(4)]
    order = np.argsort(scores)[::-1]
    best, second = scores[order[0]], scores[order[1]]
    margin = best / max(second, 1e-6)
    return turned_pose(pose, int(order[0])), margin, float(best)


def same_turn_score(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
) -> float:
    """The ground map's score for ``pose`` as it stands, no other turn tried."""
    return fisher_score(cell_colours(image, camera, pose), map_labels(ground))
