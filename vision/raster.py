"""Region pixels inside convex polygons and in front of a depth buffer, one or many at once.

A voxel's pixels (:mod:`vision.silhouettes`) are those its outline covers where the
palace before the turn is farther than the voxel. The decoder asks for thousands of
voxels a turn; drawing each in its own small patch costs a dozen numpy calls, more than
the drawing itself, so many are drawn together: each polygon in its own band of one
canvas (its whole pixel box, so that no polygon reaches into another's band), then the
canvas read once. A polygon is drawn at a whole-pixel offset, which draws the same
pixels shifted (OpenCV's fixed-point filling is exact on quarter pixels), so the pixels
are the very ones drawing it alone gives; one whose patch would cross the image's edge
is drawn alone, since OpenCV's clipping there moves some of its inner pixels too.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

_NO_PIXELS = np.zeros(0, np.intp)
_NO_PIXELS.flags.writeable = False


def fill(poly: NDArray[np.int32], dist: float, depth: NDArray[np.float32]) -> NDArray[np.intp]:
    """Flat indices, ascending, of the pixels of ``depth``'s image inside the convex
    polygon ``poly`` (quarter pixels) where ``depth`` is farther than ``dist``: filled
    in a patch over the polygon's box only, which draws the same pixels as the whole
    image would."""
    h, w = depth.shape
    bx, by, bw, bh = cv2.boundingRect(poly)
    xa, ya = max(bx >> 2, 0), max(by >> 2, 0)
    xb, yb = min(((bx + bw) >> 2) + 2, w), min(((by + bh) >> 2) + 2, h)
    if xb <= xa or yb <= ya:
        return np.zeros(0, np.intp)
    patch = np.zeros((yb - ya, xb - xa), np.uint8)
    shifted = poly - np.array([[xa * 4, ya * 4]], np.int32)
    cv2.fillConvexPoly(patch, shifted, 1, shift=2)
    # The patch holds 0 and 1 only: read as booleans as it is.
    ys, xs = np.nonzero(patch.view(np.bool_) & (depth[ya:yb, xa:xb] > dist))
    return (ys + ya) * w + (xs + xa)


def fill_many(polys: Sequence[NDArray[np.int32]], dists: Sequence[float],
              depth: NDArray[np.float32]) -> list[NDArray[np.intp]]:
    """:func:`fill` of each polygon with its distance, the same pixels, drawn together
    (polygons of like width on one canvas, so that one wide outline does not widen every
    band)."""
    out: list[NDArray[np.intp]] = [_NO_PIXELS] * len(polys)
    if not len(polys):
        return out
    h, w = depth.shape
    rects = np.array([cv2.boundingRect(p) for p in polys], np.int64).reshape(-1, 4)
    # A polygon whose patch would cross the image's edge is drawn alone: OpenCV clips it
    # there, which moves some of its pixels inside too.
    x0, y0 = rects[:, 0] >> 2, rects[:, 1] >> 2
    edge = ((x0 < 0) | (y0 < 0) | (((rects[:, 0] + rects[:, 2]) >> 2) + 2 > w)
            | (((rects[:, 1] + rects[:, 3]) >> 2) + 2 > h))
    for k in np.flatnonzero(edge).tolist():
        out[k] = fill(polys[k], dists[k], depth)
    # The others by the power of two of their width: within a group, bands are at most
    # twice as wide as their polygons' boxes.
    group = np.where(edge, 0, np.frexp(np.maximum(rects[:, 2], 1))[1])
    near = np.asarray(dists, np.float32)
    for g in np.unique(group[~edge]).tolist():
        members = np.flatnonzero(group == g)
        drawn = _fill_band([polys[k] for k in members.tolist()], rects[members],
                           near[members], depth)
        for k, px in zip(members.tolist(), drawn, strict=True):
            out[k] = px
    return out


def _fill_band(chosen: Sequence[NDArray[np.int32]], rects: NDArray[np.int64],
               near: NDArray[np.float32], depth: NDArray[np.float32]
               ) -> list[NDArray[np.intp]]:
    """:func:`fill` of each polygon of ``chosen`` (``rects`` their boxes, ``near`` their
    distances as ``depth > dist`` compares them, float32): each in a band of rows of one
    canvas as wide as the widest box (each box inside the image), the canvas's pixels
    then taken back to the image, tested against ``depth`` and split by band (bands are
    stacked in order, so each polygon's pixels come out ascending)."""
    n = len(chosen)
    w = depth.shape[1]
    x0, y0 = rects[:, 0] >> 2, rects[:, 1] >> 2
    x1 = ((rects[:, 0] + rects[:, 2]) >> 2) + 2
    y1 = ((rects[:, 1] + rects[:, 3]) >> 2) + 2
    heights = y1 - y0
    top = np.zeros(n + 1, np.int64)
    np.cumsum(heights, out=top[1:])
    width = int((x1 - x0).max())
    canvas = np.zeros((int(top[-1]), width), np.uint8)
    # Every polygon's points moved to its band at once (the hulls' points in one array).
    sizes = [len(p) for p in chosen]
    points = np.concatenate([p.reshape(-1, 2) for p in chosen])
    shift = np.stack([x0 * 4, (y0 - top[:-1]) * 4], axis=1).astype(np.int32)
    points -= np.repeat(shift, sizes, axis=0)
    at = 0
    for size in sizes:
        cv2.fillConvexPoly(canvas, points[at:at + size], 1, shift=2)
        at += size
    # Per canvas row: its polygon, and the image row and column the row starts at.
    owner = np.repeat(np.arange(n), heights)
    image_y = np.arange(int(top[-1])) + np.repeat(y0 - top[:-1], heights)
    found = np.flatnonzero(canvas)
    row = found // width
    x = found - row * width + x0[owner[row]]
    y = image_y[row]
    flat = y * w + x
    front = depth.ravel()[flat] > near[owner[row]]
    flat = flat[front]
    cuts = np.searchsorted(owner[row[front]], np.arange(n + 1)).tolist()
    return [flat[a:b] for a, b in itertools.pairwise(cuts)]
