"""The twin's views of a random ground map, as the map read is measured on.

Each seed draws its own map (with a starting area, blocked areas as ``random_map``
draws them) and renders it twice under the wide look: once in the set-up position and
once with a palace standing (or the set-up again, a third of the time). The map-read
bench and its development scripts draw the same views from here, each from its own
seeds, with the truth to score them by: the map's character per cell and whether the
cell's stud top truly shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, Pose, project
from rules.bot import simulate_game
from rules.maps import GroundMap
from rules.palace import Palace
from rules.random_map import random_map
from twin.cameras import around_board, random_camera
from twin.frame import Frame, RenderOptions
from twin.mesh import KIND_BOARD, PART_STUD_TOP
from twin.renderer import render


def board_scene(rng: np.random.Generator, seed: int, ground: GroundMap) -> Palace:
    """The set-up (a third of frames) or a palace from a bot game on the map."""
    if rng.random() < 0.35 or not ground.setup:
        return Palace(ground, ground.setup)
    record = simulate_game(int(rng.integers(2, 5)), seed, ground)
    scene = record.scenes[int(rng.integers(1, len(record.scenes)))]
    return Palace(ground, scene.pieces)


@dataclass(frozen=True)
class MapView:
    """One rendered view of a seed's map, with what drew it."""

    name: str
    setup: bool
    frame: Frame
    camera: Camera
    pose: Pose
    ground: GroundMap
    second: Frame | None = None
    """The same board from a second webcam of the same make on another side of the
    table, under the same light (``map_views(..., second_view=...)``)."""


def map_views(seed: int, sheen: bool = False, second_view: float | None = None
              ) -> tuple[MapView, MapView]:
    """The seed's set-up view and palace view (see the module's docstring); with
    ``second_view``, each also from that many degrees round the board
    (:func:`twin.cameras.around_board`). The first views are those drawn without it."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=True)
    boards = (Palace(ground, ground.setup), board_scene(rng, seed, ground))
    views = []
    for setup, board in zip((True, False), boards, strict=True):
        camera, pose = random_camera(rng)
        options = RenderOptions(wide=True, card_sheen=sheen)
        frame = render(board, camera, pose, options, seed=seed)
        second = None if second_view is None else render(
            board, camera, around_board(pose, second_view), options, seed=seed)
        views.append(MapView(str(seed), setup, frame, camera, pose, ground, second))
    return views[0], views[1]


def truth_cells(ground: GroundMap) -> NDArray[np.str_]:
    """The map's character per cell, row by row, the starting area as ``S`` (as a
    reading's ``cells`` gives them)."""
    grid = np.array([list(row) for row in ground.ground])
    for x, y in ground.start_area:
        grid[y, x] = "S"
    return grid.reshape(-1)


def visible_cells(frame: Frame) -> NDArray[np.bool_]:
    """Per cell, row by row: whether the twin's labels show the board's own stud top at
    its centre (nothing stands on it, hides it or crops it)."""
    px = np.rint(project(frame.camera, frame.pose, stud_centres())).astype(int)
    h, w = frame.parts.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    out = np.zeros(len(px), bool)
    x, y = px[inside, 0], px[inside, 1]
    out[inside] = (frame.parts[y, x] == PART_STUD_TOP) & (frame.kinds[y, x] == KIND_BOARD)
    return out
