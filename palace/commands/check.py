"""`palace check SCENE.json [--map 1|FILE]`: is this palace physically sound?

Exit 0: sound. Exit 1: it could stand on a table but breaks a placement rule (a brick
on an arch's centre studs, an arch on an arch, a leg in the air, a blocked stud).
Exit 2: no table could hold it (off the plate, two pieces in one place, a piece with
nothing under it) or the file cannot be read. Every problem is listed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from palace.commands.score import resolve_map, with_corners
from rules.placement import IMPOSSIBLE_RULES, impossible_violations, physics_violations
from rules.scene import load_scene


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="list every physical problem of a scene",
        description="Check that every piece of a scene is on the plate, alone in its "
        "space and properly supported.",
    )
    parser.add_argument("scene", help="scene file (palace-scene/1 JSON)")
    parser.add_argument("--map", help="ground map: 1..4 or a map file (default: the scene's)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    scene = load_scene(args.scene)
    ground = resolve_map(args.map, (args.scene, scene))
    pieces = with_corners(scene.pieces)  # the usual corners, as a Palace assumes
    impossible = impossible_violations(pieces, ground)
    rules = [v for v in physics_violations(pieces, ground) if v.rule not in IMPOSSIBLE_RULES]
    # A floating piece is also reported leg by leg as unsupported; say it once.
    floating = {pid for v in impossible if v.rule == "floating" for pid in v.pieces}
    rules = [v for v in rules if not (v.rule == "F" and v.pieces and v.pieces[0] in floating)]
    problems = [*impossible, *rules]
    if not problems:
        print(f"{args.scene}: {len(scene.pieces)} pieces, all sound")
        return 0
    stream = sys.stderr if impossible else sys.stdout
    print(f"{args.scene}: {len(problems)} problem(s)", file=stream)
    for v in problems:
        print(f"  [{v.rule}] {v.message}", file=stream)
    return 2 if impossible else 1
