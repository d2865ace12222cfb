"""The twin's fast paths give exactly what the straightforward ones give.

The renderer batches small polygons, shades only the board pixels that show and
projects with its own copy of OpenCV's distortion loop; each of these must leave every
pixel and label as it was, so the frames and labels that other stages are built and
scored on do not move.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import Camera
from rules.maps import load_map
from rules.palace import Palace, PalaceError
from rules.pieces import Axis, Kind, Piece
from twin import RenderOptions, random_camera, raster, render
from twin import board as board_layer
from twin.lens import lens_for


def _palace(count: int, seed: int) -> Palace:
    """A crowded legal palace: arches over bricks, columns and decorations side by side."""
    rng = np.random.default_rng(seed)
    palace = Palace.setup(load_map("1"))
    kinds = [Kind.BRICK, Kind.ARCH, Kind.ARCH, Kind.COLUMN, Kind.DECORATION]
    for _ in range(count * 200):
        if len(palace) >= count:
            break
        kind = kinds[int(rng.integers(len(kinds)))]
        color = "gold" if kind is Kind.DECORATION else "tan"
        piece = Piece(kind, int(rng.integers(8, 24)), int(rng.integers(8, 24)),
                      int(rng.integers(0, 3)), axis=Axis.X if rng.uniform() < 0.5 else Axis.Y,
                      color=color)
        try:
            palace.place(piece)
        except PalaceError:
            continue
    return palace


def _same_frames(a, b) -> None:
    for name in ("image", "piece_ids", "kinds", "parts", "depth"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@pytest.mark.parametrize(("seed", "distortion"), [(3, True), (5, False)])
def test_batched_polygons_fill_exactly_as_one_by_one(monkeypatch, seed, distortion):
    palace = _palace(60, seed)
    camera, pose = random_camera(np.random.default_rng(seed), 640, 360)
    options = RenderOptions(clean=False, distortion=distortion)
    fast = render(palace, camera, pose, options, seed=seed)
    monkeypatch.setattr(raster, "SMALL_PX", 0)  # every polygon through the plain loop
    plain = render(palace, camera, pose, options, seed=seed)
    assert (fast.piece_ids >= 0).sum() > 1000  # the palace is really in the picture
    _same_frames(fast, plain)


def test_shading_only_the_board_that_shows_changes_no_pixel(monkeypatch):
    palace = _palace(60, 11)
    camera, pose = random_camera(np.random.default_rng(11), 640, 360)
    fast = render(palace, camera, pose, RenderOptions(clean=False), seed=11)
    whole = board_layer.render_board

    def whole_box(*args, nearer=None, **kwargs):
        return whole(*args, **kwargs)  # shade every pixel of the board's box

    monkeypatch.setattr(board_layer, "render_board", whole_box)
    plain = render(palace, camera, pose, RenderOptions(clean=False), seed=11)
    assert (fast.kinds == 1).sum() > 1000
    _same_frames(fast, plain)


@pytest.mark.parametrize("seed", range(4))
def test_lens_projection_is_bit_for_bit_opencv(seed):
    rng = np.random.default_rng(seed)
    k = np.array([[rng.uniform(500, 1500), 0, rng.uniform(600, 700)],
                  [0, rng.uniform(500, 1500), rng.uniform(330, 390)], [0, 0, 1]])
    dist = np.array([rng.uniform(-0.25, 0.05), rng.uniform(-0.03, 0.08),
                     *rng.normal(0, 0.002, 2), rng.uniform(-0.05, 0.05)])
    lens = lens_for(Camera(1280, 720, k, dist))
    points = np.column_stack([rng.uniform(-400, 400, (2000, 2)), rng.uniform(5, 1500, 2000)])
    expected, _ = cv2.projectPoints(points.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, dist)
    assert np.array_equal(lens.project(points), expected.reshape(-1, 2))
