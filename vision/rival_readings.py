"""The rival readings a piece of a reading is weighed against.

One view misleads in a few known ways, and each gives a rival reading: the piece a stud
over, a level up or down, an arch turned about a leg, a column for a brick or for three
bricks in a run and back, no piece at all, an arch for two bricks read at its two
ends; a staircase one step shorter or longer; a level of bricks too many under a
staircase's top; two steps round a square's other corner. Everything here asks only the
palace and the rules, never the picture: :mod:`vision.confidence` scores each rival on
the evidence and takes the margin.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rules.palace import Palace
from rules.pieces import Axis, DecorationColor, Kind, Piece
from vision.candidates import (
    PLANT,
    built_on,
    replaced,
    stack_reordered,
    stack_swap,
    supports,
)
from vision.corners import corner_swapped
from vision.stacks import Supply

REORDER_RIVALS = True
"""Whether a column and the run of three bricks on or under it are weighed in the other
order (:func:`reordered`)."""
END_RIVALS = True
"""Whether a legal reading's decoration, and the arch it stands on, are weighed against
the staircase one step shorter and one step longer (:func:`_one_step_off`). On eight
development sets of 40 turns with seams (games 6000, 7000, 8000, 10000 to 14000 on) it
flags 7 more of 137 wrong pieces (101 to 108) and 15 more of 1546 right ones."""
SHIFT_RIVALS = True
"""Whether the last arch and its decoration are also weighed a stud over together (in x
or y): a short staircase read a stud off has no rival otherwise, since neither can move
alone. On the eight development sets with seams it flags 2 more of 137 wrong pieces and
1 more of 1546 right ones; under deep shadows none either way."""
LEVEL_RIVALS = True
"""Whether each piece is also weighed against the reading with a level of bricks at or
under it taken out and everything above it a level lower (:func:`_level_out`). On
eleven development sets (games 6000 to 16000 on) it flags 4 more of 241 wrong pieces
(one staircase top read a level too high) and no right one; taking out any level, not
only one of bricks, flagged 4 right ones too."""
DECORATION_OUTLINES = (DecorationColor.GOLD.value, PLANT)
"""The two outlines a decoration is weighed in: the round gold one and a plant's."""
LEG_ARCH_RIVALS = True
"""Whether a brick is also weighed against an arch with a leg on its cell whose far leg
takes the place of another brick of the reading at the same level (:func:`_leg_arches`).
On development games 21000 (200 turns) it flags 3 more of 84 wrong pieces (63 to 66) and
3 more of 945 right ones (124 to 127), where the arch scores within 0.7 of the bricks or
better; on games 6000 and 7000 (40 turns each) no flag changes (docs/vision-log.md,
"Two bricks for an arch's two ends")."""
CORNER_RIVALS = True
"""Whether two steps that turn a corner, and a stack holding up the corner, are weighed
against the same two steps round the square's other corner
(:func:`vision.corners.corner_swapped`); the counts are in docs/vision-log.md,
"Two steps round the other corner"."""


def rival_readings(before: Palace, shape: Sequence[Piece], i: int, end: int | None,
                   supply: Supply | None = None) -> list[tuple[list[Piece], Piece | None]]:
    """The readings that can stand on ``before`` with ``shape[i]`` told otherwise, each
    with the piece that stands for it (None: left out); ``end`` is where a legal
    reading's decoration is (None: no legal staircase); ``supply``, where the turn's
    pieces come from (the box alone without it)."""
    others = list(shape[:i]) + list(shape[i + 1:])
    trials: list[tuple[list[Piece], Piece | None]] = []
    if END_RIVALS and end is not None:
        trials += list(_one_step_off(before, shape, i, end))
    if end == i:
        trials += [([*others, alt], alt) for alt in _decoration_rivals(shape, i)]
    else:
        trials.append((others, None))
        trials += [([*others, alt], alt) for alt in _variants(shape[i])
                   if alt.x >= 0 and alt.y >= 0 and alt.z >= 0]
        trials += list(restacked(supply or Supply.of(before), shape, i))
        if REORDER_RIVALS:
            trials += list(reordered(shape, i))
        if LEG_ARCH_RIVALS:
            trials += list(_leg_arches(shape, i))
    if LEVEL_RIVALS:
        trials += list(_level_out(shape, i, end))
    if CORNER_RIVALS:
        trials += list(corner_swapped(before, shape, i))
    return [(trial, alt) for trial, alt in trials if built_on(before, trial) is not None]


def _variants(piece: Piece) -> Iterator[Piece]:
    """The piece as one view most often misreads it alone: a stud or a level over, an
    arch turned about a leg, a brick for a column and back, an arch with a leg on a
    brick's cell (from above a leg looks like a brick)."""
    for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
        yield piece.moved(x=piece.x + dx, y=piece.y + dy, z=piece.z + dz, id="")
    if piece.kind is Kind.ARCH:
        other = Axis.Y if piece.axis is Axis.X else Axis.X
        for lx, ly in piece.legs():
            for shift in (0, -3):
                if other is Axis.X:
                    yield piece.moved(x=lx + shift, y=ly, axis=other, id="")
                else:
                    yield piece.moved(x=lx, y=ly + shift, axis=other, id="")
    if piece.kind is Kind.BRICK:
        yield piece.moved(kind=Kind.COLUMN, id="")
    if piece.kind in (Kind.BRICK, Kind.COLUMN):
        # An arch with a leg on this cell: from above, a leg looks like a brick.
        for shift in range(4):
            yield Piece(Kind.ARCH, piece.x - shift, piece.y, piece.z, axis=Axis.X)
            yield Piece(Kind.ARCH, piece.x, piece.y - shift, piece.z, axis=Axis.Y)
    if piece.kind is Kind.COLUMN:
        yield piece.moved(kind=Kind.BRICK, id="")


def _leg_arches(shape: Sequence[Piece], i: int) -> Iterator[tuple[list[Piece], Piece]]:
    """Brick ``shape[i]`` as the near leg of an arch whose far leg stands where the
    reading has another brick at the same level: the arch's two ends read as two bricks
    of their own, its middle as nothing (hidden by the step above, the palace, or
    priced away). The plain arch on the cell (:func:`_variants`) collides with that
    brick, so the brick had no rival but the arches that turn away from it."""
    piece = shape[i]
    if piece.kind is not Kind.BRICK:
        return
    x, y, z = piece.x, piece.y, piece.z
    for ax, ay, axis in ((x, y, Axis.X), (x - 3, y, Axis.X), (x, y, Axis.Y), (x, y - 3, Axis.Y)):
        arch = Piece(Kind.ARCH, ax, ay, z, axis=axis)
        if not arch.on_plate():
            continue
        fx, fy = next(c for c in arch.legs() if c != (x, y))
        far = next((p for p in shape if p.kind is Kind.BRICK and (p.x, p.y, p.z) == (fx, fy, z)),
                   None)
        if far is not None:
            yield [p for j, p in enumerate(shape) if j != i and p is not far] + [arch], arch


def _decoration_rivals(pieces: Sequence[Piece], i: int) -> Iterator[Piece]:
    """Where the decoration ``pieces[i]`` of a legal reading could stand instead: on the
    other end knob of the arch it stands on, in either outline (a plant's or a round
    one's). Leaving it out, or moving it off an end knob, is no rival there: every
    staircase ends with one decoration on its last arch's end knob, and the arch has its
    own doubts. Nor is its other outline on the same knob: the rules name a legal
    staircase's decoration by the colour where it starts, whatever the outline."""
    piece = pieces[i]
    for arch in pieces:
        if arch.kind is not Kind.ARCH or arch.top != piece.z:
            continue
        if (piece.x, piece.y) in arch.knobs():
            x, y = arch.other_end((piece.x, piece.y))
            for colour in DECORATION_OUTLINES:
                yield Piece(Kind.DECORATION, x, y, piece.z, color=colour)


def _crowned_arch(pieces: Sequence[Piece], crown: Piece) -> Piece | None:
    """The arch of ``pieces`` whose end knob carries ``crown``."""
    for arch in pieces:
        if (arch.kind is Kind.ARCH and arch.top == crown.z
                and (crown.x, crown.y) in arch.knobs()):
            return arch
    return None


def _one_step_off(before: Palace, pieces: Sequence[Piece], i: int, end: int
                  ) -> Iterator[tuple[list[Piece], Piece]]:
    """The reading with its staircase one step shorter or longer, for the decoration
    ``pieces[end]`` (as the decoder scores it) or the arch it stands on, ``pieces[i]``,
    and the piece that stands for it: the last arch left out and the decoration on the
    knob it stood on, one more arch from the decoration's knob with the decoration on
    its far end, or the two a stud over together. Where a staircase ends is where one
    view misleads most: the last arch's far half over a step the palace hides, or a
    decoration's outline on the first knob of an arch the palace hides."""
    crown = pieces[end]
    arch = _crowned_arch(pieces, crown)
    if i != end and pieces[i] is not arch:
        return
    # The reading without its last step (the arch and the decoration on it).
    rest = [p for p in pieces if p is not crown and p is not arch]
    if arch is not None and not any(p.z == arch.top and p is not crown
                                    and set(p.footprint()) & set(arch.footprint())
                                    for p in pieces):
        for x, y in arch.legs():
            if (x, y) != (crown.x, crown.y):
                for colour in DECORATION_OUTLINES:
                    alt = Piece(Kind.DECORATION, x, y, arch.z, color=colour)
                    yield [*rest, alt], alt
    if SHIFT_RIVALS and arch is not None:
        # The last arch and its decoration a stud over together: neither moves alone.
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            moved = arch.moved(x=arch.x + dx, y=arch.y + dy, id="")
            top = crown.moved(x=crown.x + dx, y=crown.y + dy, id="")
            if min(moved.x, moved.y) >= 0:
                yield [*rest, moved, top], (top if i == end else moved)
    if i != end:
        return
    uncrowned = [p for p in pieces if p is not crown]
    built = built_on(before, uncrowned)
    if built is None:
        return
    x, y, z = crown.x, crown.y, crown.z
    for step in (Piece(Kind.ARCH, x, y, z, axis=Axis.X),
                 Piece(Kind.ARCH, x - 3, y, z, axis=Axis.X),
                 Piece(Kind.ARCH, x, y, z, axis=Axis.Y),
                 Piece(Kind.ARCH, x, y - 3, z, axis=Axis.Y)):
        if not step.on_plate():
            continue
        fx, fy = next(c for c in step.knobs() if c != (x, y))
        # The far leg on an open knob, or on a stack the reading left out (bricks and
        # columns the far half of the arch hid, or that the palace hides).
        for way in supports(built[0], fx, fy, z, 0):
            for colour in DECORATION_OUTLINES:
                alt = Piece(Kind.DECORATION, fx, fy, z + 1, color=colour)
                yield [*uncrowned, *way, step, alt], alt


def restacked(supply: Supply, pieces: Sequence[Piece], i: int
              ) -> Iterator[tuple[list[Piece], Piece]]:
    """The reading with piece ``i``'s stack told the other way
    (:func:`~vision.candidates.stack_swap`), and the piece that stands for it: a column
    as three bricks, any run of three bricks it is in as a column. A level hidden behind
    this turn's other pieces, or a shadow across it, leaves the two open; the pieces
    left in the box and in the builder's hand do not (:meth:`vision.stacks.Supply.beyond`):
    a swap that needs more than the reading does is no rival."""
    over = supply.beyond(pieces)
    piece = pieces[i]
    if piece.kind is Kind.COLUMN:
        bases = [piece]
    elif piece.kind is Kind.BRICK:
        at = {p.z: p for p in pieces
              if p.kind is Kind.BRICK and (p.x, p.y) == (piece.x, piece.y)}
        bases = [at[z] for z in range(piece.z - 2, piece.z + 1) if z in at]
    else:
        return
    for base in bases:
        found = stack_swap(base, pieces)
        if found is not None:
            olds, instead = found
            trial = replaced(pieces, olds, instead)
            if supply.beyond(trial) <= over:
                yield trial, instead[0]


def reordered(pieces: Sequence[Piece], i: int) -> Iterator[tuple[list[Piece], Piece]]:
    """The reading with a column and the three bricks on or under it in the other order,
    where piece ``i`` is one of them (:func:`~vision.candidates.stack_reordered`), and
    the column's new place, which stands for the piece. The same pieces, so never beyond
    what may be had: where the hand allows only one column in a six-level stack, this
    is the rival left to doubt it."""
    piece = pieces[i]
    for column in [p for p in pieces if p.kind is Kind.COLUMN
                   and (p.x, p.y) == (piece.x, piece.y)]:
        found = stack_reordered(column, pieces)
        if found is not None and any(o is piece for o in found[0]):
            olds, instead = found
            trial = replaced(pieces, olds, instead)
            yield trial, next(p for p in instead if p.kind is Kind.COLUMN)


def _level_out(shape: Sequence[Piece], i: int, end: int | None
               ) -> Iterator[tuple[list[Piece], Piece | None]]:
    """The reading with a level of bricks at or under ``shape[i]`` taken out and
    everything above it a level lower, and what stands for the piece then (None: taken
    out). A staircase's top read a level too high on bricks under its arch's legs has
    no other rival: every piece of it holds up another, so none can be left out or
    moved alone. A level with an arch or a decoration in it is the staircase's own
    (``end``: where a legal reading's decoration is)."""
    piece = shape[i]
    for level in range(1, piece.z + 1):
        if any(p.kind is Kind.COLUMN and p.z < level < p.top for p in shape):
            continue
        out = [p for p in shape if p.z == level]
        if not out or any(p.kind is not Kind.BRICK for p in out):
            continue
        if end is not None and shape[end].z == level:
            continue
        trial = [p if p.z < level else p.moved(z=p.z - 1, id="")
                 for p in shape if p.z != level]
        alt = None if piece.z == level else piece.moved(z=piece.z - 1, id="")
        yield trial, alt
