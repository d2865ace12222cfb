"""The piece catalog: every LEGO part of Monkey Palace with its exact geometry.

All positions are in the stud grid of the 32x32 baseplate: ``x`` and ``y`` are stud
cells (0..31), ``z`` is the bottom of a piece in bricks (0 = standing on the ground
map). A piece is a set of *cells* ``(x, y, z)``, each one stud wide and one brick tall;
what a piece rests on is described by its *legs* and what can rest on it by its
*knobs*. Keeping the geometry as cells makes collision, support and stacking exact
integer questions, which is what a rules engine must be able to answer without doubt.

Millimetre sizes live here too so that the renderer and the calibration agree with the
rules on one set of numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

# Physical LEGO units (docs/game.md).
STUD_MM = 8.0
BRICK_MM = 9.6
PLATE_MM = 3.2
STUD_DIAMETER_MM = 4.8
STUD_HEIGHT_MM = 1.7
BOARD_STUDS = 32
BOARD_MM = BOARD_STUDS * STUD_MM

Cell = tuple[int, int]
Voxel = tuple[int, int, int]


class Kind(StrEnum):
    BRICK = "brick"
    ARCH = "arch"
    COLUMN = "column"
    DECORATION = "decoration"
    CORNER = "corner"
    MONKEY = "monkey"
    BUTTERFLY = "butterfly"
    FROG = "frog"


class Axis(StrEnum):
    X = "x"
    Y = "y"


class DecorationColor(StrEnum):
    """Decoration colours are also the three ground colours of the map."""

    LIGHT_GREEN = "light_green"
    DARK_GREEN = "dark_green"
    GOLD = "gold"


BUILDING_KINDS = frozenset({Kind.BRICK, Kind.ARCH, Kind.COLUMN})
"""Pieces a player takes from the tray and builds staircases with."""
ANIMAL_KINDS = frozenset({Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG})
BUILDING_COLORS = ("dark_orange", "tan", "dark_tan", "reddish_brown")
"""Colours of building pieces; they never matter to the rules."""
COLOR_RGB: Mapping[str, tuple[int, int, int]] = MappingProxyType(
    {
        DecorationColor.LIGHT_GREEN.value: (187, 233, 11),  # lime
        DecorationColor.DARK_GREEN.value: (35, 120, 65),  # green
        DecorationColor.GOLD.value: (170, 127, 46),  # pearl gold
        "dark_orange": (169, 85, 0),
        "tan": (228, 205, 158),
        "dark_tan": (149, 138, 115),
        "reddish_brown": (88, 42, 18),
    }
)
"""LEGO's published sRGB of each decoration and building colour (Rebrickable's colour
table): what the twin paints the pieces with and what the camera tells them apart by."""

HEIGHT_BRICKS: Mapping[Kind, int] = MappingProxyType(
    {
        Kind.BRICK: 1,
        Kind.ARCH: 1,
        Kind.COLUMN: 3,
        Kind.DECORATION: 1,
        Kind.CORNER: 1,
        # Minifig animals sit on a stud; one brick of space is what they block.
        Kind.MONKEY: 1,
        Kind.BUTTERFLY: 1,
        Kind.FROG: 1,
    }
)

LEGO_PART: Mapping[Kind, str] = MappingProxyType(
    {
        Kind.BRICK: "3005",
        Kind.ARCH: "3659",
        Kind.COLUMN: "14716",
        Kind.CORNER: "2357",
    }
)

# A corner brick's `turn` names the cell of its 2x2 square that it lacks (docs/game.md).
_CORNER_MISSING: Mapping[int, Cell] = MappingProxyType({0: (1, 1), 1: (0, 1), 2: (0, 0), 3: (1, 0)})


@dataclass(frozen=True)
class Piece:
    """One physical piece standing on the board.

    ``color`` is the decoration colour for decorations (a :class:`DecorationColor`
    value) and a free building colour otherwise. ``extra`` keeps unknown keys of a scene
    file so that a round trip never loses what another tool wrote.
    """

    kind: Kind
    x: int
    y: int
    z: int = 0
    axis: Axis = Axis.X
    turn: int = 0
    color: str = ""
    id: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    # -- footprint -------------------------------------------------------------------
    @property
    def height(self) -> int:
        """Height in bricks (a column is 3)."""
        return HEIGHT_BRICKS[self.kind]

    @property
    def top(self) -> int:
        """The level just above the piece: where whatever rests on it has its bottom."""
        return self.z + self.height

    def footprint(self) -> tuple[Cell, ...]:
        """The stud cells the piece covers, seen from above (worked out once a piece: the
        rules and the vision decoder ask it hundreds of thousands of times a turn; the
        piece is frozen, so the answer is kept beside its fields, out of its equality)."""
        cells = self.__dict__.get("_footprint")
        if cells is None:
            cells = self.__dict__["_footprint"] = self._footprint()
        return cells

    def _footprint(self) -> tuple[Cell, ...]:
        if self.kind is Kind.ARCH:
            if self.axis is Axis.X:
                return tuple((self.x + i, self.y) for i in range(4))
            return tuple((self.x, self.y + i) for i in range(4))
        if self.kind is Kind.CORNER:
            missing = _CORNER_MISSING[self.turn]
            return tuple(
                (self.x + dx, self.y + dy)
                for dy in (0, 1)
                for dx in (0, 1)
                if (dx, dy) != missing
            )
        return ((self.x, self.y),)

    def voxels(self) -> tuple[Voxel, ...]:
        """Every (x, y, level) cell of space the piece fills, its arch opening included.

        The arch's opening lies inside its own one-brick volume, so counting the
        whole volume as filled is exactly the rule "no bricks inside arches".
        """
        found = self.__dict__.get("_voxels")
        if found is None:
            cells = self.footprint()
            found = self.__dict__["_voxels"] = tuple(
                (cx, cy, lvl) for lvl in range(self.z, self.top) for cx, cy in cells)
        return found

    def on_plate(self) -> bool:
        """Whether the piece lies wholly over the 32x32 plate: every footprint cell on
        it and its bottom at level 0 or above (what the rules call off-plate, and what
        a reader asks before it proposes a piece). Kept beside the fields like the
        footprint: every placement check asks it first, hundreds of thousands a turn."""
        found = self.__dict__.get("_on_plate")
        if found is None:
            found = self.__dict__["_on_plate"] = self.z >= 0 and all(
                0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS for x, y in self.footprint())
        return found

    def legs(self) -> tuple[Cell, ...]:
        """Footprint cells that must each stand on a knob (or the ground map)."""
        cells = self.footprint()
        if self.kind is Kind.ARCH:
            return (cells[0], cells[-1])
        return cells

    def knobs(self) -> tuple[Cell, ...]:
        """Footprint cells with a stud on top that another piece may stand on."""
        if self.kind in ANIMAL_KINDS:
            return ()
        cells = self.footprint()
        if self.kind is Kind.ARCH:
            return (cells[0], cells[-1])
        return cells

    def other_end(self, cell: Cell) -> Cell:
        """An arch's end knob at the other end from ``cell``, one of its end knobs: where
        a staircase arriving at one end goes on from."""
        first, last = self.knobs()
        if cell not in (first, last):
            raise ValueError(f"{cell} is not an end knob of {self.label}")
        return last if cell == first else first

    def forbidden_top(self) -> tuple[Cell, ...]:
        """Top cells that must stay empty: an arch's two middle studs."""
        if self.kind is Kind.ARCH:
            return self.footprint()[1:3]
        return ()

    def moved(self, **changes: Any) -> Piece:
        """The piece with ``changes`` to its fields. A new id alone (what placing a
        piece gives it, tens of thousands of times a turn in a vision decoder's trials)
        is made directly: ``dataclasses.replace`` looks up every field by name first."""
        if len(changes) == 1 and "id" in changes:
            return Piece(self.kind, self.x, self.y, self.z, self.axis, self.turn, self.color,
                         changes["id"], self.extra)
        return replace(self, **changes)

    @property
    def label(self) -> str:
        """How a player would name this piece in a message."""
        name = self.id or f"{self.kind.value}@{self.x},{self.y},{self.z}"
        return f"{self.kind.value} {name}" if self.id else name

    def is_building(self) -> bool:
        return self.kind in BUILDING_KINDS


def missing_corners(pieces: Iterable[Piece], inset: int = 1) -> tuple[Piece, ...]:
    """The default corner bricks when ``pieces`` holds none, else nothing.

    Corner bricks never move, so a scene may leave them out; everything that reads a
    scene (the rules, the CLI, the renderer) puts the same four back.
    """
    if any(p.kind is Kind.CORNER for p in pieces):
        return ()
    return corner_setup(inset)


def corner_setup(inset: int = 1) -> tuple[Piece, ...]:
    """The four corner bricks as the rulebook places them.

    ``inset`` is the number of free studs between the plate's edge and each brick
    (docs/game.md; the default is 1); the L hugs its corner of the plate.
    """
    far = BOARD_STUDS - inset - 2
    spots = ((inset, inset, 0), (far, inset, 1), (far, far, 2), (inset, far, 3))
    return tuple(
        Piece(Kind.CORNER, x, y, 0, turn=turn, color="green", id=f"corner{turn}")
        for x, y, turn in spots
    )


def place_key(piece: Piece) -> tuple[object, ...]:
    """What a reading of the board can tell apart: kind, place, arch axis, decoration
    colour, and which way round a corner brick lies.

    Ids are bookkeeping and building colours never matter to the rules, so two pieces
    with the same key are the same piece as far as a turn is concerned.
    """
    return (piece.kind, piece.x, piece.y, piece.z,
            piece.axis if piece.kind is Kind.ARCH else None,
            piece.color if piece.kind is Kind.DECORATION else None,
            piece.turn if piece.kind is Kind.CORNER else None)


def built_keys(pieces: Iterable[Piece]) -> frozenset[tuple[object, ...]]:
    """The :func:`place_key` of each piece that a reading of the board reads, animals
    aside (the game moves those itself)."""
    return frozenset(place_key(p) for p in pieces if p.kind not in ANIMAL_KINDS)


def same_pieces(a: Iterable[Piece], b: Iterable[Piece]) -> bool:
    """Whether two sets of pieces are the same as far as a reading of the board can
    tell (:func:`built_keys`): how the page and the benches judge a reading right."""
    return built_keys(a) == built_keys(b)


def pieces_added(before: Iterable[Piece], after: Iterable[Piece]) -> tuple[Piece, ...]:
    """Pieces of ``after`` that did not stand in ``before``, matched by place, not id."""
    old = {place_key(p) for p in before}
    return tuple(p for p in after if place_key(p) not in old)


def pieces_built(before: Iterable[Piece], after: Iterable[Piece]) -> tuple[Piece, ...]:
    """What a turn built: the pieces added, animals aside (they only move, and a reading
    of the board does not read them)."""
    return tuple(p for p in pieces_added(before, after) if p.kind not in ANIMAL_KINDS)
