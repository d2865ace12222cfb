"""The printed ground map as the twin's card: each region's ink, the print's grain and
the illustration's strokes, in board space.

The board's shading (:mod:`twin.board`) samples this picture through each pixel's ray,
so the print is made once per frame at a fixed resolution, independent of the camera.
Clean frames (no random stream) all share one print per map.
"""

from __future__ import annotations

import cv2
import numpy as np

from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM
from twin.shading import GROUND_RGB

TEXTURE_PX_PER_MM = 2


_CLEAN_CARDS: dict[tuple[tuple[str, ...], frozenset[tuple[int, int]]], np.ndarray] = {}


def card_texture(ground: GroundMap, rng: np.random.Generator | None,
                 inks: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The printed map in board space (BGR float, 2 px per mm, row = y).

    Without ``rng`` (clean frames) the print is the same every time, so it is made once
    per map and handed out read-only.
    """
    if rng is None:
        key = (ground.ground, frozenset(ground.start_area))
        cached = _CLEAN_CARDS.get(key)
        if cached is None:
            if len(_CLEAN_CARDS) >= 8:  # 3 MB each
                _CLEAN_CARDS.clear()
            cached = _print_card(ground, None)
            cached.flags.writeable = False
            _CLEAN_CARDS[key] = cached
        return cached
    return _print_card(ground, rng, inks)


def _print_card(ground: GroundMap, rng: np.random.Generator | None,
                inks: dict[str, np.ndarray] | None = None) -> np.ndarray:
    cells = np.zeros((BOARD_STUDS, BOARD_STUDS, 3), np.float32)
    tints = {
        key: np.array(rgb[::-1], np.float32) / 255.0 for key, rgb in GROUND_RGB.items()
    }
    if rng is not None:
        for key in tints:
            tints[key] = np.clip(tints[key] * rng.uniform(0.88, 1.1, 3), 0, 1).astype(np.float32)
    for key, drift in (inks or {}).items():
        tints[key] = np.clip(tints[key] * drift, 0, 1).astype(np.float32)
    # A stud read as unknown ("?") is printed as light green: someone's real map.
    tints["?"] = tints["L"]
    keys = list(tints)
    which = np.array([[keys.index(ch) for ch in row] for row in ground.ground], np.int64)
    for x, y in ground.start_area:
        if 0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS:
            which[y, x] = keys.index("start")
    cells[:] = np.stack([tints[key] for key in keys])[which]
    size = BOARD_STUDS * int(STUD_MM) * TEXTURE_PX_PER_MM
    texture = cv2.resize(cells, (size, size), interpolation=cv2.INTER_NEAREST)
    texture = cv2.GaussianBlur(texture, (0, 0), 1.2)
    if rng is not None:
        # Print grain and uneven ink: low-frequency blotches plus fine speckle.
        blotch = cv2.resize(rng.normal(1.0, 0.06, (24, 24)).astype(np.float32), (size, size),
                            interpolation=cv2.INTER_CUBIC)
        speckle = np.empty((size, size), np.float32)
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        cv2.randn(speckle, 1.0, 0.03)
        # Illustration: leaves, tufts and pebbles printed a shade lighter or darker.
        strokes = np.ones((size, size), np.float32)
        count = int(rng.integers(150, 500))
        centres = rng.uniform(0, size, (count, 2)).astype(int)
        axes = rng.uniform(2, 12, (count, 2)).astype(int)
        angles = rng.uniform(0, 180, count)
        shades = rng.uniform(0.8, 1.18, count)
        for (x, y), (a, b), angle, shade in zip(centres, axes, angles, shades, strict=True):
            cv2.ellipse(strokes, (int(x), int(y)), (int(a), int(b)), float(angle), 0, 360,
                        float(shade), -1, cv2.LINE_AA)
        strokes = cv2.GaussianBlur(strokes, (0, 0), 0.8)
        texture *= (blotch * speckle * strokes)[:, :, None]
    return texture
