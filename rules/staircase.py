"""Judging one turn: which pieces are new, whether they make a staircase, what it earns.

The staircase is read as a *path* through this turn's pieces, joined by their studs,
from a starting piece on the Ground Map to the final arch that carries the new
decoration (:mod:`rules.path` says exactly how, and which routes are preferred). A
piece of the turn that is not connected to the final arch at all is not part of the
staircase.

Other readings, each documented in docs/ or the settings: attaching (rule E) means
a new building piece shares a face with a piece that was already there, corner bricks
and animals excluded; the starting stud's ground colour chooses the decoration
colour, and the starting-staircase area has none (a stud the map does not know, ``?``,
takes the decoration's colour: ``RuleSettings.name_unknown_start``); credits, the bonus
and the Monkey and Butterfly only go to a legal staircase.

Animals placed this turn are not staircase pieces; each is checked where its trophy puts
it: the Monkey on an open end knob of any arch, and only after a legal gold staircase;
the Butterfly on the new decoration, and only when that is taller than every other one;
the Frog on the lowest open end knob of the path's arches. An animal that was earned
but is not (yet) on the board is no violation (a camera may see it a moment later), and
a Frog placed this turn counts as taken. A turn that places nothing is ``passed``:
never legal, since no staircase was built, so the game can give the recurring delivery.

Speed: the analysis looks only at the new pieces and the studs around them. The board
before the turn is never copied (but for a start on an unknown stud, judged again): new
pieces go into a thin layer above its indexes (:mod:`rules.turn_board`); what the
staircase earns besides its arches is worked out in :mod:`rules.bonus`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from rules.bonus import STACKING_KINDS, check_animals, decoration_rank, tallest_run
from rules.maps import UNKNOWN_GROUND, GroundMap
from rules.palace import Palace
from rules.path import Route, best_route, connected, links_between
from rules.pieces import ANIMAL_KINDS, DecorationColor, Kind, Piece, place_key
from rules.report import Trophies, TurnReport, Violation
from rules.settings import RuleSettings
from rules.turn_board import TurnBoard

DEFAULT_SETTINGS = RuleSettings()


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
    return _judged(before, named, settings, frog_taken, moved_animals, [])


def _judged(before: Palace, added: list[Piece], settings: RuleSettings, frog_taken: bool,
            moved_animals: frozenset[str], removed: list[Violation]) -> TurnReport:
    """The analysis, and where the staircase starts on a stud whose colour the map does
    not know (``?``) and ``settings.name_unknown_start`` holds, the analysis again on the
    map with that stud named by the staircase's decoration (``start_named``).

    A map read by the camera leaves a stud unknown wherever no picture showed its card
    clearly (a shadow, a piece beside it, a colour in doubt): a third of a board at the
    set-up, and most of all beside the palace, where staircases start. The players chose
    the decoration by the printed map, which they see, so their choice is the best word
    on that stud; without it a legal staircase from such a stud could never score. Only
    a decoration of a ground colour (one alone) names a stud, never one of the white
    starting area; with the setting off an unknown stud is no starting point.
    """
    report = _analyse(before, added, settings, frog_taken, moved_animals, removed)
    ground = _start_named(before.ground, added, report) if settings.name_unknown_start else None
    if ground is None:
        return report
    named = before.copy()
    named.ground = ground
    again = _analyse(named, added, settings, frog_taken, moved_animals, removed)
    return replace(again, start_named=True)


def _start_named(ground: GroundMap, added: Sequence[Piece],
                 report: TurnReport) -> GroundMap | None:
    if report.start is None or report.start in ground.start_area:
        return None
    if ground.char(*report.start) != UNKNOWN_GROUND:
        return None
    decorations = [p for p in added if p.kind is Kind.DECORATION]
    colours = {c.value: c for c in DecorationColor}
    if len(decorations) != 1 or decorations[0].color not in colours:
        return None
    return ground.naming(report.start, colours[decorations[0].color])


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
    return _judged(before, added, settings, frog_taken, moved_animals, removed)


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
        if old is not None and place_key(old) == place_key(piece):
            del unmatched[old.id]
        else:
            leftover.append(piece)
    by_place: dict[tuple[object, ...], list[str]] = {}
    for pid, old in unmatched.items():
        by_place.setdefault(place_key(old), []).append(pid)
    added: list[Piece] = []
    for piece in leftover:
        ids = by_place.get(place_key(piece))
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
    links = links_between(board, chain)
    route: Route | None = None
    component: set[str] = set()
    if final is not None:
        component = connected(final.id, links)
        route = best_route(board, final, decoration, chain, links, component)
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


def _words(color: str) -> str:
    return color.replace("_", "-")
