"""The palace as an LDraw model (``.ldr``): the real parts in their real colours.

LDraw is the open CAD format of LEGO models that LeoCAD, Studio and LDView open, so a
player can look at any turn of a game in the tool they already use. Units: a stud is
20 LDU, a brick 24 LDU; LDraw's -Y is up. A part's origin is the centre of its top
face (under its studs), and a baseplate's origin the centre of its top surface.

Board to LDraw: board x -> LDraw X, board y -> LDraw Z, up -> -Y (a proper rotation,
so nothing is mirrored).
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.pieces import BOARD_STUDS, Axis, Kind, Piece

STUD_LDU = 20
BRICK_LDU = 24

PART: dict[Kind, str] = {
    Kind.BRICK: "3005.dat",  # Brick 1 x 1
    Kind.ARCH: "3659.dat",  # Brick Arch 1 x 4
    Kind.COLUMN: "14716.dat",  # Brick 1 x 1 x 3
    Kind.CORNER: "2357.dat",  # Brick 2 x 2 Corner
}
DECORATION_PART = {"light_green": "30176.dat", "dark_green": "30176.dat",  # Plant, bamboo
                   "gold": "3062b.dat"}  # Brick Round 1 x 1 Open Stud
BASEPLATE_PART = "3811.dat"  # Baseplate 32 x 32

# LDraw colour codes of the game's colours.
COLOUR: dict[str, int] = {
    "dark_orange": 484, "tan": 19, "dark_tan": 28, "reddish_brown": 70,
    "light_green": 27,  # Lime
    "dark_green": 2,  # Green
    "gold": 297,  # Pearl Gold
    "green": 2,
}
DEFAULT_COLOUR = 16  # LDraw's "main colour": whatever the viewer's default is
BASEPLATE_COLOUR = 2

_IDENTITY = "1 0 0 0 1 0 0 0 1"
_QUARTER = "0 0 1 0 1 0 -1 0 0"
"""A quarter turn about the vertical: a part's X axis onto the board's y."""
_CORNER_TURN = {0: _IDENTITY, 1: "0 0 -1 0 1 0 1 0 0", 2: "-1 0 0 0 1 0 0 0 -1",
                3: "0 0 1 0 1 0 -1 0 0"}
"""Part 2357 has its origin on the stud of its elbow and its two arms along +X and +Z
(it lacks the (+X, +Z) cell), which is a scene's turn 0; the other turns are quarter
turns about the vertical (never mirrors)."""
_CORNER_ELBOW = {0: (0, 0), 1: (1, 0), 2: (1, 1), 3: (0, 1)}
"""The cell of a corner brick's 2x2 square that holds its elbow, by turn."""


def _line(colour: int, x: float, y: float, z: float, matrix: str, part: str) -> str:
    return f"1 {colour} {x:g} {y:g} {z:g} {matrix} {part}"


def piece_line(piece: Piece) -> str:
    """One type-1 line placing ``piece``; animals (minifig animals with no agreed LDraw
    part) become comment lines that say where they sit."""
    if piece.kind in (Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG):
        return f"0 // {piece.kind.value} sits on stud {piece.x},{piece.y} at level {piece.z}"
    cells = piece.footprint()
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    if piece.kind is Kind.CORNER:
        dx, dy = _CORNER_ELBOW[piece.turn % 4]
        xs, ys = [piece.x + dx], [piece.y + dy]
    cx = (min(xs) + max(xs) + 1) / 2 * STUD_LDU
    cz = (min(ys) + max(ys) + 1) / 2 * STUD_LDU
    top = -piece.top * BRICK_LDU
    colour = COLOUR.get(piece.color, DEFAULT_COLOUR)
    if piece.kind is Kind.DECORATION:
        part = DECORATION_PART.get(piece.color, "3062b.dat")
    else:
        part = PART[piece.kind]
    matrix = _IDENTITY
    if piece.kind is Kind.ARCH and piece.axis is Axis.Y:
        matrix = _QUARTER
    elif piece.kind is Kind.CORNER:
        matrix = _CORNER_TURN[piece.turn % 4]
    return _line(colour, cx, top, cz, matrix, part)


def palace_ldr(pieces: Iterable[Piece], title: str) -> str:
    """The whole model: header, the 32x32 baseplate, then every piece bottom up."""
    half = BOARD_STUDS * STUD_LDU / 2
    lines = [f"0 {title}", "0 Name: palace.ldr", "0 Author: Palace Eye",
             "0 !LDRAW_ORG Unofficial_Model", "",
             _line(BASEPLATE_COLOUR, half, 0, half, _IDENTITY, BASEPLATE_PART)]
    for piece in sorted(pieces, key=lambda p: (p.z, p.y, p.x, p.id)):
        if piece.id:
            lines.append(f"0 // {piece.kind.value} {piece.id}")
        lines.append(piece_line(piece))
    return "\r\n".join(lines) + "\r\n"
