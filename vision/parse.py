"""From carved voxels to pieces: the palace that the rules allow and the carving supports.

The carving (:mod:`vision.carve`) says, per one-stud, one-brick voxel, how surely it holds
something; it cannot say where one piece ends and the next begins, and it keeps some
voxels no view sees through. The rules say most of the rest: every piece stands on the
ground or on knobs of pieces below, nothing stands on an arch's two middle studs, an arch
spans four cells in a line with only its end cells as legs. So candidate pieces at
every level (arches both ways, columns, bricks) are scored by the carving over their
voxels, less what a voxel must show to be paid for (nearly all of it: the carving
keeps far more than the palace), and chosen best first, each on voxels no better one
took; then they are stood up bottom up where the rules let them, a leg with nothing
under it held up by a stack of bricks where the carving allows, since the piece above
says the stack is there. An arch outscores the bricks of its cells (it explains four
voxels at once, and a run of four filled cells whose middle has nothing under it can
only be an arch). A brick off the ground with nothing on it is a decoration where its
colour is a decoration's (the plants are far greener than any building colour, the
gold one far more saturated than tan), named by the nearest of the three; plants the
carving left out (their pixels are read apart) are looked for on arches' open end
knobs, where the rules put every decoration.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.maps import GroundMap
from rules.palace import Palace
from rules.pieces import COLOR_RGB, Axis, DecorationColor, Kind, Piece
from vision.carve import Carving

PAID = 0.95
"""Carving score a voxel must show to pay for a piece covering it: nearly sure. The
carving keeps far more voxels than the palace has (those no view sees through), so a
piece is chosen only where its voxels are surely filled, and what the views hide is
put back by the rules (a leg's stack, :func:`_props`), not by the carving. On nine
development palaces (games 2001-2010, 10 to 120 pieces) piece F1 rose from 0.35 at 0.7
to 0.48 at 0.95 (0.46 at 0.98)."""
LEAST = 0.45
"""No piece is placed with a voxel below this score (nor a leg's stack put back through
one): an arch must not bridge a gap, nor a stack stand where a view sees the board."""
ARCH_BONUS = 0.6
"""Added to an arch's score: arches outnumber bricks in every game, and four bricks in a
line with one colour are rarer than one arch."""
PROP_DEPTH = 2
"""Most bricks put back under one leg of an arch (:func:`_props`; other pieces
:data:`PROP_DEPTH_OTHERS`). The carving keeps the space under a piece that stands where
nothing does, so a deep stack mostly props up a phantom: on eight development palaces
110 of 131 bricks put back were wrong. Before the search (:mod:`vision.pick`) existed
one brick read best (F1 on ten development palaces 0.529 unbounded, 0.540 at 2, 0.543
at 1, 0.522 at 0); with it, two: the upper pieces stand on stacks their neighbours
hide, and the search weighs what the stack holds up (ten development palaces and three
of 120 pieces, every piece alike: F1 0.562 and 0.343 at 1, 0.587-0.589 and 0.352-0.353
at 2 (the search is cut by time, so runs differ by a piece or two), 0.597 and 0.338 at
3, 0.574 and 0.344 unbounded; docs/vision-log.md, "The upper pieces")."""
PROP_DEPTH_OTHERS = 1
"""Most bricks put back under a brick's or a column's leg: a stack of bricks on a hidden
stack is mostly the phantom layer over the palace (the staircases' upper steps are
arches). With two for these too, ten development palaces and three of 120 pieces read
F1 0.587 and 0.352 (217 and 110 right of 364 and 284 read); with one, 0.597 and 0.359
(213 and 106 of 338 and 250)."""
COLUMN_BONUS = -0.2
"""Columns are rare (16 in the box against 80 bricks): three bricks are preferred unless
the carving is sure."""

DECORATION_COLOURS = frozenset(c.value for c in DecorationColor)


def colour_distance(bgr: NDArray[np.floating], name: str) -> float:
    """How far a colour's shares of red, green and blue lie from the LEGO colour
    ``name``'s: brightness is left out, since faces are shaded alike."""
    rgb = np.asarray(bgr, np.float64)[::-1]
    share = rgb / max(float(rgb.sum()), 1.0)
    ref = np.array(COLOR_RGB[name], np.float64)
    return float(np.linalg.norm(share - ref / ref.sum()))


def nearest_colour(bgr: NDArray[np.floating]) -> str:
    """The LEGO colour (building or decoration) whose shares of red, green and blue lie
    nearest a voxel's colour (:func:`colour_distance`)."""
    return min(COLOR_RGB, key=lambda name: colour_distance(bgr, name))


def candidates(level: int, carving: Carving) -> list[tuple[float, Piece]]:
    """Every piece that could stand with its bottom at ``level`` and has all its voxels at
    or above :data:`LEAST`, with its score (the voxels' scores less :data:`PAID`); an
    arch's middle cells are scored by their roofs, since their openings are empty."""
    full, roof = carving.full, carving.roof
    nx, ny, levels = full.shape
    s = full[:, :, level] - PAID
    r = roof[:, :, level] - PAID
    ok = full[:, :, level] >= LEAST
    ok_roof = roof[:, :, level] >= LEAST
    out: list[tuple[float, Piece]] = []
    for x, y in np.argwhere(ok).tolist():
        out.append((float(s[x, y]), Piece(Kind.BRICK, x, y, level)))
        if level + 3 <= levels and (full[x, y, level:level + 3] >= LEAST).all():
            gain = float((full[x, y, level:level + 3] - PAID).sum()) + COLUMN_BONUS
            out.append((gain, Piece(Kind.COLUMN, x, y, level)))
    for axis, dx, dy in ((Axis.X, 1, 0), (Axis.Y, 0, 1)):
        xs = nx - 3 * dx
        ys = ny - 3 * dy
        run = np.ones((xs, ys), bool)
        gain = np.zeros((xs, ys), np.float32)
        for i in range(4):
            end = i in (0, 3)
            run &= (ok if end else ok_roof)[i * dx:i * dx + xs, i * dy:i * dy + ys]
            gain += (s if end else r)[i * dx:i * dx + xs, i * dy:i * dy + ys]
        for x, y in np.argwhere(run).tolist():
            out.append((float(gain[x, y]) + ARCH_BONUS, Piece(Kind.ARCH, x, y, level, axis=axis)))
    return out


def parse(carving: Carving, ground: GroundMap, base: Sequence[Piece],
          colours: NDArray[np.float32] | None = None) -> list[Piece]:
    """The pieces, beyond ``base`` (the corner bricks), that the ``carving`` supports and
    the rules let stand; ``colours`` (BGR per voxel) name the decorations.

    Pieces are first chosen best first over all levels, each taking voxels no better one
    took (a high arch is surer than the low brick under its leg, which its neighbours
    hide); then they are stood up bottom up, and a leg with nothing under it is held up
    by bricks down the stack where the carving allows, since the piece above says the
    stack is there."""
    levels = carving.full.shape[2]
    ranked = sorted((c for level in range(levels) for c in candidates(level, carving)),
                    key=lambda c: -c[0])
    taken: set[tuple[int, int, int]] = set()
    chosen: list[Piece] = []
    for gain, piece in ranked:
        if gain <= 0:
            break
        cells = piece.voxels()
        if any(v in taken for v in cells):
            continue
        if piece.z > 0 and any(carving.full[x, y, piece.z - 1] < LEAST
                               for x, y in piece.legs()):
            continue
        taken.update(cells)
        chosen.append(piece)
    palace = Palace(ground, base)
    placed: list[Piece] = []
    for piece in sorted(chosen, key=lambda p: p.z):
        if palace.check(piece):
            props = _props(piece, palace, carving.full)
            if props is None:
                continue
            for prop in props:
                placed.append(palace.place(prop))
        if not palace.check(piece):
            placed.append(palace.place(piece))
    if colours is None:
        return placed
    named = _leaves_dropped([_named(p, colours, palace) for p in placed], colours)
    return [p.moved(id="") for p in named + _plants(palace, carving, colours)]


def _leaves_dropped(pieces: list[Piece], colours: NDArray[np.float32]) -> list[Piece]:
    """A decoration read on a brick whose own colour is a decoration's too is the plant's
    leaves over the plant: the brick is the decoration, the piece above it goes. A
    plant's leaves rise over its body and fill part of the voxel above, which the
    carving keeps."""
    at = {(p.x, p.y, p.z): p for p in pieces}
    out = list(pieces)
    for top in pieces:
        below = at.get((top.x, top.y, top.z - 1))
        if (top.kind is not Kind.DECORATION or below is None or below.kind is not Kind.BRICK
                or top not in out or below not in out):
            continue
        name = nearest_colour(colours[below.x, below.y, below.z])
        if name not in DECORATION_COLOURS:
            continue
        out.remove(top)
        out[out.index(below)] = below.moved(kind=Kind.DECORATION, color=name)
    return out


def _props(piece: Piece, palace: Palace, score: NDArray[np.float32]) -> list[Piece] | None:
    """Bricks that would hold up ``piece``'s unsupported legs, each stack down to a knob
    or the ground, at most :data:`PROP_DEPTH` tall under an arch and
    :data:`PROP_DEPTH_OTHERS` under anything else, every voxel of them carved at least
    :data:`LEAST`; None if there are none such."""
    depth = PROP_DEPTH if piece.kind is Kind.ARCH else PROP_DEPTH_OTHERS
    out: list[Piece] = []
    for x, y in piece.legs():
        if piece.z == 0 or palace.knob_owner(x, y, piece.z) is not None:
            continue
        level = piece.z - 1
        stack = []
        while level >= 0 and palace.occupant(x, y, level) is None:
            if score[x, y, level] < LEAST or len(stack) >= depth:
                return None
            stack.append(Piece(Kind.BRICK, x, y, level))
            level -= 1
        if level >= 0 and palace.knob_owner(x, y, level + 1) is None:
            return None
        out.extend(reversed(stack))
    trial = palace.copy()
    for prop in out:
        if trial.check(prop):
            return None
        trial.place(prop)
    return out if not trial.check(piece) else None


def _named(piece: Piece, colours: NDArray[np.float32], palace: Palace) -> Piece:
    """A brick off the ground with nothing on it and a decoration's colour, as that
    decoration (a plant whose stem the carving kept; the others are read from their
    green, :func:`_plants`). The arch it should stand on is not asked for: the parse
    often reads an arch's end as a brick, and the colour says more."""
    if (piece.kind is not Kind.BRICK or piece.z == 0
            or palace.occupant(piece.x, piece.y, piece.z + 1)):
        return piece
    name = nearest_colour(colours[piece.x, piece.y, piece.z])
    if name in DECORATION_COLOURS:
        return piece.moved(kind=Kind.DECORATION, color=name)
    return piece


PLANT_LEAST = 0.3
"""Least plant score (share of a voxel's points on changed plant-green pixels, in the
view that shows least of it) for a plant on an open knob."""
LEAF_REACH = 2
"""Studs a plant's leaves reach: within it, only the surest plant of a level is kept,
since the leaves make every knob around a plant look green."""


def _plants(palace: Palace, carving: Carving, colours: NDArray[np.float32]) -> list[Piece]:
    """Plants on the palace's open knobs where every view shows plant-green there, the
    surest first, none within a leaf's reach of a surer one; each placed in ``palace``."""
    levels = carving.green.shape[2]
    knobs = sorted(((float(carving.green[x, y, z]), (x, y, z))
                    for x, y, z in palace.open_knobs() if z < levels),
                   key=lambda c: -c[0])
    out: list[Piece] = []
    for score, (x, y, z) in knobs:
        if score < PLANT_LEAST:
            break
        if not on_arch_end(palace, x, y, z):
            continue
        if any(abs(p.x - x) <= LEAF_REACH and abs(p.y - y) <= LEAF_REACH and abs(p.z - z) <= 1
               for p in out):
            continue
        colour = _plant_colour(colours[x, y, z])
        piece = Piece(Kind.DECORATION, x, y, z, color=colour)
        if palace.check(piece):
            continue
        out.append(palace.place(piece).moved(id=""))
    return out


def on_arch_end(palace: Palace, x: int, y: int, z: int) -> bool:
    """Whether the knob at (x, y) under ``level`` z is an arch's end knob: the only place a
    decoration is ever put (rule 6), so a green or gold top elsewhere is something else
    (a corner brick's green beside it, a leaf over a brick)."""
    owner = palace.knob_owner(x, y, z) if z > 0 else None
    return owner is not None and owner.kind is Kind.ARCH


def _plant_colour(bgr: NDArray[np.floating]) -> str:
    """Lime or green, whichever of the two plants' colours lies nearer."""
    light = DecorationColor.LIGHT_GREEN.value
    dark = DecorationColor.DARK_GREEN.value
    return light if colour_distance(bgr, light) <= colour_distance(bgr, dark) else dark
