"""The surface model's heights as evidence the search weighs, pixel by pixel.

The carving keeps a layer of space over a palace that no view sees through
(docs/vision.md, full mode), and the search (:mod:`vision.pick`) weighs a reading by
its silhouettes and colours, which a piece in that layer matches as well as a true one
under it. Depth tells them apart: the learned surface model (:mod:`vision.surface`)
reads, per pixel, how high the surface it shows stands. Used as a hard cut on the
carving, one level of the model's error in one view carves true pieces as readily as
the phantom layer; here it is soft evidence instead. Each pixel where the model is sure
of a piece costs by how far the reading's rendered surface there (the height where the
pixel's ray enters the piece the reading shows at it, the plate where it shows none)
stands from the model's, less :data:`HEIGHT_DEAD` and clipped at :data:`HEIGHT_CLIP`,
so that one bad pixel or view cannot decide: a phantom piece over the true surface and
a missing upper piece both cost.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from rules.pieces import BRICK_MM, STUD_MM, Piece
from vision.bare import pixel_rays
from vision.silhouettes import (
    ARCH_ROOF_MM,
    ROOF,
    STUD_SHARE,
    STUD_TOP_MM,
    STUDDED,
    Box,
    View,
    piece_voxels,
)

HEIGHT_WEIGHT = 0.3
"""What a level of disagreement at one sure pixel costs, against a pixel's silhouette
pay (a changed pixel pays up to about half a unit)."""
HEIGHT_DEAD = 0.5
"""Levels of disagreement that cost nothing: the model's height is off by 0.36 levels
at the median pixel."""
HEIGHT_CLIP = 2.0
"""Most levels of disagreement a pixel is charged for beyond :data:`HEIGHT_DEAD`: a pixel
the model reads wrong costs no more than one it reads a little off."""
PLATE_SEEN = True
"""Whether a sure pixel where the reading shows no piece is weighed against the plate's
height (0); otherwise it costs nothing and the silhouettes alone weigh it."""
MOST_BOXES = 4
"""Boxes a piece is drawn with at most (an arch's four cells; a column's three)."""


@functools.lru_cache(maxsize=65536)
def _extents(boxes: tuple[Box, ...]) -> NDArray[np.float64]:
    """Each box's board-mm bounds (x0, y0, z0, x1, y1, z1), padded to :data:`MOST_BOXES`
    rows with NaN (a box no ray enters); a knob's stud raises its box as the
    silhouettes do, an arch's roof starts above its opening."""
    out = np.full((MOST_BOXES, 6), np.nan)
    for k, (x, y, level, shape) in enumerate(boxes[:MOST_BOXES]):
        z0 = level * BRICK_MM + (ARCH_ROOF_MM if shape == ROOF else 0.0)
        z1 = (level + 1) * BRICK_MM + (STUD_TOP_MM * STUD_SHARE if shape == STUDDED else 0.0)
        out[k] = (x * STUD_MM, y * STUD_MM, z0, (x + 1) * STUD_MM, (y + 1) * STUD_MM, z1)
    out.flags.writeable = False
    return out


def piece_extents(piece: Piece) -> NDArray[np.float64]:
    """The piece's boxes' bounds (:func:`_extents`)."""
    return _extents(piece_voxels(piece))


def entry_heights(eye: NDArray[np.float64], dirs: NDArray[np.float64],
                  boxes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Where each ray (from ``eye`` along ``dirs``, (m, 3)) first enters its boxes
    (``boxes``, (m, k, 6)), as the height in levels; a ray that misses them all (a
    pixel on a box's outline) takes the nearest box's nearest face."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / dirs[:, None, :]
        t1 = (boxes[..., :3] - eye) * inv
        t2 = (boxes[..., 3:] - eye) * inv
        near = np.minimum(t1, t2).max(axis=2)
        far = np.maximum(t1, t2).min(axis=2)
    near = np.where(np.isnan(near), np.inf, near)
    hit = np.where(near <= far, near, np.inf).min(axis=1)
    t = np.where(np.isfinite(hit), hit, near.min(axis=1))
    t = np.where(np.isfinite(t), t, 0.0)
    return (eye[2] + t * dirs[:, 2]) / BRICK_MM


ABOVE_ONLY = False


def disagreement(rendered: NDArray[np.float64], model: NDArray[np.float64]
                 ) -> NDArray[np.float64]:
    """What each pixel costs: levels apart beyond :data:`HEIGHT_DEAD`, clipped."""
    apart = rendered - model if ABOVE_ONLY else np.abs(rendered - model)
    return np.clip(apart - HEIGHT_DEAD, 0.0, HEIGHT_CLIP)


class Heights:
    """One view's sure pixels (the model's height where it is sure of a piece), their
    rays, and what each costs under the reading as it stands."""

    def __init__(self, view: View, surface: NDArray[np.float32], label: NDArray[np.int32],
                 extents: Callable[[int], NDArray[np.float64]]) -> None:
        flat = surface.ravel()
        self.sure = np.flatnonzero(np.isfinite(flat))
        self.where = np.full(flat.shape, -1, np.int64)
        self.where[self.sure] = np.arange(len(self.sure))
        self.model = flat[self.sure].astype(np.float64)
        eye, dirs = pixel_rays(view)
        self.eye = eye
        self.dirs = dirs[self.sure]
        self.cost = self.costs(np.arange(len(self.sure)), label.ravel()[self.sure], extents)

    def costs(self, at: NDArray[np.intp], labels: NDArray[np.int32],
              extents: Callable[[int], NDArray[np.float64]]) -> NDArray[np.float64]:
        """What the sure pixels ``at`` (indices into :attr:`sure`) cost, labelled
        ``labels`` (a slot, -1 for none: the plate, height 0); ``extents`` gives a slot's
        boxes."""
        rendered = np.zeros(len(at))
        shown = labels >= 0
        if shown.any():
            slots, inverse = np.unique(labels[shown], return_inverse=True)
            table = np.stack([extents(int(s)) for s in slots])
            rendered[shown] = entry_heights(self.eye, self.dirs[at[shown]], table[inverse])
        cost = disagreement(rendered, self.model[at])
        if not PLATE_SEEN:
            cost[~shown] = 0.0
        return cost

    def change(self, idx: NDArray[np.intp], labels: NDArray[np.int32],
               extents: Callable[[int], NDArray[np.float64]]
               ) -> tuple[float, NDArray[np.intp], NDArray[np.float64]]:
        """The cost the region pixels ``idx`` (flat) add when labelled ``labels``, with
        the sure ones among them and their new costs (for :meth:`commit`)."""
        pos = self.where[idx]
        keep = pos >= 0
        at = pos[keep]
        if not len(at):
            return 0.0, at, np.zeros(0)
        new = self.costs(at, labels[keep], extents)
        return float(new.sum() - self.cost[at].sum()), at, new

    def commit(self, at: NDArray[np.intp], new: NDArray[np.float64]) -> None:
        """The costs of :meth:`change` made the reading's."""
        self.cost[at] = new

    def total(self) -> float:
        """What the reading's sure pixels cost in all."""
        return float(self.cost.sum())
