"""A z-buffer rasteriser for planar polygons, built on OpenCV's polygon fill.

Coverage comes from OpenCV (sub-pixel vertices, 4 fractional bits); depth is exact
because on a plane ``1/z`` is an affine function of the *pinhole* pixel position, so
each polygon writes ``a*u + b*v + c`` (u, v: the undistorted position of each picture
pixel, see :mod:`twin.lens`) into its bounding box and keeps the pixels where it
is nearer than what is there. That gives correct occlusion for interlocking pieces (an
arch over a brick, a column seen through an arch's opening) with no depth sorting.

Polygons are drawn straight into the distorted picture, as :mod:`twin.polygons` prepares
them (projected through the full lens model, long edges split to follow its curve). The
buffer holds ``1/z`` (0 = nothing, larger = nearer) and the index of the winning
polygon; colours and labels are looked up from that index once at the end.
"""

from __future__ import annotations

import cv2
import numpy as np

from twin.lens import Lens
from twin.polygons import SHIFT, Prepared

SMALL_PX = 48  # polygons whose box is at most this wide and high are filled in one batch


class ZBuffer:
    """Inverse depth and polygon index per pixel of the picture."""

    def __init__(self, lens: Lens) -> None:
        self.width, self.height = lens.width, lens.height
        self.invz = np.zeros((self.height, self.width), np.float32)
        self.poly = np.full((self.height, self.width), -1, np.int32)
        self.lens = lens
        self.u = np.arange(self.width, dtype=np.float32)
        self.v = np.arange(self.height, dtype=np.float32)


def draw(zb: ZBuffer, prepared: Prepared, first_index: int = 0) -> None:
    """Fills every prepared polygon into the buffer; polygon i gets id first_index + i.

    The result is the same as filling the polygons one by one in index order and keeping
    a pixel where a polygon is strictly nearer: per pixel, the nearest polygon wins and
    of equally near ones the lowest index. That rule does not depend on the order of
    work, so large polygons are filled one at a time while the many small ones (most
    of a palace: studs, seams, arch facets) go through :func:`_draw_small` together,
    where a per-polygon loop would cost far more than their few pixels.
    """
    if not prepared.outlines:
        return
    w, h = zb.width, zb.height
    lengths = np.array([len(o) for o in prepared.outlines])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    every = np.concatenate(prepared.outlines)
    lo = np.minimum.reduceat(every, starts, axis=0) >> SHIFT
    hi = (np.maximum.reduceat(every, starts, axis=0) >> SHIFT) + 2
    origin = np.maximum(lo, 0)
    # Every outline shifted to its own bounding box, in one operation.
    local_all = every - np.repeat(origin << SHIFT, lengths, axis=0).astype(np.int32)
    size = hi - lo
    small = ((lo >= 0).all(axis=1) & (hi[:, 0] <= w) & (hi[:, 1] <= h)
             & (size <= SMALL_PX).all(axis=1))
    x0s, y0s = origin[:, 0].tolist(), origin[:, 1].tolist()
    x1s, y1s = np.minimum(hi[:, 0], w).tolist(), np.minimum(hi[:, 1], h).tolist()
    starts_l, ends_l = starts.tolist(), (starts + lengths).tolist()
    planes = prepared.planes.tolist()
    convex = prepared.convex.tolist()
    u, v = zb.u, zb.v
    und_x, und_y = zb.lens.und_x, zb.lens.und_y
    for i in np.flatnonzero(~small).tolist():
        x0, x1, y0, y1 = x0s[i], x1s[i], y0s[i], y1s[i]
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        local = local_all[starts_l[i]:ends_l[i]]
        if convex[i]:
            cv2.fillConvexPoly(mask, local, 1, cv2.LINE_8, SHIFT)
        else:
            cv2.fillPoly(mask, [local], 1, cv2.LINE_8, SHIFT)
        a, b, c = planes[i]
        if und_x is None:
            invz = (a * u[x0:x1])[None, :] + (b * v[y0:y1] + c)[:, None]
        else:
            invz = a * und_x[y0:y1, x0:x1] + b * und_y[y0:y1, x0:x1] + c
        zsub = zb.invz[y0:y1, x0:x1]
        win = mask.view(bool) & (invz > zsub)
        np.copyto(zsub, invz, where=win)
        np.copyto(zb.poly[y0:y1, x0:x1], first_index + i, where=win)
    chosen = np.flatnonzero(small)
    if len(chosen):
        _draw_small(zb, prepared, chosen, first_index, local_all, starts, lengths, lo, size)


def _draw_small(zb: ZBuffer, prepared: Prepared, chosen: np.ndarray, first_index: int,
                local_all: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                lo: np.ndarray, size: np.ndarray) -> None:
    """Small polygons wholly inside the picture, all at once.

    Each is filled (with the same OpenCV call, so the same pixels) into its own tile
    of a tall atlas: a view exactly the size of its box, so what a fill would paint
    past the box is clipped as before. The covered pixels then become one list of
    candidates whose depth is computed exactly as the one-by-one path does (same
    float32 operations in the same order), and the z-test is resolved per pixel.
    """
    widths, heights = size[chosen, 0], size[chosen, 1]
    tops = np.cumsum(heights) - heights
    atlas = np.zeros((int(heights.sum()), int(widths.max())), np.uint8)
    owner = np.repeat(np.arange(len(chosen)), heights)
    convex = prepared.convex[chosen].tolist()
    s_l, e_l = starts[chosen].tolist(), (starts[chosen] + lengths[chosen]).tolist()
    t_l, b_l, w_l = tops.tolist(), (tops + heights).tolist(), widths.tolist()
    fill_convex, fill = cv2.fillConvexPoly, cv2.fillPoly
    for j, is_convex in enumerate(convex):
        tile = atlas[t_l[j]:b_l[j], :w_l[j]]
        if is_convex:
            fill_convex(tile, local_all[s_l[j]:e_l[j]], 1, cv2.LINE_8, SHIFT)
        else:
            fill(tile, [local_all[s_l[j]:e_l[j]]], 1, cv2.LINE_8, SHIFT)
    found = cv2.findNonZero(atlas)
    if found is None:
        return
    found = found.reshape(-1, 2).astype(np.int64)
    col, row = found[:, 0], found[:, 1]
    tile = owner[row]
    width = zb.width
    x0, y0 = lo[chosen, 0], lo[chosen, 1]
    # Picture pixel = (y0 + row - top) * width + x0 + col, folded per tile.
    pix = ((y0 - tops) * width + x0)[tile]
    pix += row * width
    pix += col
    plane = prepared.planes[chosen].astype(np.float32)
    a, b, c = (np.take(np.ascontiguousarray(plane[:, j]), tile) for j in range(3))
    und_x, und_y = zb.lens.und_x, zb.lens.und_y
    if und_x is None or und_y is None:
        x = x0[tile] + col
        y = (y0 - tops)[tile] + row
        invz = a * zb.u[x] + (b * zb.v[y] + c)
    else:
        invz = a * und_x.reshape(-1)[pix] + b * und_y.reshape(-1)[pix] + c
    ids = (first_index + chosen).astype(np.int32)[tile]
    zflat, pflat = zb.invz.reshape(-1), zb.poly.reshape(-1)
    held = zflat[pix]
    beats = (invz > held) | ((invz == held) & (ids < pflat[pix]))
    pix, invz, ids = pix[beats], invz[beats], ids[beats]
    np.maximum.at(zflat, pix, invz)
    best = invz == zflat[pix]
    pix, ids = pix[best], ids[best]
    pflat[pix] = np.iinfo(np.int32).max
    np.minimum.at(pflat, pix, ids)
