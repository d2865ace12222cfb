"""Full mode's surface heights: a point above the surface its pixel shows is seen empty,
the carving then empties it, and the training pairs teach every piece's height."""

from __future__ import annotations

import numpy as np
import pytest

from training.full_pairs import full_region_pairs
from twin.cameras import random_camera
from vision.carve import ViewData, carve
from vision.silhouettes import View, board_box
from vision.surface import ABOVE_MARGIN, seen_above, surface_heights
from vision.views import working_scale


def test_only_points_clear_above_a_known_surface_are_seen_empty() -> None:
    heights = np.array([[2.0, np.nan], [0.0, 5.0]], np.float32)
    flat = np.array([0, 0, 1, 2, 3, 3])
    ok = np.array([True, True, True, True, True, False])
    up = np.array([2.0 + ABOVE_MARGIN + 0.1, 2.0 + ABOVE_MARGIN - 0.1, 9.0, 0.2, 9.0, 9.0])
    assert seen_above(heights, flat, ok, up).tolist() == [True, False, False, False, True,
                                                         False]


def _view_data(surface: float | None) -> ViewData:
    camera, pose = random_camera(np.random.default_rng(3), elevation_deg=(45.0, 55.0))
    box = board_box(camera, pose, 4)
    assert box is not None
    view = View(camera, pose, box, working_scale(camera, pose))
    shape = view.shape
    ones = np.ones(shape, np.float32)
    return ViewData(view, np.zeros((*shape, 3), np.float32), ones, 0 * ones,
                    np.ones(3, np.float32), np.ones(shape, bool),
                    None if surface is None else np.full(shape, surface, np.float32))


def test_the_carving_empties_what_stands_above_the_surface_every_pixel_shows() -> None:
    """Every pixel changed: the carving keeps everything it sees, up to the top level.
    With every pixel showing a surface at the plate, only the lowest level's points
    below the margin keep their change."""
    kept = carve([_view_data(None)], levels=4).full
    flat = carve([_view_data(0.0)], levels=4).full
    seen = kept > 0
    assert seen.sum() > 100
    assert np.allclose(kept[seen], 1.0)
    assert np.all(flat[:, :, 1:][seen[:, :, 1:]] == 0.0)
    assert np.allclose(flat[:, :, 0][seen[:, :, 0]], 2 / 3)


def test_a_model_without_a_height_map_cannot_give_surfaces() -> None:
    image = np.full((16, 16, 3), 100, np.float32)
    with pytest.raises(ValueError, match="no height map"):
        surface_heights(image, image, model="new_pieces")


def test_the_training_pairs_mark_every_piece_with_its_surface_height() -> None:
    pairs = list(full_region_pairs(1, seed=3000))
    assert len(pairs) == 4
    for pair in pairs:
        assert pair.before.shape == pair.after.shape
        assert pair.height is not None
        on = pair.mask > 0.5
        assert on.sum() > 50
        heights = pair.height[on]
        assert np.isfinite(heights).all()
        assert heights.min() > -0.1 and heights.max() < 13
    tallest = max(float(np.nanmax(p.height)) for p in pairs if p.height is not None)
    assert tallest > 1.0
