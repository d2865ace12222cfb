"""The corner bricks as a board's place along an axis whose two sides are out of the picture.

A board filling the picture from above can run past the frame on two opposite sides.
The lattice then fixes its size and tilt, and the two sides in the picture its place
across them, but nothing its place along them: both sides that would say so lie outside
the frame (:mod:`calibration.alias` reads them as unseen). The four corner bricks, each
three cells of one colour standing one stud in from a corner, still show. Where the pose
is right each brick's top is one colour, unlike the plate cells around it; with the
board a stud or two off, the brick's cells take in card and the ring around it takes in
brick, and the two colours draw together.

The contrast is weak evidence on many boards: seen obliquely, a brick's side face and
shadow fill the cells in front of it (a top moved a stud over that dark, even patch can
show a clearer contrast than the true one), and a brick of the card's own colour shows
no contrast at all. So a brick counts only when the camera looks down on it steeply,
with a contrast well clear of the speckle of its own top and several times every move's,
and an axis is pinned only by two such bricks at once, none of which prefers a move.
On 350 dev wide-twin frames (seeds 20000 to 20149, 21000 to 21099 and 22000 to 22099,
truths refined on the lattice) that pinned an axis on 50 truths and on none of 4,200
truths moved one, two or three studs along it; nor did a ratio of 2 and a floor of 3.
Without the steepness, a ratio of 2.5 and a floor of 4 pinned 7 of 1,200 moved truths
(boards seen from 31 to 67 degrees over their middle).
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import corner_bricks, elevation_deg
from calibration.camera import Camera, FloatArray, Pose, lab_samples
from rules.pieces import BRICK_MM, STUD_MM

BRICK_MOVES = (-2, -1, 1, 2)
"""Whole-stud moves of the board (along one axis) that the pose's own contrast must beat."""
MIN_BRICK_CONTRAST = 4.0
"""The least contrast (Lab distance between a brick's top and the cells around it, over
the spread of the brick's top plus 2) a brick must show at the pose to count."""
BRICK_RATIO = 3.0
"""How many times every move's contrast a brick's contrast at the pose must be."""
MIN_PINNING_BRICKS = 2
"""Bricks that must pin an axis together: one alone, however clear (a ratio of 5 and a
floor of 8, before the steepness was asked), pinned 27 of 4,200 moved truths on the
dev frames."""
MIN_BRICK_ELEVATION_DEG = 60.0
"""The least elevation of the camera over a brick for that brick to count. Seen more
obliquely, the brick's side face and shadow (the brick stands 1.2 studs tall) cover
most of a stud in front of it. A camera close above a board that runs off the frame
sees its corner bricks from 61 to 64 degrees (dev seed 20029)."""
MIN_IN_PICTURE = 0.9
"""Share of a brick's samples (top and ring) that must fall inside the picture."""
_CELL = np.array([[u, v] for u in (0.2, 0.5, 0.8) for v in (0.2, 0.5, 0.8)])
"""Sample places inside one stud cell, in studs."""


@functools.lru_cache(maxsize=1)
def _samples() -> tuple[tuple[FloatArray, FloatArray], ...]:
    """Per corner brick: points on its top (brick height) and on the plate cells around it."""

    def points(cells: list[tuple[int, int]], z: float) -> FloatArray:
        return np.array(
            [[(x + u) * STUD_MM, (y + v) * STUD_MM, z] for x, y in cells for u, v in _CELL]
        )

    out = []
    for brick in corner_bricks():
        cells = set(brick.piece.footprint())
        ring = {(x + dx, y + dy) for x, y in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        out.append((points(sorted(cells), BRICK_MM), points(sorted(ring - cells), 0.0)))
    return tuple(out)


def brick_contrasts(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, shifts: FloatArray
) -> FloatArray:
    """Per shift of the board (mm, N x 2) and corner brick, its top's contrast with the
    cells around it; NaN where the brick is not in the picture.

    All shifts' samples go through one projection, one remap and one colour conversion
    (a board moved by ``d`` shows point ``p`` where the pose shows ``p + d``).
    """
    groups = [part for pair in _samples() for part in pair]
    sizes = [len(g) for g in groups]
    base = np.vstack(groups)
    moved = np.repeat(base[None], len(shifts), axis=0)
    moved[..., :2] += shifts[:, None]
    lab = lab_samples(image, camera, pose, moved.reshape(-1, 3)).reshape(len(shifts), -1, 3)
    inside = np.isfinite(lab[..., 0])
    bounds = np.cumsum([0, *sizes])
    out = np.full((len(shifts), len(groups) // 2), np.nan)
    for s in range(len(shifts)):
        for b in range(len(groups) // 2):
            top = slice(bounds[2 * b], bounds[2 * b + 1])
            ring = slice(bounds[2 * b + 1], bounds[2 * b + 2])
            if min(inside[s, top].mean(), inside[s, ring].mean()) < MIN_IN_PICTURE:
                continue
            a, c = lab[s, top][inside[s, top]], lab[s, ring][inside[s, ring]]
            mid = np.median(a, axis=0)
            spread = float(np.median(np.linalg.norm(a - mid, axis=1)))
            out[s, b] = float(np.linalg.norm(mid - np.median(c, axis=0))) / (spread + 2.0)
    return out


def _elevations(pose: Pose) -> FloatArray:
    """Per corner brick, the camera's elevation over the brick's middle, in degrees."""
    return elevation_deg(pose, np.array([top.mean(axis=0) for top, _ in _samples()]))


def bricks_pin(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> tuple[bool, bool]:
    """Whether the corner bricks pin the board's place along x and along y.

    An axis is pinned when at least :data:`MIN_PINNING_BRICKS` bricks show a contrast of
    :data:`MIN_BRICK_CONTRAST` at the pose, :data:`BRICK_RATIO` times every move's along
    that axis, and no brick the camera looks down on steeply enough to count shows a
    contrast that strong at a move that beats its own (a brick seen obliquely says
    nothing either way).
    """
    moves = np.array(BRICK_MOVES, dtype=float) * STUD_MM
    zero = np.zeros_like(moves)
    shifts = np.vstack([[[0.0, 0.0]], np.stack([moves, zero], 1), np.stack([zero, moves], 1)])
    contrast = brick_contrasts(image, camera, pose, shifts)
    own = contrast[0]
    seen = np.isfinite(own) & (_elevations(pose) >= MIN_BRICK_ELEVATION_DEG)
    pinned = []
    n = len(BRICK_MOVES)
    for axis in (0, 1):
        moved = contrast[1 + axis * n : 1 + (axis + 1) * n]
        best = np.nan_to_num(np.fmax.reduce(moved, axis=0), nan=0.0)
        clear = seen & (own >= MIN_BRICK_CONTRAST) & (own >= BRICK_RATIO * best)
        against = seen & (best >= MIN_BRICK_CONTRAST) & (best > own)
        pinned.append(bool(clear.sum() >= MIN_PINNING_BRICKS and not against.any()))
    return pinned[0], pinned[1]
