"""`palace locate IMAGE [--camera camera.json] [--profile P.json] [--map M] [--json]`: where is
the board? The pose needs no map; a map (given, or read for this table earlier) only says
which way round the board lies."""

from __future__ import annotations

import argparse
import json
from typing import Any

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from calibration.image_file import load_image
from calibration.pose import locate_board
from calibration.profile import DEFAULT_TABLE, Profile, TablePose
from calibration.tracking import BoardTracker
from palace.output_path import output_file
from rules.maps import load_map

FACING = ("the map's row y = 0", "its column x = 0", "its row y = 31", "its column x = 31")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "locate",
        help="find the board's pose in a photo",
        description=(
            "Find the board from its corner bricks and print the pose mapping board "
            "coordinates (mm) into the camera, in OpenCV terms (rvec, tvec). Exit code 1 "
            "when the board is not found."
        ),
    )
    parser.add_argument("image", help="photo of the table")
    parser.add_argument("--camera", help="camera file from `palace calibrate camera`")
    parser.add_argument(
        "--profile", help="profile file: camera to use if --camera is not given; the pose is saved"
    )
    parser.add_argument("--table", default=DEFAULT_TABLE, help="table name in the profile")
    parser.add_argument(
        "--map",
        help="ground map: 1..4 or a map file; it only says which way round the board lies "
        "(default: the map read for this table in the profile, else none)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    profile = Profile.load(output_file(args.profile, "--profile")) if args.profile else None
    image = load_image(args.image)
    saved = profile.tables.get(args.table) if profile is not None else None
    if args.map is not None:
        ground = load_map(args.map)
    else:
        ground = saved.map if saved is not None else None
    h, w = image.shape[:2]
    if args.camera:
        camera, source = Camera.load(args.camera), args.camera
    elif profile is not None and profile.camera is not None:
        camera, source = profile.camera, f"profile {args.profile}"
    else:
        camera, source = Camera.default_for(w, h), None
    last = profile.tables.get(args.table) if profile is not None else None
    if source is not None and last is not None and (camera.width, camera.height) == (w, h):
        # Start from where the board lay last time at this table: one short fit when it
        # has not moved, a full search otherwise.
        start = BoardLocation(True, pose=last.pose, rotation=last.rotation, camera=camera)
        result = BoardTracker(camera, ground, start).update(image)
    else:
        result = locate_board(image, camera, ground, refine_focal=source is None)
    if result.found and profile is not None and result.pose is not None:
        profile.tables[args.table] = TablePose(
            result.pose, int(result.rotation or 0), saved.map if saved is not None else None
        )
        if profile.camera is None and result.camera is not None:
            profile.camera = result.camera
        profile.save(args.profile)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0 if result.found else 1
    if not result.found or result.pose is None:
        print(f"board not found: {result.reason}")
        return 1
    if source is None and result.camera is not None:
        print(
            f"no camera file: assumed a {w}x{h} webcam and refined its focal length from the "
            f"board to {result.camera.fx:.1f} px"
        )
    else:
        print(f"camera: {source}")
    rv, tv = result.pose.rvec, result.pose.tvec
    print(f"rvec {rv[0]:.6f} {rv[1]:.6f} {rv[2]:.6f}")
    print(f"tvec {tv[0]:.2f} {tv[1]:.2f} {tv[2]:.2f} (mm)")
    if result.turn_resolved:
        print(f"rotation {result.rotation} ({FACING[result.rotation or 0]} faces the camera)")
    else:
        why = "no ground map given" if ground is None else (
            f"the ground map does not tell it, margin {result.map_margin:.2f}")
        print(f"rotation unresolved ({why}): the pose is reported with the map's row y = 0 "
              "facing the camera")
    print(f"reprojection error {result.reprojection_error_px:.3f} px, quality {result.quality:.2f}")
    print(f"corner bricks seen: {', '.join(map(str, result.corner_bricks)) or 'none'}")
    return 0
