"""How high each stud cell's stack stands, from where the views agree on its top face.

Carving (:mod:`vision.carve`) cannot empty a voxel that no view sees through, and above
and between the pieces of a grown palace many are: each view sees some piece behind
them. A top face says more. Every piece's top is level and faces up, so all the views
that see it see it in one colour (the same plastic, under the same light from above),
and they see it where a plane at its height puts it. So each cell's top is swept through
the levels: at each height the cell's top-face points are projected into every view,
and the height is the highest one at which most views agree on one changed colour
there. Below the true top the plane cuts the piece itself and the views still agree
(its own faces); above it they look past the piece to different things behind it,
and disagree, unless those things happen to share a colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_HEIGHT_MM, STUD_MM
from vision.carve import LEVELS, OFFSETS, Carving, ViewData, region_pixels

AGREE = 12.0
"""Chromaticity distance (red and green shares, x 300) within which a view agrees with
the views' median colour of a top face: a LEGO colour's faces under one light lie
within a few units, two building colours 10 to 60 apart."""
AGREEING = 3
"""Views that must agree on a top (of four: one may look at it from behind a taller
piece)."""
CHANGED = 0.5
"""Least mean change the agreeing views must show at a top for it to be a piece's."""


def top_samples(levels: int = LEVELS) -> NDArray[np.float64]:
    """Each cell's top-face points at every height, (32, 32, levels + 1, 9, 3) board mm:
    height h is the top of h bricks, at half a stud over it."""
    o = np.array(OFFSETS)
    dx, dy = (a.ravel() for a in np.meshgrid(o, o, indexing="ij"))
    shape = (BOARD_STUDS, BOARD_STUDS, levels + 1, len(dx))
    x = np.arange(BOARD_STUDS, dtype=np.float64)[:, None, None, None]
    y = np.arange(BOARD_STUDS, dtype=np.float64)[None, :, None, None]
    h = np.arange(levels + 1, dtype=np.float64)[None, None, :, None]
    out = np.empty((*shape, 3))
    out[..., 0] = np.broadcast_to((x + dx) * STUD_MM, shape)
    out[..., 1] = np.broadcast_to((y + dy) * STUD_MM, shape)
    out[..., 2] = np.broadcast_to(h * BRICK_MM + STUD_HEIGHT_MM / 2, shape)
    return out


def top_heights(views: Sequence[ViewData], chromas: Sequence[NDArray[np.float32]],
                levels: int = LEVELS) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """Each cell's stack height in bricks (32, 32; 0 for the bare board or where no
    height is agreed) and how many views agreed on it; ``chromas`` are the views'
    matched chromaticities (:func:`vision.colouring.view_chromas`)."""
    pts = top_samples(levels)
    shape = pts.shape[:4]
    colours = np.full((len(views), *shape[:3], 2), np.nan)
    change = np.full((len(views), *shape[:3]), np.nan)
    for v, vd in enumerate(views):
        flat, ok = region_pixels(vd.view.camera, vd.view.pose, vd.view, pts.reshape(-1, 3))
        chroma = chromas[v][flat].reshape(*shape, 2)
        seen = ok.reshape(shape).all(axis=3)
        colours[v] = np.where(seen[..., None], np.median(chroma, axis=3), np.nan)
        moved = (vd.change + vd.green).ravel()[flat].reshape(shape).mean(axis=3)
        change[v] = np.where(seen, moved, np.nan)
    with np.errstate(invalid="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            centre = np.nanmedian(colours, axis=0)
    dist = np.linalg.norm(colours - centre[None], axis=-1)
    agree = np.nan_to_num(dist, nan=np.inf) < AGREE
    count = agree.sum(axis=0)
    moved = np.where(agree, np.nan_to_num(change), 0.0).sum(axis=0) / np.maximum(count, 1)
    good = (count >= AGREEING) & (moved >= CHANGED)
    good[:, :, 0] = False
    heights = np.arange(levels + 1)[None, None, :]
    top = np.where(good, heights, 0).max(axis=2)
    agreed = np.take_along_axis(count, top[..., None], axis=2)[..., 0]
    return top.astype(np.int64), agreed.astype(np.float32)


def capped(carving: Carving, views: Sequence[ViewData]) -> Carving:
    """``carving`` with every voxel above a cell's agreed top emptied: the views agree on
    a top there, so what the carving kept above it is what they see past it."""
    chromas = []
    for vd in views:
        flat = vd.image.reshape(-1, 3)
        total = flat.sum(axis=1) + 6.0
        chromas.append((np.stack([flat[:, 2] / total, flat[:, 1] / total], axis=1)
                        * 300.0).astype(np.float32))
    top, _ = top_heights(views, chromas, carving.full.shape[2])
    levels = np.arange(carving.full.shape[2])[None, None, :]
    above = (levels >= top[..., None]) & (top[..., None] > 0)
    return Carving(*(np.where(above, 0.0, a).astype(np.float32)
                     for a in (carving.full, carving.roof, carving.green)))
