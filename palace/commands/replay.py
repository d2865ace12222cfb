"""`palace replay [FOLDER]`: score a recorded game turn by turn, in the terminal.

It replays a game kept as scene files (by default the shipped example,
``palace/examples/game1``: ``turn_00.json`` is the set-up, then one scene per turn,
players in turn order) and prints each turn's report with a running tally, so the
whole rules engine can be seen at work without a camera or a browser.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from palace.cli import UsageError
from palace.commands.score import (
    add_house_rules,
    format_report,
    house_rules,
    resolve_map,
    sound_palace,
    sound_pieces,
)
from rules.report import TurnReport
from rules.scene import Scene, load_scene
from rules.staircase import analyse_turn

TROPHY_NAMES = ("monkey", "butterfly", "frog")


@dataclass
class Tally:
    """What one player has earned so far (trophies are counted where they are now)."""

    credits: int = 0
    bonus_cards: int = 0
    turns: int = 0
    trophies: set[str] = field(default_factory=set)

    def line(self) -> str:
        held = f", holds {', '.join(sorted(self.trophies))}" if self.trophies else ""
        turns = f"{self.turns} turn{'s' if self.turns != 1 else ''}"
        return (f"{self.credits} credits in {turns}, "
                f"{self.bonus_cards} bonus card(s){held}")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="score a recorded game (the shipped example by default) turn by turn",
        description="Replay a game recorded as scene files (turn_00.json is the set-up) "
        "and report every turn with a running tally per player.",
    )
    parser.add_argument("folder", nargs="?",
                        help="folder of turn_NN.json scenes (default: the shipped example)")
    parser.add_argument("--players", type=int, default=2, help="players taking turns (2-4)")
    parser.add_argument("--map", help="ground map: 1..4 or a map file (default: the scenes')")
    add_house_rules(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must be 2 to 4, found {args.players}")
    scenes = _load_game(args.folder)
    ground = resolve_map(args.map, *scenes)
    first_path, first = scenes[0]
    settings = house_rules(args)
    board = sound_palace(first_path, first, ground, settings)
    tallies = [Tally() for _ in range(args.players)]
    all_legal = True
    print(f"{first_path}: set-up, {len(first.pieces)} pieces on map {ground.name}")
    for number, (path, scene) in enumerate(scenes[1:], start=1):
        player = (number - 1) % args.players
        report = analyse_turn(board, sound_pieces(path, scene, ground, settings), settings)
        print()
        note = f": {scene.extra['note']}" if isinstance(scene.extra.get("note"), str) else ""
        print(f"Turn {number}, player {player + 1}{note}")
        print(format_report(report))
        _book(tallies, player, report)
        all_legal = all_legal and report.legal
        if report.legal:
            board = sound_palace(path, scene, ground, settings)
        for index, tally in enumerate(tallies):
            print(f"    player {index + 1}: {tally.line()}")
    return 0 if all_legal else 1


def _book(tallies: list[Tally], player: int, report: TurnReport) -> None:
    tally = tallies[player]
    tally.turns += 1
    tally.credits += report.credits
    tally.bonus_cards += int(report.bonus_card)
    for name in TROPHY_NAMES:
        if getattr(report.trophies, name):
            for other in tallies:
                other.trophies.discard(name)
            tally.trophies.add(name)


def _load_game(folder: str | None) -> list[tuple[str, Scene]]:
    """The scenes of a game in turn order; the shipped example when no folder is given."""
    if folder is None:
        shipped = resources.files("palace") / "examples" / "game1"
        files = sorted((f for f in shipped.iterdir() if f.name.endswith(".json")),
                       key=lambda f: f.name)
        games = [(f"examples/game1/{f.name}", f) for f in files]
    else:
        root = Path(folder)
        if not root.is_dir():
            raise UsageError(f"{folder}: no such folder")
        games = [(str(f), f) for f in sorted(root.glob("turn_*.json"))]
    if len(games) < 2:
        raise UsageError(f"{folder or 'examples/game1'}: needs turn_00.json (the set-up) and "
                         "at least one turn")
    out: list[tuple[str, Scene]] = []
    for name, ref in games:
        with resources.as_file(ref) as path:
            scene = load_scene(path)
        out.append((name, scene))
    return out
