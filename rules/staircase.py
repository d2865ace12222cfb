"""Judging one turn: which pieces are new, whether they make a staircase, what it earns.

How the rulebook's "direct path" is read
-----------------------------------------
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
it (they support it). A piece of the turn that is not connected to the final arch at
all is not part of the staircase.

When several routes exist, the one breaking the fewest rules is reported, then the one
with more arches, then the shorter one. Connections through pieces that were already
on the board do not count: the path is built this turn (the arches on it are the
ones "you have placed").

Other readings, each documented in GAME.md or the settings: attaching (rule E) means
a new building piece shares a face with a piece that was already there, corner bricks
and animals excluded; the starting stud's ground colour chooses the decoration
colour, and the starting-staircase area has none; credits, the bonus and the Monkey and
Butterfly only go to a legal staircase.

Animals placed this turn are not staircase pieces; each is checked where its trophy puts
it: the Monkey on an open end knob of any arch, and only after a legal gold staircase;
the Butterfly on the new decoration, and only when that is taller than every other one;
the Frog on the lowest open end knob of the path's arches. An animal that was earned
but is not (yet) on the board is no violation (a camera may see it a moment later), and
a Frog placed this turn counts as taken. A turn that places nothing is ``passed``:
never legal, since no staircase was built, so the game can give the recurring delivery.

Speed: the analysis looks only at the new pieces and the studs around them. The board
before the turn is never copied: new pieces go into a thin layer above its indexes
(:mod:`rules.turn_board`); what the staircase earns besides its arches is worked out in
:mod:`rules.bonus`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rules.bonus import STACKING_KINDS, check_animals, decoration_rank, tallest_run
from rules.maps import UNKNOWN_GROUND
from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, Cell, DecorationColor, Kind, Piece
from rules.report import Trophies, TurnReport, Violation
from rules.settings import RuleSettings
from rules.turn_board import TurnBoard

DEFAULT_SETTINGS = RuleSettings()
PATH_SEARCH_LIMIT = 4096
"""Routes examined at most; a real turn has a handful, this only bounds a pathological one."""


@dataclass
class _Route:
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


# -- public entry points ----------------------------------------------------------------


def analyse_added(
    before: Palace,
    added: Sequence[Piece],
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    frog_taken: bool = False,
) -> TurnReport:
    """The report of a turn that adds ``added`` to ``before`` (which is left untouched).

    This is the cheap entry point for move generators: no palace is built or copied.
    Pieces without an id, or whose id is taken, are named ``new1``, ``new2``... in the
    report. An animal whose kind already stands on the board is taken to have moved.
    """
    moved_animals = frozenset(
        p.id for p in before if p.kind in ANIMAL_KINDS and any(a.kind is p.kind for a in added)
    )
    named = _named(before, added, moved_animals)
    return _analyse(before, named, settings, frog_taken, moved_animals, [])


def analyse_turn(
    before: Palace,
    after: Palace | Iterable[Piece],
    settings: RuleSettings = DEFAULT_SETTINGS,
    *,
    frog_taken: bool = False,
) -> TurnReport:
    """The report of the turn that turned ``before`` into ``after``.

    ``after`` may also be the bare list of pieces of a scene: a board that breaks a
    placement rule (a brick on an arch's centre studs) cannot be a :class:`Palace`,
    yet is exactly what a turn report must explain.
    """
    added, removed, moved_animals = split_turn(before, list(after))
    return _analyse(before, added, settings, frog_taken, moved_animals, removed)


def split_turn(
    before: Palace, after: Sequence[Piece]
) -> tuple[list[Piece], list[Violation], frozenset[str]]:
    """Pieces added between two boards, violations for pieces taken away, animals moved.

    Pieces are matched by id when the id and the place agree, then by identical kind,
    place and orientation whatever their ids (a camera does not keep ids from one photo
    to the next). Animals may leave their stud: the trophies move them.
    """
    if not any(p.kind is Kind.CORNER for p in after):
        # Like Palace itself, a scene without corner bricks means the usual ones.
        after = [*(p for p in before if p.kind is Kind.CORNER), *after]
    unmatched = {p.id: p for p in before}
    leftover: list[Piece] = []
    for piece in after:
        old = unmatched.get(piece.id) if piece.id else None
        if old is not None and _same_place(old, piece):
            del unmatched[old.id]
        else:
            leftover.append(piece)
    by_place: dict[tuple[object, ...], list[str]] = {}
    for pid, old in unmatched.items():
        by_place.setdefault(_place_key(old), []).append(pid)
    added: list[Piece] = []
    for piece in leftover:
        ids = by_place.get(_place_key(piece))
        if ids:
            del unmatched[ids.pop()]
        else:
            added.append(piece)
    removed: list[Violation] = []
    moved: set[str] = set()
    for pid, old in unmatched.items():
        if old.kind in ANIMAL_KINDS:
            moved.add(pid)
            continue
        removed.append(Violation("removed", (pid,), f"{old.label} was taken away or moved"))
    return _named(before, added, frozenset(moved)), removed, frozenset(moved)


# -- the analysis -----------------------------------------------------------------------


def _analyse(
    before: Palace,
    added: list[Piece],
    settings: RuleSettings,
    frog_taken: bool,
    moved_animals: frozenset[str],
    removed: list[Violation],
) -> TurnReport:
    board = TurnBoard(before, moved_animals)
    violations: list[Violation] = list(removed)
    for piece in sorted(added, key=lambda p: p.z):
        violations.extend(board.add(piece))
    new_ids = tuple(p.id for p in added)
    animals = [p for p in added if p.kind in ANIMAL_KINDS]
    builds = [p for p in added if p.kind not in ANIMAL_KINDS]
    frog_placed = any(p.kind is Kind.FROG for p in animals)
    frog = settings.frog and (frog_taken or frog_placed)
    if not builds:
        violations.append(Violation("staircase", (), "no staircase was built this turn"))
        violations.extend(check_animals(board, animals, None, None, (), settings, frog))
        # Nothing built is never legal, and an illegal turn earns nothing: not even the
        # Frog, whose place is on the staircase just built.
        return TurnReport(legal=False, violations=tuple(violations), new_pieces=new_ids,
                          passed=True)
    for p in builds:
        if p.kind is Kind.CORNER:
            violations.append(Violation("corner", (p.id,),
                                        f"{p.label} was placed; corner bricks are set up once"))

    decoration, final, end_problems = _find_end(board, builds)
    violations.extend(end_problems)
    chain = [p for p in builds if p is not decoration and p.kind is not Kind.CORNER]
    links = _links(board, chain)
    route: _Route | None = None
    component: set[str] = set()
    if final is not None:
        component = _component(final.id, links)
        route = _best_route(board, final, decoration, chain, links, component)
        violations.extend(route.violations)
        crown = (decoration.x, decoration.y, decoration.top) if decoration else None
        for p in chain:
            if decoration is not None and (p.x, p.y, p.z) == crown:
                violations.append(Violation("C", (p.id, decoration.id),
                                            f"{p.label} is built on the decoration; the "
                                            "staircase must end with an arch"))
            elif p.id not in component:
                violations.append(Violation("staircase", (p.id,),
                                            f"{p.label} is not part of the staircase"))
        if not _attached(board, chain, component, frozenset(new_ids)):
            violations.append(Violation("E", tuple(sorted(component)),
                                        "the staircase does not touch any piece that was "
                                        "already on the board"))
    start_color = None
    if route is not None and route.start is not None:
        color = board.ground.color(*route.start)
        start_color = color.value if color is not None else None
    if decoration is not None and start_color is not None and decoration.color != start_color:
        violations.append(Violation("decoration", (decoration.id,),
                                    f"decoration {decoration.id} is {_words(decoration.color)} "
                                    f"but the staircase starts on {_words(start_color)} ground"))
    path_ids = tuple(reversed([p.id for p in route.pieces])) if route else ()
    arches = route.arches if route else 0

    highest, tied, tallest = decoration_rank(board, decoration)
    earns_highest = highest or (tied and settings.tie_earns_credit)
    legal_so_far = not violations
    monkey = legal_so_far and decoration is not None and decoration.color == DecorationColor.GOLD
    butterfly = legal_so_far and settings.butterfly and tallest
    path_arches = tuple(p for p in (route.pieces if route else ()) if p.kind is Kind.ARCH)
    violations.extend(check_animals(board, animals, decoration if monkey else None,
                                     decoration if butterfly else None, path_arches,
                                     settings, frog))
    legal = not violations
    run = tallest_run(board, chain, frozenset(new_ids), settings.bonus_counts_existing)
    return TurnReport(
        legal=legal,
        violations=tuple(violations),
        arches=arches,
        credits=(arches + int(earns_highest)) if legal else 0,
        start_color=start_color,
        start=route.start if route else None,
        decoration=decoration.id if decoration else None,
        decoration_highest=legal and earns_highest,
        decoration_tied=tied,
        bonus_card=legal and run >= settings.bonus_height,
        bonus_height=run,
        trophies=Trophies(monkey=legal and monkey, butterfly=legal and butterfly,
                          frog=legal and frog),
        path=path_ids,
        new_pieces=new_ids,
    )


def _find_end(
    board: TurnBoard, builds: list[Piece]
) -> tuple[Piece | None, Piece | None, list[Violation]]:
    """The new decoration and the final arch it marks (rule C and the decoration's place)."""
    problems: list[Violation] = []
    decorations = [p for p in builds if p.kind is Kind.DECORATION]
    new = {p.id for p in builds}
    on_new_arch = []
    for d in decorations:
        under = board.piece_at(board.knobs, (d.x, d.y, d.z))
        if under is not None and under.id in new and under.kind is Kind.ARCH:
            on_new_arch.append((d, under))
    decoration, final = on_new_arch[0] if on_new_arch else (None, None)
    if not decorations:
        problems.append(Violation("decoration", (), "no decoration was placed at the end of "
                                  "the staircase"))
    elif len(decorations) > 1:
        ids = tuple(d.id for d in decorations)
        problems.append(Violation("decoration", ids, f"{len(decorations)} decorations were "
                                  f"placed ({', '.join(ids)}); a staircase gets exactly one"))
    if decoration is None and decorations:
        d = decorations[0]
        under = board.piece_at(board.knobs, (d.x, d.y, d.z))
        if under is not None and under.id in new and under.kind in STACKING_KINDS:
            problems.append(Violation("C", (under.id, d.id), f"the staircase ends with "
                                      f"{under.label}, not an arch"))
        else:
            problems.append(Violation("decoration", (d.id,), f"decoration {d.id} is not on "
                                      "an end knob of an arch built this turn"))
        decoration = d
    if final is None:
        arches = [p for p in builds if p.kind is Kind.ARCH]
        if not arches:
            problems.append(Violation("C", tuple(p.id for p in builds),
                                      "the staircase has no arch; it must end with an arch"))
        else:
            final = max(arches, key=lambda a: a.z)
    return decoration, final, problems


def _links(board: TurnBoard, chain: list[Piece]) -> dict[str, list[tuple[Piece, Cell]]]:
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


def _component(start: str, links: dict[str, list[tuple[Piece, Cell]]]) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for other, _ in links[todo.pop()]:
            if other.id not in seen:
                seen.add(other.id)
                todo.append(other.id)
    return seen


def _best_route(
    board: TurnBoard,
    final: Piece,
    decoration: Piece | None,
    chain: list[Piece],
    links: dict[str, list[tuple[Piece, Cell]]],
    component: set[str],
) -> _Route:
    """Tries every simple route from the final arch down to a possible starting piece."""
    arch_ids = {p.id for p in chain if p.kind is Kind.ARCH and p.id in component}
    grounded = any(p.z == 0 for p in chain if p.id in component)
    best: _Route | None = None
    budget = PATH_SEARCH_LIMIT
    stack: list[tuple[list[Piece], list[Cell]]] = [([final], [])]
    while stack and budget > 0:
        pieces, cells = stack.pop()
        budget -= 1
        tail = pieces[-1]
        if tail.z == 0 or not grounded:
            route = _judge(board, _Route(list(pieces), list(cells)), decoration, arch_ids)
            if best is None or route.rank() < best.rank():
                best = route
        on_route = {p.id for p in pieces}
        for other, cell in links[tail.id]:
            if other.id not in on_route:
                stack.append(([*pieces, other], [*cells, cell]))
    assert best is not None  # the final arch alone is always tried
    return best


def _judge(
    board: TurnBoard, route: _Route, decoration: Piece | None, arch_ids: set[str]
) -> _Route:
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


def _attached(board: TurnBoard, chain: list[Piece], component: set[str],
              new_ids: frozenset[str]) -> bool:
    """Rule E: some piece of the staircase shares a face with a piece already there."""
    for piece in chain:
        if piece.id not in component:
            continue
        for x, y, z in piece.voxels():
            for n in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z),
                      (x, y, z + 1), (x, y, z - 1)):
                other = board.piece_at(board.space, n)
                if (other is not None and other.id not in new_ids
                        and other.kind is not Kind.CORNER and other.kind not in ANIMAL_KINDS):
                    return True
    return False


# -- helpers ----------------------------------------------------------------------------


def _named(
    before: Palace, added: Sequence[Piece], free: frozenset[str] = frozenset()
) -> list[Piece]:
    """This turn's pieces, each with an id unused on the board and in the turn.

    ``free`` are ids of pieces that left their place this turn (a moving animal keeps
    its name).
    """
    taken = set(before._pieces) - free
    out: list[Piece] = []
    counter = 0
    for piece in added:
        pid = piece.id
        if not pid or pid in taken:
            counter += 1
            while f"new{counter}" in taken:
                counter += 1
            pid = f"new{counter}"
        taken.add(pid)
        out.append(piece if pid == piece.id else piece.moved(id=pid))
    return out


def _place_key(piece: Piece) -> tuple[object, ...]:
    turn = piece.turn if piece.kind is Kind.CORNER else 0
    axis = piece.axis if piece.kind is Kind.ARCH else None
    color = piece.color if piece.kind is Kind.DECORATION else ""
    return (piece.kind, piece.x, piece.y, piece.z, axis, turn, color)


def _same_place(a: Piece, b: Piece) -> bool:
    return _place_key(a) == _place_key(b)


def _words(color: str) -> str:
    return color.replace("_", "-")
