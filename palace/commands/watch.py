"""`palace watch --camera 0 | --video FILE | --frames DIR`: the table's camera and its page.

The camera loop reads each turn off the board as it settles and the dashboard shows it;
both share one table session (and its game log), the loop in the main thread and the
web server beside it. When a recorded source ends, the page stays up until Ctrl-C
(``--exit`` ends at once, for scripts).
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path
from typing import Any

from calibration.camera import Camera
from palace.cli import UsageError

DEFAULT_DB = Path.home() / ".palace-eye" / "games.sqlite"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="follow a game from a webcam (or a video, or a folder of frames)",
        description="Track the board, wait until it settles with nothing over it, read "
        "each turn and serve the dashboard. Games are logged in one SQLite file.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", metavar="INDEX",
                        help="webcam index (0 first), or a device path or stream address")
    source.add_argument("--video", metavar="FILE", help="a video file of the table")
    source.add_argument("--frames", metavar="DIR", help="a folder of pictures, in name order")
    parser.add_argument("--fps", type=float, default=10.0,
                        help="frame rate of a --frames folder (default 10)")
    parser.add_argument("--intrinsics", metavar="CAMERA.json",
                        help="lens file from `palace calibrate camera` (default: a guess "
                        "refined on the board)")
    add_server_options(parser)
    parser.add_argument("--exit", action="store_true",
                        help="end when the source ends instead of keeping the page up")
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


def check_port(host: str, port: int) -> None:
    """A one-line error now rather than a server thread dying later."""
    if not 0 < port < 65536:
        raise UsageError(f"--port: must be 1..65535, found {port}")
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise UsageError(f"--host {host} --port {port}: cannot serve there "
                         f"({exc.strerror or exc})") from None


def start_dashboard(session: Any, host: str, port: int) -> str:
    """The page served from a background thread; returns its address once it answers."""
    from palace.server import serve

    thread = threading.Thread(target=serve, args=(session, host, port), name="dashboard",
                              daemon=True)
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
    except (LogError, OSError) as exc:
        raise UsageError(f"{db}: {exc}") from None


def keep_serving() -> None:
    """Keeps the process (and the page) up until Ctrl-C."""
    print("the source has ended; the dashboard stays up (Ctrl-C to stop)", flush=True)
    while True:
        time.sleep(3600)


def run(args: argparse.Namespace) -> int:
    from palace.watch import CameraLoop
    from vision.capture import CaptureError, open_source

    check_port(args.host, args.port)
    camera = Camera.load(args.intrinsics) if args.intrinsics else None
    try:
        source = open_source(camera=args.camera, video=args.video, frames=args.frames,
                             fps=args.fps)
    except CaptureError as exc:
        raise UsageError(str(exc)) from None
    session = open_session(args.db, args.resume)
    try:
        url = start_dashboard(session, args.host, args.port)
        print(f"Palace Eye is watching {source.name}: the dashboard is at {url}", flush=True)
        loop = CameraLoop(session, camera=camera, background=args.camera is not None)
        # A recording plays at its own speed for people watching the page; a script
        # (--exit) wants it as fast as it goes. A live camera paces itself.
        pace = args.camera is None and not args.exit
        try:
            stats = loop.run(source, pace=pace)
        except CaptureError as exc:
            raise UsageError(str(exc)) from None
        finally:
            source.close()
        print(f"{stats.frames} frames, board found in {stats.found}, {stats.turns} turns "
              f"read", flush=True)
        if not args.exit:
            keep_serving()
    finally:
        session.close()
    return 0
