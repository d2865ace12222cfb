"""Random ground maps: layouts no one has printed, for rendering and for measuring.

The real Ground Maps are not published, so every real board carries a layout the
project has never seen. Anything that reads a board (its pose, its turn, its map) must
therefore be shown many layouts, not the four stand-ins: this module draws them. It is
pure data (a :class:`GroundMap`) so that the twin, the validation renderer, the benches
and the tests all draw from the one generator.

A layout is a warped Voronoi partition (region count, sizes and wobble drawn at
random, so regions come out from a few large blobs to many small patches), optionally
with straight bands, blocked areas and the white starting area (where the starting
staircase stands; placed at random so that nothing may learn its place).
"""

from __future__ import annotations

import numpy as np

from rules.maps import SETUP_PIECES, GroundMap
from rules.pieces import BOARD_STUDS, Piece, corner_setup


def _warped_voronoi(rng: np.random.Generator, regions: int, colours: str) -> np.ndarray:
    n = BOARD_STUDS
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float64)
    wobble = rng.uniform(0.0, 3.0)
    # Low-frequency warp: a few sines, enough to bend straight Voronoi edges into blobs.
    for _ in range(3):
        fx, fy = rng.uniform(0.05, 0.35, 2)
        px, py = rng.uniform(0, 2 * np.pi, 2)
        xs = xs + wobble * np.sin(fy * ys + py)
        ys = ys + wobble * np.sin(fx * xs + px)
    sites = rng.uniform(-2, n + 2, (regions, 2))
    weights = rng.uniform(0.6, 1.6, regions)  # unequal sizes
    d = ((xs[..., None] - sites[:, 0]) ** 2 + (ys[..., None] - sites[:, 1]) ** 2) / weights**2
    owner = np.argmin(d, axis=-1)
    labels = np.array([rng.choice(list(colours)) for _ in range(regions)])
    return labels[owner]


def _bands(grid: np.ndarray, rng: np.random.Generator) -> None:
    """One or two straight bands (a path or river look) across part of the map."""
    n = BOARD_STUDS
    for _ in range(int(rng.integers(1, 3))):
        width = int(rng.integers(1, 4))
        at = int(rng.integers(0, n - width))
        lo, hi = sorted(rng.integers(0, n, 2))
        colour = rng.choice(list("LDG"))
        if rng.random() < 0.5:
            grid[at:at + width, lo:hi + 1] = colour
        else:
            grid[lo:hi + 1, at:at + width] = colour


def random_map(rng: np.random.Generator, name: str = "random", *,
               start_area: bool | None = None, blocked: bool | None = None) -> GroundMap:
    """A new layout; ``start_area`` / ``blocked`` force those features on or off
    (``None`` draws them: about 70 % and 40 % of maps have them)."""
    n = BOARD_STUDS
    mix = rng.choice(["LLLDDDG", "LLDDDGG", "LDG", "LLLLDDG", "LDDDGGG", "LD", "LG"])
    grid = _warped_voronoi(rng, int(rng.integers(3, 40)), str(mix))
    if rng.random() < 0.3:
        _bands(grid, rng)
    if blocked if blocked is not None else rng.random() < 0.4:
        for _ in range(int(rng.integers(1, 7))):
            w, h = rng.integers(1, 5, 2)
            x, y = int(rng.integers(2, n - 2 - w)), int(rng.integers(2, n - 2 - h))
            grid[y:y + h, x:x + w] = "X"
    for corner in corner_setup():
        for x, y in corner.footprint():
            grid[y, x] = "X"
    area: frozenset[tuple[int, int]] = frozenset()
    setup: tuple[Piece, ...] = ()
    if start_area if start_area is not None else rng.random() < 0.7:
        cells = [c for p in SETUP_PIECES for c in p.footprint()]
        x0 = min(c[0] for c in cells)
        x1 = max(c[0] for c in cells)
        y0 = min(c[1] for c in cells)
        dx = int(rng.integers(4 - x0, n - 4 - x1))
        dy = int(rng.integers(4 - y0, n - 4 - y0))
        setup = tuple(p.moved(x=p.x + dx, y=p.y + dy) for p in SETUP_PIECES)
        area = frozenset((x + dx, y + dy) for x, y in cells)
        for x, y in area:
            if grid[y, x] == "X":
                grid[y, x] = "L"
    return GroundMap(
        name=name,
        ground=tuple("".join(row) for row in grid),
        start_area=area,
        setup=setup,
        extra={"note": "random layout (rules.random_map): not a real Ground Map"},
    )
