"""`palace serve`: the table's dashboard on its own, turns entered or corrected on the page.

The camera loop (`palace watch`) and the simulated table (`palace demo`) serve the same
page; this command is for a table without a camera, or to look back at a logged game.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path
from typing import Any

from palace.cli import UsageError

DEFAULT_DB = Path.home() / ".palace-eye" / "games.sqlite"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="the dashboard: the game, its turns, cards, corrections and undo",
        description="Serve the table's page. Games are logged in one SQLite file; "
        "--resume carries on with the latest game after a crash.")
    add_server_options(parser)
    parser.set_defaults(run=run)


def add_server_options(parser: argparse.ArgumentParser, db_default: Path | None = DEFAULT_DB,
                       db_help: str | None = None, resume: bool = True) -> None:
    """The dashboard's options, shared with `palace demo` (which always starts afresh:
    its simulated table cannot resume a game)."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to serve the page on (default 127.0.0.1; any other "
                        "prints a join code that pages must give)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", type=Path, default=db_default,
                        help=db_help or f"the game log (default {db_default})")
    if resume:
        parser.add_argument("--resume", action="store_true",
                            help="carry on with the latest game in the log")


def reserve_port(host: str, port: int) -> socket.socket:
    """The port, bound now and held until the server takes it: a one-line error now
    rather than a server thread dying later, and no other program can take the port in
    between (uvicorn's own error lines would then come before ours)."""
    if not 0 < port < 65536:
        raise UsageError(f"--port: must be 1..65535, found {port}")
    held = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind((host, port))
        held.listen()  # bound alone, another program setting SO_REUSEADDR could bind too
    except OSError as exc:
        held.close()
        raise UsageError(f"--host {host} --port {port}: cannot serve there "
                         f"({exc.strerror or exc})") from None
    return held


def start_dashboard(session: Any, held: socket.socket, host: str, port: int) -> str:
    """The page served from a background thread on the ``held`` port; returns its
    address once it answers."""
    from palace.server import serve

    thread = threading.Thread(target=serve, args=(session, host, port, held),
                              name="dashboard", daemon=True)
    thread.start()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and thread.is_alive():
        try:
            with socket.create_connection((shown, port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.05)
    if not thread.is_alive():
        raise UsageError(f"--host {host} --port {port}: the dashboard could not start")
    return f"http://{shown}:{port}"


def open_session(db: Path, resume: bool) -> Any:
    from palace.gamelog import LogError
    from palace.session import TableSession

    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        return TableSession.open(db, resume=resume)
    except LogError as exc:  # names the file already
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{db}: {exc.strerror or exc}") from None


def keep_serving() -> None:
    """Keeps the process (and the page) up until Ctrl-C."""
    print("the source has ended; the dashboard stays up (Ctrl-C to stop)", flush=True)
    while True:
        time.sleep(3600)


def run(args: argparse.Namespace) -> int:
    from palace.server import serve

    held = reserve_port(args.host, args.port)
    session = open_session(args.db, args.resume)
    try:
        serve(session, args.host, args.port, held)
    finally:
        session.close()
    return 0
