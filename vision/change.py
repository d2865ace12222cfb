"""Change evidence: how likely each pixel of the region shows something new since before.

Two settled frames of the same table differ by more than the pieces added: the webcam
re-exposes and re-balances, the light drifts, the sensor's noise and the JPEG's blocks are
new. So the frame before is first brought to the frame after by a per-channel gain and
offset fitted robustly on the whole region (most of it did not change), both are softened
alike so that a different focus or blur does not light up every stud's edge, and the
remaining colour difference is read against the region's own noise level.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

SOFTEN_PX = 1.5
"""Gaussian sigma (full-size pixels) applied to both frames before comparing."""
LOW, HIGH = 2.5, 6.0
"""Differences, in units of the region's typical difference, read as surely unchanged
(LOW) and surely changed (HIGH); in between the evidence rises linearly."""
BRIGHTNESS_WEIGHT = 1.0
SHADOW_DARKER = -0.9
SHADOW_BRIGHTER = 0.12
"""Log brightness ratios (after over before) that a shadow cast or lifted can explain."""
SHADOW_SHIFT_BELOW = -0.05
SHADOW_CHROMA = 0.6
"""Where the picture darkened, a colour difference counts this much: a cast shadow
shifts the colour a little (lamp and room light differ), a new piece shifts it a lot."""
TYPICAL_FLOOR = 3.0
"""The least typical difference (chromaticity x 300) a region is read against: two frames
from one webcam a moment apart differ by about 1 to 3 between their noise and JPEG."""


def region(image: NDArray[np.uint8], box: tuple[int, int, int, int], scale: float
           ) -> NDArray[np.float32]:
    """The box of a frame, softened and resized to the working scale, as float BGR."""
    x0, y0, x1, y1 = box
    crop = image[y0:y1, x0:x1].astype(np.float32)
    crop = cv2.GaussianBlur(crop, (0, 0), SOFTEN_PX)
    h, w = max(1, round((y1 - y0) * scale)), max(1, round((x1 - x0) * scale))
    return cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)


def match_photometry(before: NDArray[np.float32], after: NDArray[np.float32]
                     ) -> NDArray[np.float32]:
    """``before`` with a gain and offset per channel that best match ``after`` where the
    two agree (two rounds, the second on the pixels the first fits well)."""
    out = np.empty_like(before)
    for c in range(3):
        b = before[..., c].ravel()
        a = after[..., c].ravel()
        keep = np.ones(b.shape, bool)
        gain, offset = 1.0, 0.0
        for fit in range(3):
            bb, aa = b[keep], a[keep]
            if len(bb) < 50 or float(bb.std()) < 1e-3:
                break
            gain, offset = _line_fit(bb, aa)
            if fit == 2:
                break  # the pixels the last line fits well are not used
            resid = np.abs(gain * b + offset - a)
            keep = resid < 2.5 * max(float(np.median(resid)), 0.5)
        out[..., c] = before[..., c] * gain + offset
    return out


LIGHT_TILE_PX = 16
"""Tiles (region pixels) over which the light's change is taken, by their median."""


def smooth_light(change: NDArray[np.float32]) -> NDArray[np.float32]:
    """A map of change (one float32 channel, a sample per tile or cell) as the light
    changes: its median across 5 x 5 samples (new pieces change a few, a player's shadow
    a whole side, its penumbra several samples wide), softened by one sample. Turn mode
    evens its pictures with it (:func:`evened_light`), the settle detector its cells
    (:func:`vision.cells.light_steps`)."""
    return cv2.GaussianBlur(cv2.medianBlur(np.ascontiguousarray(change), 5), (0, 0), 1.0)


def evened_light(before: NDArray[np.float32], after: NDArray[np.float32]
                 ) -> NDArray[np.float32]:
    """``before`` brightened or darkened where the light changed smoothly since: a
    player's soft shadow across part of the board, a lamp dimmed at one side. The change
    of log brightness is taken per tile (its median), then as the light changes across
    tiles (:func:`smooth_light`); its overall level is left to the evidence's own
    exposure matching. Brightness only: a shadow barely shifts a colour, a new piece
    mostly does."""
    h, w = before.shape[:2]
    t = LIGHT_TILE_PX
    rows, cols = h // t, w // t
    if rows < 5 or cols < 5:
        return before
    ratio = (np.log(after.mean(axis=2) + 4.0) - np.log(before.mean(axis=2) + 4.0))
    tiles = ratio[:rows * t, :cols * t].reshape(rows, t, cols, t).transpose(0, 2, 1, 3)
    level = np.median(tiles.reshape(rows, cols, t * t), axis=2).astype(np.float32)
    level -= float(np.median(level))
    level = smooth_light(level)
    gain = np.exp(cv2.resize(level, (w, h), interpolation=cv2.INTER_LINEAR))
    return (before * gain[:, :, None]).astype(np.float32)


CHANGED_STEP = 0.25
"""A change of log brightness in some channel (less the region's median change) past
which :func:`changed_share` counts a pixel changed: about a quarter brighter or darker."""


def changed_share(after: NDArray[np.float32], before: NDArray[np.float32],
                  space: NDArray[np.bool_]) -> float:
    """The share of ``space`` (region pixels) whose colour changed between ``before``
    (evened to the light after, :func:`evened_light`) and ``after``, taken plainly, not
    against the region's own typical difference as :func:`change_evidence` reads it: a
    picture shifted whole (a webcam turned and its pose not told) or lit anew reads as
    unchanged there, while every stud's edge has moved. One turn's pieces, a card laid
    down or a player's shadow change a tenth of the board's space at most."""
    step = np.log(after + 4.0) - np.log(before + 4.0)
    step -= np.median(step.reshape(-1, 3), axis=0)
    changed = np.abs(step).max(axis=2) > CHANGED_STEP
    return float(changed[space].mean()) if space.any() else 0.0


def _line_fit(x: NDArray[np.float32], y: NDArray[np.float32]) -> tuple[float, float]:
    """The least-squares line ``y = gain * x + offset`` from the sums of ``x``, ``y``,
    their squares and products, accumulated in float64 without copies: what
    ``np.polyfit(x, y, 1)`` gives (to about 1e-14), in a twentieth of its time, which on
    a whole view's pixels was most of the change's cost."""
    n = len(x)
    mx = float(x.sum(dtype=np.float64)) / n
    my = float(y.sum(dtype=np.float64)) / n
    sxx = float(np.einsum("i,i->", x, x, dtype=np.float64))
    sxy = float(np.einsum("i,i->", x, y, dtype=np.float64))
    gain = (sxy - n * mx * my) / (sxx - n * mx * mx)
    return gain, my - gain * mx


def colour_difference(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per-pixel difference in chromaticity, and in brightness only beyond what a shadow
    does: a new piece's shadow darkens the board by up to about half and keeps its colour,
    a new piece changes the colour, or the brightness more than any shadow."""
    sa = a.sum(axis=2) + 6.0
    sb = b.sum(axis=2) + 6.0
    chroma = a / sa[..., None] - b / sb[..., None]
    chroma_diff = np.sqrt((chroma ** 2).sum(axis=2)) * 300.0
    ratio = np.log(sa / sb)
    # Under a shadow the colour shifts too (the lamp and the room light differ in colour).
    chroma_diff = np.where(ratio < SHADOW_SHIFT_BELOW, chroma_diff * SHADOW_CHROMA, chroma_diff)
    beyond_shadow = np.maximum(ratio - SHADOW_BRIGHTER, 0) + np.maximum(SHADOW_DARKER - ratio, 0)
    return chroma_diff + BRIGHTNESS_WEIGHT * 100.0 * beyond_shadow


def change_evidence(after: NDArray[np.float32], before: NDArray[np.float32]
                    ) -> NDArray[np.float32]:
    """0..1 per pixel: 0 surely as before, 1 surely changed."""
    matched = match_photometry(before, after)
    diff = colour_difference(after, matched)
    typical = max(float(np.median(diff)) * 1.5, TYPICAL_FLOOR)
    evidence = np.clip((diff / typical - LOW) / (HIGH - LOW), 0.0, 1.0).astype(np.float32)
    # Single changed pixels are noise and JPEG blocks; a piece is a blob.
    return cv2.morphologyEx(evidence, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
