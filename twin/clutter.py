"""Things on and over the table that are not the palace: cards, loose bricks, mugs, hands.

They are ordinary polygons in the z-buffer (so a hand over a corner brick hides it and
a loose brick behind the board is hidden by it) and carry piece index ``CLUTTER`` so the
renderer can tell which pixels of the board they cover.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.pieces import BOARD_MM, BUILDING_COLORS, STUD_MM, Axis, Kind, Piece
from twin.mesh import (
    KIND_BACKGROUND,
    PART_DETAIL,
    UP,
    Mesh,
    add_faceted_cylinder,
    piece_mesh,
)
from twin.shading import piece_color

CLUTTER = -2
TABLE_Z = -1.6  # the baseplate's thickness: the table lies this far below the board frame

OTHER_LEGO = ("red", "blue", "yellow", "white", "black", "light_gray")
SKIN_RGB = ((224, 172, 140), (198, 134, 96), (141, 85, 36), (241, 194, 160), (110, 70, 45))


def _bgr(rgb: tuple[int, int, int]) -> np.ndarray:
    return np.array(rgb[::-1], np.float32) / 255.0


def _ellipse(center: np.ndarray, ax: np.ndarray, ay: np.ndarray, n: int = 12) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return center[None, :] + np.cos(a)[:, None] * ax[None, :] + np.sin(a)[:, None] * ay[None, :]


def _flat(mesh: Mesh, verts: np.ndarray, color: np.ndarray, gloss: float = 0.2) -> None:
    normal = np.cross(verts[1] - verts[0], verts[2] - verts[0])
    normal /= np.linalg.norm(normal) + 1e-12
    mesh.add(verts, normal, color, CLUTTER, KIND_BACKGROUND, PART_DETAIL, gloss, two_sided=True)


def add_card(mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
             z: float, tilt: float = 0.0, size: tuple[float, float] = (63.0, 88.0)) -> None:
    """A card (a playing card is 63 x 88 mm, a player board larger): border, face, art."""
    u = np.array([math.cos(angle), math.sin(angle), 0.0])
    v = np.array([-math.sin(angle) * math.cos(tilt), math.cos(angle) * math.cos(tilt),
                  math.sin(tilt)])
    c = np.array([center[0], center[1], z])

    def rect(hw: float, hh: float, lift: float) -> np.ndarray:
        up = np.cross(u, v) * lift
        return np.array([c - hw * u - hh * v, c + hw * u - hh * v, c + hw * u + hh * v,
                         c - hw * u + hh * v]) + up

    hw, hh = size[0] / 2, size[1] / 2
    _flat(mesh, rect(hw, hh, 0.0), np.array(rng.uniform(0.8, 1.0, 3), np.float32))
    face = np.array(rng.uniform(0.1, 0.9, 3), np.float32)
    _flat(mesh, rect(hw - 4.5, hh - 5, 0.05), face)
    _flat(mesh, rect(hw * 0.63, hh * 0.32, 0.1), np.clip(face * rng.uniform(0.4, 1.4), 0, 1))


def add_hand(mesh: Mesh, rng: np.random.Generator, palm: np.ndarray, heading: float,
             scale: float = 1.0, reach: float = 260.0, rise: float = 120.0) -> None:
    """A flat stylised hand: palm, four fingers and a thumb, held nearly level."""
    skin = _bgr(SKIN_RGB[int(rng.integers(len(SKIN_RGB)))]) * np.float32(rng.uniform(0.9, 1.1))
    skin = np.clip(skin, 0, 1)
    tilt = rng.uniform(-0.25, 0.25)
    fwd = np.array([math.cos(heading), math.sin(heading), tilt])
    fwd /= np.linalg.norm(fwd)
    side = np.array([-math.sin(heading), math.cos(heading), rng.uniform(-0.2, 0.2)])
    side -= fwd * (side @ fwd)
    side /= np.linalg.norm(side)
    _flat(mesh, _ellipse(palm, fwd * 45 * scale, side * 40 * scale, 14), skin)
    for k in range(4):
        offset = (k - 1.5) * 17 * scale
        base = palm + side * offset + fwd * 35 * scale
        length = (62 - abs(k - 1.5) * 10) * scale
        tip = base + fwd * length
        w = side * 7.5 * scale
        _flat(mesh, np.array([base - w, base + w, tip + w * 0.8, tip - w * 0.8]), skin * 0.97)
    thumb_base = palm - side * 35 * scale
    thumb_dir = (fwd * 0.6 - side * 0.8) * 50 * scale
    w = fwd * 9 * scale
    _flat(mesh, np.array([thumb_base - w, thumb_base + w, thumb_base + thumb_dir + w * 0.7,
                          thumb_base + thumb_dir - w * 0.7]), skin * 0.95)
    # The forearm leaves the picture backwards.
    arm0 = palm - fwd * 40 * scale
    arm1 = palm - fwd * reach * scale + np.array([0, 0, rise])
    w = side * 38 * scale
    _flat(mesh, np.array([arm0 - w, arm0 + w, arm1 + w * 1.2, arm1 - w * 1.2]),
          np.clip(np.array(rng.uniform(0.1, 0.9, 3), np.float32), 0, 1))


@dataclass(frozen=True)
class Hand:
    """A hand where a caller wants it, not where the seed puts it: a player reaching in.

    ``palm`` is in board millimetres, ``heading`` the direction the fingers point (radians,
    board frame); ``reach`` and ``rise`` say where the forearm leaves (see :func:`add_hand`).
    ``seed`` picks the skin and sleeve, so one player's hand looks the same in every frame.
    """

    palm: tuple[float, float, float]
    heading: float
    scale: float = 1.0
    reach: float = 260.0
    rise: float = 120.0
    seed: int = 0

    def draw(self, mesh: Mesh) -> None:
        add_hand(mesh, np.random.default_rng(self.seed), np.array(self.palm, float),
                 self.heading, self.scale, self.reach, self.rise)


@dataclass(frozen=True)
class _OnTheStuds:
    """A flat thing where a caller wants it, not where the seed puts it, lying on the
    studs over the board's edge. ``center`` is in board millimetres, ``angle`` in
    radians; ``seed`` picks its look."""

    center: tuple[float, float]
    angle: float
    seed: int = 0

    def draw(self, mesh: Mesh) -> None:
        self._lay(mesh, np.random.default_rng(self.seed), np.array(self.center, float),
                  self.angle, CARD_ON_STUDS_MM)

    def _lay(self, mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
             z: float) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Card(_OnTheStuds):
    """A player's card laid over the board's edge between two pictures."""

    def _lay(self, mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
             z: float) -> None:
        add_card(mesh, rng, center, angle, z)

    @classmethod
    def over_an_edge(cls, rng: np.random.Generator) -> Card:
        """A playing card over a side of the board drawn from ``rng``, its middle within
        20 mm of the plate's edge and clear of the corner bricks (players keep those
        free), at any angle."""
        side = int(rng.integers(4))
        along = float(rng.uniform(90.0, BOARD_MM - 90.0))
        across = float(rng.uniform(-20.0, 20.0))
        edge = (0.0, BOARD_MM)[side // 2]
        center = (along, edge + across) if side % 2 == 0 else (edge + across, along)
        return cls(center, float(rng.uniform(0.0, math.pi)), int(rng.integers(1 << 30)))


@dataclass(frozen=True)
class Phone(_OnTheStuds):
    """A player's phone laid over the board's edge between two pictures, as :class:`Card`
    lays a card: a slab 71 x 147 x 8 mm, its case of any colour round a black glass
    screen. No model was ever shown one: it measures how the reader does with a thing
    laid down that it has not learned is no piece."""

    def _lay(self, mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
             z: float) -> None:
        add_phone(mesh, rng, center, angle, z)

    @classmethod
    def over_an_edge(cls, rng: np.random.Generator) -> Phone:
        """A phone over a side of the board drawn from ``rng``, reaching a little way in
        (:func:`_reaching_in`)."""
        return cls(*_reaching_in(rng, PHONE_MM[:2]))


@dataclass(frozen=True)
class Slab:
    """Some other flat thing laid over the board's edge, as :class:`Card` lays a card:
    a book, a box, a wallet, a player board, a folded sheet. A slab 40 to 220 mm a side
    and 0.5 to 25 mm thick of any colour, its top often printed with a patch of another;
    the seed draws its look. The training sets lay these beside cards so that the model
    learns that a thing come or gone over the board's edge is no piece, whatever it looks
    like (a phone, :class:`Phone`, is kept for the bench)."""

    center: tuple[float, float]
    angle: float
    size: tuple[float, float, float]
    """Width, length and thickness, millimetres."""
    seed: int = 0

    def draw(self, mesh: Mesh) -> None:
        add_slab(mesh, np.random.default_rng(self.seed), np.array(self.center, float),
                 self.angle, CARD_ON_STUDS_MM, self.size)

    @classmethod
    def over_an_edge(cls, rng: np.random.Generator) -> Slab:
        """A slab over a side of the board drawn from ``rng``, reaching a little way in
        (:func:`_reaching_in`)."""
        size = (float(rng.uniform(40.0, 220.0)), float(rng.uniform(40.0, 220.0)),
                float(np.exp(rng.uniform(math.log(0.5), math.log(25.0)))))
        center, angle, seed = _reaching_in(rng, size[:2])
        return cls(center, angle, size, seed)


def _reaching_in(rng: np.random.Generator, size: tuple[float, float]
                 ) -> tuple[tuple[float, float], float, int]:
    """Where a thing ``size`` (width, length) laid over a side of the board lies, drawn
    from ``rng``: at any angle, its middle at least 90 mm from the corners (players keep
    the corner bricks free), lying :data:`REACH_IN_MM` into the board past the edge and
    the rest on the table. A larger thing laid as a card is (its middle near the edge)
    would lie through the palace: a real one rests on the edge and goes no further in.
    And the seed of its look."""
    side = int(rng.integers(4))
    along = float(rng.uniform(90.0, BOARD_MM - 90.0))
    angle = float(rng.uniform(0.0, math.pi))
    u, v = (math.cos(angle), math.sin(angle)), (-math.sin(angle), math.cos(angle))
    axis = 1 if side % 2 == 0 else 0  # the board's axis across the edge
    half = abs(size[0] / 2 * u[axis]) + abs(size[1] / 2 * v[axis])
    beyond = half - float(rng.uniform(*REACH_IN_MM))
    edge = (0.0, BOARD_MM)[side // 2]
    across = edge - beyond if side // 2 == 0 else edge + beyond
    center = (along, across) if axis == 1 else (across, along)
    return center, angle, int(rng.integers(1 << 30))


Laid = Card | Phone | Slab
"""A thing laid on purpose over the board's edge (``RenderOptions.cards``)."""
REACH_IN_MM = (10.0, 50.0)
"""How far past the board's edge a phone or a slab reaches in (one to six studs)."""
CARD_ON_STUDS_MM = 2.2
"""Where a card over the board's edge lies: on the studs' tops."""
PHONE_MM = (71.0, 147.0, 8.0)
"""A phone's width, length and thickness."""
PHONE_CASES = ((0.06, 0.06, 0.06), (0.25, 0.25, 0.27), (0.45, 0.2, 0.1), (0.85, 0.85, 0.82),
               (0.7, 0.55, 0.85), (0.2, 0.45, 0.2))
"""Case colours (BGR, 0..1): black, graphite, navy, white, pink, green."""


def _level_rect(center: np.ndarray, angle: float, hw: float, hh: float, height: float
                ) -> NDArray[np.float64]:
    """The four corners of a level rectangle ``2 hw`` by ``2 hh`` turned ``angle`` about
    ``center`` at ``height``."""
    u = np.array([math.cos(angle), math.sin(angle), 0.0])
    v = np.array([-math.sin(angle), math.cos(angle), 0.0])
    c = np.array([center[0], center[1], height])
    return np.array([c - hw * u - hh * v, c + hw * u - hh * v, c + hw * u + hh * v,
                     c - hw * u + hh * v])


def _box(mesh: Mesh, center: np.ndarray, angle: float, z: float,
         size: tuple[float, float, float], side: np.ndarray, top: np.ndarray,
         gloss: float) -> NDArray[np.float64]:
    """A box lying flat with its underside at ``z``: its four sides and its top; the top's
    corners are returned for what is printed or set on it."""
    w, length, thick = size
    bottom = _level_rect(center, angle, w / 2, length / 2, z)
    lid = _level_rect(center, angle, w / 2, length / 2, z + thick)
    for i in range(4):
        j = (i + 1) % 4
        _flat(mesh, np.array([bottom[i], bottom[j], lid[j], lid[i]]), side, gloss)
    _flat(mesh, lid, top, gloss)
    return lid


def add_slab(mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
             z: float, size: tuple[float, float, float]) -> None:
    """A slab (:class:`Slab`) lying flat with its underside at ``z``."""
    colour = np.array(rng.uniform(0.03, 0.95, 3), np.float32)
    gloss = float(rng.uniform(0.05, 0.8))
    lid = _box(mesh, center, angle, z, size, colour * np.float32(rng.uniform(0.6, 1.0)),
               colour, gloss)
    if rng.uniform() < 0.5:  # a cover's print: a patch of another colour on the top
        a, b = rng.uniform(0.05, 0.45, 2)
        c, d = rng.uniform(0.55, 0.95, 2)
        s0, s1 = lid[1] - lid[0], lid[3] - lid[0]
        patch = np.array([lid[0] + a * s0 + b * s1, lid[0] + c * s0 + b * s1,
                          lid[0] + c * s0 + d * s1, lid[0] + a * s0 + d * s1])
        patch[:, 2] += 0.05
        _flat(mesh, patch, np.array(rng.uniform(0.03, 0.95, 3), np.float32), gloss)


def add_phone(mesh: Mesh, rng: np.random.Generator, center: np.ndarray, angle: float,
              z: float) -> None:
    """A phone lying flat with its underside at ``z``: the case's four sides and rim, and
    the screen, black glass that mirrors the lamp."""
    case = np.clip(np.array(PHONE_CASES[int(rng.integers(len(PHONE_CASES)))], np.float32)
                   * np.float32(rng.uniform(0.85, 1.15)), 0, 1)
    _box(mesh, center, angle, z, PHONE_MM, case * 0.8, case, 0.3)
    w, length, thick = PHONE_MM
    screen = _level_rect(center, angle, w / 2 - 3.0, length / 2 - 3.0, z + thick + 0.05)
    _flat(mesh, screen, np.full(3, rng.uniform(0.02, 0.08), np.float32), 0.9)


def _outside_point(rng: np.random.Generator, near: float, far: float) -> np.ndarray:
    """A table point between ``near`` and ``far`` mm outside the board's edge."""
    while True:
        p = rng.uniform(-far, BOARD_MM + far, 2)
        gap = max(-p[0], p[0] - BOARD_MM, -p[1], p[1] - BOARD_MM)
        if near <= gap <= far:
            return p


SETTLED_HAND_BACK_MM = 110.0
"""How far a hand at the board's edge draws back on a settled table: its fingers reach
about this far ahead of the palm's centre."""


def table_clutter(rng: np.random.Generator, reaching: bool = True) -> Mesh:
    """Cards, spare pieces and a mug around the board; some cards overlap its edge.

    ``reaching`` False keeps hands off the board (the one that now and then reaches over
    the palace is left out, one at the board's edge draws back; the random draws are
    made all the same, so the rest of the table stays as it was): a settled table has
    hands at its edges only, since a reader waits for the others to go.
    """
    mesh = Mesh()
    for _ in range(int(rng.integers(0, 7))):
        p = _outside_point(rng, -12, 160)
        gap = max(-p[0], p[0] - BOARD_MM, -p[1], p[1] - BOARD_MM)
        # Over the board's edge a card rests on the studs; players keep the corner
        # bricks clear (cover_corners is how a test hides one on purpose).
        near_corner = min(np.hypot(p[0] - cx, p[1] - cy) for cx in (0, BOARD_MM)
                          for cy in (0, BOARD_MM)) < 90
        if gap <= 45 and near_corner:
            continue
        z = TABLE_Z + 0.3 if gap > 45 else CARD_ON_STUDS_MM + rng.uniform(0, 1)
        add_card(mesh, rng, p, rng.uniform(0, math.pi), z, rng.uniform(-0.05, 0.05))
    if rng.uniform() < 0.4:  # a player board beside the plate
        p = _outside_point(rng, 70, 200)
        add_card(mesh, rng, p, rng.uniform(0, math.pi), TABLE_Z + 1.0, 0.0, (150.0, 100.0))
    for _ in range(int(rng.integers(0, 16))):
        p = _outside_point(rng, 15, 200)
        kind = Kind(rng.choice([Kind.ARCH, Kind.ARCH, Kind.BRICK, Kind.COLUMN, Kind.DECORATION]))
        if kind is Kind.DECORATION:
            color = str(rng.choice(["light_green", "dark_green", "gold"]))
        elif rng.uniform() < 0.25:  # bricks from other sets lying about
            color = str(rng.choice(OTHER_LEGO))
        else:
            color = str(rng.choice(BUILDING_COLORS))
        piece = Piece(kind, 0, 0, 0, axis=Axis.X if rng.uniform() < 0.5 else Axis.Y,
                      color=color)
        loose = piece_mesh(piece, CLUTTER, piece_color(piece))
        angle = rng.uniform(0, 2 * math.pi)
        rot = np.array([[math.cos(angle), -math.sin(angle), 0],
                        [math.sin(angle), math.cos(angle), 0], [0, 0, 1]])
        shift = np.array([p[0], p[1], TABLE_Z]) - rot @ np.array([STUD_MM / 2, STUD_MM / 2, 0])
        loose.polys = [v @ rot.T + shift for v in loose.polys]
        loose.normals = [n @ rot.T for n in loose.normals]
        for cyl in loose.cylinders:
            b = rot @ np.array(cyl.base) + shift
            cyl.base = (float(b[0]), float(b[1]), float(b[2]))
        loose.kind = [KIND_BACKGROUND] * len(loose.kind)
        for cyl in loose.cylinders:
            cyl.kind = KIND_BACKGROUND
        mesh.extend(loose)
    if rng.uniform() < 0.3:
        p = _outside_point(rng, 60, 220)
        color = np.array(rng.uniform(0.1, 0.95, 3), np.float32)
        add_faceted_cylinder(mesh, p[0], p[1], TABLE_Z, TABLE_Z + rng.uniform(80, 110),
                             rng.uniform(36, 45), color, CLUTTER, KIND_BACKGROUND, 16, 0.8)
        inner = _ellipse(np.array([p[0], p[1], TABLE_Z + 100.5]), np.array([30.0, 0, 0]),
                         np.array([0, 30.0, 0]), 14)
        mesh.add(inner, UP, color * 0.3, CLUTTER, KIND_BACKGROUND, PART_DETAIL, 0.1)
    if rng.uniform() < 0.35:
        edge = _outside_point(rng, -20, 10)
        center = np.array([BOARD_MM / 2, BOARD_MM / 2])
        heading = math.atan2(*(center - edge)[::-1])
        if not reaching:  # resting at the board's edge, the fingertips short of the studs
            edge = edge - SETTLED_HAND_BACK_MM * np.array([math.cos(heading), math.sin(heading)])
        add_hand(mesh, rng, np.array([edge[0], edge[1], rng.uniform(25, 80)]), heading,
                 rng.uniform(0.85, 1.1))
    elif rng.uniform() < 0.2:  # a player reaching over the palace to place a piece
        spot = rng.uniform(40, BOARD_MM - 40, 2)
        side = int(rng.integers(4))  # the player's side of the table
        heading = side * math.pi / 2 + rng.normal(0, 0.3)
        to_edge = (spot[0], spot[1], BOARD_MM - spot[0], BOARD_MM - spot[1])[side]
        reach = Mesh()
        add_hand(reach, rng, np.array([spot[0], spot[1], rng.uniform(45, 90)]), heading,
                 rng.uniform(0.85, 1.1), reach=to_edge + 200, rise=rng.uniform(40, 90))
        if reaching:
            mesh.extend(reach)
    return mesh


def corner_cover(mesh: Mesh, rng: np.random.Generator, target: np.ndarray, eye: np.ndarray,
                 use_card: bool) -> None:
    """A hand or a held card between the camera and a corner brick, hiding it."""
    height = rng.uniform(35.0, 55.0)
    t = (height - target[2]) / max(eye[2] - target[2], 1e-6)
    spot = target + t * (eye - target)
    heading = math.atan2(spot[1] - BOARD_MM / 2, spot[0] - BOARD_MM / 2) + math.pi
    if use_card:
        add_card(mesh, rng, spot[:2], rng.uniform(0, math.pi), spot[2], rng.uniform(-0.3, 0.3))
    else:
        palm = spot - np.array([math.cos(heading), math.sin(heading), 0.0]) * 10
        add_hand(mesh, rng, palm, heading, rng.uniform(0.95, 1.1))

