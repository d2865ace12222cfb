"""Four twin views a quarter turn apart of a small palace, as full mode's search tests
read them: one shared way to draw them, so each test file says only what stands."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from calibration.board_model import turned_pose
from rules import Palace, Piece, load_map
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision.carve import ViewData, balanced, view_data
from vision.full import corners_only

Scene = tuple[Palace, list[ViewData]]


def four_views(pieces: Iterable[Piece], camera_seed: int) -> Scene:
    """Map 1's board with its corner bricks and ``pieces``, seen from one random camera
    (45-55 degrees up) turned a quarter between views, with no clutter."""
    ground = load_map("1")
    palace = corners_only(ground)
    for p in pieces:
        palace.place(p)
    cam, pose = random_camera(np.random.default_rng(camera_seed), elevation_deg=(45.0, 55.0))
    views = []
    for k in range(4):
        turned = turned_pose(pose, k)
        frame = render(palace, cam, turned, RenderOptions(clutter=False), seed=k).image
        vd = view_data(frame, cam, turned, ground)
        assert vd is not None
        views.append(vd)
    return palace, balanced(views)
