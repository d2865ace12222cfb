"""Meshes packed into flat arrays, cached per piece.

A frame concatenates a few hundred pieces; building their polygons in Python each time
would cost more than drawing them, and a palace changes by a handful of pieces per
turn, so each piece's packed geometry is built once and reused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.pieces import Piece
from twin.mesh import Mesh, piece_mesh


@dataclass(frozen=True)
class Geometry:
    """A mesh packed into arrays: what the rasteriser consumes, cheap to concatenate."""

    verts: np.ndarray  # (V, 3) every polygon's vertices, one after the other
    sizes: np.ndarray  # (P,) vertex count per polygon
    normals: np.ndarray  # (P, 3)
    colors: np.ndarray  # (P, 3)
    piece: np.ndarray  # (P,)
    kind: np.ndarray  # (P,)
    part: np.ndarray  # (P,)
    gloss: np.ndarray  # (P,)
    two_sided: np.ndarray  # (P,)
    cyl_base: np.ndarray  # (C, 3)
    cyl_radius: np.ndarray  # (C,)
    cyl_height: np.ndarray  # (C,)
    cyl_colors: np.ndarray  # (C, 3)
    cyl_piece: np.ndarray
    cyl_kind: np.ndarray
    cyl_part: np.ndarray
    cyl_gloss: np.ndarray

    @classmethod
    def from_mesh(cls, mesh: Mesh) -> Geometry:
        c = mesh.cylinders
        return cls(
            verts=np.concatenate(mesh.polys) if mesh.polys else np.zeros((0, 3)),
            sizes=np.array([len(p) for p in mesh.polys], np.int64),
            normals=np.array(mesh.normals, np.float64).reshape(-1, 3),
            colors=np.array(mesh.colors, np.float32).reshape(-1, 3),
            piece=np.array(mesh.piece, np.int32),
            kind=np.array(mesh.kind, np.uint8),
            part=np.array(mesh.part, np.uint8),
            gloss=np.array(mesh.gloss, np.float32),
            two_sided=np.array(mesh.two_sided, bool),
            cyl_base=np.array([x.base for x in c], np.float64).reshape(-1, 3),
            cyl_radius=np.array([x.radius for x in c], np.float64),
            cyl_height=np.array([x.height for x in c], np.float64),
            cyl_colors=np.array([x.color for x in c], np.float32).reshape(-1, 3),
            cyl_piece=np.array([x.piece for x in c], np.int32),
            cyl_kind=np.array([x.kind for x in c], np.uint8),
            cyl_part=np.array([x.part for x in c], np.uint8),
            cyl_gloss=np.array([x.gloss for x in c], np.float32),
        )

    @classmethod
    def concat(cls, parts: list[Geometry]) -> Geometry:
        if not parts:
            return cls.from_mesh(Mesh())
        return cls(**{
            name: np.concatenate([getattr(p, name) for p in parts])
            for name in cls.__dataclass_fields__
        })

    def recolored(self, index: int, tint: np.ndarray | None) -> Geometry:
        """This geometry as piece ``index``, its colours multiplied by ``tint``."""
        colors, cyl_colors = self.colors, self.cyl_colors
        if tint is not None:
            colors = colors * tint[None, :]
            cyl_colors = cyl_colors * tint[None, :]
        return Geometry(
            self.verts, self.sizes, self.normals, colors, np.full_like(self.piece, index),
            self.kind, self.part, self.gloss, self.two_sided, self.cyl_base, self.cyl_radius,
            self.cyl_height, cyl_colors, np.full_like(self.cyl_piece, index), self.cyl_kind,
            self.cyl_part, self.cyl_gloss,
        )


_GEOMETRY_CACHE: dict[tuple, Geometry] = {}


def piece_geometry(piece: Piece, color: np.ndarray) -> Geometry:
    """The packed polygons of a piece (index 0), cached: palaces repeat little else."""
    key = (piece.kind, piece.x, piece.y, piece.z, piece.axis, piece.turn, piece.color,
           tuple(np.round(color, 5)))
    geometry = _GEOMETRY_CACHE.get(key)
    if geometry is None:
        if len(_GEOMETRY_CACHE) > 5000:
            _GEOMETRY_CACHE.clear()
        geometry = Geometry.from_mesh(piece_mesh(piece, 0, color))
        _GEOMETRY_CACHE[key] = geometry
    return geometry
