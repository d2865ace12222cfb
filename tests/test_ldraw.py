"""The LDraw model puts each part's studs on the stud cells the piece covers."""

from __future__ import annotations

import numpy as np

from palace.ldraw import STUD_LDU, palace_ldr, piece_line
from rules.pieces import Axis, Kind, Piece, corner_setup

# Studs of the parts in their own frame (from the LDraw library's part files).
PART_STUDS = {
    "2357.dat": [(0, 0), (20, 0), (0, 20)],
    "3659.dat": [(-30, 0), (30, 0)],  # the end studs; the middle two are never built on
    "3005.dat": [(0, 0)],
    "14716.dat": [(0, 0)],
}


def _studs(line: str) -> tuple[str, set[tuple[int, int]], float]:
    fields = line.split()
    x, y, z = map(float, fields[2:5])
    m = np.array(list(map(float, fields[5:14]))).reshape(3, 3)
    assert abs(np.linalg.det(m) - 1) < 1e-9, "a turn, never a mirror"
    cells = set()
    for sx, sz in PART_STUDS[fields[14]]:
        px, _, pz = m @ np.array([sx, 0.0, sz]) + np.array([x, y, z])
        cells.add((int(px // STUD_LDU), int(pz // STUD_LDU)))
    return fields[14], cells, y


def test_every_turn_of_the_corner_brick_covers_its_cells():
    for corner in corner_setup():
        part, cells, top = _studs(piece_line(corner))
        assert part == "2357.dat"
        assert cells == set(corner.footprint()), corner.turn
        assert top == -24


def test_arches_bricks_and_columns_sit_on_their_cells():
    for piece in (Piece(Kind.ARCH, 3, 7, 2, axis=Axis.X), Piece(Kind.ARCH, 3, 7, 0, axis=Axis.Y),
                  Piece(Kind.BRICK, 9, 4, 1), Piece(Kind.COLUMN, 0, 31, 0)):
        _, cells, top = _studs(piece_line(piece))
        assert cells == set(piece.legs()) if piece.kind is Kind.ARCH else set(piece.footprint())
        assert top == -24 * piece.top


def test_the_model_has_the_baseplate_and_every_piece():
    pieces = [*corner_setup(), Piece(Kind.DECORATION, 5, 5, 0, color="gold", id="d1"),
              Piece(Kind.MONKEY, 6, 6, 1, id="monkey")]
    text = palace_ldr(pieces, "test")
    parts = [line.split() for line in text.splitlines() if line.startswith("1 ")]
    assert parts[0][1] == "2" and parts[0][-1] == "3811.dat"
    assert [p[1] for p in parts if p[-1] == "3062b.dat"] == ["297"]
    assert len(parts) == 1 + 5
    assert "monkey sits on stud 6,6" in text
