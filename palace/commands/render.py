"""`palace render SCENE.json --camera CAM.json [--pose POSE.json | --seed N] --out frame.png`.

Writes the picture plus its ground truth beside it: ``<stem>.labels.png`` (16-bit:
blue = kind, green = part, red = piece index + 1, 0 = none), ``<stem>.depth.png``
(16-bit camera depth in tenths of a millimetre, 0 = nothing) and ``<stem>.json``
(camera, pose, scene, legends and render settings).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import Camera, CameraFileError, Pose
from palace.cli import UsageError
from rules.formats import read_json
from rules.maps import MapError, load_map
from rules.scene import load_scene
from twin import RenderOptions, render
from twin.cameras import random_pose
from twin.dataset import IMAGE_SUFFIXES, FrameWriteError, save_frame


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a scene as a webcam would see it, with ground truth",
        description="Render a scene file with the digital twin and write its labels.",
    )
    parser.add_argument("scene", metavar="SCENE", help="scene file (palace-scene/1 JSON)")
    parser.add_argument("--camera", required=True, help="camera file (intrinsics, JSON)")
    parser.add_argument("--pose", help="pose file: {\"rvec\": [..], \"tvec\": [..]} in mm")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the random pose (without --pose) and the realism")
    parser.add_argument("--clean", action="store_true",
                        help="no noise, clutter or light changes: a clean frame")
    parser.add_argument("--out", required=True, help="picture to write (.png or .jpg)")
    parser.set_defaults(run=run)


def load_pose(path: str) -> Pose:
    return Pose.from_json(read_json(path, "pose file", CameraFileError), path)


def run(args: argparse.Namespace) -> int:
    scene = load_scene(args.scene)
    try:
        load_map(scene.map)
    except MapError as exc:
        raise MapError(f"{args.scene}: 'map' {scene.map!r}: {exc}") from None
    camera = Camera.load(args.camera)
    if args.pose:
        pose = load_pose(args.pose)
    else:
        pose = random_pose(np.random.default_rng(args.seed), camera)
    out = Path(args.out)
    if out.suffix.lower() not in IMAGE_SUFFIXES:
        raise UsageError(f"{out}: the picture must be .png or .jpg")
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent}: no such folder")
    frame = render(scene, camera, pose, RenderOptions(clean=args.clean), seed=args.seed)
    try:
        written = save_frame(frame, out)
    except FrameWriteError as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
