"""`palace reconstruct IMAGE... --camera camera.json... [--before SCENE.json --before-image
IMG...] [--map 1|FILE] --out SCENE.json [--json]`: the palace a photo shows after a turn,
or (without --before, full mode) the whole palace several views show.

The images are views of the palace after the turn, taken with one camera (or one per
image: ``--camera`` again for each, several webcams round the table); the scene
before the turn and the photo of it say what was there already. One photo before is of
the first view the board is found in; one per image (``--before-image`` again for each,
in the images' order) lets every view be read, each against its own: what one view
hides, another shows. The scene written holds the pieces before and those read as
added, each with a ``confidence`` (1 for the pieces that were there); the turn's report
follows. Exit 0 when read with confidence, 1 when the board is not found or the reading
is uncertain (the scene is still written, the doubtful pieces marked by their
confidence), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from calibration.image_file import load_image
from calibration.pose import locate_board
from palace.cli import UsageError
from palace.commands.cameras import cameras_per_image
from palace.commands.score import format_report, resolve_map, sound_palace
from palace.output_path import output_file
from rules.formats import SCENE_FORMAT
from rules.maps import GroundMap, piece_to_json
from rules.scene import load_scene
from rules.staircase import analyse_added
from vision import TurnReading, read_palace, read_turn
from vision.full import corners_only


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "reconstruct",
        help="read the pieces a turn added from photos of the board",
        description=(
            "Read the palace after a turn from one or more photos (views of the same "
            "palace, one camera), given the scene and a photo before the turn."
        ),
    )
    parser.add_argument("images", nargs="+", help="photos after the turn")
    parser.add_argument("--camera", required=True, action="append",
                        help="camera file (palace calibrate camera): one for every image, or "
                             "one per image in their order (repeat the option: several "
                             "webcams)")
    parser.add_argument("--before", help="scene file of the palace before the turn")
    parser.add_argument("--before-image", action="append",
                        help="photo of the board before the turn: one, as the first image "
                             "the board is found in sees it, or one per image in their order "
                             "(repeat the option)")
    parser.add_argument("--map", help="ground map: 1..4 or a map file (default: the scene's)")
    parser.add_argument("--out", required=True, help="scene file to write (palace-scene/1)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.before is None:
        return run_full(args)
    out = output_file(args.out, "--out", (".json",))
    cameras = cameras_per_image(args.camera, len(args.images))
    before_scene = load_scene(args.before)
    ground = resolve_map(args.map, (args.before, before_scene))
    before = sound_palace(args.before, before_scene, ground)
    frames = [load_image(p) for p in args.images]
    given = args.before_image or []
    if len(given) not in (0, 1, len(frames)):
        raise UsageError(f"--before-image: give one (as the first image sees the board) or "
                         f"one per image ({len(frames)} images, {len(given)} given)")
    befores = [load_image(p) for p in given]
    # Where the board lies in each photo before: one taken from a camera turned or
    # moved a little since is brought to where the photo after sees the board.
    places = [locate_board(image, cameras[i if len(cameras) > 1 else 0], ground)
              for i, image in enumerate(befores)]
    reading = read_turn(frames, cameras[0], before, before_frame=befores[0] if len(befores) == 1
                        else befores or None,
                        before_locations=places[0] if len(places) == 1 else places or None,
                        ground=ground, locations=_located(frames, cameras, ground))
    pieces = [{**piece_to_json(p), "confidence": 1.0} for p in before_scene.pieces]
    for i, r in enumerate(reading.added):
        item = r.to_json()
        item["id"] = f"r{i + 1}"
        pieces.append(item)
    scene = {"format": SCENE_FORMAT, "map": ground.name, "pieces": pieces}
    try:
        out.write_text(json.dumps(scene, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot write ({exc})") from None
    report = analyse_added(before, reading.pieces) if reading.found else None
    if args.json:
        print(json.dumps({"reading": reading.to_json(),
                          "report": None if report is None else report.to_json(),
                          "out": str(out)}, indent=1))
    else:
        print(summary(reading))
        if report is not None:
            print(format_report(report))
        print(f"scene written to {out}")
    return 0 if reading.found and not reading.uncertain else 1


def run_full(args: argparse.Namespace) -> int:
    """Full mode: the whole palace, read with no scene before it; the corner bricks are
    the map's and every other piece is read."""
    if args.before_image is not None:
        raise UsageError("--before-image: only with --before (turn mode)")
    if args.map is None:
        raise UsageError("--map: full mode needs the ground map (1..4 or a map file)")
    out = output_file(args.out, "--out", (".json",))
    cameras = cameras_per_image(args.camera, len(args.images))
    ground = resolve_map(args.map)
    frames = [load_image(p) for p in args.images]
    reading = read_palace(frames, cameras[0], ground=ground,
                          locations=_located(frames, cameras, ground))
    pieces = [{**piece_to_json(p), "confidence": 1.0} for p in corners_only(ground)]
    for i, r in enumerate(reading.added):
        pieces.append({**r.to_json(), "id": f"r{i + 1}"})
    scene = {"format": SCENE_FORMAT, "map": ground.name, "pieces": pieces}
    try:
        out.write_text(json.dumps(scene, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot write ({exc})") from None
    if args.json:
        print(json.dumps({"reading": reading.to_json(), "out": str(out)}, indent=1))
    else:
        print(summary(reading).replace("added", "read", 1))
        print(f"scene written to {out}")
    return 0 if reading.found and not reading.uncertain else 1


def _located(frames: list[NDArray[np.uint8]], cameras: list[Camera], ground: GroundMap
             ) -> list[BoardLocation] | None:
    """Each image's board found under its own webcam's lens, where the images have
    several (the reader takes each view's lens from its location); None for one lens,
    the reader then finding the boards itself."""
    if len(cameras) == 1:
        return None
    out = []
    for frame, camera in zip(frames, cameras, strict=True):
        location = locate_board(frame, camera, ground)
        out.append(location if location.camera is not None else replace(location,
                                                                          camera=camera))
    return out


def summary(reading: TurnReading) -> str:
    if not reading.found:
        return f"not read: {reading.reason}"
    lines = [f"{len(reading.added)} piece(s) added"
             + (" (uncertain)" if reading.uncertain else "")
             + f", read in {reading.seconds:.2f} s"]
    for r in reading.added:
        p = r.piece
        where = f"{p.x},{p.y} level {p.z}"
        extra = f" axis {p.axis.value}" if p.kind.value == "arch" else ""
        extra += f" {p.color}" if p.kind.value == "decoration" else ""
        lines.append(f"  {p.kind.value} at {where}{extra}: confidence {r.confidence:.2f}")
    return "\n".join(lines)
