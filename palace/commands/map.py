"""`palace map read IMAGE... [--camera CAM.json] [--out map.json] [--png map.png]
[--profile P.json --table NAME]`: the ground map read off the board by the camera."""

from __future__ import annotations

import argparse
import json
from typing import Any

import cv2

from calibration.image_file import load_image
from calibration.map_read import MapReadError, map_cells, read_map
from calibration.profile import DEFAULT_TABLE, Profile, TablePose
from palace.camera_map import card_picture, picture_turn, with_setup
from palace.cli import UsageError
from palace.commands.cameras import cameras_per_image
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
            "set-up or any later position, the board turned or another webcam between them; "
            "views are fused in the board frame of the first, each turned the way the studs "
            "it names agree with the first's (a view no way clearly aligns is left out). "
            "Studs hidden in every photo are written as '?' (a staircase started there takes "
            "their colour from its decoration). The starting staircase standing in the "
            "first picture the board is found in is looked for at every place and, where "
            "one is clearly it, written as the map's set-up (a game on the map starts "
            "with it). The map is printed, written with --out and stored for --table in "
            "--profile, where `palace locate` then uses it to tell which way round the "
            "board lies."
        ),
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the board")
    read.add_argument("--camera", action="append",
                      help="camera file from `palace calibrate camera`: one for every image, "
                      "or one per image in their order (repeat the option: several webcams)")
    read.add_argument("--out", help="map file to write (palace-map/1)")
    read.add_argument("--png", help="a small picture of the map to write (8 px per stud): "
                      "the card as the first picture's camera sees it, from above")
    read.add_argument("--profile", help="profile file: camera if --camera is not given; "
                      "the map is saved for the table")
    read.add_argument("--table", default=DEFAULT_TABLE, help="table name in the profile")
    read.add_argument("--json", action="store_true", help="print the map as JSON")
    read.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = output_file(args.out, "--out", (".json",)) if args.out else None
    png = output_file(args.png, "--png", (".png",)) if args.png else None
    lenses = cameras_per_image(args.camera, len(args.images))
    pictures = [(name, load_image(name), lenses[i] if len(lenses) > 1 else None)
                for i, name in enumerate(args.images)]
    profile = Profile.load(output_file(args.profile, "--profile")) if args.profile else None
    camera = lenses[0] if lenses else (profile.camera if profile else None)
    try:
        reading = read_map(pictures, camera, name=out.stem if out else "read")
    except MapReadError as exc:
        print(f"map not read: {exc}")
        return 1
    ground, pose = with_setup(reading, pictures[reading.picture][1])
    data = ground.to_json()
    if out is not None:
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    picture = card_picture(ground, picture_turn(reading.camera, pose), cell_px=8)
    if png is not None and not cv2.imwrite(str(png), picture):
        raise UsageError(f"{png}: cannot write a picture there")
    if profile is not None and args.profile:
        old = profile.tables.get(args.table)
        rotation = old.rotation if old is not None else 0
        profile.tables[args.table] = TablePose(pose, rotation, ground)
        if profile.camera is None:
            profile.camera = reading.camera
        profile.save(args.profile)
    if args.json:
        print(json.dumps(data))
        return 0
    unknown = sum(row.count(UNKNOWN_GROUND) for row in ground.ground)
    print(f"read from {reading.fused} of {len(pictures)} picture(s): {reading.known} studs "
          f"known, {unknown} unknown ('?': a staircase started there names it), "
          f"{len(ground.start_area)} in the starting area (S)")
    if ground.setup:
        feet = sorted(c for p in ground.setup for c in p.footprint())
        print(f"starting staircase: found standing on studs {feet[0]} to {feet[-1]}; "
              "it is the map's set-up")
    else:
        print("starting staircase: not found clearly (none standing, or several places "
              "alike); the map has no set-up")
    for row in map_cells(ground):  # as the map file has it: row y is string y
        print("".join(row))
    return 0
