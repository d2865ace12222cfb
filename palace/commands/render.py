"""`palace render SCENE.json --camera CAM.json [--pose POSE.json | --seed N] --out frame.png`.

Writes the picture plus its ground truth beside it: ``<stem>.labels.png`` (16-bit:
blue = kind, green = part, red = piece index + 1, 0 = none), ``<stem>.depth.png``
(16-bit camera depth in tenths of a millimetre, 0 = nothing) and ``<stem>.json``
(camera, pose, scene, legends and render settings).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from calibration.camera import Camera, Pose
from calibration.image_file import IMAGE_SUFFIXES
from palace.cli import SEED, UsageError
from palace.commands.score import with_corners
from palace.output_path import output_file
from rules.maps import MapError, load_map
from rules.placement import impossible_violations
from rules.scene import load_scene
from twin import RenderOptions, render
from twin.cameras import random_pose
from twin.dataset import FrameWriteError, frame_paths, save_frame
from twin.renderer import MAX_PIXELS as MAX_RENDER_PIXELS


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a scene as a webcam would see it, with ground truth",
        description="Render a scene file with the digital twin and write its labels.",
    )
    parser.add_argument("scene", metavar="SCENE", help="scene file (palace-scene/1 JSON)")
    parser.add_argument("--camera", required=True, help="camera file (intrinsics, JSON)")
    parser.add_argument("--pose", help="pose file: {\"rvec\": [..], \"tvec\": [..]} in mm")
    parser.add_argument("--seed", type=SEED, default=0,
                        help="seed for the random pose (without --pose) and the realism")
    parser.add_argument("--clean", action="store_true",
                        help="no noise, clutter or light changes: a clean frame")
    parser.add_argument("--out", required=True, help="picture to write (.png or .jpg)")
    parser.add_argument("--allow-impossible", action="store_true",
                        help="render a scene no table could hold (off the plate, pieces in "
                        "one place, floating) instead of refusing it")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = output_file(args.out, "--out", IMAGE_SUFFIXES)
    for truth in frame_paths(out)[1:]:
        output_file(truth, "--out")
    scene = load_scene(args.scene)
    try:
        ground = load_map(scene.map)
    except MapError as exc:
        raise MapError(f"{args.scene}: 'map' {scene.map!r}: {exc}") from None
    problems = impossible_violations(with_corners(scene.pieces), ground)
    if problems:
        listed = "; ".join(v.message for v in problems)
        if not args.allow_impossible:
            raise UsageError(f"{args.scene}: no table could hold this palace: {listed} "
                             "(--allow-impossible renders it anyway)")
        print(f"warning: {args.scene}: rendering a palace no table could hold: {listed}",
              file=sys.stderr)
    camera = Camera.load(args.camera)
    if camera.width * camera.height > MAX_RENDER_PIXELS:
        raise UsageError(f"{args.camera}: a {camera.width}x{camera.height} camera; the "
                         f"renderer draws at most {MAX_RENDER_PIXELS} pixels (3840x2160)")
    if args.pose:
        pose = Pose.load(args.pose)
    else:
        pose = random_pose(np.random.default_rng(args.seed), camera)
    frame = render(scene, camera, pose, RenderOptions(clean=args.clean), seed=args.seed)
    try:
        written = save_frame(frame, out)
    except FrameWriteError as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
