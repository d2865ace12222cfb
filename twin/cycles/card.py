"""The validation renderer's printed card: its own inks, paper and holes.

Deliberately not the twin's palette: the sand prints towards orange, the dark green
towards black, the light green more saturated, the paper has grain and faint artwork,
and each hole has a pressed rim in the card's own colour, so that frames from this
renderer differ from the twin in the ways real boards do.
"""

from __future__ import annotations

import cv2
import numpy as np

from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM

PX_PER_MM = 8
HOLE_R_MM = 2.55
RIM_R_MM = 3.1

# sRGB inks, each drifted per card.
INKS = {
    "L": ((120, 175, 55), 18),
    "D": ((28, 62, 34), 14),
    "G": ((222, 150, 62), 18),
    "X": ((112, 96, 84), 16),
    "start": ((238, 236, 228), 8),
}


def card_texture(ground: GroundMap, rng: np.random.Generator) -> np.ndarray:
    """RGBA (uint8) texture, row ``0`` at board ``y = 0``; alpha 0 inside the holes."""
    cell = int(STUD_MM * PX_PER_MM)
    n = BOARD_STUDS * cell
    inks = {k: np.clip(np.array(rgb, float) + rng.normal(0, spread, 3), 0, 255)
            for k, (rgb, spread) in INKS.items()}
    grid = np.array([[inks[c] for c in row] for row in ground.ground])
    for x, y in ground.start_area:
        grid[y, x] = inks["start"]
    rgb = cv2.resize(grid.astype(np.float32), (n, n), interpolation=cv2.INTER_NEAREST)
    # Regions on a print are not cut along the studs' cells: wobble the borders a little.
    shift = rng.normal(0, 1.0, 2) * cell * 0.15
    m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    rgb = cv2.warpAffine(rgb, m, (n, n), borderMode=cv2.BORDER_REFLECT)
    rgb = cv2.GaussianBlur(rgb, (0, 0), 2.0)
    # Blocked areas carry a hatch, the artwork faint blobs of a darker or lighter ink.
    hatch = ((np.add.outer(np.arange(n), np.arange(n)) // 12) % 2).astype(np.float32)
    blocked = cv2.resize((np.array([list(r) for r in ground.ground]) == "X").astype(np.float32),
                         (n, n), interpolation=cv2.INTER_NEAREST)
    rgb *= (1 - 0.15 * blocked * hatch)[..., None]
    for _ in range(int(rng.integers(10, 40))):
        centre = tuple(int(v) for v in rng.uniform(0, n, 2))
        axes = tuple(int(v) for v in rng.uniform(10, 70, 2))
        tone = np.zeros((n, n), np.float32)
        cv2.ellipse(tone, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        rgb *= (1 + rng.uniform(-0.18, 0.12) * cv2.GaussianBlur(tone, (0, 0), 4))[..., None]
    low = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (n, n),
                     interpolation=cv2.INTER_CUBIC)
    rgb *= (1 + 0.04 * low)[..., None]
    rgb += rng.normal(0, 4.0, (n, n, 1)).astype(np.float32)  # paper grain
    rim = float(rng.uniform(0.88, 1.08))  # pressed rims: the card's colour, a shade off
    alpha = np.full((n, n), 255, np.uint8)
    shade = np.ones((n, n), np.float32)
    for y in range(BOARD_STUDS):
        for x in range(BOARD_STUDS):
            c = (int((x + 0.5) * cell), int((y + 0.5) * cell))
            cv2.circle(shade, c, int(RIM_R_MM * PX_PER_MM), rim, -1, cv2.LINE_AA)
            cv2.circle(alpha, c, int(HOLE_R_MM * PX_PER_MM), 0, -1, cv2.LINE_AA)
    rgb *= shade[..., None]
    out = np.dstack([np.clip(rgb, 0, 255).astype(np.uint8), alpha])
    return out
