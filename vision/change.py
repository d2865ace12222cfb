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


LATTICE_SIGMA_PX = 2.5
"""Gaussian window (working pixels, where a stud is about 5 wide) over which the bare
board's stud lattice is compared with the frame's: about one stud cell."""
LATTICE_MIN = 8.0
"""The least contrast of the bare board's lattice (the local spread of its chromaticity,
x 300) for the lattice to say anything: the sand and light-green prints between green
studs show 8 to 20, the dark green print around its like-coloured studs 4 to 8."""
LATTICE_KEPT, LATTICE_GONE = 0.3, 0.0
"""Slope of the frame's local chromaticity pattern on the bare board's at and above
which the lattice is still there (no evidence), and at and below which it is gone
(sure evidence); in between the evidence falls linearly."""


def lattice_change(after: NDArray[np.float32], bare: NDArray[np.float32],
                   where: NDArray[np.bool_]) -> NDArray[np.float32]:
    """0..1 per pixel: how surely the bare board's stud lattice is gone from ``after``,
    said only at ``where`` (the sand print's pixels: full mode's
    :func:`vision.carve.view_data`).

    A tan piece standing before the sand print can look like the sand in colour and a
    little darker, which :func:`colour_difference` reads as a shadow: under a
    path tracer's light a fifth of the pieces' pixels over sand read unchanged. But the
    sand (and the light-green print) shows green studs in a lattice; a shadow darkens
    the lattice and keeps it, a piece in front hides it. So in each stud cell's window
    the frame's chromaticity is regressed on the bare board's: the slope is about 1
    where the lattice is seen (a shadow keeps the chromaticity), about 0 where a piece
    hides it, and about a half at a piece's outline (so the outline's own contrast,
    which a correlation would count, does not spread the change onto the board
    around every piece). Only where the bare board's lattice has contrast enough, and
    only where the picture is darker than the bare board, the one case in which
    :func:`colour_difference` excuses a colour as a shadow's: elsewhere the colour
    says enough, and the lattice, learned per phase over a whole region, is a little
    out of step with the picture wherever the studs are seen at another slant (the far
    board, a region's edge), which would read as changed. The sand is the print whose
    colour the building pieces share (tan, dark tan): on Cycles palaces 98 % of the
    pieces' pixels the lattice gave back lay before it, while on the twin the
    light-green and dark-green prints gave three fifths of the board's pixels it
    read as changed wrongly."""
    def local(image: NDArray[np.float32]) -> NDArray[np.float32]:
        return cv2.GaussianBlur(image, (0, 0), LATTICE_SIGMA_PX)

    fa = after / (after.sum(axis=2, keepdims=True) + 6.0)
    fb = bare / (bare.sum(axis=2, keepdims=True) + 6.0)
    da, db = fa - local(fa), fb - local(fb)
    cov = local((da * db).sum(axis=2))
    vb = local((db * db).sum(axis=2))
    slope = cov / np.maximum(vb, 1e-12)
    gone = np.clip((LATTICE_KEPT - slope) / (LATTICE_KEPT - LATTICE_GONE), 0.0, 1.0)
    darker = np.log((after.sum(axis=2) + 6.0) / (bare.sum(axis=2) + 6.0)) < SHADOW_SHIFT_BELOW
    said = where & darker & (np.sqrt(vb) * 300.0 >= LATTICE_MIN)
    evidence = np.where(said, gone, 0.0).astype(np.float32)
    return cv2.morphologyEx(evidence, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
