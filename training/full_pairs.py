"""Full mode's pairs: a whole palace's region beside the bare board learned from it.

Full mode has no picture before the palace; it learns the bare board from each view
itself (:func:`vision.bare.learned_bare_board`). A model that reads, per pixel, whether a
piece shows and how high the surface it shows stands must be trained on that very
pair: the region as full mode cuts it (``board_box`` up to the carving's levels, the
working scale) and the learned board as the picture "before". Every piece's pixels are
the mask (the corner bricks too: the learned board does not hold them), and the height
label is the surface's height in brick levels, from the render's depth
(:func:`training.pairs.surface_height`); each pair also carries the view's geometry
channels (:func:`vision.surface.geometry_channels`), made by the reader's own function,
for a model trained with them (``train --geometry``). Palaces come from seeded bot games at every
size from a few pieces to a full palace, on the maps the bench draws from, each seen
from four views a quarter turn apart under one random camera, as the bench sees them;
one game in four instead draws a random ground map and the twin's wide look, so that the
model meets inks, stud tops and light beyond the stand-ins'.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from calibration.board_model import turned_pose
from rules import GroundMap, Palace, load_map
from rules.bot import simulate_game
from rules.random_map import random_map
from training.dataset import RegionPair, as_uint8, region_labels, save
from training.pairs import surface_height
from twin import RenderOptions, random_camera, render
from vision.bare import learned_bare_board, plate_points
from vision.carve import LEVELS
from vision.change import region
from vision.silhouettes import View
from vision.surface import geometry_channels
from vision.views import board_box, working_scale

SIZES = (10, 20, 30, 40, 60, 80, 100, 120)
"""Pieces in the palaces drawn, one size per game in turn."""
WIDE_EVERY = 4
"""Every fourth game: a random map under the wide look (its own generator, so the other
games draw what they drew before)."""
FIRST_SEED = 3000
"""Full-mode training games start here: the bench reads games 1000-1009, settings are
chosen on 2001-2010 and 2016-2018, and 2011-2015 are held out."""


def game_ground(game: int, seed: int, rng: np.random.Generator) -> tuple[GroundMap, bool]:
    """The ground map of game number ``game`` of a set, and whether it is seen in the wide
    look. The stand-in is drawn from ``rng`` in every game, so that a wide game's random
    map leaves the rest of the game's draws as they were."""
    stand_in = load_map(str(int(rng.integers(1, 5))))
    if game % WIDE_EVERY != WIDE_EVERY - 1:
        return stand_in, False
    return random_map(np.random.default_rng([seed + game, 11])), True


def full_region_pairs(games: int, seed: int = FIRST_SEED) -> Iterator[RegionPair]:
    """Four region pairs (one per view) from each of ``games`` seeded palaces."""
    for game in range(games):
        rng = np.random.default_rng([seed + game, 7])
        ground, wide = game_ground(game, seed, rng)
        record = simulate_game(4, seed=seed + game, map_name=ground)
        size = SIZES[game % len(SIZES)]
        scene = record.scene_with(size)
        camera, pose = random_camera(rng, elevation_deg=(30.0, 70.0))
        options = RenderOptions(room_light=game % 3 == 1, deep_shadows=game % 3 == 2,
                                wide=wide)
        for k in range(4):
            turned = turned_pose(pose, k)
            frame = render(Palace(ground, scene.pieces), camera, turned, options,
                           seed=int(rng.integers(1 << 30)))
            box = board_box(camera, turned, LEVELS)
            if box is None:
                continue
            scale = working_scale(camera, turned)
            image = region(frame.image, box, scale)
            view = View(camera, turned, box, scale)
            pts, on = plate_points(view)
            bare = learned_bare_board(image, ground, pts, on)
            mask_px = frame.piece_ids >= 0
            mask, height = region_labels(mask_px, surface_height(frame, mask_px), box,
                                         (image.shape[1], image.shape[0]))
            yield RegionPair(as_uint8(bare), as_uint8(image), mask, height,
                             geometry_channels(view, pts))


def create_full_dataset(out: Path, games: int, seed: int = FIRST_SEED) -> int:
    """Write the pairs of ``games`` palaces under ``out``; returns how many."""
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for n, pair in enumerate(full_region_pairs(games, seed), 1):
        save(pair, out / f"pair_{n - 1:05d}.npz")
    return n
