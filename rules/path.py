"""The staircase's path: routes through one turn's pieces, and the rules each breaks.

The pieces of a turn are joined by their studs: a piece that stands on a knob of
another new piece is connected to it at that stud. These connections form a small
graph of this turn's building pieces (bricks, arches, columns). The staircase's
*path* is a simple route through that graph from a piece standing on the Ground Map
(its *starting piece*) to the *final arch*, the new arch whose end knob carries the new
decoration. Along the path a route may go up (the next piece stands on the previous
one) or down (the next piece holds the previous one up); only the arches matter for
ascent: read from the start, each arch on the path must stand strictly higher than
the arch before it (rule I), so a route that climbs and comes down the other side is a
staircase whose steps do not ascend.

An arch is a *step* when the path uses it from one end to the other: it arrives at one
end stud and leaves from the other. The path arrives at the final arch at the end
opposite the decoration, and leaves a starting arch from the end opposite its starting
stud. Every new arch must be a step of the path; an arch of the turn that is connected
to it but not on it (holding up a step, or hanging off the side) is a branch and
breaks rule I. Bricks and columns may sit anywhere in the path (they extend it) or off
it (they support it).

When several routes exist, the one breaking the fewest rules is reported, then the one
with more arches, then the shorter one. Connections through pieces that were already
on the board do not count: the path is built this turn (the arches on it are the
ones "you have placed"). The rest of a turn's judgement is :mod:`rules.staircase`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from rules.maps import UNKNOWN_GROUND
from rules.pieces import Cell, Kind, Piece
from rules.report import Violation
from rules.turn_board import TurnBoard

PATH_SEARCH_LIMIT = 4096
"""Routes examined at most; a real turn has a handful, this only bounds a pathological one."""


@dataclass
class Route:
    """One candidate path, listed from the final arch back to its starting piece."""

    pieces: list[Piece]
    links: list[Cell]  # links[i] joins pieces[i] and pieces[i + 1]
    violations: list[Violation] = field(default_factory=list)
    start: Cell | None = None

    @property
    def arches(self) -> int:
        return sum(1 for p in self.pieces if p.kind is Kind.ARCH)

    def rank(self) -> tuple[int, int, int]:
        return (len(self.violations), -self.arches, len(self.pieces))


def links_between(board: TurnBoard, chain: list[Piece]) -> dict[str, list[tuple[Piece, Cell]]]:
    """Stud connections between this turn's pieces: who stands on whom, and where."""
    ids = {p.id for p in chain}
    links: dict[str, list[tuple[Piece, Cell]]] = {p.id: [] for p in chain}
    for upper in chain:
        if upper.z == 0:
            continue
        for x, y in upper.legs():
            lower = board.piece_at(board.knobs, (x, y, upper.z))
            if lower is not None and lower.id in ids and lower.id != upper.id:
                links[upper.id].append((lower, (x, y)))
                links[lower.id].append((upper, (x, y)))
    return links


def connected(start: str, links: dict[str, list[tuple[Piece, Cell]]]) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for other, _ in links[todo.pop()]:
            if other.id not in seen:
                seen.add(other.id)
                todo.append(other.id)
    return seen


def best_route(
    board: TurnBoard,
    final: Piece,
    decoration: Piece | None,
    chain: list[Piece],
    links: dict[str, list[tuple[Piece, Cell]]],
    component: set[str],
) -> Route:
    """Tries every simple route from the final arch down to a possible starting piece."""
    arch_ids = {p.id for p in chain if p.kind is Kind.ARCH and p.id in component}
    grounded = any(p.z == 0 for p in chain if p.id in component)
    best: Route | None = None
    budget = PATH_SEARCH_LIMIT
    stack: list[tuple[list[Piece], list[Cell]]] = [([final], [])]
    while stack and budget > 0:
        pieces, cells = stack.pop()
        budget -= 1
        tail = pieces[-1]
        if tail.z == 0 or not grounded:
            route = judge(board, Route(list(pieces), list(cells)), decoration, arch_ids)
            if best is None or route.rank() < best.rank():
                best = route
        on_route = {p.id for p in pieces}
        for other, cell in links[tail.id]:
            if other.id not in on_route:
                stack.append(([*pieces, other], [*cells, cell]))
    assert best is not None  # the final arch alone is always tried
    return best


def judge(
    board: TurnBoard, route: Route, decoration: Piece | None, arch_ids: set[str]
) -> Route:
    """Fills in the violations of one candidate route (rules A, B, I and the decoration)."""
    out = route.violations
    pieces, links = route.pieces, route.links
    final, first = pieces[0], pieces[-1]
    end_cell = (decoration.x, decoration.y) if decoration is not None else None
    if decoration is not None and links and links[0] == end_cell:
        out.append(Violation("decoration", (decoration.id, final.id),
                             f"decoration {decoration.id} is on the end of {final.label} where "
                             "the staircase arrives, not on its far end knob"))
    # The starting stud: the far end of a starting arch from where the route leaves it.
    leave = links[-1] if links else end_cell
    if first.kind is Kind.ARCH:
        legs = first.legs()
        route.start = legs[1] if leave == legs[0] else legs[0]
    else:
        route.start = first.legs()[0]
    if first.z != 0:
        out.append(Violation("A", (first.id,), f"the staircase does not start on the Ground Map: "
                             f"{first.label} stands at level {first.z}"))
    elif board.ground.color(*route.start) is None:
        x, y = route.start
        if board.ground.char(x, y) == UNKNOWN_GROUND and route.start not in board.ground.start_area:
            out.append(Violation("A", (first.id,), f"{first.label} starts on stud {x},{y}, whose "
                                 "ground colour is unknown (the map was read with that stud "
                                 "hidden), so it cannot be a starting point"))
        else:
            out.append(Violation("A", (first.id,), f"{first.label} starts on stud {x},{y}, which "
                                 "has no ground colour (the starting-staircase area)"))
    if not first.is_building():
        out.append(Violation("B", (first.id,), f"the staircase starts with {first.label}; it "
                             "must start with a brick, an arch or a column"))
    for i in range(1, len(pieces) - 1):
        p = pieces[i]
        if p.kind is Kind.ARCH and links[i - 1] == links[i]:
            out.append(Violation("I", (p.id,), f"arch {p.id} is not a step: the staircase "
                                 "arrives at and leaves it from the same end"))
    steps = [p for p in reversed(pieces) if p.kind is Kind.ARCH]
    for low, high in itertools.pairwise(steps):
        if high.z <= low.z:
            out.append(Violation("I", (high.id, low.id),
                                 f"arch {high.id} is not higher than arch {low.id}"))
    on_route = {p.id for p in pieces}
    for aid in sorted(arch_ids - on_route):
        out.append(Violation("I", (aid,), f"arch {aid} branches off the staircase: every arch "
                             "must be a step up toward the end"))
    return route
