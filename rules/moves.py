"""A legal-move generator: staircases a player can build with the pieces in hand.

Trying every placement of every piece is hopeless, so candidates are grown the way a
player builds. Starts are aimed: for the palace's highest open knobs, the ground studs
from which one arch (on a stack) or two arches reach that knob, plus a few studs right
beside the palace. From a start an arch is laid, then the staircase keeps stepping up
one level per arch, each new arch with one leg on the previous arch's end knob and the
other on an existing open knob of the right height or on a stack of bricks and columns
built for it. Steps may go straight on or turn 90 degrees, and a brick on the end knob
lifts the next step by one level to reach a higher knob. Every piece is placed on a
scratch copy of the palace as it is chosen, so each candidate is physically sound by
construction; the staircase rules (path, attachment, colours, credits) are then judged
by :func:`rules.staircase.analyse_added`, which stays the only authority.

The search is bounded (starts, support heights, candidates), so it can miss staircases a
player would find; it is built to keep simulated games fast, not to play well.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from rules.palace import Palace, PalaceError
from rules.pieces import BOARD_STUDS, Axis, Kind, Piece

Direction = tuple[int, int]
DIRECTIONS: tuple[Direction, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
ARCH_SPAN = 3
"""Studs from one end knob of an arch to the other."""
MAX_TARGETS = 24
"""Open knobs (highest first) that starts are aimed at; more only slows the search."""
MAX_SUPPORT = 4
"""Most bricks and columns one support stack may use; taller stacks are rarely worth it."""


@dataclass(frozen=True)
class Hand:
    """Building pieces a player can use this turn (decorations come from the tray)."""

    arches: int
    bricks: int
    columns: int


@dataclass(frozen=True)
class Candidate:
    """A physically sound staircase: pieces bottom-up, decoration last.

    ``pieces`` carry no ids (the game names them when the turn is played); they are
    made on demand because most candidates are never looked at.
    """

    built: tuple[Piece, ...]
    arches: int
    color: str
    top: int

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return tuple(p.moved(id="") if p.id else p for p in self.built)

    @property
    def decoration(self) -> Piece:
        return self.built[-1]


@dataclass
class _Walk:
    """One staircase being grown on the scratch palace, with what is left in hand."""

    palace: Palace
    bricks: int
    columns: int
    arches: int
    placed: list[Piece]

    def put(self, piece: Piece) -> bool:
        try:
            self.palace.place(piece)
        except PalaceError:
            return False
        self.placed.append(piece)
        return True

    def undo_to(self, mark: int) -> None:
        while len(self.placed) > mark:
            piece = self.placed.pop()
            self.palace.remove(piece.id)
            self._refund(piece)

    def _refund(self, piece: Piece) -> None:
        if piece.kind is Kind.ARCH:
            self.arches += 1
        elif piece.kind is Kind.BRICK:
            self.bricks += 1
        elif piece.kind is Kind.COLUMN:
            self.columns += 1


class _Ids:
    """Scratch ids that cannot clash with the board's."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"~{self.n}"


def arch_from(x: int, y: int, z: int, d: tuple[int, int], piece_id: str = "") -> Piece | None:
    """The arch whose first leg stands at (x, y) and that reaches 3 studs along ``d``;
    None where either leg would stand off the board."""
    dx, dy = d
    fx, fy = x + ARCH_SPAN * dx, y + ARCH_SPAN * dy
    if not all(0 <= v < BOARD_STUDS for v in (x, y, fx, fy)):
        return None
    axis = Axis.X if dx else Axis.Y
    return Piece(Kind.ARCH, min(x, fx), min(y, fy), z, axis=axis, id=piece_id)


def support_base(palace: Palace, x: int, y: int, z: int) -> int | None:
    """The level a stack giving stud (x, y) a knob at ``z`` would stand on: the highest
    thing under the free space below ``z``, which must be an open knob (else None)."""
    base = z
    while base > 0 and palace.occupant(x, y, base - 1) is None:
        base -= 1
    return base if palace.is_open_knob(x, y, base) else None


def support_plan(palace: Palace, x: int, y: int, z: int, bricks: int,
                 columns: int) -> tuple[int, int, int] | None:
    """How to give stud (x, y) a knob at level ``z``: (base level, columns, bricks).

    Columns go first as they are the fewest pieces (and what the 5-brick bonus likes);
    None when the hand or the space does not allow it.
    """
    base = support_base(palace, x, y, z)
    if base is None:
        return None
    need = z - base
    use_columns = min(columns, need // 3)
    use_bricks = need - 3 * use_columns
    if use_bricks > bricks or use_columns + use_bricks > MAX_SUPPORT:
        return None
    return base, use_columns, use_bricks


def _stack(walk: _Walk, x: int, y: int, plan: tuple[int, int, int], ids: _Ids) -> bool:
    base, columns, bricks = plan
    level = base
    for kind, count, height in ((Kind.COLUMN, columns, 3), (Kind.BRICK, bricks, 1)):
        for _ in range(count):
            if not walk.put(Piece(kind, x, y, level, id=ids())):
                return False
            if kind is Kind.COLUMN:
                walk.columns -= 1
            else:
                walk.bricks -= 1
            level += height
    return True


def _span_free(palace: Palace, x: int, y: int, z: int, d: Direction) -> bool:
    """Whether the arch from (x, y) along d could fill its four cells at level z.

    A few lookups that reject most hopeless steps before any piece is built.
    """
    dx, dy = d
    fx, fy = x + ARCH_SPAN * dx, y + ARCH_SPAN * dy
    if not (0 <= fx < BOARD_STUDS and 0 <= fy < BOARD_STUDS):
        return False
    occupant = palace.occupant
    return all(occupant(x + i * dx, y + i * dy, z) is None for i in range(ARCH_SPAN + 1))


def _step(walk: _Walk, x: int, y: int, z: int, d: Direction, ids: _Ids,
          free_only: bool) -> bool:
    """Lays one arch from (x, y) at level z along d, with a support under its far leg."""
    if walk.arches < 1 or not _span_free(walk.palace, x, y, z, d):
        return False
    fx, fy = x + ARCH_SPAN * d[0], y + ARCH_SPAN * d[1]
    far_open = walk.palace.is_open_knob(fx, fy, z)
    if free_only and not far_open:
        return False
    arch = arch_from(x, y, z, d, ids())
    if arch is None:
        return False
    mark = len(walk.placed)
    if not far_open:
        plan = support_plan(walk.palace, fx, fy, z, walk.bricks, walk.columns)
        if plan is None or not _stack(walk, fx, fy, plan, ids):
            walk.undo_to(mark)
            return False
    if not walk.put(arch):
        walk.undo_to(mark)
        return False
    walk.arches -= 1
    return True


def _grow(walk: _Walk, x: int, y: int, z: int, plan: Sequence[Direction], ids: _Ids,
          rng: random.Random) -> Iterator[tuple[int, int, int]]:
    """Keeps adding steps, trying ``plan``'s direction first for the first steps;
    yields the new end knob after each one."""
    back: Direction | None = None
    step = 0
    while walk.arches > 0:
        turns = [d for d in DIRECTIONS if d != back]
        rng.shuffle(turns)
        if step < len(plan) and plan[step] in turns:
            turns.remove(plan[step])
            turns.insert(0, plan[step])
        step += 1
        stepped = False
        # Cheapest first: a step whose far leg lands on an existing knob, then a step
        # lifted by a brick to reach one, then a step on a stack built for it.
        for mode in ("free", "lift", "stack"):
            for d in turns:
                mark = len(walk.placed)
                level = z
                if mode == "lift":
                    if walk.bricks < 1 or not walk.palace.is_open_knob(
                        x + ARCH_SPAN * d[0], y + ARCH_SPAN * d[1], z + 1
                    ) or not _span_free(walk.palace, x, y, z + 1, d):
                        continue
                    if not walk.put(Piece(Kind.BRICK, x, y, z, id=ids())):
                        continue
                    walk.bricks -= 1
                    level = z + 1
                if _step(walk, x, y, level, d, ids, free_only=mode != "stack"):
                    x, y, z = x + ARCH_SPAN * d[0], y + ARCH_SPAN * d[1], level + 1
                    back = (-d[0], -d[1])
                    stepped = True
                    break
                walk.undo_to(mark)
            if stepped:
                break
        if not stepped:
            return
        yield x, y, z


@dataclass(frozen=True)
class Seed:
    """Where a walk starts: a ground stud, how high a stack lifts the first arch, and
    the directions of its first steps."""

    x: int
    y: int
    lift: int
    plan: tuple[Direction, ...]


def seeds(palace: Palace, colors: Mapping[str, int], hand: Hand, limit: int = 64) -> list[Seed]:
    """Starts aimed at the palace's open knobs, highest knobs first.

    A staircase earns most when its steps land on knobs that are already there, so for
    each open knob K this proposes the ground studs from which one arch (on a stack of
    bricks and columns) or two arches (the second one landing on K) reach K. The
    rulebook's first turns are of this kind: two arches onto the starting staircase.
    At most ``limit`` seeds are made.
    """
    ground = palace.ground
    targets = sorted(
        {(x, y, p.top) for p in palace if p.top > 0 for x, y in p.knobs()
         if palace.is_open_knob(x, y, p.top)},
        key=lambda k: (-k[2], k[1], k[0]),
    )[:MAX_TARGETS]
    height = hand.bricks + 3 * hand.columns
    out: list[Seed] = []
    seen: set[tuple[int, int, int, tuple[Direction, ...]]] = set()

    def offer(x: int, y: int, lift: int, plan: tuple[Direction, ...]) -> None:
        color = ground.color(x, y) if 0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS else None
        key = (x, y, lift, plan)
        if (color is None or colors.get(color.value, 0) < 1 or lift > height
                or key in seen or not palace.is_open_knob(x, y, 0)):
            return
        seen.add(key)
        out.append(Seed(x, y, lift, plan))

    for kx, ky, kz in targets:
        if len(out) >= limit:
            break
        for d in DIRECTIONS:
            px, py = kx - ARCH_SPAN * d[0], ky - ARCH_SPAN * d[1]
            offer(px, py, kz, (d,))
            if hand.arches >= 2:
                for e in DIRECTIONS:
                    if e != (-d[0], -d[1]):
                        offer(px - ARCH_SPAN * e[0], py - ARCH_SPAN * e[1], kz - 1, (e, d))
    return out[:limit]


def start_knobs(palace: Palace, colors: Mapping[str, int], rng: random.Random,
                count: int) -> list[tuple[int, int]]:
    """Up to ``count`` open ground studs beside pieces standing on the ground, of a
    colour with decorations left; a staircase starting there attaches at once.

    Pieces are visited in random order and the search stops early, because only a few
    such starts are wanted and a large palace has hundreds of them.
    """
    ground = palace.ground
    low = [p for p in palace if p.z == 0 and p.kind is not Kind.CORNER]
    rng.shuffle(low)
    out: list[tuple[int, int]] = []
    for piece in low:
        for x, y in piece.footprint():
            for dx, dy in DIRECTIONS:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < BOARD_STUDS and 0 <= ny < BOARD_STUDS):
                    continue
                color = ground.color(nx, ny)
                if (color is None or colors.get(color.value, 0) < 1
                        or not palace.is_open_knob(nx, ny, 0) or (nx, ny) in out):
                    continue
                out.append((nx, ny))
        if len(out) >= count:
            break
    return out[:count]


def staircases(
    palace: Palace,
    hand: Hand,
    decorations: Mapping[str, int],
    *,
    rng: random.Random | None = None,
    max_starts: int = 8,
    max_candidates: int = 64,
) -> list[Candidate]:
    """Physically sound staircases buildable with ``hand`` (bounded search).

    Up to ``max_starts`` start knobs (picked by ``rng``) are tried with each first
    direction, optionally on a brick or column; every prefix of a grown staircase that
    can take its decoration is a candidate. ``decorations`` is the tray's stock per
    colour. The palace is left as it was.
    """
    rng = rng or random.Random(0)
    if hand.arches < 1:
        return []
    aimed = seeds(palace, decorations, hand, limit=2 * max_starts)
    rng.shuffle(aimed)
    starts = aimed[:max_starts]
    # A few plain starts beside the palace too: they need no lift, so a short hand
    # can still attach something.
    near = start_knobs(palace, decorations, rng, max(2, max_starts - len(starts)))
    starts += [Seed(x, y, 0, ()) for x, y in near]
    scratch = palace.copy()
    ids = _Ids()
    found: list[Candidate] = []
    for seed in starts:
        color = palace.ground.color(seed.x, seed.y)
        if color is None:
            continue
        columns = min(hand.columns, seed.lift // 3)
        lift = (columns, seed.lift - 3 * columns)
        if lift[1] > hand.bricks:
            continue
        walk = _Walk(scratch, hand.bricks, hand.columns, hand.arches, [])
        if _stack(walk, seed.x, seed.y, (0, *lift), ids):
            for end in _grow(walk, seed.x, seed.y, seed.lift, seed.plan, ids, rng):
                deco = Piece(Kind.DECORATION, end[0], end[1], end[2], color=color.value)
                if not scratch.check(deco):
                    arches = hand.arches - walk.arches
                    found.append(Candidate((*walk.placed, deco), arches, color.value, deco.top))
        walk.undo_to(0)
        if len(found) >= max_candidates:
            break
    return found
