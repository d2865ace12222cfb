"""Where a piece may physically stand: on the plate and off the map's blocked areas, in
free space, every leg on a stud (not a corner brick's nor an animal's), nothing on an
arch's middle studs or in its opening.

The checks take mappings of the space already filled rather than a
:class:`~rules.palace.Palace`, so that the palace itself, the staircase analysis (which
judges a turn's pieces against a layered view of the board without copying it) and a
whole scene's check (:func:`physics_violations`, bottom-up) share one set of rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rules.maps import GroundMap
from rules.pieces import (
    ANIMAL_KINDS,
    Kind,
    Piece,
    Voxel,
)
from rules.report import Violation


def placement_violations(
    piece: Piece,
    ground: GroundMap,
    space: Mapping[Voxel, str],
    knobs: Mapping[Voxel, str],
    forbidden: Mapping[Voxel, str],
    pieces: Mapping[str, Piece],
) -> list[Violation]:
    """Physical checks for one piece against already indexed space.

    Takes mappings rather than a Palace so that the staircase analysis can judge a
    turn's pieces against a layered view of the board without copying it.
    """
    ids = (piece.id,) if piece.id else ()
    out: list[Violation] = []
    if not piece.on_plate():
        out.append(Violation("off-plate", ids, f"{piece.label} lies off the 32x32 plate"))
        return out
    for v in piece.voxels():
        other = space.get(v)
        if other is not None and other != piece.id:
            where = f"stud {v[0]},{v[1]} level {v[2]}"
            out.append(Violation("overlap", (*ids, other),
                                 f"{piece.label} overlaps {pieces[other].label} at {where}"))
            break
    if piece.kind is Kind.CORNER:
        return out
    legs = piece.legs()
    if piece.z == 0:
        blocked = [c for c in legs if not ground.buildable(*c)]
        if blocked:
            x, y = blocked[0]
            out.append(Violation("blocked", ids,
                                 f"{piece.label} stands on blocked ground at stud {x},{y}"))
        return out
    owners: list[str] = []
    for x, y in legs:
        owner = knobs.get((x, y, piece.z))
        if owner is None:
            if (x, y, piece.z) in forbidden:
                arch = pieces[forbidden[(x, y, piece.z)]]
                out.append(Violation("D", (*ids, arch.id),
                                     f"{piece.label} stands on a centre knob of {arch.label}"))
            else:
                out.append(Violation("F", ids,
                                     f"{piece.label} is not fully supported: nothing under "
                                     f"stud {x},{y} at level {piece.z}"))
            continue
        support = pieces[owner]
        if support.kind is Kind.CORNER:
            out.append(Violation("corner", (*ids, owner),
                                 f"{piece.label} stands on {support.label}"))
        elif support.kind in ANIMAL_KINDS:
            out.append(Violation("F", (*ids, owner),
                                 f"{piece.label} stands on the {support.kind.value}"))
        owners.append(owner)
    if (piece.kind is Kind.ARCH and len(owners) == 2 and owners[0] == owners[1]
            and pieces[owners[0]].kind is Kind.ARCH):
        out.append(Violation("G", (*ids, owners[0]),
                             f"{piece.label} sits directly on top of {pieces[owners[0]].label}"))
    return out


def piece_fits(piece: Piece, ground: GroundMap, space: Mapping[Voxel, str],
          knobs: Mapping[Voxel, str], pieces: Mapping[str, Piece]) -> bool:
    """Whether :func:`placement_violations` finds nothing: the same checks in the same
    order, each a plain no at its first problem."""
    if not piece.on_plate():
        return False
    pid = piece.id
    for v in piece.voxels():
        other = space.get(v)
        if other is not None and other != pid:
            return False
    if piece.kind is Kind.CORNER:
        return True
    legs = piece.legs()
    if piece.z == 0:
        return all(ground.buildable(*c) for c in legs)
    owners: list[str] = []
    for x, y in legs:
        owner = knobs.get((x, y, piece.z))
        if owner is None:
            return False  # a centre knob of an arch, or nothing at all
        kind = pieces[owner].kind
        if kind is Kind.CORNER or kind in ANIMAL_KINDS:
            return False
        owners.append(owner)
    return not (piece.kind is Kind.ARCH and len(owners) == 2 and owners[0] == owners[1]
                and pieces[owners[0]].kind is Kind.ARCH)


def physics_violations(pieces: Iterable[Piece], ground: GroundMap) -> list[Violation]:
    """Every physical problem of a whole scene, each named once, in bottom-up order.

    Pieces are checked level by level so that a piece is judged against everything
    below and beside it, and each problem names the piece that causes it.
    """
    space: dict[Voxel, str] = {}
    knobs: dict[Voxel, str] = {}
    forbidden: dict[Voxel, str] = {}
    by_id: dict[str, Piece] = {}
    out: list[Violation] = []
    ordered = sorted(enumerate(pieces), key=lambda ip: (ip[1].z, ip[0]))
    for index, piece in ordered:
        key = piece.id or f"#{index}"
        if key in by_id:
            out.append(Violation("overlap", (key,), f"piece id {key} is used twice"))
            continue
        named = piece if piece.id else piece.moved(id=key)
        problems = placement_violations(named, ground, space, knobs, forbidden, by_id)
        out.extend(problems)
        by_id[key] = named
        for v in named.voxels():
            space.setdefault(v, key)
        for x, y in named.knobs():
            knobs.setdefault((x, y, named.top), key)
        for x, y in named.forbidden_top():
            forbidden.setdefault((x, y, named.top), key)
    return out


IMPOSSIBLE_RULES = frozenset({"off-plate", "overlap", "floating"})
"""Problems that no real table can show, so a scene holding them is bad input."""


def impossible_violations(pieces: Iterable[Piece], ground: GroundMap) -> list[Violation]:
    """Off-plate pieces, pieces sharing space, and pieces with nothing at all under them.

    These separate a scene that is wrong (a misread photo, a typo in a file) from one
    that is only against the rules: a brick on an arch's centre studs or an arch with
    one leg in the air can stand on a real table, a brick hovering in mid-air cannot.
    """
    listed = list(pieces)
    out = [v for v in physics_violations(listed, ground) if v.rule in IMPOSSIBLE_RULES]
    filled: set[Voxel] = set()
    for piece in listed:
        filled.update(piece.voxels())
    for index, piece in enumerate(listed):
        if piece.z <= 0 or piece.kind is Kind.CORNER:
            continue
        if not any((x, y, piece.z - 1) in filled for x, y in piece.legs()):
            key = piece.id or f"#{index}"
            who = piece.label if piece.id else f"{piece.label} (piece #{index})"
            out.append(Violation("floating", (key,),
                                 f"{who} floats in the air: nothing under it at level {piece.z}"))
    return out
