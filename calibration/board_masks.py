"""Where the board might be in a small picture: masks of its colour and its studs' texture.

Each mask fails on its own kind of table: a plain green one matches the board's colour, a
grey-green one its margin of green, a busy one its texture. So the coarse search
(:mod:`calibration.corners`) outlines each mask's largest region in turn, and the masks
here only say which pixels look like board, at a quarter of the resolution, cleaned of
thin lines and pinholes.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray


def stud_band(image_bgr: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Band-pass energy at the studs' scale and the local brightness, both at half size.

    A plain or green table may match the board's colours, never its thousand studs. The
    energy relative to the brightness counts as much on the darkest region of the map as
    on the sand (studs modulate the light by a similar fraction on both), so the colour
    masks ask for studs with it; the plain energy is what tells studs from a dark table's
    grain on its own. The quick search needs only the plain one, so the caller divides.
    """
    h, w = image_bgr.shape[:2]
    half = cv2.resize(image_bgr, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY).astype(np.float32)
    coarse = cv2.GaussianBlur(gray, (0, 0), 3.0)
    return cv2.absdiff(cv2.GaussianBlur(gray, (0, 0), 1.0), coarse), coarse


def coarse_texture(energy: NDArray[np.float32], size: tuple[int, int]) -> NDArray[np.float32]:
    """Half-size stud energy averaged down to ``size``, the masks' resolution."""
    return cv2.blur(cv2.resize(energy, size, interpolation=cv2.INTER_AREA), (5, 5))


def board_mask(
    small_bgr: NDArray[np.uint8], texture: NDArray[np.float32] | None = None
) -> NDArray[np.uint8]:
    """Pixels where green dominates both red and blue and studs show, as 0/255, cleaned up.

    The plate's green studs poke through every region of the ground map, so even the
    sand-coloured regions stay green on average at a quarter of the resolution, and the
    test holds under warm or cold light because it compares channels, not hues. Thin
    lines (the blend between two colours of a patterned tablecloth) are opened away.
    """
    img = small_bgr.astype(np.int16)
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    colour = (g - r > 6) & (g - b > 4)
    if texture is not None and colour.any():
        # Relative to the texture inside the colour mask: the board's own darkest region
        # still has its card holes, a plain table has nothing.
        level = float(np.percentile(texture[colour], 75))
        colour &= texture > 0.25 * level
    mask = colour.astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def chroma_mask(
    small_bgr: NDArray[np.uint8], texture: NDArray[np.float32] | None = None
) -> NDArray[np.uint8]:
    """The greenest part of the picture, split from the rest where the histogram splits.

    A fixed margin of green over red and blue takes in a grey-green table as well as the
    board. Relative to the picture itself the board still stands out: after a grey-world
    balance (which also undoes a warm or cold light) its green chromaticity is the
    highest around, so Otsu's threshold between it and everything else finds it whatever
    the table's own tint.
    """
    f = small_bgr.astype(np.float32)
    means = f.reshape(-1, 3).mean(axis=0) + 1.0
    b, g, r = np.moveaxis(f * (means.mean() / means), 2, 0)
    # Added channel by channel, left to right as sum(axis=2) adds, at a tenth of its cost.
    green = (g - np.maximum(b, r)) / (b + g + r + 1.0)
    level = np.clip(128 + 400 * green, 0, 255).astype(np.uint8)
    level = cv2.GaussianBlur(level, (3, 3), 0)
    _, mask = cv2.threshold(level, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if texture is not None and mask.any():
        inside = texture[mask > 0]
        mask[texture < 0.25 * float(np.percentile(inside, 75))] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def texture_mask(small_bgr: NDArray[np.uint8], texture: NDArray[np.float32]) -> NDArray[np.uint8]:
    """Where the stud texture is strong and the colour at least as green as the picture's.

    A table the board's own green, a green sleeve or a card beside the board share its
    colour but not its thousand studs; the studs' energy, split from the rest by Otsu's
    threshold on its logarithm, outlines the plate where the colour cannot.
    """
    log = np.log1p(texture)
    scaled = cv2.normalize(log, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    b, g, r = np.moveaxis(small_bgr.astype(np.float32), 2, 0)
    # Added channel by channel: whole numbers, so exactly what sum(axis=2) gives, faster.
    green = (g - np.maximum(b, r)) / (b + g + r + 1.0)
    mask[green < float(np.median(green))] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))


def largest_blob(mask: NDArray[np.uint8], min_fraction: float = 0.02) -> NDArray[np.int32] | None:
    """The outer contour of the largest region, if it covers at least ``min_fraction``."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    if cv2.contourArea(best) < min_fraction * mask.shape[0] * mask.shape[1]:
        return None
    return best


def merged_blobs(mask: NDArray[np.uint8], share: float = 0.2) -> NDArray[np.int32] | None:
    """All large regions' points together, when there are several, else None.

    An arm lying across the board cuts its mask in two; the plate is then the hull of
    both halves, not the larger one alone.
    """
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(contours) < 2:
        return None
    areas = np.array([cv2.contourArea(c) for c in contours])
    big = [c for c, a in zip(contours, areas, strict=True) if a >= share * areas.max()]
    if len(big) < 2:
        return None
    return np.concatenate(big)
