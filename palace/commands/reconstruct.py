"""`palace reconstruct IMAGE... --camera camera.json --before SCENE.json --before-image IMG
[--map 1|FILE] --out SCENE.json [--json]`: the palace a photo shows after a turn.

The images are views of the palace after the turn, taken with one camera; the scene
before the turn and the photo of it say what was there already. The scene written holds
the pieces before and those read as added, each with a ``confidence`` (1 for the pieces
that were there); the turn's report follows. Exit 0 when read with confidence, 1 when
the board is not found or the reading is uncertain (the scene is still written, the
doubtful pieces marked by their confidence), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from palace.cli import UsageError
from palace.commands.score import format_report, resolve_map, sound_palace
from rules.maps import piece_to_json
from rules.scene import SCENE_FORMAT, load_scene
from rules.staircase import analyse_added
from vision import TurnReading, read_turn

MAX_PIXELS = 40_000_000
"""A photo larger than this is refused before it is decoded (a webcam frame is 1 to 8 MP)."""


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
    parser.add_argument("--camera", required=True, help="camera file (palace calibrate camera)")
    parser.add_argument("--before", help="scene file of the palace before the turn")
    parser.add_argument("--before-image", help="photo of the board before the turn")
    parser.add_argument("--map", help="ground map: 1..4 or a map file (default: the scene's)")
    parser.add_argument("--out", required=True, help="scene file to write (palace-scene/1)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def read_image(path: str) -> NDArray[np.uint8]:
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file")
    if file.stat().st_size > MAX_PIXELS * 3:
        raise UsageError(f"{path}: file too large for a photo")
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise UsageError(f"{path}: not a readable image")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise UsageError(f"{path}: {image.shape[1]}x{image.shape[0]} is too large a picture")
    return image


def run(args: argparse.Namespace) -> int:
    if args.before is None:
        raise UsageError("--before: reading a palace with no scene before it (full mode) "
                         "is not available yet; give the scene and photo before the turn")
    camera = Camera.load(args.camera)
    before_scene = load_scene(args.before)
    ground = resolve_map(args.map, (args.before, before_scene))
    before = sound_palace(args.before, before_scene, ground)
    frames = [read_image(p) for p in args.images]
    before_frame = read_image(args.before_image) if args.before_image else None
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"--out {args.out}: no such folder {out.parent}")
    reading = read_turn(frames, camera, before, before_frame=before_frame, ground=ground)
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
