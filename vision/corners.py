"""Two steps round a square's other corner: a rival reading for the confidence.

Two steps that turn a corner (an arch, and the next one up with a leg on its end knob,
across it) start and end where the same two steps round the square's other corner do.
One view shows the square's four corners at nearly the same places, the far one hidden
behind the near, so the decoder can take the turn at the wrong corner, on a stack it
adds to hold that corner up. :mod:`vision.confidence` weighs each of those pieces
against the reading round the other corner. Everything here asks only the palace and
the rules, never the picture.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece
from vision.candidates import built_on, supports


def arch_between(a: tuple[int, int], b: tuple[int, int], z: int) -> Piece:
    """The arch at level ``z`` whose legs stand on cells ``a`` and ``b`` (3 studs apart)."""
    axis = Axis.X if a[1] == b[1] else Axis.Y
    return Piece(Kind.ARCH, min(a[0], b[0]), min(a[1], b[1]), z, axis=axis)


def corner_swapped(before: Palace, shape: Sequence[Piece], i: int
                   ) -> Iterator[tuple[list[Piece], Piece | None]]:
    """The reading with two steps that turn a corner taken round the square's other
    corner (held up there by what stands, or by a stack the palace may hide), and what
    stands for ``shape[i]`` then (None: a brick or column that held the first step's leg
    at the corner, taken out). Only the two arches and that stack have this rival."""
    for low in shape:
        if low.kind is not Kind.ARCH:
            continue
        for high in shape:
            if high.kind is not Kind.ARCH or high.z != low.top or high.axis is low.axis:
                continue
            corner = next((c for c in high.legs() if c in low.knobs()), None)
            if corner is None:
                continue
            a = next(c for c in low.legs() if c != corner)
            b = next(c for c in high.legs() if c != corner)
            other = (a[0] + b[0] - corner[0], a[1] + b[1] - corner[1])
            if min(other) < 0:
                continue
            held = stack_under(shape, corner, low.z)
            if shape[i] is not low and shape[i] is not high and not any(
                    p is shape[i] for p in held):
                continue
            rest = [p for p in shape
                    if p is not low and p is not high and not any(p is q for q in held)]
            # What stands under the turn, to hold the other corner up from.
            built = built_on(before, [p for p in rest if p.top <= low.z])
            if built is None:
                continue
            turned = arch_between(a, other, low.z), arch_between(other, b, high.z)
            alt = (turned[0] if shape[i] is low else turned[1] if shape[i] is high
                   else None)
            for way in supports(built[0], other[0], other[1], low.z, 0):
                yield [*rest, *way, *turned], alt


def stack_under(shape: Sequence[Piece], cell: tuple[int, int], z: int) -> list[Piece]:
    """The bricks and columns of ``shape`` stacked on ``cell`` right under level ``z``."""
    stack: list[Piece] = []
    while z > 0:
        below = next((p for p in shape if p.top == z and p.footprint() == (cell,)
                      and p.kind in (Kind.BRICK, Kind.COLUMN)), None)
        if below is None:
            break
        stack.append(below)
        z = below.z
    return stack
