"""`palace map read IMAGE... [--camera CAM.json] [--out map.json] [--png map.png]
[--profile P.json --table NAME]`: the ground map read off the board by the camera."""

from __future__ import annotations

import argparse
import json
from typing import Any

import cv2

from calibration.camera import Camera
from calibration.image_file import load_image
from calibration.map_read import MapReadError, map_picture, read_map
from calibration.profile import DEFAULT_TABLE, Profile, TablePose
from palace.cli import UsageError
from palace.output_path import output_file
from rules.maps import UNKNOWN_GROUND


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "map",
        help="read the ground map off the board",
        description="Ground maps: the real ones are not published, so the camera reads them.",
    )
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    read = sub.add_parser(
        "read",
        help="read the ground map from photos of the board",
        description=(
            "Read the colour of the card around every stud (light green, dark green, gold, "
            "blocked, the white starting area) from one or more photos of the board, the "
            "set-up or any later position; views are fused in the board frame of the first. "
            "Studs hidden in every photo are written as '?' (a staircase started there takes "
            "their colour from its decoration). The "
            "map is printed, written with --out and stored for --table in --profile, where "
            "`palace locate` then uses it to tell which way round the board lies."
        ),
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the board")
    read.add_argument("--camera", help="camera file from `palace calibrate camera`")
    read.add_argument("--out", help="map file to write (palace-map/1)")
    read.add_argument("--png", help="a small picture of the map to write (8 px per stud)")
    read.add_argument("--profile", help="profile file: camera if --camera is not given; "
                      "the map is saved for the table")
    read.add_argument("--table", default=DEFAULT_TABLE, help="table name in the profile")
    read.add_argument("--json", action="store_true", help="print the map as JSON")
    read.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = output_file(args.out, "--out", (".json",)) if args.out else None
    png = output_file(args.png, "--png", (".png",)) if args.png else None
    pictures = [(name, load_image(name)) for name in args.images]
    profile = Profile.load(output_file(args.profile, "--profile")) if args.profile else None
    camera = Camera.load(args.camera) if args.camera else (profile.camera if profile else None)
    try:
        reading = read_map(pictures, camera, name=out.stem if out else "read")
    except MapReadError as exc:
        print(f"map not read: {exc}")
        return 1
    data = reading.ground.to_json()
    if out is not None:
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if png is not None and not cv2.imwrite(str(png), map_picture(reading.cells())):
        raise UsageError(f"{png}: cannot write a picture there")
    if profile is not None and args.profile:
        old = profile.tables.get(args.table)
        rotation = old.rotation if old is not None else 0
        profile.tables[args.table] = TablePose(reading.pose, rotation, reading.ground)
        if profile.camera is None:
            profile.camera = reading.camera
        profile.save(args.profile)
    if args.json:
        print(json.dumps(data))
        return 0
    unknown = sum(row.count(UNKNOWN_GROUND) for row in reading.ground.ground)
    print(f"read from {reading.views} of {len(pictures)} picture(s): {reading.known} studs "
          f"known, {unknown} unknown ('?': a staircase started there names it), "
          f"{len(reading.ground.start_area)} in the starting area (S)")
    for row in reading.cells():
        print("".join(row))
    return 0
