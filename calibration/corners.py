"""Coarse search: where is the plate, roughly, in a downscaled frame?

The plate is the one large green-and-sand quadrilateral on the table. Its outline in a
quarter-size image gives four corners good to a few full-size pixels, which is all the
edge refinement needs to lock on. A hand or a card over one corner cuts that corner off
the outline, so the quadrilateral is rebuilt from its four longest sides, whose
intersections restore the hidden corner.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray

COARSE_WIDTH = 320


def board_mask(small_bgr: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Pixels where green dominates both red and blue, as 0/255, cleaned up.

    The plate's green studs poke through every region of the ground map, so even the
    sand-coloured regions stay green on average at a quarter of the resolution, and the
    test holds under warm or cold light because it compares channels, not hues. Thin
    lines (the blend between two colours of a patterned tablecloth) are opened away.
    """
    img = small_bgr.astype(np.int16)
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    mask = ((g - r > 6) & (g - b > 4)).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def largest_blob(mask: NDArray[np.uint8], min_fraction: float = 0.02) -> NDArray[np.int32] | None:
    """The outer contour of the largest region, if it covers at least ``min_fraction``."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    if cv2.contourArea(best) < min_fraction * mask.shape[0] * mask.shape[1]:
        return None
    return best


def _intersect(p1: FloatArray, p2: FloatArray, q1: FloatArray, q2: FloatArray) -> FloatArray | None:
    d1, d2 = p2 - p1, q2 - q1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((q1[0] - p1[0]) * d2[1] - (q1[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def quad_from_contour(contour: NDArray[np.int32]) -> FloatArray | None:
    """Four corners of the quadrilateral the contour outlines, in contour order, or None.

    The convex hull is simplified to a polygon; its four longest sides (kept in order)
    are taken as the plate's sides and neighbouring sides are intersected.
    """
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    poly = None
    for eps in (0.01, 0.015, 0.02, 0.03, 0.04):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2).astype(np.float64)
        if 4 <= len(approx) <= 8:
            poly = approx
            break
    if poly is None:
        return None
    n = len(poly)
    lengths = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    keep = sorted(np.argsort(lengths)[-4:])
    sides = [(poly[i], poly[(i + 1) % n]) for i in keep]
    corners = []
    for k in range(4):
        a, b = sides[k - 1], sides[k]
        point = _intersect(a[0], a[1], b[0], b[1])
        if point is None:
            return None
        corners.append(point)
    quad = np.array(corners)
    # The restored corners must stay near the hull: a wild intersection means the four
    # "sides" were not the plate's.
    x, y, w, h = cv2.boundingRect(hull)
    span = max(w, h)
    if np.any(quad[:, 0] < x - span) or np.any(quad[:, 0] > x + w + span):
        return None
    if np.any(quad[:, 1] < y - span) or np.any(quad[:, 1] > y + h + span):
        return None
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


def find_plate_quad(image_bgr: NDArray[np.uint8]) -> tuple[FloatArray, float] | None:
    """The plate's outline corners in full-size pixels and the coarse scale used."""
    h, w = image_bgr.shape[:2]
    scale = COARSE_WIDTH / w
    small = cv2.resize(image_bgr, (COARSE_WIDTH, round(h * scale)), interpolation=cv2.INTER_AREA)
    contour = largest_blob(board_mask(small))
    if contour is None:
        return None
    quad = quad_from_contour(contour)
    if quad is None:
        return None
    return (quad + 0.5) / scale - 0.5, scale
