"""`palace score BEFORE.json AFTER.json [--map 1|FILE] [--json]`: one turn's report.

The scene before the turn must be a sound palace. The scene after it may break the
building rules (that is what the report is for) but not physics: a piece off the plate,
two pieces in one place or a piece hanging in mid-air means the file is wrong, and
that is bad input, not an illegal turn.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from palace.cli import UsageError
from rules.games import DEFAULT_GAME, GAMES
from rules.maps import GroundMap, load_map
from rules.palace import Palace, PalaceError
from rules.pieces import Piece, missing_corners
from rules.placement import impossible_violations
from rules.report import TurnReport
from rules.scene import Scene, load_scene
from rules.settings import RuleSettings
from rules.staircase import DEFAULT_SETTINGS, analyse_turn


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="report one turn: is the staircase legal, what does it earn",
        description="Compare the palace before and after a turn and report the staircase.",
    )
    parser.add_argument("before", help="scene file before the turn (palace-scene/1 JSON); "
                        "with --game monopoly-builder, the state file")
    parser.add_argument("after", nargs="?", help="scene file after the turn")
    parser.add_argument("--game", default=DEFAULT_GAME, choices=tuple(GAMES),
                        help=f"which game's score (default: {DEFAULT_GAME})")
    parser.add_argument("--map", help="ground map: 1..4 or a map file (default: the scene's)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--frog-taken", action="store_true",
                        help="the player took the Frog trophy this turn")
    add_house_rules(parser)
    parser.set_defaults(run=run)


def add_house_rules(parser: argparse.ArgumentParser) -> None:
    """Options for the rules the rulebook leaves open (see rules.settings)."""
    group = parser.add_argument_group("house rules")
    group.add_argument("--tie-earns-credit", action="store_true",
                       help="a decoration tying the highest of its colour earns the extra credit")
    group.add_argument("--bonus-counts-existing", action="store_true",
                       help="the 5-brick bonus also counts older pieces under the new run")
    group.add_argument("--no-butterfly", action="store_true", help="play without the Butterfly")
    group.add_argument("--no-frog", action="store_true", help="play without the Frog")


def house_rules(args: argparse.Namespace) -> RuleSettings:
    return RuleSettings(
        tie_earns_credit=args.tie_earns_credit,
        bonus_counts_existing=args.bonus_counts_existing,
        butterfly=not args.no_butterfly,
        frog=not args.no_frog,
    )


def run(args: argparse.Namespace) -> int:
    if args.game == "monopoly-builder":
        from palace.commands import score_monopoly

        return score_monopoly.run(args)
    if args.after is None:
        raise UsageError("a Monkey Palace turn needs two scene files: BEFORE.json AFTER.json")
    before, after = load_scene(args.before), load_scene(args.after)
    ground = resolve_map(args.map, (args.before, before), (args.after, after))
    settings = house_rules(args)
    board = sound_palace(args.before, before, ground, settings)
    report = analyse_turn(board, sound_pieces(args.after, after, ground, settings), settings,
                          frog_taken=args.frog_taken)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(format_report(report))
    return 0 if report.legal else 1


def resolve_map(option: str | None, *scenes: tuple[str, Scene]) -> GroundMap:
    """The map named on the command line, else the one the scenes agree on."""
    if option is not None:
        if not option.strip():
            raise UsageError("--map: empty; give a map number (1..4) or a map file")
        return load_map(option)
    names = {scene.map for _, scene in scenes}
    if len(names) > 1:
        listed = ", ".join(f"{path} says map {scene.map!r}" for path, scene in scenes)
        raise UsageError(f"the scenes stand on different maps ({listed}); choose one with --map")
    if not names:
        raise UsageError("--map: no scene names the ground map; give one (1..4 or a map file)")
    return load_map(names.pop())


def with_corners(pieces: Sequence[Piece], settings: RuleSettings = DEFAULT_SETTINGS) -> list[Piece]:
    """The scene's pieces ready to judge: unnamed ones are called ``#N`` after their place
    in the file (counting from 0), and the corner bricks, which a scene may leave out
    because they never move, are put back."""
    named = [p if p.id else p.moved(id=f"#{i}") for i, p in enumerate(pieces)]
    return [*missing_corners(named, settings.corner_inset), *named]


def sound_pieces(
    path: str, scene: Scene, ground: GroundMap, settings: RuleSettings = DEFAULT_SETTINGS
) -> list[Piece]:
    """The scene's pieces, refused with every problem listed if no table could hold them."""
    pieces = with_corners(scene.pieces, settings)
    problems = impossible_violations(pieces, ground)
    if problems:
        raise UsageError(f"{path}: " + "; ".join(v.message for v in problems))
    return pieces


def sound_palace(
    path: str, scene: Scene, ground: GroundMap, settings: RuleSettings = DEFAULT_SETTINGS
) -> Palace:
    """The palace a scene holds; every rule-breaking piece is reported as bad input."""
    pieces = sound_pieces(path, scene, ground, settings)
    try:
        return Palace(ground, pieces)
    except PalaceError as exc:
        raise UsageError(f"{path}: {exc}") from None


def format_report(report: TurnReport) -> str:
    """The report as a player reads it: verdict, what it earns, then what is wrong."""
    lines: list[str] = []
    if report.passed:
        lines.append("No staircase was built: the player only takes the recurring delivery.")
    elif report.legal:
        lines.append("Legal staircase.")
    else:
        lines.append("Not a legal staircase.")
    if report.path:
        start = ""
        if report.start is not None:
            colour = (report.start_color or "no").replace("_", "-")
            start = f", starting on {colour} ground at stud {report.start[0]},{report.start[1]}"
            if report.start_named:
                start += " (unknown to the map: named by the decoration)"
        arches = f"{report.arches} arch{'es' if report.arches != 1 else ''}"
        lines.append(f"  path: {' -> '.join(report.path)} ({arches}{start})")
    if report.legal:
        colour = (report.start_color or "").replace("_", "-")
        if report.decoration_highest:
            tie = " (tied, counted by house rule)" if report.decoration_tied else ""
            highest = f"the highest {colour} decoration{tie}: +1 credit"
        elif report.decoration_tied:
            highest = f"ties the highest {colour} decoration: no extra credit"
        else:
            highest = f"not the highest {colour} decoration"
        lines.append(f"  decoration {report.decoration}: {highest}")
        lines.append(f"  monkey credits: {report.credits}")
        bonus = "yes" if report.bonus_card else "no"
        lines.append(f"  bonus card: {bonus} (tallest run of new bricks: {report.bonus_height})")
    won = [name for name in ("monkey", "butterfly", "frog") if getattr(report.trophies, name)]
    if won:
        lines.append(f"  trophies: {', '.join(won)}")
    for v in report.violations:
        lines.append(f"  [{v.rule}] {v.message}")
    return "\n".join(lines)
