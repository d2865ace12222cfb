"""Heights: the training label is the height of the surface a new piece shows (a brick on
the plate shows 0 to 1 level and a stud, one on a brick 1 to 2)."""

from __future__ import annotations

import numpy as np

from rules import Kind, Palace, Piece, load_map
from training.pairs import surface_height
from twin import RenderOptions, random_camera, render


def _shown_heights(pieces: list[Piece], target: Piece) -> np.ndarray:
    camera, pose = random_camera(np.random.default_rng(7), 1280, 720,
                                 elevation_deg=(50.0, 55.0), fill=(0.8, 0.9))
    frame = render(Palace(load_map("1"), pieces), camera, pose, RenderOptions(clean=True))
    index = [i for i, p in enumerate(frame.pieces) if p.id == target.id]
    mask = np.isin(frame.piece_ids, index)
    heights = surface_height(frame, mask)
    assert np.isnan(heights[~mask]).all()
    return heights[mask]


def test_the_label_is_the_height_of_the_surface_shown() -> None:
    low = Piece(Kind.BRICK, 12, 12, 0, id="low")
    on_plate = _shown_heights([low], low)
    high = Piece(Kind.BRICK, 12, 12, 1, id="high")
    on_brick = _shown_heights([low, high], high)
    assert len(on_plate) > 200 and len(on_brick) > 200
    # Sides from the bottom up, the top face and its studs a little above the top.
    for shown, level in ((on_plate, 0), (on_brick, 1)):
        assert np.nanpercentile(shown, 2) > level - 0.05
        assert np.nanpercentile(shown, 98) < level + 1.25
        assert level + 0.3 < np.nanmedian(shown) < level + 1.2
