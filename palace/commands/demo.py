"""`palace demo`: the whole application on a simulated table, with nothing else needed.

Three bots play a game on the twin's table; a fixed webcam's frames (hands over the
board while a turn is built, the board now and then slid or turned) go through the same
camera loop as `palace watch`: board tracking, the settle detector, reconstruction and
the rules. The dashboard at http://127.0.0.1:8000 follows it live; the simulated
players pick their cards and correct misreadings on it as people would.

``--turns N --exit`` (or ``--headless-check``, which also skips the web server) plays
N turns as fast as the machine goes and prints a summary, for tests and scripts.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from palace.cli import UsageError
from palace.commands.serve import (
    add_server_options,
    keep_serving,
    open_session,
    reserve_port,
    start_dashboard,
)

PLAYERS = 3
SECOND_WEBCAM_DEG = 180.0
"""Where ``--second-webcam`` puts the second webcam: across the table from the first."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo", help="the dashboard following a simulated table (bots play, a twin "
        "webcam films, the real pipeline reads)",
        description="Bots play a 3-player game on a simulated table; the camera loop reads "
        "every turn from the rendered frames and the dashboard shows it at "
        "http://127.0.0.1:8000. Nothing else is needed.")
    add_server_options(parser, None, "the game log (default: a new temporary file; a new "
                       "game is added to an existing one)", resume=False)
    parser.add_argument("--seed", type=int, default=0, help="the game and the table (default 0)")
    parser.add_argument("--turns", type=int, help="stop after this many turns (default: the "
                        "whole game)")
    parser.add_argument("--exit", action="store_true",
                        help="run as fast as possible and end with a summary")
    parser.add_argument("--headless-check", action="store_true",
                        help="like --exit, without the web server (for tests)")
    parser.add_argument("--no-browser-needed", action="store_true",
                        help="follow the game in the terminal too: every turn's report")
    parser.add_argument("--second-webcam", action="store_true",
                        help="film the table with a second webcam across it too, its view "
                        "read with the first's (the page shows both)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from palace.demo import TablePlayers
    from palace.following import SecondWebcam
    from palace.watch import CameraLoop
    from twin.table import SimulatedTable
    from twin.table_settings import TableSettings

    if args.turns is not None and args.turns < 1:
        raise UsageError(f"--turns: must be at least 1, found {args.turns}")
    held = None if args.headless_check else reserve_port(args.host, args.port)
    db = args.db or Path(tempfile.mkdtemp(prefix="palace-demo-")) / "demo.sqlite"
    fast = args.exit or args.headless_check
    # Watched live, the finished palace lies still a while and the players look at the
    # page before picking cards, so people see each reading (and each doubt) there.
    settings = TableSettings() if fast else TableSettings(still_s=5.0)
    if args.second_webcam:
        settings = replace(settings, second_webcam_deg=SECOND_WEBCAM_DEG)
    table = SimulatedTable(seed=args.seed, players=PLAYERS, turns=args.turns,
                           settings=settings)
    session = open_session(db, False)
    try:
        players = TablePlayers(
            session, table, say=lambda line: print(line, flush=True),
            think_s=0.0 if fast else 3.0,
            after_turn=(lambda: _print_last_turn(session)) if args.no_browser_needed else None)
        players.set_up()
        headline = (f"a simulated table: {PLAYERS} bots, map {table.record.map}, seed "
                    f"{args.seed}, {table.turns} turns; game log {db}")
        if held is not None:
            url = start_dashboard(session, held, args.host, args.port)
            print(f"Palace Eye demo: the dashboard is at {url} ({headline})", flush=True)
        else:
            print(f"Palace Eye demo, no web server ({headline})", flush=True)
        second = SecondWebcam(table.camera) if args.second_webcam else None
        loop = CameraLoop(session, camera=table.camera, on_turn=players.on_turn,
                          second=second)

        def frames() -> Any:
            for frame in table:
                players.watch(frame)
                yield frame

        if second is None:
            stats = loop.run(frames(), pace=not fast)
        else:
            # One pass over the table: its frames for the first webcam, and their second
            # pictures taken with them (tee holds at most the one frame between).
            first, both = itertools.tee(frames())
            stats = loop.run(first, pace=not fast, second_source=(
                SimpleNamespace(image=f.second_image, time=f.time) for f in both))
        if second is not None:
            print(f"second webcam: board found in {second.found} of {second.frames} frames, "
                  f"its view read with {stats.second_views} of {stats.reads} reads, "
                  f"{stats.second_alone} of them seen changed by it alone", flush=True)
        players.finish_all()
        _print_summary(session, players, stats)
        if not fast:
            keep_serving()
        return 0 if players.tally.built == 0 or stats.turns > 0 else 1
    finally:
        session.close()


def _print_last_turn(session: Any) -> None:
    """The turn just played, in the words the page shows."""
    turns = [t for t in session.state()["turns"] if not t["undone"]]
    if turns:
        for line in turns[-1]["words"] if turns[-1].get("report") else ["passed"]:
            print(f"    {line}", flush=True)


def _print_summary(session: Any, players: Any, stats: Any) -> None:
    idle = stats.idle_frame_s
    fps = len(idle) / sum(idle) if idle and sum(idle) > 0 else 0.0
    latency = (f"{statistics.median(stats.read_s):.2f} s median from the settled frame to "
               f"the turn" if stats.read_s else "no turn read")
    print(f"camera loop: {stats.frames} frames, board found in {stats.found}, {stats.reads} "
          f"reads ({stats.nothing_new} found nothing new), {stats.moves} board moves "
          f"followed; {fps:.1f} frames/s between reads (rendering not counted); {latency}")
    print(f"players: {players.tally.line()}")
    game = session.game
    names = session.row.names
    scores = game.scores()
    ranking = sorted(range(len(names)), key=lambda i: -scores[i])
    print("scores: " + ", ".join(f"{names[i]} {scores[i]}" for i in ranking)
          + (" (game over)" if game.is_over else ""))
