"""Pieces as flat convex polygons in board millimetres.

Every surface is a planar convex polygon so that the rasteriser can fill it with
``cv2.fillConvexPoly`` and interpolate its depth exactly (1/z is affine in screen space
on a plane). Curved parts are cut into facets; studs are the one exception: their sides
are drawn as a view-dependent silhouette (see :mod:`twin.polygons`) because dozens
of facets per stud would cost more than the whole rest of a frame.

Level 0 is the board frame's ``z = 0`` plane (the top of the baseplate; the ground map
card is treated as having no thickness), so a piece at level ``k`` has its bottom at
``k * 9.6`` mm.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from rules.pieces import (
    BRICK_MM,
    STUD_DIAMETER_MM,
    STUD_HEIGHT_MM,
    STUD_MM,
    Axis,
    Kind,
    Piece,
)

# Real LEGO bricks are 0.2 mm narrower than their pitch, which gives the dark seams
# between neighbours that a camera sees.
GAP_MM = 0.1
STUD_R = STUD_DIAMETER_MM / 2
STUD_SEGMENTS = 16

# Per-pixel part labels (Frame.parts).
PART_NONE = 0
PART_BODY = 1
PART_STUD_TOP = 2
PART_STUD_SIDE = 3
PART_DETAIL = 4
PART_CARD = 5
PART_HOLE = 6
PART_LABELS = {
    "none": PART_NONE,
    "body": PART_BODY,
    "stud_top": PART_STUD_TOP,
    "stud_side": PART_STUD_SIDE,
    "detail": PART_DETAIL,
    "card": PART_CARD,
    "hole": PART_HOLE,
}

# Per-pixel kind labels (Frame.kinds): 0 table/clutter, 1 board, then one per Kind.
KIND_BACKGROUND = 0
KIND_BOARD = 1
KIND_LABEL = {kind: i + 2 for i, kind in enumerate(Kind)}
KIND_LABELS = {"background": KIND_BACKGROUND, "board": KIND_BOARD} | {
    k.value: v for k, v in KIND_LABEL.items()
}


@dataclass
class Cylinder:
    """A vertical cylinder whose side is drawn as a silhouette (studs, thin stems)."""

    base: tuple[float, float, float]
    radius: float
    height: float
    color: np.ndarray
    piece: int
    kind: int
    part: int
    gloss: float


@dataclass
class Mesh:
    """Polygons and silhouette cylinders with what each one belongs to."""

    polys: list[np.ndarray] = field(default_factory=list)
    normals: list[np.ndarray] = field(default_factory=list)
    colors: list[np.ndarray] = field(default_factory=list)
    piece: list[int] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)
    part: list[int] = field(default_factory=list)
    gloss: list[float] = field(default_factory=list)
    two_sided: list[bool] = field(default_factory=list)
    cylinders: list[Cylinder] = field(default_factory=list)

    def add(
        self,
        verts: np.ndarray,
        normal: np.ndarray,
        color: np.ndarray,
        piece: int,
        kind: int,
        part: int = PART_BODY,
        gloss: float = 1.0,
        two_sided: bool = False,
    ) -> None:
        self.polys.append(np.asarray(verts, dtype=np.float64))
        self.normals.append(np.asarray(normal, dtype=np.float64))
        self.colors.append(np.asarray(color, dtype=np.float32))
        self.piece.append(piece)
        self.kind.append(kind)
        self.part.append(part)
        self.gloss.append(gloss)
        self.two_sided.append(two_sided)

    def extend(self, other: Mesh) -> None:
        for name in ("polys", "normals", "colors", "piece", "kind", "part", "gloss",
                     "two_sided", "cylinders"):
            getattr(self, name).extend(getattr(other, name))


def _disc(cx: float, cy: float, z: float, r: float, n: int = STUD_SEGMENTS) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, z)], axis=1)


UP = np.array([0.0, 0.0, 1.0])
DOWN = np.array([0.0, 0.0, -1.0])


def add_box(
    mesh: Mesh,
    lo: tuple[float, float, float],
    hi: tuple[float, float, float],
    color: np.ndarray,
    piece: int,
    kind: int,
    skip: frozenset[str] = frozenset(),
    gloss: float = 1.0,
) -> None:
    """An axis-aligned box; ``skip`` names faces hidden inside a bigger piece (x0, x1, ...)."""
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    faces = {
        "z1": ([(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], UP),
        "z0": ([(x0, y0, z0), (x0, y1, z0), (x1, y1, z0), (x1, y0, z0)], DOWN),
        "x0": ([(x0, y0, z0), (x0, y0, z1), (x0, y1, z1), (x0, y1, z0)], np.array([-1.0, 0, 0])),
        "x1": ([(x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1)], np.array([1.0, 0, 0])),
        "y0": ([(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)], np.array([0, -1.0, 0])),
        "y1": ([(x0, y1, z0), (x0, y1, z1), (x1, y1, z1), (x1, y1, z0)], np.array([0, 1.0, 0])),
    }
    for name, (verts, normal) in faces.items():
        if name not in skip:
            mesh.add(np.array(verts), normal, color, piece, kind, gloss=gloss)


def add_stud(
    mesh: Mesh, cx: float, cy: float, z: float, color: np.ndarray, piece: int, kind: int,
    gloss: float = 1.0, open_top: bool = False,
) -> None:
    """A stud standing on ``z``: a flat top disc and a silhouette side."""
    top = z + STUD_HEIGHT_MM
    mesh.add(_disc(cx, cy, top, STUD_R), UP, color, piece, kind, PART_STUD_TOP, gloss)
    if open_top:
        mesh.add(_disc(cx, cy, top + 0.01, STUD_R * 0.55, 12), UP, color * 0.45, piece, kind,
                 PART_STUD_TOP, gloss)
    mesh.cylinders.append(
        Cylinder((cx, cy, z), STUD_R, STUD_HEIGHT_MM, color, piece, kind, PART_STUD_SIDE, gloss)
    )


def add_faceted_cylinder(
    mesh: Mesh, cx: float, cy: float, z0: float, z1: float, r: float, color: np.ndarray,
    piece: int, kind: int, n: int = 14, gloss: float = 1.0,
) -> None:
    """A round body cut into side facets (shaded each on its own) plus a top disc."""
    a = np.linspace(0, 2 * math.pi, n + 1)
    for i in range(n):
        p0 = (cx + r * math.cos(a[i]), cy + r * math.sin(a[i]))
        p1 = (cx + r * math.cos(a[i + 1]), cy + r * math.sin(a[i + 1]))
        mid = (a[i] + a[i + 1]) / 2
        normal = np.array([math.cos(mid), math.sin(mid), 0.0])
        quad = np.array([(*p0, z0), (*p1, z0), (*p1, z1), (*p0, z1)])
        mesh.add(quad, normal, color, piece, kind, gloss=gloss)
    mesh.add(_disc(cx, cy, z1, r, n), UP, color, piece, kind, gloss=gloss)


def _cell_box_piece(mesh: Mesh, piece: Piece, index: int, color: np.ndarray, kind: int,
                    gloss: float) -> None:
    """Bricks, columns and corner bricks: a union of cell boxes without inner walls."""
    cells = set(piece.footprint())
    z0 = piece.z * BRICK_MM
    z1 = piece.top * BRICK_MM
    for cx, cy in cells:
        skip = {"z0"}
        lo = [cx * STUD_MM + GAP_MM, cy * STUD_MM + GAP_MM, z0]
        hi = [(cx + 1) * STUD_MM - GAP_MM, (cy + 1) * STUD_MM - GAP_MM, z1]
        for name, (dx, dy), axis, side in (("x0", (-1, 0), 0, 0), ("x1", (1, 0), 0, 1),
                                           ("y0", (0, -1), 1, 0), ("y1", (0, 1), 1, 1)):
            if (cx + dx, cy + dy) in cells:
                skip.add(name)
                # Stretch over the seam so that the union has no gap inside it.
                if side:
                    hi[axis] += GAP_MM
                else:
                    lo[axis] -= GAP_MM
        add_box(mesh, tuple(lo), tuple(hi), color, index, kind, frozenset(skip), gloss)
        add_stud(mesh, (cx + 0.5) * STUD_MM, (cy + 0.5) * STUD_MM, z1, color, index, kind, gloss)


ARCH_SEGMENTS = 6
ARCH_RISE_MM = 6.4  # the opening's height; a plate's thickness of roof stays above it


def _arch(mesh: Mesh, piece: Piece, index: int, color: np.ndarray, kind: int,
          gloss: float) -> None:
    """A 1x4 arch: two leg cells and an elliptic opening under the middle two cells.

    Built in local (u along, v across) coordinates and then laid along x or y.
    """
    ox, oy = piece.x * STUD_MM, piece.y * STUD_MM
    z0, z1 = piece.z * BRICK_MM, piece.top * BRICK_MM
    along_x = piece.axis is Axis.X

    def to_board(u: float, v: float, z: float) -> tuple[float, float, float]:
        return (ox + u, oy + v, z) if along_x else (ox + v, oy + u, z)

    def normal(nu: float, nv: float, nz: float) -> np.ndarray:
        return np.array([nu, nv, nz] if along_x else [nv, nu, nz])

    def quad(pts: list[tuple[float, float, float]], n: np.ndarray) -> None:
        mesh.add(np.array([to_board(*p) for p in pts]), n, color, index, kind, gloss=gloss)

    u0, u1, v0, v1 = GAP_MM, 4 * STUD_MM - GAP_MM, GAP_MM, STUD_MM - GAP_MM
    # Top and the two end walls.
    quad([(u0, v0, z1), (u1, v0, z1), (u1, v1, z1), (u0, v1, z1)], normal(0, 0, 1))
    quad([(u0, v0, z0), (u0, v0, z1), (u0, v1, z1), (u0, v1, z0)], normal(-1, 0, 0))
    quad([(u1, v0, z0), (u1, v1, z0), (u1, v1, z1), (u1, v0, z1)], normal(1, 0, 0))
    # Side walls: the legs as rectangles, the span above the opening as strips.
    a0, a1 = STUD_MM, 3 * STUD_MM
    half = (a1 - a0) / 2
    t = np.linspace(math.pi, 0, ARCH_SEGMENTS + 1)
    arc = [(a0 + half + half * math.cos(ti), z0 + ARCH_RISE_MM * math.sin(ti)) for ti in t]
    for v, nv in ((v0, -1.0), (v1, 1.0)):
        n = normal(0, nv, 0)
        for lo, hi in ((u0, a0), (a1, u1)):
            quad([(lo, v, z0), (hi, v, z0), (hi, v, z1), (lo, v, z1)], n)
        for (ua, za), (ub, zb) in itertools.pairwise(arc):
            quad([(ua, v, za), (ub, v, zb), (ub, v, z1), (ua, v, z1)], n)
    # The underside of the opening (intrados), facing into the opening.
    for (ua, za), (ub, zb) in itertools.pairwise(arc):
        du, dz = ub - ua, zb - za
        length = math.hypot(du, dz)
        n = normal(dz / length, 0, -du / length)
        quad([(ua, v0, za), (ua, v1, za), (ub, v1, zb), (ub, v0, zb)], n)
    # Leg soles are never seen from above the table; the inner leg faces start at the
    # springing line, which lies on the bottom, so there are none.
    for i in range(4):
        cx, cy, _ = to_board((i + 0.5) * STUD_MM, STUD_MM / 2, 0)
        add_stud(mesh, cx, cy, z1, color, index, kind, gloss)


def _leaf(mesh: Mesh, cx: float, cy: float, z: float, angle: float, color: np.ndarray,
          index: int, kind: int, length: float) -> None:
    d = np.array([math.cos(angle), math.sin(angle), -0.12])
    d /= np.linalg.norm(d)
    c = np.array([-math.sin(angle), math.cos(angle), 0.0])
    base = np.array([cx, cy, z])
    shape = [(0.0, 0.0), (0.27, 0.17), (0.6, 0.18), (1.0, 0.0), (0.6, -0.18), (0.27, -0.17)]
    verts = np.array([base + s * length * d + w * length * c for s, w in shape])
    mesh.add(verts, np.cross(d, c), color, index, kind, PART_DETAIL, 0.6, two_sided=True)


def _decoration(mesh: Mesh, piece: Piece, index: int, color: np.ndarray, kind: int,
                gloss: float) -> None:
    cx, cy = (piece.x + 0.5) * STUD_MM, (piece.y + 0.5) * STUD_MM
    z0, z1 = piece.z * BRICK_MM, piece.top * BRICK_MM
    if piece.color == "gold":
        # 3062b: a round 1x1 brick with an open stud.
        add_faceted_cylinder(mesh, cx, cy, z0, z1, STUD_MM / 2 - GAP_MM, color, index, kind,
                             12, gloss)
        add_stud(mesh, cx, cy, z1, color, index, kind, gloss, open_top=True)
        return
    # 30176: round base, a stem, three bamboo leaves overhanging ~2 studs, a stud on top.
    add_faceted_cylinder(mesh, cx, cy, z0, z0 + 3.2, STUD_MM / 2 - GAP_MM, color, index, kind,
                         10, gloss)
    mesh.cylinders.append(Cylinder((cx, cy, z0 + 3.2), 1.6, z1 - z0 - 4.8, color * 0.9, index,
                                   kind, PART_BODY, gloss))
    mesh.cylinders.append(Cylinder((cx, cy, z1 - 1.6), STUD_R, 1.6, color, index, kind,
                                   PART_BODY, gloss))
    mesh.add(_disc(cx, cy, z1, STUD_R), UP, color, index, kind, PART_BODY, gloss)
    add_stud(mesh, cx, cy, z1, color, index, kind, gloss)
    spin = ((piece.x * 7 + piece.y * 13) % 12) * math.pi / 18
    for k in range(3):
        _leaf(mesh, cx, cy, z0 + 6.5 + 0.6 * k, spin + k * 2 * math.pi / 3, color, index, kind,
              length=17.0 - k)


def _animal(mesh: Mesh, piece: Piece, index: int, color: np.ndarray, kind: int) -> None:
    cx, cy = (piece.x + 0.5) * STUD_MM, (piece.y + 0.5) * STUD_MM
    z = piece.z * BRICK_MM

    def box(dx0: float, dy0: float, dz0: float, dx1: float, dy1: float, dz1: float,
            col: np.ndarray = color) -> None:
        add_box(mesh, (cx + dx0, cy + dy0, z + dz0), (cx + dx1, cy + dy1, z + dz1), col,
                index, kind, frozenset({"z0"}), 0.5)

    dark = color * 0.35
    if piece.kind is Kind.MONKEY:
        box(-2.4, -1.8, 0, 2.4, 1.8, 4.6)
        box(-2.6, -2.4, 4.6, 2.6, 2.4, 9.0)
        box(-3.6, -0.8, 6.2, -2.6, 0.8, 7.8)
        box(2.6, -0.8, 6.2, 3.6, 0.8, 7.8)
        box(-1.6, -2.7, 5.2, 1.6, -2.4, 7.4, color * 1.35)
        box(-1.2, 1.8, 0.5, 1.2, 3.4, 1.5)
    elif piece.kind is Kind.FROG:
        box(-3.0, -3.4, 0, 3.0, 3.2, 3.4)
        box(-2.4, -3.6, 2.4, 2.4, 0.6, 4.8)
        box(-2.2, -2.8, 4.8, -0.8, -1.4, 6.2, dark)
        box(0.8, -2.8, 4.8, 2.2, -1.4, 6.2, dark)
    else:  # butterfly: a thin body and two pairs of wings held up in a V
        box(-0.7, -3.0, 0, 0.7, 3.0, 2.4, dark)
        for side in (-1.0, 1.0):
            tilt = np.array([side * math.cos(0.7), 0.0, math.sin(0.7)])
            base = np.array([cx + side * 0.7, cy, z + 2.2])
            for y0, y1, span in ((-3.2, 0.2, 7.5), (0.0, 3.0, 5.5)):
                a, b = np.array([0, y0, 0.0]), np.array([0, y1, 0.0])
                tip = base + tilt * span
                verts = np.array([base + a, base + b, tip + b + (0, 1.5, 0), tip + a - (0, 1.0, 0)])
                normal = np.cross(verts[1] - verts[0], verts[2] - verts[0])
                mesh.add(verts, normal / np.linalg.norm(normal), color, index, kind,
                         PART_DETAIL, 0.5, two_sided=True)


def piece_mesh(piece: Piece, index: int, color: np.ndarray) -> Mesh:
    """The polygons of one piece; ``index`` is what the piece-id map will hold."""
    mesh = Mesh()
    kind = KIND_LABEL[piece.kind]
    gloss = 1.0
    if piece.kind in (Kind.BRICK, Kind.COLUMN, Kind.CORNER):
        _cell_box_piece(mesh, piece, index, color, kind, gloss)
    elif piece.kind is Kind.ARCH:
        _arch(mesh, piece, index, color, kind, gloss)
    elif piece.kind is Kind.DECORATION:
        _decoration(mesh, piece, index, color, kind, 1.6 if piece.color == "gold" else gloss)
    else:
        _animal(mesh, piece, index, color, kind)
    return mesh
