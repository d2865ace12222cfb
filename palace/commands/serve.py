"""`palace serve`: the table's dashboard on its own, turns entered or corrected on the page.

The camera loop (`palace watch`) and the simulated table (`palace demo`) serve the same
page; this command is for a table without a camera, or to look back at a logged game.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_DB = Path.home() / ".palace-eye" / "games.sqlite"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="the dashboard: the game, its turns, cards, corrections and undo",
        description="Serve the table's page. Games are logged in one SQLite file; "
        "--resume carries on with the latest game after a crash.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; any other prints a "
                        "join code that pages must give)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", type=Path, default=DEFAULT_DB,
                        help=f"the game log (default {DEFAULT_DB})")
    parser.add_argument("--resume", action="store_true",
                        help="carry on with the latest game in the log")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from palace.cli import UsageError
    from palace.commands.watch import check_port
    from palace.gamelog import LogError
    from palace.server import serve
    from palace.session import TableSession

    # Bad input is answered here (one line, exit 2) rather than raised, so that the
    # message is the same however the command was started.
    try:
        check_port(args.host, args.port)
    except UsageError as exc:
        print(f"palace serve: {exc}", file=sys.stderr)
        return 2
    try:
        session = TableSession.open(args.db, resume=args.resume)
    except LogError as exc:
        print(f"palace serve: {exc}", file=sys.stderr)
        return 2
    try:
        serve(session, args.host, args.port)
    finally:
        session.close()
    return 0
