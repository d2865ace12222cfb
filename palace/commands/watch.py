"""`palace watch --camera 0 | --video FILE | --frames DIR [--second SOURCE]`: the table's
camera and its page.

The camera loop reads each turn off the board as it settles and the dashboard shows it;
both share one table session (and its game log), the loop in the main thread and the
web server beside it. When a recorded source ends, the page stays up until Ctrl-C
(``--exit`` ends at once, for scripts). ``--second`` is a second webcam on another side
of the table, of the same kind as the first source: its view is read with the first's
(``palace.following``).
"""

from __future__ import annotations

import argparse
from typing import Any

from calibration.camera import Camera
from calibration.profile import DEFAULT_TABLE, Profile
from palace.cli import UsageError
from palace.commands.serve import (
    add_server_options,
    keep_serving,
    open_session,
    reserve_port,
    start_dashboard,
)
from palace.output_path import output_file


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
    parser.add_argument("--second", metavar="SOURCE",
                        help="a second webcam on another side of the table, of the first "
                        "source's kind: a webcam index or address (with --camera), a video "
                        "file (--video) or a folder of pictures (--frames)")
    parser.add_argument("--second-intrinsics", metavar="CAMERA.json",
                        help="the second webcam's lens file (default: a guess refined on "
                        "the board)")
    parser.add_argument("--profile", metavar="P.json",
                        help="profile file: its camera when --intrinsics is not given; a game "
                        "set up on the map read by the camera keeps that map for --table")
    parser.add_argument("--table", default=DEFAULT_TABLE,
                        help=f"table name in the profile (default {DEFAULT_TABLE})")
    add_server_options(parser)
    parser.add_argument("--exit", action="store_true",
                        help="end when the source ends instead of keeping the page up")
    parser.set_defaults(run=run)


def _kind(args: argparse.Namespace) -> str:
    """Which kind of source the first is: the second is opened as the same kind."""
    return "camera" if args.camera is not None else "video" if args.video else "frames"


def run(args: argparse.Namespace) -> int:
    from palace.following import SecondWebcam
    from palace.watch import CameraLoop
    from vision.capture import CaptureError, open_source

    held = reserve_port(args.host, args.port)
    profile_path = output_file(args.profile, "--profile") if args.profile else None
    profile = Profile.load(profile_path) if profile_path else None  # a broken one: now
    camera = Camera.load(args.intrinsics) if args.intrinsics else (
        profile.camera if profile else None)
    if args.second_intrinsics and not args.second:
        raise UsageError("--second-intrinsics: only with --second")
    second_camera = Camera.load(args.second_intrinsics) if args.second_intrinsics else None
    try:
        source = open_source(camera=args.camera, video=args.video, frames=args.frames,
                             fps=args.fps)
    except CaptureError as exc:
        raise UsageError(str(exc)) from None
    try:
        second_source = None if args.second is None else open_source(
            **{_kind(args): args.second}, fps=args.fps)
    except CaptureError as exc:
        source.close()
        raise UsageError(str(exc)) from None
    session = open_session(args.db, args.resume)
    session.maps.profile, session.maps.table = profile_path, args.table
    try:
        url = start_dashboard(session, held, args.host, args.port)
        print(f"Palace Eye is watching {source.name}: the dashboard is at {url}", flush=True)
        second = None if second_source is None else SecondWebcam(second_camera)
        loop = CameraLoop(session, camera=camera, background=args.camera is not None,
                          second=second)
        # A recording plays at its own speed for people watching the page; a script
        # (--exit) wants it as fast as it goes. A live camera paces itself.
        pace = args.camera is None and not args.exit
        try:
            stats = loop.run(source, pace=pace, second_source=second_source)
        except CaptureError as exc:
            raise UsageError(str(exc)) from None
        finally:
            source.close()
            if second_source is not None:
                second_source.close()
        seconds = "" if second is None else (
            f"; second webcam: board found in {second.found} of {second.frames} frames, "
            f"its view read with {stats.second_views} turns, {stats.second_alone} of them "
            f"seen changed by it alone")
        print(f"{stats.frames} frames, board found in {stats.found}, {stats.turns} turns "
              f"read{seconds}", flush=True)
        if not args.exit:
            keep_serving()
    finally:
        session.close()
    return 0
