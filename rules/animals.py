"""Where the Monkey, the Butterfly and the Frog go when their trophy changes hands.

Each animal is one minifig on the palace, so moving it means lifting it from wherever
it sat and putting it on its new stud; without an open stud for it, it waits beside
the board (the trophy card still moves).
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, Kind, Piece, Voxel


class AnimalError(ValueError):
    """An animal put where its trophy does not allow it."""


def open_arch_knobs(palace: Palace, arches: Sequence[Piece] | None = None) -> list[Voxel]:
    """Open end knobs of ``arches`` (of every arch on the palace by default)."""
    pool = arches if arches is not None else [p for p in palace if p.kind is Kind.ARCH]
    return [(x, y, a.top) for a in pool if a.kind is Kind.ARCH
            for x, y in a.knobs() if palace.is_open_knob(x, y, a.top)]


def monkey_spot(palace: Palace) -> Voxel | None:
    """The default stud for the Monkey: the highest open arch end knob, since blocking
    the top of the palace hinders the other players most."""
    knobs = open_arch_knobs(palace)
    return max(knobs, key=lambda v: (v[2], -v[1], -v[0])) if knobs else None


def frog_spot(palace: Palace, staircase: Sequence[Piece]) -> Voxel | None:
    """The rulebook's place for the Frog: the lowest open end knob of the new staircase."""
    knobs = open_arch_knobs(palace, staircase)
    return min(knobs, key=lambda v: (v[2], v[1], v[0])) if knobs else None


def check_monkey_spot(palace: Palace, staircase: Sequence[Piece], spot: Voxel) -> None:
    """Raises :class:`AnimalError` unless ``spot`` is an open arch end knob once the
    staircase stands (the Monkey itself having left its old stud)."""
    probe = palace.copy()
    lift(probe, Kind.MONKEY)
    for piece in sorted(staircase, key=lambda p: p.z):
        if piece.kind not in ANIMAL_KINDS:
            probe.place(piece)
    x, y, z = spot
    owner = probe.knob_owner(x, y, z)
    if owner is None or owner.kind is not Kind.ARCH or not probe.is_open_knob(x, y, z):
        raise AnimalError(f"the Monkey must sit on an open arch end knob; "
                          f"stud {x},{y} at level {z} is not one")


def lift(palace: Palace, kind: Kind) -> None:
    """Takes the animal of ``kind`` off the palace, if it is there."""
    for piece in [p for p in palace if p.kind is kind]:
        palace.remove(piece.id)


def put(palace: Palace, kind: Kind, spot: Voxel | None) -> list[Piece]:
    """Moves the animal of ``kind`` to ``spot`` (or beside the board when None); returns
    the piece placed, if any."""
    lift(palace, kind)
    if spot is None:
        return []
    x, y, z = spot
    return [palace.place(Piece(kind, x, y, z, id=kind.value))]
