"""The board as a small picture of its own: one cell per stud and a ring of table.

The settle detector (:mod:`vision.settle`) watches the board through this picture. It is
resampled in the board's own frame, so the same cell is the same place on the board
however the camera or the board moved, and each cell's mean colour averages away the
studs, sensor noise and the last tenth of a pixel of the tracked pose. Colours are
divided by the board's median colour, so a flickering lamp or a webcam's auto-exposure
changes nothing. Two such pictures are compared cell by cell (:func:`cell_steps`), or
with a soft change of the light between them taken out (:func:`light_steps`); a patch of
changed cells that runs from the board out to the ring's edge is something reaching in
from beyond the table's edge (:func:`reaches_out`).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose, project
from rules.pieces import BOARD_STUDS, STUD_MM
from vision.change import smooth_light

PX_PER_CELL = 4
"""Resampled pixels per stud cell; a cell's mean is taken over these 4 x 4."""
RING_CELLS = 12
"""Table cells kept around the plate (96 mm): where an arm comes in from. Wider than a
playing card laid over the board's edge reaches past it (a 63 x 88 mm card turned
corner-out with its middle 20 mm past the edge reaches 74 mm, and its image lies a few
millimetres further out, the card being above the table), so a card lying there is not
taken for an arm; with 48 mm it often reached the ring's edge and held the read 8 s,
past the next player's hand."""
SIDE_CELLS = BOARD_STUDS + 2 * RING_CELLS
BOARD_SLICE = slice(RING_CELLS, RING_CELLS + BOARD_STUDS)


def board_cells(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> NDArray[np.float32]:
    """The board and a ring of table around it, one mean colour per stud cell, divided
    by the board's median colour (SIDE_CELLS x SIDE_CELLS x 3).

    Only the part of the picture the ring covers is read. It is first shrunk to a
    quarter with area averaging, so the 4 x 4 samples per cell read a blurred picture
    instead of aliasing the studs, and a cell's mean is the same whichever tenth of a
    pixel the pose puts it on. Where each sample lies is projected (lens included) only
    at the cells' corners and interpolated between them: the lens bends the picture
    smoothly, and projecting every sample would cost more than the rest together.
    """
    height, width = image.shape[:2]
    corners_mm = (np.arange(SIDE_CELLS + 1, dtype=np.float64) - RING_CELLS) * STUD_MM
    grid_x, grid_y = np.meshgrid(corners_mm, corners_mm)
    points = np.column_stack([grid_x.ravel(), grid_y.ravel(), np.zeros(grid_x.size)])
    corners_px = project(camera, pose, points)
    scale = 4
    x0 = int(np.clip(np.floor(corners_px[:, 0].min()), 0, width - scale)) // scale * scale
    y0 = int(np.clip(np.floor(corners_px[:, 1].min()), 0, height - scale)) // scale * scale
    # Whole blocks of 4 x 4 only: any other size makes the area resize stretch the
    # picture by a fraction of a pixel, which moves with the board.
    x1 = x0 + min(-(-(int(np.ceil(corners_px[:, 0].max())) + 1 - x0) // scale) * scale,
                  (width - x0) // scale * scale)
    y1 = y0 + min(-(-(int(np.ceil(corners_px[:, 1].max())) + 1 - y0) // scale) * scale,
                  (height - y0) // scale * scale)
    x1, y1 = max(x1, x0 + scale), max(y1, y0 + scale)
    crop = image[y0:y1, x0:x1]
    small_u8 = cv2.resize(crop, ((x1 - x0) // scale, (y1 - y0) // scale),
                          interpolation=cv2.INTER_AREA)
    small = small_u8.astype(np.float32)
    # A lamp flickering at the mains frequency darkens whole rows of a webcam's picture
    # in bands that roll from frame to frame: each row is divided by its own median
    # brightness, taken across the whole picture's width. What stands on the board moves
    # a row's median only where it covers most of the row, and a hand that does is
    # motion anyway. (Across the crop alone, a row half board and half table had its
    # median flip between the two as the tracked pose's last thousandth of a millimetre
    # moved the crop's edge by a block: a whole row of cells "moved" on a still board.)
    band = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, ::4 * scale]), cv2.COLOR_BGR2GRAY)
    rows = np.median(band.reshape(-1, scale, band.shape[1]).mean(axis=1), axis=1)
    small /= np.maximum(rows, 4.0)[:, None, None]
    side = SIDE_CELLS * PX_PER_CELL
    # Corner maps in the small picture's pixels, then stretched to every sample: sample
    # i sits at (i + 0.5) / PX_PER_CELL cells, the corners at whole cells.
    corner_x = ((corners_px[:, 0] - x0 + 0.5) / scale - 0.5).reshape(SIDE_CELLS + 1, -1)
    corner_y = ((corners_px[:, 1] - y0 + 0.5) / scale - 0.5).reshape(SIDE_CELLS + 1, -1)
    size = (side + PX_PER_CELL, side + PX_PER_CELL)
    map_x = cv2.resize(corner_x.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    map_y = cv2.resize(corner_y.astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    half = PX_PER_CELL // 2
    map_x, map_y = map_x[half:half + side, half:half + side], map_y[half:half + side,
                                                                   half:half + side]
    flat = cv2.remap(small, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cells = cv2.resize(flat, (SIDE_CELLS, SIDE_CELLS), interpolation=cv2.INTER_AREA)
    median = np.median(cells[BOARD_SLICE, BOARD_SLICE].reshape(-1, 3), axis=0)
    return cells / np.maximum(median, 0.03)[None, None, :]


def cell_steps(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """The largest channel difference of each cell, in units of the board's median
    colour, or of the cell's own where it is brighter: a white or sunlit patch (often
    clipped, so it does not follow the exposure as the median does) then moves no more
    than the board when the light flickers."""
    return (np.abs(a - b) / np.maximum(np.maximum(a, b), 1.0)).max(axis=2)


def light_steps(a: NDArray[np.float32], b: NDArray[np.float32],
                tolerance: float = 0.0) -> NDArray[np.float32]:
    """:func:`cell_steps` once ``b`` is given ``a``'s light where it changed smoothly, less
    ``tolerance`` times that change: what changed on the board itself, a soft shadow come
    or gone taken out. The change of each channel's log colour is taken as the light
    changes across cells (:func:`vision.change.smooth_light`). A still arm is smooth at
    this scale too, so this cannot tell an arm from a shadow; it only says whether what
    changed was anything but the light."""
    ratio = np.log(np.maximum(a, 0.05)) - np.log(np.maximum(b, 0.05))
    light = np.stack([smooth_light(ratio[:, :, c]) for c in range(3)], axis=2)
    steps = cell_steps(a, b * np.exp(light))
    if tolerance <= 0:
        return steps
    level = np.median(light[BOARD_SLICE, BOARD_SLICE].reshape(-1, 3), axis=0)
    return steps - tolerance * np.abs(light - level).max(axis=2)


def reaches_out(changed: NDArray[np.bool_]) -> bool:
    """Whether a patch of changed cells covers part of the board and runs out to the
    edge of the ring: an arm, not a piece standing on the board."""
    count, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
    if count <= 1:
        return False
    inside = set(np.unique(labels[BOARD_SLICE, BOARD_SLICE]).tolist()) - {0}
    rim = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    return bool(inside & (set(np.unique(rim).tolist()) - {0}))
