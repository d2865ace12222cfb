"""`palace dataset OUT_DIR --games N --views K --seed S`: rendered bot games for training.

Plays ``N`` bot games with the rules engine and renders every turn's palace from ``K``
random webcams (random light, table, clutter, noise), writing each picture with its
labels, depth and truth JSON (see :mod:`twin.dataset`). The same arguments
always give the same files.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from palace.cli import SEED, UsageError
from palace.output_path import output_folder
from rules.maps import load_map
from rules.scene import Scene
from twin.dataset import DatasetSpec, FrameWriteError, Progress, write_dataset
from twin.renderer import MAX_PIXELS as MAX_RENDER_PIXELS

MAX_GAMES = 10_000
MAX_VIEWS = 100
"""Bounds far above a training set's needs (a game is ~30 turns, each view a render), so
that a typo cannot start a job of months."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dataset",
        help="render bot games from random webcams into a labelled training set",
        description="Play bot games and render every turn from random cameras.",
    )
    parser.add_argument("out", metavar="OUT_DIR", help="folder to write the frames into")
    parser.add_argument("--games", type=int, default=1, help="bot games to play (default 1)")
    parser.add_argument("--views", type=int, default=2, help="cameras per turn (default 2)")
    parser.add_argument("--seed", type=SEED, default=0, help="seed for games and renders")
    parser.add_argument("--players", type=int, default=4, help="players per game (2-4)")
    parser.add_argument("--map", default="1", help="ground map: 1-4 or a map file")
    parser.add_argument("--width", type=int, default=1280, help="picture width (px)")
    parser.add_argument("--height", type=int, default=720, help="picture height (px)")
    parser.set_defaults(run=run)


def _simulate() -> Any:
    """The rules engine's bot game (``simulate_game``), wherever it is exported."""
    for name in ("rules.moves", "rules.bot"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        simulate = getattr(module, "simulate_game", None)
        if simulate is not None:
            return simulate
    raise UsageError("the bot game engine (rules simulate_game) is not available")


def run(args: argparse.Namespace) -> int:
    if not (1 <= args.games <= MAX_GAMES and 1 <= args.views <= MAX_VIEWS):
        raise UsageError(f"--games and --views must be 1 to {MAX_GAMES} and 1 to {MAX_VIEWS}")
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must be 2 to 4, found {args.players}")
    if not (16 <= args.width <= 8192 and 16 <= args.height <= 8192):
        raise UsageError("--width and --height must be between 16 and 8192 pixels")
    if args.width * args.height > MAX_RENDER_PIXELS:
        raise UsageError(f"--width x --height is {args.width}x{args.height}; the renderer "
                         f"draws at most {MAX_RENDER_PIXELS} pixels (3840x2160)")
    load_map(args.map)  # a bad map is reported before any game is played
    out = output_folder(args.out, "OUT_DIR")
    simulate = _simulate()
    spec = DatasetSpec(args.games, args.views, args.seed, args.width, args.height,
                       args.players, args.map)
    scenes: list[tuple[int, int, Scene]] = []
    for game in range(args.games):
        record = simulate(players=args.players, seed=args.seed * 1000 + game,
                          map_name=args.map)
        scenes.extend((game, turn, scene) for turn, scene in enumerate(record.scenes))
    progress = Progress(len(scenes) * args.views)
    try:
        count = write_dataset(out, scenes, spec, progress)
    except (FrameWriteError, OSError) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {count} frames to {out}")
    return 0
