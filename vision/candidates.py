"""Candidate pieces: what could physically stand where the picture changed.

The decoder (:mod:`vision.decode`) only ever scores additions that can stand on the
palace read so far: a piece alone, or an arch with what holds its legs up (stacks of
bricks and columns, or the staircase's previous steps, which a player builds and a
camera mostly cannot see). This module says which pieces could fill a voxel, how an
arch's legs can be held up, and (the rules' word on a reading) which piece ends the
staircase and whether the reading is a legal one.
Everything here asks only the palace and the rules, never the picture.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

from rules.moves import support_base
from rules.palace import Palace, PalaceError
from rules.pieces import BOARD_STUDS, Axis, DecorationColor, Kind, Piece
from rules.report import TurnReport
from rules.staircase import analyse_added

PLANT = "light_green"
"""The colour a plant decoration is decoded with; which green it is is read afterwards."""
MAX_STACK = 4
"""Most pieces in one stack under an arch's leg the decoder tries (columns counted
once)."""
SUPPORT_DEPTH = 1
"""Steps of a staircase the decoder may put under an arch it sees in one move."""


@functools.lru_cache(maxsize=1 << 16)
def _piece(kind: Kind, x: int, y: int, z: int, axis: Axis = Axis.X, color: str = "") -> Piece:
    """The piece of that kind and place, made once and shared: pieces are frozen, and
    the decoder asks for the same few thousand a turn again and again (making one costs
    more than scoring a pixel list). Their ``extra`` dict is shared with every reading
    and palace they end up in, so nothing may write into it in place."""
    return Piece(kind, x, y, z, axis=axis, color=color)


def shapes_at(x: int, y: int, z: int) -> Iterator[Piece]:
    """Every building piece with a voxel at (x, y, z), and a plant decoration there. A
    round decoration is grown as the brick whose outline holds it; the rules' crown and
    the whole staircases weigh it round (:data:`vision.voxels.ROUND`), and the
    rules tell the two apart later."""
    yield _piece(Kind.BRICK, x, y, z)
    yield _piece(Kind.DECORATION, x, y, z, Axis.X, PLANT)
    for base in range(z - 2, z + 1):
        if base >= 0:
            yield _piece(Kind.COLUMN, x, y, base)
    for i in range(4):
        if x - i >= 0 and x - i + 3 < BOARD_STUDS:
            yield _piece(Kind.ARCH, x - i, y, z, Axis.X)
        if y - i >= 0 and y - i + 3 < BOARD_STUDS:
            yield _piece(Kind.ARCH, x, y - i, z, Axis.Y)


def stacks_under(palace: Palace, x: int, y: int, z: int) -> list[list[Piece]]:
    """Stacks (bottom-up) giving stud (x, y) a knob at level ``z``: the fewest pieces
    (columns first) and, where that has a column, the same height in bricks alone. A
    column and three bricks have one outline; the picture tells them apart by colour
    (:meth:`vision.colours.LevelColours.steps`), so both are offered."""
    base = support_base(palace, x, y, z)
    if base is None or base == z:
        return []
    columns, bricks = divmod(z - base, 3)
    out = []
    if columns + bricks <= MAX_STACK:
        out.append([_piece(Kind.COLUMN, x, y, base + 3 * i) for i in range(columns)]
                   + [_piece(Kind.BRICK, x, y, base + 3 * columns + i) for i in range(bricks)])
    if columns and z - base <= MAX_STACK:
        out.append([_piece(Kind.BRICK, x, y, level) for level in range(base, z)])
    return out


def stack_swap(piece: Piece, pieces: Sequence[Piece]
               ) -> tuple[list[Piece], list[Piece]] | None:
    """The stack ``piece`` starts, told the other way: a column as three bricks, or the
    three bricks of ``pieces`` in a run from ``piece`` up as a column; the pieces
    replaced and those instead, None for any other piece. The two have one outline, and
    only the levels' colours tell them apart."""
    if piece.kind is Kind.COLUMN:
        return [piece], [Piece(Kind.BRICK, piece.x, piece.y, piece.z + i) for i in range(3)]
    if piece.kind is not Kind.BRICK:
        return None
    run = [p for p in pieces if p.kind is Kind.BRICK and (p.x, p.y) == (piece.x, piece.y)
           and piece.z <= p.z < piece.z + 3]
    if len(run) != 3:
        return None
    return run, [Piece(Kind.COLUMN, piece.x, piece.y, piece.z)]


def stack_reordered(piece: Piece, pieces: Sequence[Piece]
                    ) -> tuple[list[Piece], list[Piece]] | None:
    """Column ``piece`` and the run of three bricks of ``pieces`` straight on it or under
    it, in the other order: the pieces replaced and those instead, None where there is
    no such run. A stack of six levels is a column and three bricks one way or the
    other; from a view that shows neither's sides, only the levels' colours, or the
    judge's weighing of them, tell which is below."""
    if piece.kind is not Kind.COLUMN:
        return None
    at = {p.z: p for p in pieces if p.kind is Kind.BRICK and (p.x, p.y) == (piece.x, piece.y)}
    for base in (piece.z + 3, piece.z - 3):
        run = [at[z] for z in range(base, base + 3) if z in at]
        if len(run) == 3:
            low = min(piece.z, base)
            if base > piece.z:  # bricks on the column: the column goes on top
                instead = [Piece(Kind.BRICK, piece.x, piece.y, low + i) for i in range(3)]
                instead.append(Piece(Kind.COLUMN, piece.x, piece.y, low + 3))
            else:  # the column on bricks: the column goes under them
                instead = [Piece(Kind.COLUMN, piece.x, piece.y, low)]
                instead += [Piece(Kind.BRICK, piece.x, piece.y, low + 3 + i) for i in range(3)]
            return [piece, *run], instead
    return None


def replaced(pieces: Sequence[Piece], olds: Sequence[Piece], instead: Sequence[Piece]
             ) -> list[Piece]:
    """``pieces`` with ``olds`` taken out (the very objects: a reading's pieces are
    matched by identity) and ``instead`` put in: a swap of :func:`stack_swap` or
    :func:`stack_reordered` made on a reading."""
    return [p for p in pieces if not any(p is o for o in olds)] + list(instead)


def supports(palace: Palace, x: int, y: int, z: int, depth: int,
             known: dict[tuple[int, int, int, int], list[list[Piece]]] | None = None
             ) -> list[list[Piece]]:
    """Ways to give stud (x, y) a knob at level ``z``, pieces bottom-up: nothing (an open
    knob), a stack of bricks and columns, or the staircase's previous step ending there,
    straight under it or lifted by a brick on its end knob; that step's own legs are
    held up the same ways, ``depth`` steps down at most. Hidden under a staircase, these
    are what a player builds and a camera cannot see.

    ``known`` keeps the answers for one unchanged ``palace`` (not to be changed by the
    caller): the legs of neighbouring arches ask for the same steps below."""
    if known is None:
        return _supports(palace, x, y, z, depth, None)
    key = (x, y, z, depth)
    found = known.get(key)
    if found is None:
        found = known[key] = _supports(palace, x, y, z, depth, known)
    return found


def _supports(palace: Palace, x: int, y: int, z: int, depth: int,
              known: dict[tuple[int, int, int, int], list[list[Piece]]] | None
              ) -> list[list[Piece]]:
    if palace.is_open_knob(x, y, z):
        return [[]]
    ways: list[list[Piece]] = stacks_under(palace, x, y, z)
    if depth <= 0 or z < 1:
        return ways
    for lift in (0, 1):
        level = z - 1 - lift
        if level < 0:
            continue
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            sx, sy = x - 3 * dx, y - 3 * dy
            if not (min(sx, x) >= 0 and max(sx, x) < BOARD_STUDS and min(sy, y) >= 0
                    and max(sy, y) < BOARD_STUDS):
                continue
            axis = Axis.X if dx else Axis.Y
            lower = _piece(Kind.ARCH, min(sx, x), min(sy, y), level, axis)
            if any(palace.occupant(cx, cy, level) for cx, cy in lower.footprint()):
                continue
            top = [_piece(Kind.BRICK, x, y, level + 1)] if lift else []
            if level == 0:
                if palace.fits(lower):
                    ways.append([lower, *top])
                continue
            first = supports(palace, sx, sy, level, depth - 1, known)
            second = supports(palace, x, y, level, depth - 1, known)
            for a in first[:3]:
                for b in second[:3]:
                    ways.append([*a, *b, lower, *top])
    return ways


def built_on(before: Palace, pieces: Sequence[Piece]) -> tuple[Palace, list[Piece]] | None:
    """A copy of ``before`` with ``pieces`` placed bottom-up (fresh ids), and the pieces as
    placed; None when they cannot all stand."""
    state = before.copy()
    placed: list[Piece] = []
    try:
        for p in sorted(pieces, key=lambda q: q.z):
            # A piece without an id is placed as it is (placing gives it one).
            placed.append(state.place(p.moved(id="") if p.id else p))
    except PalaceError:
        return None
    return state, placed


def staircase_end(pieces: Sequence[Piece]) -> Piece | None:
    """The piece that can be the staircase's decoration: a 1x1 piece on an arch's end
    knob of the turn with nothing on it, a decoration first, then the highest. A
    decoration and a 1x1 brick have one outline; the rules tell which is which."""
    tops = {(x, y, p.top) for p in pieces if p.kind is Kind.ARCH for x, y in p.knobs()}
    covered = {(x, y, p.z) for p in pieces for x, y in p.legs()}
    ends = [p for p in pieces if p.kind in (Kind.BRICK, Kind.DECORATION)
            and (p.x, p.y, p.z) in tops and (p.x, p.y, p.top) not in covered]
    return max(ends, key=lambda p: (p.kind is Kind.DECORATION, p.z), default=None)


def step_legs(pieces: Sequence[Piece]) -> set[tuple[int, int]]:
    """The cells under the legs of the arches one level up: where a first step's end
    knob must be (:func:`first_steps`, :func:`vision.refine`'s edits)."""
    return {leg for p in pieces if p.kind is Kind.ARCH and p.z == 1 for leg in p.legs()}


def first_steps(pieces: Sequence[Piece]) -> list[tuple[Piece, tuple[int, int], tuple[int, int]]]:
    """Each arch of ``pieces`` on the plate that holds a leg of another of them on an end
    knob, with that knob (the near one) and its other end knob (the far one, where the
    staircase then starts): the first step of the starting set-up (arch A on the
    ground, arch B with one leg on A's end knob)."""
    legs = step_legs(pieces)
    out = []
    for arch in pieces:
        if arch.kind is not Kind.ARCH or arch.z != 0:
            continue
        knobs = arch.knobs()
        for near, far in ((knobs[0], knobs[1]), (knobs[1], knobs[0])):
            if near in legs:
                out.append((arch, near, far))
    return out


def ground_step(pieces: Sequence[Piece]) -> bool:
    """Whether an arch of ``pieces`` on the plate holds a leg of another of them on an
    end knob (:func:`first_steps`), the way most staircases start
    (:data:`vision.decode.GROUND_STEP_BONUS`)."""
    return bool(first_steps(pieces))


def both_outlines(pieces: list[Piece]) -> list[list[Piece]]:
    """``pieces``, and where they have a decoration, the same with the decoration in the
    other outline (a plant's or the gold one's): an edit that moves the staircase's
    start may move it onto ground of another colour, and the decoration's colour (which
    its outline is read in) follows the start."""
    for i, p in enumerate(pieces):
        if p.kind is Kind.DECORATION:
            other = PLANT if p.color == DecorationColor.GOLD.value else DecorationColor.GOLD.value
            return [pieces, [*pieces[:i], p.moved(color=other, id=""), *pieces[i + 1:]]]
    return [pieces]


IDLE_REFUSED = True
"""Whether a reading with an idle piece that earns nothing (:func:`is_legal_turn`) is
refused the legal bonus; off only to measure what it brings."""


def idle_pieces(pieces: Sequence[Piece], end: Piece | None) -> list[Piece]:
    """The pieces of ``pieces``, ``end`` left out, that hold none of them up (no leg of
    another stands on one of their knobs)."""
    legs = {(x, y, p.z) for p in pieces for x, y in p.legs()}
    return [p for p in pieces if p is not end
            and not any((x, y, p.top) in legs for x, y in p.knobs())]


def is_legal_turn(before: Palace, pieces: Sequence[Piece]) -> bool:
    """Whether ``pieces`` make a legal staircase on ``before``, its end piece taken as
    the decoration (whose colour the rules then name), with no piece that holds nothing
    up and earns nothing (:data:`IDLE_REFUSED`).

    The rules let bricks and columns stand off the staircase's path: a tower for the
    bonus card, a brick that attaches the staircase to the palace. Those change what the
    turn earns or whether it is legal at all. A piece that changes neither (a brick on
    the final arch's other knob) is legal too, but no player needs one, while the Monkey
    a gold staircase earns stands just there, on an open end knob, and is not read: a
    brick that its pixels paid for was read there with the staircase's bonus."""
    end = staircase_end(pieces)
    if end is None:
        return False
    report = _as_staircase(before, pieces, end)
    if not report.legal:
        return False
    if IDLE_REFUSED:
        for idle in idle_pieces(pieces, end):
            without = _as_staircase(before, [p for p in pieces if p is not idle], end)
            if without.legal and (without.credits, without.bonus_card) == (
                    report.credits, report.bonus_card):
                return False
    return True


def _as_staircase(before: Palace, pieces: Sequence[Piece], end: Piece) -> TurnReport:
    """The rules' report on ``pieces`` with ``end`` as the decoration, coloured as the
    staircase's start asks when that makes it legal."""
    probe = end.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    report = analyse_added(before, [probe if p is end else p for p in pieces])
    if report.legal or report.start_color in (None, probe.color):
        return report
    probe = end.moved(kind=Kind.DECORATION, color=report.start_color)
    return analyse_added(before, [probe if p is end else p for p in pieces])
