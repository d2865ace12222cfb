"""What the pixels of one view say about new pieces, in the decoder's units.

The decoder (:mod:`vision.decode`) scores a set of new pieces by the evidence of the
pixels it would cover; this module holds that evidence per view, the colour of each
pixel (which tells a column from three bricks), and the voxels whose pixels changed,
which are all the places a new piece can be.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import project
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM, Voxel
from vision.change import change_evidence
from vision.silhouettes import View

LEAF_GAIN = 0.5
"""What a changed pixel within a plant's leaves earns (leaves cover part of their disc,
so an unchanged pixel there costs nothing)."""
HOT_LEVEL = 0.5
COST_LEVEL = 0.75
"""Evidence a pixel must show to pay for a piece covering it: a piece over unchanged
pixels costs three times what a changed one earns, because one view cannot tell a
nearer, lower piece from a farther, higher one by how much it covers alone."""
COST_OVER_OLD = 0.2
"""The same where the frame before showed a piece of the palace: a new piece in front of
an old one of its colour changes nothing, so an unchanged pixel there says little."""
HEADROOM = 6
"""Levels above the palace's top that a new piece may reach in one turn."""


@dataclass
class Evidence:
    """One view and its centred change evidence (flat, region pixels), with the colour of
    each pixel after the turn (:func:`colour_features`)."""

    view: View
    weight: NDArray[np.float32]
    hot: NDArray[np.bool_]
    leaf: NDArray[np.float32]
    """What a decoration's leaves earn on each pixel: never negative (the change above a
    floor), which the staircase search's closer bound (:mod:`vision.stair_bounds`)
    relies on."""
    colour: NDArray[np.float32] | None = None
    picture: NDArray[np.uint8] | None = None
    """The whole frame after the turn, unsoftened: a seam between stacked bricks
    (:mod:`vision.seams`) is a pixel wide, gone at the working scale."""


LIGHT_OFFSET = 6.0
"""Added to a pixel's channel sum before its logarithm: the sensor's dark noise (a few
levels a channel), so that near-black pixels do not spread into huge negative lights."""


def light_unit(total: float) -> float:
    """A channel sum (three channels) in :func:`colour_features`' brightness unit: the
    colour rules compare their thresholds with the features in the same unit."""
    return 100.0 * math.log(total + LIGHT_OFFSET)


def colour_features(region: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per pixel (flat): chromaticity (r, g shares x 300) and log brightness (x 100), the
    units in which one LEGO colour differs from another by tens and a piece's own shading
    from face to face by less."""
    flat = region.reshape(-1, 3).astype(np.float32)
    total = flat.sum(axis=1) + LIGHT_OFFSET
    out = np.empty((len(flat), 3), np.float32)
    out[:, 0] = flat[:, 2] / total * 300.0
    out[:, 1] = flat[:, 1] / total * 300.0
    out[:, 2] = np.log(total) * 100.0
    return out


def hot_cells(evidence: Sequence[Evidence], top: int,
              masks: Sequence[NDArray[np.bool_]] | None = None) -> set[Voxel]:
    """Voxels whose centre falls on changed pixels in some view: where new pieces may be.
    ``masks``: other pixels than the changed ones, per view (flat, as the weights)."""
    levels = np.arange(top + HEADROOM)
    xs, ys, ls = np.meshgrid(np.arange(BOARD_STUDS), np.arange(BOARD_STUDS), levels,
                             indexing="ij")
    pts = np.stack([(xs.ravel() + 0.5) * STUD_MM, (ys.ravel() + 0.5) * STUD_MM,
                    (ls.ravel() + 0.5) * BRICK_MM], axis=1)
    found: set[Voxel] = set()
    for k, ev in enumerate(evidence):
        h, w = ev.view.shape
        px = np.round(ev.view.to_region(project(ev.view.camera, ev.view.pose, pts))).astype(int)
        ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        hit = np.zeros(len(pts), bool)
        on = ev.hot if masks is None else masks[k]
        hit[ok] = on.reshape(h, w)[px[ok, 1], px[ok, 0]]
        picked = [(int(xs.ravel()[i]), int(ys.ravel()[i]), int(ls.ravel()[i]))
                  for i in np.nonzero(hit)[0]]
        ev.view.prepare((x, y, z, 0) for x, y, z in picked)
        for x, y, z in picked:
            # Most of what the voxel would show must have changed, not just its centre.
            idx = ev.view.visible((x, y, z, 0))[0]
            if len(idx) >= 3 and on[idx].mean() >= 0.5:
                found.add((x, y, z))
    return found


OFF_BOARD_PX = 40
OFF_BOARD_SHARE = 0.15
"""A patch of changed pixels with at least this many, and this share of its own, outside
the space over the board is something lying over the board's edge (a few pixels of a
new piece's soft edge may spill past the space's outline)."""
OFF_BOARD_MOST = 0.25
"""Unless the patch covers more than this share of the space over the board: a card or a
sleeve covers a part of the board, and a picture changed nearly everywhere (the light,
the camera) is left to the turn's own check for that."""


def changed_at_all(after: NDArray[np.float32], before: NDArray[np.float32]
                   ) -> NDArray[np.bool_]:
    """The region's pixels that changed at all between the pictures, whatever the model
    says they show: the classical change (:func:`vision.change.change_evidence`) past
    :data:`HOT_LEVEL`, taken at half the working scale (a patch's extent is all that is
    asked of it, at a quarter of the cost)."""
    h, w = after.shape[:2]
    half = (max(1, w // 2), max(1, h // 2))
    small = change_evidence(cv2.resize(after, half, interpolation=cv2.INTER_AREA),
                            cv2.resize(before, half, interpolation=cv2.INTER_AREA))
    return cv2.resize((small > HOT_LEVEL).astype(np.uint8), (w, h),
                      interpolation=cv2.INTER_NEAREST).astype(bool)


def off_board_set_aside(ev: Evidence, space: NDArray[np.bool_],
                        changed: NDArray[np.bool_] | None = None) -> Evidence:
    """``ev`` with each patch of changed pixels that runs out of the board's space set
    aside: no evidence either way, as if hidden. No new piece shows outside ``space``, the
    region's pixels over the plate up to the palace's headroom
    (:func:`vision.views.board_space`, worked out once per view by the caller), nor at the
    region's edge (its box holds that space with a margin), so a patch that reaches
    there is something laid over the board's edge since the picture before (a player's
    card, a sleeve resting there), and what it covers of the board cannot be read. Read
    as pieces, a card over the edge was a wall of phantom bricks. A patch over most of
    the board is no such thing (:data:`OFF_BOARD_MOST`) and is kept.

    ``changed`` (the region's shape; :func:`changed_at_all`) joins the patches: the model
    knows a card for no piece and denies most of it, and what it leaves (a rim, a
    corner) lies in fragments that each may stay within the space, read as bricks."""
    hot = ev.hot.reshape(ev.view.shape)
    if changed is not None:
        hot = hot | changed
    count, labels, stats, _ = cv2.connectedComponentsWithStats(hot.astype(np.uint8),
                                                                connectivity=8)
    if count <= 1:
        return ev
    outside = np.bincount(labels[~space], minlength=count)
    inside = np.bincount(labels[space], minlength=count)
    # The region's edges, less those the frame's own edge cut (a board running off the
    # picture takes its pieces with it).
    x0, y0, x1, y1 = ev.view.box
    cam = ev.view.camera
    sides = [side for side, cut in ((labels[0], y0 <= 0), (labels[-1], y1 >= cam.height),
                                    (labels[:, 0], x0 <= 0), (labels[:, -1], x1 >= cam.width))
             if not cut]
    at_edge = np.bincount(np.concatenate([np.zeros(0, labels.dtype), *sides]),
                          minlength=count) > 0
    lying = (outside >= OFF_BOARD_PX) & (outside >= OFF_BOARD_SHARE * stats[:, cv2.CC_STAT_AREA])
    lying |= at_edge
    lying &= inside <= OFF_BOARD_MOST * space.sum()
    lying[0] = False
    if not lying.any():
        return ev
    aside = lying[labels].ravel()
    return replace(ev, weight=np.where(aside, 0.0, ev.weight).astype(np.float32),
                   hot=ev.hot & ~aside, leaf=np.where(aside, 0.0, ev.leaf).astype(np.float32))
