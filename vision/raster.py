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
    # Per canvas row: what takes a canvas pixel to its image pixel (the image row's
    # start and the band's column, less the canvas row's start), and its polygon's
    # distance; a pixel's sums are then one lookup by its row, not one per term.
    owner = np.repeat(np.arange(n), heights)
    rows = np.arange(int(top[-1]))
    offset = (rows + (y0 - top[:-1])[owner]) * w + x0[owner] - rows * width
    found = np.flatnonzero(canvas)
    row = found // width
    flat = found + offset[row]
    front = depth.ravel()[flat] > near[owner][row]
    flat = flat[front]
    # Bands are stacked in order: a polygon's pixels start at its band's first row.
    cuts = np.searchsorted(row[front], top).tolist()
    return [flat[a:b] for a, b in itertools.pairwise(cuts)]


CROSS = np.ones((3, 3), np.uint8)
"""The erosion's kernel for a voxel's side pixels, made once."""

Face = tuple[NDArray[np.int32], tuple[int, int, int, int]]
"""A stud level's top face in the image (quarter pixels) and its bounding box."""


def sides_many(pixels: Sequence[NDArray[np.intp]], faces: Sequence[Face | None],
               shape: tuple[int, int], least: int) -> list[NDArray[np.intp] | None]:
    """Each voxel's side pixels, drawn together: its pixels (ascending) off its top face
    and one pixel in from its outline, or off its top face only where fewer than
    ``least`` are left; None for a voxel without pixels, or whose patch (its pixels and
    its face's box, a pixel around) would cross the image's edge, which the caller works
    out alone (as :meth:`vision.silhouettes.View.side_pixels` does, the same pixels).

    Each voxel's patch is a band of one canvas: its border is empty (the pixel around),
    so the erosion reads no other band, and the face is drawn inside it."""
    h, w = shape
    out: list[NDArray[np.intp] | None] = [None] * len(pixels)
    todo = [k for k, idx in enumerate(pixels) if len(idx)]
    if not todo:
        return out
    parts = [pixels[k] for k in todo]
    sizes = np.array([len(p) for p in parts], np.intp)
    starts = np.zeros(len(parts), np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    flat = np.concatenate(parts)
    rows = flat // w
    cols = flat - rows * w
    ya = rows[starts] - 1
    yb = rows[starts + sizes - 1] + 2
    xa = np.minimum.reduceat(cols, starts) - 1
    xb = np.maximum.reduceat(cols, starts) + 2
    polys: list[NDArray[np.int32] | None] = []
    for j, k in enumerate(todo):
        face = faces[k]
        if face is None:
            polys.append(None)
            continue
        poly, (bx, by, bw, bh) = face
        polys.append(poly)
        xa[j], ya[j] = min(xa[j], (bx >> 2) - 1), min(ya[j], (by >> 2) - 1)
        xb[j], yb[j] = max(xb[j], ((bx + bw) >> 2) + 2), max(yb[j], ((by + bh) >> 2) + 2)
    inside = (xa >= 0) & (ya >= 0) & (xb <= w) & (yb <= h)
    if not inside.any():
        return out
    heights = np.where(inside, yb - ya, 0)
    top = np.zeros(len(todo) + 1, np.intp)
    np.cumsum(heights, out=top[1:])
    width = int((xb - xa)[inside].max())
    canvas = np.zeros((int(top[-1]), width), np.uint8)
    owner = np.repeat(np.arange(len(todo)), sizes)
    keep = inside[owner]
    at = owner[keep]
    canvas[rows[keep] - ya[at] + top[at], cols[keep] - xa[at]] = 1
    for j, poly in enumerate(polys):
        if poly is not None and inside[j]:
            shift = np.array([[xa[j] * 4, (ya[j] - top[j]) * 4]], np.int32)
            cv2.fillConvexPoly(canvas, poly - shift, 0, shift=2)
    band = np.repeat(np.arange(len(todo)), heights)
    found = _band_pixels(np.flatnonzero(cv2.erode(canvas, CROSS)), band, width, top, xa, ya, w)
    few = np.bincount(band[found[1]], minlength=len(todo)) < least if len(found[1]) else (
        np.ones(len(todo), bool))
    plain = _band_pixels(np.flatnonzero(canvas), band, width, top, xa, ya, w) if (
        few & inside).any() else found
    cuts = np.searchsorted(found[1], top).tolist()
    plain_cuts = np.searchsorted(plain[1], top).tolist() if plain is not found else cuts
    for j, k in enumerate(todo):
        if inside[j]:
            out[k] = (plain[0][plain_cuts[j]:plain_cuts[j + 1]] if few[j]
                      else found[0][cuts[j]:cuts[j + 1]])
    return out


def _band_pixels(at: NDArray[np.intp], band: NDArray[np.intp], width: int,
                 top: NDArray[np.intp], xa: NDArray[np.intp], ya: NDArray[np.intp], w: int
                 ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Canvas pixels (flat, ascending) as image pixels, with their canvas rows: what
    takes a canvas row's pixels to the image is worked out per row, then looked up."""
    rows = np.arange(len(band))
    offset = (rows - top[band] + ya[band]) * w + xa[band] - rows * width
    row = at // width
    return at + offset[row], row
