"""The boxes a piece is drawn with, and their corners on the board.

A piece is cut into one-stud, one-brick voxels, each drawn as a box (a whole voxel, an
arch's roof over its opening, a voxel with its knob's stud on top, a round decoration's
cylinder); the expected picture (:mod:`vision.silhouettes`) projects these corners into
a frame. Everything here is board millimetres, never pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from rules.pieces import BRICK_MM, STUD_MM, Axis, Kind, Piece

INSET_MM = 0.1
"""Voxels are drawn a little inside their cell: neighbours' seams, and a pose a few
tenths of a pixel off, should not make a voxel claim its neighbour's pixels."""
ARCH_ROOF_MM = 6.4
"""An arch's opening rises this high under its middle two cells; only the roof above it
hides what lies behind."""
STUD_TOP_MM = 1.7
STUD_SHARE = 0.6

Box = tuple[int, int, int, int]
"""One box a piece is drawn with, (x, y, level, shape): shape FULL a whole voxel, ROOF an
arch's roof over its opening, STUDDED a voxel with the stud on its top (a piece's
knob)."""
FULL, ROOF, STUDDED = 0, 1, 3
ROUND = 5
"""The box key of a round 1x1 piece: the gold decoration (part 3062b), a cylinder the
cell's width with a stud on top. Drawn as the cell's box, its four corners (a tenth to
a quarter of the outline) claim what stands behind it, which no new piece covers: on the
development turns those corner pixels' evidence averaged 0.14 against 0.63 inside the
round body, and in some turns fell below zero enough that the rules' decoration was
refused where the player had put it."""

RING_ANGLES = np.linspace(0, 2 * np.pi, 13)[:-1]
"""Twelve angles round an axis: a round voxel's outline and a plant's leaf ring."""
RING_COS, RING_SIN = np.cos(RING_ANGLES), np.sin(RING_ANGLES)


def piece_voxels(piece: Piece) -> tuple[Box, ...]:
    """The boxes a piece is drawn with: its cells, level by level, an arch's middle as roof.

    The pieces the decoder makes by the thousand (1x1 pieces and arches) are written out
    here, the very boxes the general way gives (:func:`_voxels`, for the rest)."""
    kind, x, y, z = piece.kind, piece.x, piece.y, piece.z
    if kind is Kind.BRICK:
        return ((x, y, z, STUDDED),)
    if kind is Kind.DECORATION:
        return ((x, y, z, ROUND if piece.color == "gold" else STUDDED),)
    if kind is Kind.COLUMN:
        return ((x, y, z, FULL), (x, y, z + 1, FULL), (x, y, z + 2, STUDDED))
    if kind is Kind.ARCH:
        if piece.axis is Axis.X:
            return ((x, y, z, STUDDED), (x + 1, y, z, ROOF), (x + 2, y, z, ROOF),
                    (x + 3, y, z, STUDDED))
        return ((x, y, z, STUDDED), (x, y + 1, z, ROOF), (x, y + 2, z, ROOF),
                (x, y + 3, z, STUDDED))
    return _voxels(kind, x, y, z, piece.axis, piece.turn)


@lru_cache(maxsize=1 << 16)
def _voxels(kind: Kind, x: int, y: int, z: int, axis: Axis, turn: int) -> tuple[Box, ...]:
    piece = Piece(kind, x, y, z, axis=axis, turn=turn)
    out: list[Box] = []
    cells = piece.footprint()
    knobs = set(piece.knobs())
    for level in range(piece.z, piece.top):
        for i, (cx, cy) in enumerate(cells):
            roof = piece.kind is Kind.ARCH and 0 < i < len(cells) - 1
            stud = level == piece.top - 1 and (cx, cy) in knobs
            out.append((cx, cy, level, ROOF if roof else STUDDED if stud else FULL))
    return tuple(out)


def round_corners(voxels: NDArray[np.int64]) -> NDArray[np.float64]:
    """A ring of twelve points round each round voxel's axis (the leaves' ring's
    angles) at its bottom and at its stud-raised top (as :func:`box_corners` raises a
    knob), stacked."""
    centre_x = (voxels[:, 0] + 0.5) * STUD_MM
    centre_y = (voxels[:, 1] + 0.5) * STUD_MM
    radius = STUD_MM / 2 - INSET_MM
    bottom = voxels[:, 2] * BRICK_MM
    top = (voxels[:, 2] + 1) * BRICK_MM + STUD_TOP_MM * STUD_SHARE
    out = np.empty((len(voxels), 2, len(RING_COS), 3))
    out[..., 0] = centre_x[:, None, None] + radius * RING_COS
    out[..., 1] = centre_y[:, None, None] + radius * RING_SIN
    out[..., 2] = np.stack([bottom, top], axis=1)[:, :, None]
    return out.reshape(-1, 3)


def box_corners(voxels: Sequence[Box]) -> NDArray[np.float64]:
    """The eight corners of each voxel's box, stacked: a knob's stud adds its height over
    the stud's own width only, so the box is raised by the share of the cell's area the
    stud covers."""
    v = np.array(voxels, dtype=np.int64).reshape(-1, 4)
    x, y, level, shape = (v[:, k].astype(np.float64) for k in range(4))
    xs = np.stack([x * STUD_MM + INSET_MM, (x + 1) * STUD_MM - INSET_MM], axis=1)
    ys = np.stack([y * STUD_MM + INSET_MM, (y + 1) * STUD_MM - INSET_MM], axis=1)
    zs = np.stack([level * BRICK_MM + np.where(shape == ROOF, ARCH_ROOF_MM, 0.0),
                   (level + 1) * BRICK_MM + np.where(shape == STUDDED,
                                                     STUD_TOP_MM * STUD_SHARE, 0.0)], axis=1)
    out = np.empty((len(v), 2, 2, 2, 3))
    out[..., 0] = xs[:, :, None, None]
    out[..., 1] = ys[:, None, :, None]
    out[..., 2] = zs[:, None, None, :]
    return out.reshape(-1, 3)
