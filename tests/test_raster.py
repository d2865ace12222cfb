"""Polygons drawn together must give each polygon's own pixels, as drawing it alone does:
inside the image, in front of the depth buffer, ascending, whatever their sizes and
wherever they cross the image's edge; stud levels' side pixels worked out together must
be each level's own."""

from __future__ import annotations

import cv2
import numpy as np

from tests.turn_fixtures import evidence
from vision.raster import fill, fill_many
from vision.silhouettes import SIDES


def _polygons(rng: np.random.Generator, count: int, w: int, h: int) -> list[np.ndarray]:
    """Convex hulls (quarter pixels) of a few random points around random centres, some
    past the image's edges, small and large."""
    out = []
    for _ in range(count):
        centre = rng.uniform([-10, -10], [w + 10, h + 10])
        spread = rng.choice([2.0, 6.0, 25.0])
        pts = np.round((centre + rng.normal(0, spread, (8, 2))) * 4).astype(np.int32)
        out.append(cv2.convexHull(pts))
    return out


def test_polygons_drawn_together_are_each_drawn_alone() -> None:
    rng = np.random.default_rng(3)
    h, w = 90, 130
    depth = np.full((h, w), np.inf, np.float32)
    depth[20:60, 30:90] = rng.uniform(100, 300, (40, 60)).astype(np.float32)
    polys = _polygons(rng, 300, w, h)
    dists = rng.uniform(100, 300, len(polys)).tolist()
    together = fill_many(polys, dists, depth)
    alone = [fill(p, d, depth) for p, d in zip(polys, dists, strict=True)]
    assert sum(len(px) for px in alone) > 5000
    assert sum(len(px) == 0 for px in alone) > 5  # some lie outside the image
    for a, b in zip(alone, together, strict=True):
        assert a.tobytes() == b.tobytes() and a.dtype == b.dtype
    assert fill_many([], [], depth) == []


def test_side_pixels_worked_out_together_are_each_levels_own() -> None:
    together, alone = evidence().view, evidence().view
    cells = [(x, y, level) for x in range(0, 32, 3) for y in range(0, 32, 2)
             for level in range(4)]
    together.prepare_sides(cells)
    batched = sum((*c, SIDES) in together._cache for c in cells)
    assert batched > len(cells) // 2
    for x, y, level in cells:
        a = alone.side_pixels((x, y, level, 0))
        b = together.side_pixels((x, y, level, 0))
        assert a.tobytes() == b.tobytes() and a.dtype == b.dtype
