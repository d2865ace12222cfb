"""Full mode's surface heights: a point above the surface its pixel shows is seen empty,
the carving then empties it, and the training pairs teach every piece's height."""

from __future__ import annotations

import numpy as np
import pytest

import vision.carve as carving_module
from rules import load_map
from training.__main__ import main as recipe
from training.full_pairs import WIDE_EVERY, full_region_pairs, game_ground
from twin.cameras import random_camera
from vision.carve import OFFSETS, ViewData, carve
from vision.silhouettes import View
from vision.surface import ABOVE_MARGIN, seen_above, surface_heights
from vision.views import board_box, working_scale


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


def test_the_carving_empties_what_enough_views_see_above_their_surface(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pixel changed: the carving keeps everything it sees, up to the top level.
    With every pixel showing a surface at the plate in enough views (two, here), a voxel
    keeps the share of its points no higher than the margin; one view fewer empties
    nothing."""
    monkeypatch.setattr(carving_module, "EMPTY_VIEWS", 2)
    kept = carve([_view_data(None)], levels=4).full
    short = carve([_view_data(0.0), _view_data(None)], levels=4).full
    flat = carve([_view_data(0.0)] * 2, levels=4).full
    assert np.array_equal(short, kept)
    seen = kept > 0
    assert seen.sum() > 100
    assert np.allclose(kept[seen], 1.0)
    for level in range(4):
        share = np.mean([level + o <= ABOVE_MARGIN for o in OFFSETS])
        assert np.allclose(flat[:, :, level][seen[:, :, level]], share)
    assert flat[seen].min() < 1.0


def test_a_model_without_a_height_map_cannot_give_surfaces() -> None:
    image = np.full((16, 16, 3), 100, np.float32)
    with pytest.raises(ValueError, match="no height map"):
        surface_heights(image, image, model="new_pieces")


def test_the_training_pairs_mark_every_piece_and_the_model_reads_their_heights() -> None:
    """A held-out game's pairs (the model trained on games 3000 + 60 k to 3049 + 60 k):
    every piece's pixels carry their surface's height, and the committed model's heights
    follow it."""
    pairs = list(full_region_pairs(1, seed=4000))
    assert len(pairs) == 4
    got, want = [], []
    for pair in pairs:
        assert pair.before.shape == pair.after.shape
        assert pair.height is not None
        on = pair.mask > 0.5
        assert on.sum() > 50
        heights = pair.height[on]
        assert np.isfinite(heights).all()
        assert heights.min() > -0.1 and heights.max() < 13
        shown = surface_heights(pair.after.astype(np.float32), pair.before.astype(np.float32))
        sure = on & np.isfinite(shown)
        assert sure.sum() > 0.5 * on.sum()
        got.append(shown[sure])
        want.append(pair.height[sure])
    g, w = np.concatenate(got), np.concatenate(want)
    assert w.max() > 1.0
    assert np.corrcoef(g, w)[0, 1] > 0.5
    assert np.median(np.abs(g - w)) < 1.0


def test_one_game_in_four_draws_a_random_map_and_the_others_keep_their_draws() -> None:
    """The wide games' random maps come from their own generator: every game's draws
    after the map (camera, renders) are what they were before wide games existed."""
    stand_ins = {load_map(str(i)).ground for i in range(1, 5)}
    for game in range(2 * WIDE_EVERY):
        rng = np.random.default_rng([4000 + game, 7])
        ground, wide = game_ground(game, 4000, rng)
        plain = np.random.default_rng([4000 + game, 7])
        plain.integers(1, 5)
        assert rng.integers(1 << 30) == plain.integers(1 << 30)
        assert wide == (game % WIDE_EVERY == WIDE_EVERY - 1)
        assert (ground.ground not in stand_ins) == wide


def test_the_full_recipe_refuses_the_benchs_and_the_development_games(tmp_path, capsys
                                                                      ) -> None:
    for seed, games, named in ((995, 20, "1000-1009"), (2010, 1, "2001-2018"),
                                 (2013, 1, "2001-2018")):
        out = tmp_path / str(seed)
        assert recipe(["create_full_dataset", "--games", str(games), "--seed", str(seed),
                       "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert named in err and err.count("\n") == 1
        assert not out.exists()
