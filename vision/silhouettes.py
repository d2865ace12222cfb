"""The expected picture of a palace: where each piece's voxels fall in a frame, front to back.

Reconstruction compares what each candidate palace would look like with what the frame
shows, so it needs, for any piece, the pixels it would cover and whether something
already on the board stands in front of them. A piece is cut into one-stud, one-brick
voxels, each drawn as a box (:mod:`vision.voxels`); a voxel's silhouette is the convex
hull of its eight projected corners (exact for a box, lens distortion included at the
corners), and the board's own pieces are painted far to near into a depth buffer, which
is exact for equal boxes on a grid. Everything is
worked out in a region of interest at a reduced scale, because pieces are 15 to 40 px
wide and the decision needs a few hundred pixels per piece, not thousands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose, project
from rules.pieces import BRICK_MM, STUD_MM, Piece
from vision.raster import CROSS, fill, fill_many, sides_many
from vision.voxels import (
    FULL,
    RING_COS,
    RING_SIN,
    ROUND,
    Box,
    box_corners,
    piece_voxels,
    round_corners,
)

LEAF_REACH_MM = 13.0
LEAF_HEIGHT_MM = 7.5
LEAVES = 2
"""The cache's key for a plant's leaf pixels (:meth:`View.leaf_pixels`)."""
SIDES = 4
"""The cache's key for a voxel's side pixels (:meth:`View.side_pixels`)."""
MIN_SIDE_PIXELS = 6
"""Fewer inner pixels than this and the side pixels keep their outline."""

_NO_PIXELS = np.zeros(0, np.intp)
_NO_PIXELS.flags.writeable = False


@dataclass
class View:
    """One frame's geometry: the camera, the pose and the region worked in, at ``scale``.

    ``old_depth`` is the distance (mm) to the nearest voxel of the palace before the turn
    at each region pixel, ``inf`` where the board or the table shows.
    """

    camera: Camera
    pose: Pose
    box: tuple[int, int, int, int]
    scale: float
    old_depth: NDArray[np.float32] = field(init=False)
    _cache: dict[Box, tuple[NDArray[np.intp], float]] = field(default_factory=dict)
    _tops: dict[tuple[int, int, int], tuple[NDArray[np.int32], tuple[int, int, int, int]]
                | None] = field(default_factory=dict)
    """Stud levels' top faces in the region, in quarter pixels, with their bounding
    boxes; None for a face not all in front of the camera (:meth:`prepare_tops`)."""

    def __post_init__(self) -> None:
        x0, y0, x1, y1 = self.box
        self.shape = (max(1, round((y1 - y0) * self.scale)), max(1, round((x1 - x0) * self.scale)))
        self.old_depth = np.full(self.shape, np.inf, np.float32)
        self.eye = self.pose.camera_center

    def to_region(self, px: NDArray[np.float64]) -> NDArray[np.float64]:
        """Frame pixels to region pixels."""
        return (px - np.array(self.box[:2], float)) * self.scale

    def distances(self, voxels: Sequence[Box]) -> list[float]:
        """The distance (mm) from the camera to each voxel's centre, at once: each is the
        square root of a vector's dot product with itself, the very number
        ``np.linalg.norm`` gives for it one voxel at a time (a stacked matrix product
        sums in the same order; a plain sum of squares differs in the last bit for one
        voxel in ten, and depths are compared to the bit)."""
        if not len(voxels):
            return []
        v = np.array(voxels, np.float64).reshape(-1, 4)
        d = np.empty((len(v), 3))
        d[:, 0] = (v[:, 0] + 0.5) * STUD_MM
        d[:, 1] = (v[:, 1] + 0.5) * STUD_MM
        d[:, 2] = (v[:, 2] + 0.5) * BRICK_MM
        d -= self.eye
        return np.sqrt((d[:, None, :] @ d[:, :, None]).ravel()).tolist()

    def hulls(self, voxels: Sequence[Box], clip: bool = True
              ) -> list[NDArray[np.int32] | None]:
        """Each voxel's outline in the region's coordinates (quarter pixels), None when it
        is not in the region (with ``clip``) or cannot be drawn (behind the camera)."""
        if not len(voxels):
            return []
        v = np.array(voxels, dtype=np.int64).reshape(-1, 4)
        round_ = v[:, 3] == ROUND
        if not round_.any():
            return self._outlines(box_corners(voxels), 8, clip)
        out: list[NDArray[np.int32] | None] = [None] * len(v)
        for which, points, n in ((~round_, box_corners, 8),
                                 (round_, round_corners, 2 * len(RING_COS))):
            idx = np.flatnonzero(which)
            if len(idx):
                for k, hull in zip(idx.tolist(), self._outlines(points(v[idx]), n, clip),
                                   strict=True):
                    out[k] = hull
        return out

    def _outlines(self, points: NDArray[np.float64], n: int, clip: bool = True
                  ) -> list[NDArray[np.int32] | None]:
        """The convex outline (quarter pixels) of each run of ``n`` board points, None
        when it is not in the region (with ``clip``) or not finite."""
        px = self.to_region(project(self.camera, self.pose, points)).reshape(-1, n, 2)
        good = np.isfinite(px).all(axis=(1, 2))
        if clip:
            h, w = self.shape
            high, low = px.max(axis=1), px.min(axis=1)
            good &= ~((high[:, 0] < 0) | (high[:, 1] < 0) | (low[:, 0] >= w)
                      | (low[:, 1] >= h))
        out: list[NDArray[np.int32] | None] = [None] * len(px)
        rounded = np.round(px[good] * 4).astype(np.int32)
        for k, pts in zip(np.flatnonzero(good).tolist(), rounded, strict=True):
            out[k] = cv2.convexHull(pts)
        return out

    def paint_old(self, pieces: Iterable[Piece]) -> None:
        """Fills :attr:`old_depth` with the palace before the turn, far voxels first."""
        voxels = [v for p in pieces for v in piece_voxels(p)]
        far = dict(zip(voxels, self.distances(voxels), strict=True))
        order = sorted(voxels, key=far.__getitem__, reverse=True)
        for voxel, hull in zip(order, self.hulls(order), strict=True):
            if hull is not None:
                cv2.fillConvexPoly(self.old_depth, hull, far[voxel], shift=2)
        self._cache.clear()

    def visible(self, voxel: Box) -> tuple[NDArray[np.intp], float]:
        """Flat region indices where ``voxel`` would be in front of the old palace, and its
        distance; cached, since the decoder asks for the same voxels again and again."""
        hit = self._cache.get(voxel)
        if hit is None:
            self.prepare([voxel])
            hit = self._cache[voxel]
        return hit

    def prepare(self, voxels: Iterable[Box]) -> None:
        """Works out many voxels' visible pixels with one projection."""
        todo = [v for v in dict.fromkeys(voxels) if v not in self._cache]
        if not todo:
            return
        hulls, dists = self.hulls(todo), self.distances(todo)
        filled = iter(fill_many([h for h in hulls if h is not None],
                                [d for h, d in zip(hulls, dists, strict=True) if h is not None],
                                self.old_depth))
        for voxel, hull, dist in zip(todo, hulls, dists, strict=True):
            self._cache[voxel] = (np.zeros(0, np.intp) if hull is None else next(filled), dist)

    @staticmethod
    def _top_faces(cells: Sequence[tuple[int, int, int]]) -> NDArray[np.float64]:
        """The four corners of each stud level's top face (board mm), stacked."""
        c = np.array(cells, np.float64).reshape(-1, 3)
        x, y, z = c[:, 0], c[:, 1], (c[:, 2] + 1) * BRICK_MM
        return np.stack([x * STUD_MM, y * STUD_MM, z, (x + 1) * STUD_MM, y * STUD_MM, z,
                         (x + 1) * STUD_MM, (y + 1) * STUD_MM, z,
                         x * STUD_MM, (y + 1) * STUD_MM, z], axis=1).reshape(-1, 3)

    def prepare_tops(self, cells: Iterable[tuple[int, int, int]]) -> None:
        """Projects many stud levels' top faces at once (:meth:`side_pixels` asks for
        them one by one, thousands a turn)."""
        todo = [c for c in dict.fromkeys(cells) if c not in self._tops]
        if not todo:
            return
        px = self.to_region(project(self.camera, self.pose, self._top_faces(todo)))
        faces = px.reshape(-1, 4, 2)
        finite = np.isfinite(faces).all(axis=(1, 2))
        quarters = np.round(np.where(finite[:, None, None], faces, 0.0) * 4).astype(np.int32)
        for cell, poly, ok in zip(todo, quarters, finite.tolist(), strict=True):
            self._tops[cell] = (poly, cv2.boundingRect(poly)) if ok else None

    def prepare_sides(self, cells: Iterable[tuple[int, int, int]]) -> None:
        """Works out many stud levels' side pixels (:meth:`side_pixels`) together
        (:func:`vision.raster.sides_many`); those it leaves, :meth:`side_pixels` works
        out alone when asked."""
        todo = [c for c in dict.fromkeys(cells) if (*c, SIDES) not in self._cache]
        if not todo:
            return
        self.prepare([(x, y, level, FULL) for x, y, level in todo])
        self.prepare_tops(todo)
        seen = [self._cache[(x, y, level, FULL)] for x, y, level in todo]
        found = sides_many([idx for idx, _ in seen], [self._tops[c] for c in todo],
                           self.shape, MIN_SIDE_PIXELS)
        for (x, y, level), (_, dist), sides in zip(todo, seen, found, strict=True):
            if sides is not None:
                self._cache[(x, y, level, SIDES)] = (sides, dist)

    def side_pixels(self, voxel: Box) -> NDArray[np.intp]:
        """A voxel's visible pixels off its top face and one pixel in from its outline:
        where a brick's sides show their own colour, not the lit top, a neighbour's edge
        or the board around (which tint a small voxel's outline pixels by a third)."""
        x, y, level, _ = voxel
        key = (x, y, level, SIDES)
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0]
        idx, dist = self.visible((x, y, level, FULL))
        if not len(idx):
            self._cache[key] = (idx, dist)
            return idx
        # Worked in a patch over the pixels and one pixel around them (erosion sees the
        # same zeros there) and over the top face's whole box (a face cut by the patch's
        # edge may be drawn a pixel apart): the same pixels as the whole region gives.
        h, w = self.shape
        rows, cols = np.divmod(idx, w)
        # Pixels are ascending: the first and last rows are the first and last pixels'.
        ya, yb = int(rows[0]) - 1, int(rows[-1]) + 2
        xa, xb = int(cols.min()) - 1, int(cols.max()) + 2
        if (x, y, level) not in self._tops:
            self.prepare_tops([(x, y, level)])
        face = self._tops[(x, y, level)]
        poly = None
        if face is not None:
            poly, (bx, by, bw, bh) = face
            xa, ya = min(xa, (bx >> 2) - 1), min(ya, (by >> 2) - 1)
            xb, yb = max(xb, ((bx + bw) >> 2) + 2), max(yb, ((by + bh) >> 2) + 2)
        xa, ya, xb, yb = max(xa, 0), max(ya, 0), min(xb, w), min(yb, h)
        mask = np.zeros((yb - ya, xb - xa), np.uint8)
        mask[rows - ya, cols - xa] = 1
        if poly is not None:
            cv2.fillConvexPoly(mask, poly - np.array([[xa * 4, ya * 4]], np.int32), 0, shift=2)
        ys, xs = np.nonzero(cv2.erode(mask, CROSS))
        if len(ys) < MIN_SIDE_PIXELS:
            ys, xs = np.nonzero(mask)
        sides = (ys + ya) * w + (xs + xa)
        self._cache[key] = (sides, dist)
        return sides

    def piece_pixels(self, piece: Piece) -> NDArray[np.intp]:
        """Region pixels where ``piece`` would show in front of the palace before the turn,
        ascending."""
        parts = [self.visible(v)[0] for v in piece_voxels(piece)]
        if not parts:
            return np.zeros(0, np.intp)
        if len(parts) == 1:
            return parts[0]  # one voxel's pixels are ascending and distinct already
        out = np.concatenate(parts)
        if len(out) < 2:
            return out
        out.sort()
        keep = np.empty(len(out), bool)
        keep[0] = True
        np.not_equal(out[1:], out[:-1], out=keep[1:])
        return out[keep]

    def pieces_pixels(self, pieces: Sequence[Sequence[Box]]) -> list[NDArray[np.intp]]:
        """:meth:`piece_pixels` of many pieces (each given by its boxes), the same
        pixels: a piece of one box has that box's pixels; the others' boxes' pixels are
        tagged with their piece, sorted together (one stable sort, which merges the
        boxes' ascending runs) and split again, each once."""
        cache = self._cache
        out: list[NDArray[np.intp]] = []
        parts: list[NDArray[np.intp]] = []
        owners: list[int] = []
        lengths: list[int] = []
        several: list[int] = []
        for k, boxes in enumerate(pieces):
            if len(boxes) == 1:
                b = boxes[0]
                out.append(cache[b][0] if b in cache else self.visible(b)[0])
                continue
            out.append(_NO_PIXELS)
            for b in boxes:
                idx = cache[b][0] if b in cache else self.visible(b)[0]
                parts.append(idx)
                lengths.append(len(idx))
                owners.append(len(several))
            several.append(k)
        if not several:
            return out
        size = self.shape[0] * self.shape[1]
        tagged = np.repeat(np.array(owners, np.intp) * size, lengths) + np.concatenate(parts)
        tagged.sort(kind="stable")
        if len(tagged) > 1:
            keep = np.empty(len(tagged), bool)
            keep[0] = True
            np.not_equal(tagged[1:], tagged[:-1], out=keep[1:])
            tagged = tagged[keep]
        # Each piece's run starts at its tag; its pixels are the run less the tag (a
        # division over every pixel costs more than a subtraction per piece).
        cuts = np.searchsorted(tagged, np.arange(len(several) + 1) * size).tolist()
        for j, k in enumerate(several):
            out[k] = tagged[cuts[j]:cuts[j + 1]] - j * size
        return out

    @staticmethod
    def _leaf_rings(cells: Sequence[tuple[int, int, int]]) -> NDArray[np.float64]:
        """The twelve points of each plant's leaf ring (board mm), stacked."""
        c = np.array(cells, np.float64).reshape(-1, 3)
        cx, cy = (c[:, 0:1] + 0.5) * STUD_MM, (c[:, 1:2] + 0.5) * STUD_MM
        z = c[:, 2:3] * BRICK_MM + LEAF_HEIGHT_MM
        ring = np.empty((len(c), 12, 3))
        ring[..., 0] = cx + LEAF_REACH_MM * RING_COS
        ring[..., 1] = cy + LEAF_REACH_MM * RING_SIN
        ring[..., 2] = z
        return ring.reshape(-1, 3)

    def prepare_leaves(self, cells: Iterable[tuple[int, int, int]]) -> None:
        """Works out many plants' leaf pixels (:meth:`leaf_pixels`) with one projection."""
        todo = [c for c in dict.fromkeys(cells) if (*c, LEAVES) not in self._cache]
        if not todo:
            return
        px = self.to_region(project(self.camera, self.pose, self._leaf_rings(todo)))
        far = self.distances([(x, y, z, 0) for x, y, z in todo])
        for (x, y, z), ring, dist in zip(todo, px.reshape(-1, 12, 2), far, strict=True):
            idx = _NO_PIXELS
            if np.all(np.isfinite(ring)):
                idx = fill(np.round(ring * 4).astype(np.int32), dist, self.old_depth)
            self._cache[(x, y, z, LEAVES)] = (idx, dist)

    def leaf_pixels(self, piece: Piece) -> NDArray[np.intp]:
        """Pixels a plant decoration's leaves may cover around its stem (they overhang
        about two studs at two thirds of its height), in front of the old palace."""
        return self.leaf_pixels_at((piece.x, piece.y, piece.z, LEAVES))

    def leaf_pixels_at(self, key: Box) -> NDArray[np.intp]:
        """:meth:`leaf_pixels` of the plant standing at ``key``'s stud and level."""
        hit = self._cache.get(key)
        if hit is None:
            self.prepare_leaves([key[:3]])
            hit = self._cache[key]
        return hit[0]

    def piece_area(self, piece: Piece) -> int:
        """Pixels the piece's silhouette covers with nothing in front (its whole size),
        the part beyond the region's edges too: a piece the frame cuts off is no smaller
        for it, only less seen (:mod:`vision.confidence` weighs its margin against this
        size, and a piece out of the frame wins by its price alone)."""
        hulls = [hull.reshape(-1, 2) for hull in self.hulls(piece_voxels(piece), clip=False)
                 if hull is not None]
        if not hulls:
            return 0
        # The canvas spans the silhouette, at most the region's size beyond each edge
        # (a point near the camera's plane projects far out).
        rows, cols = self.shape
        low = np.maximum(np.min([hull.min(axis=0) for hull in hulls], axis=0) // 4,
                         (-cols, -rows)) * 4
        high = np.minimum(np.max([hull.max(axis=0) for hull in hulls], axis=0) // 4 + 2,
                          (2 * cols, 2 * rows))
        mask = np.zeros((int(high[1] - low[1] // 4), int(high[0] - low[0] // 4)), np.uint8)
        for hull in hulls:
            cv2.fillConvexPoly(mask, hull - low, 1, shift=2)
        return int(mask.sum())
