"""`palace render SCENE.json --camera CAM.json [--pose POSE.json | --seed N] --out frame.png`.

Writes the picture plus its ground truth beside it: ``<stem>.labels.png`` (16-bit:
blue = kind, green = part, red = piece index + 1, 0 = none), ``<stem>.depth.png``
(16-bit camera depth in tenths of a millimetre, 0 = nothing) and ``<stem>.json``
(camera, pose, scene, legends and render settings).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.camera import Camera, CameraFileError, Pose
from palace.cli import UsageError
from rules.scene import load_scene
from vision.twin import Frame, RenderOptions, render
from vision.twin.cameras import random_pose

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a scene as a webcam would see it, with ground truth",
        description="Render a scene file with the digital twin and write its labels.",
    )
    parser.add_argument("scene", metavar="SCENE", help="scene file (palace-scene/1 JSON)")
    parser.add_argument("--camera", required=True, help="camera file (intrinsics, JSON)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--pose", help="pose file: {\"rvec\": [..], \"tvec\": [..]} in mm")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the random pose (without --pose) and the realism")
    parser.add_argument("--clean", action="store_true",
                        help="no noise, clutter or light changes: a clean frame")
    parser.add_argument("--out", required=True, help="picture to write (.png or .jpg)")
    parser.set_defaults(run=run)


def load_pose(path: str) -> Pose:
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CameraFileError(f"{file}: no such pose file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CameraFileError(f"{file}: cannot read the pose file ({exc})") from None
    return Pose.from_json(data, str(file))


def write_frame(frame: Frame, out: Path) -> list[Path]:
    """Writes the picture and its truth files; returns what was written."""
    if out.suffix.lower() not in IMAGE_SUFFIXES:
        raise UsageError(f"{out}: the picture must be .png or .jpg")
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent}: no such folder")
    stem = out.with_suffix("")
    labels = np.dstack([
        frame.kinds.astype(np.uint16),
        frame.parts.astype(np.uint16),
        (frame.piece_ids + 1).astype(np.uint16),
    ])
    depth = np.where(np.isfinite(frame.depth), np.round(frame.depth * 10), 0)
    depth = np.clip(depth, 0, 65535).astype(np.uint16)
    written = [out, Path(f"{stem}.labels.png"), Path(f"{stem}.depth.png"), Path(f"{stem}.json")]
    truth = frame.truth()
    truth["files"] = {
        "image": written[0].name,
        "labels": written[1].name,
        "labels_channels": ["kind", "part", "piece index + 1"],
        "depth": written[2].name,
        "depth_unit_mm": 0.1,
    }
    if frame.occluded is not None:
        truth["occluded_pixels"] = int(frame.occluded.sum())
    for path, image in ((written[0], frame.image), (written[1], labels), (written[2], depth)):
        if not cv2.imwrite(str(path), image):
            raise UsageError(f"{path}: cannot write the file")
    try:
        written[3].write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{written[3]}: cannot write the file ({exc})") from None
    return written


def run(args: argparse.Namespace) -> int:
    scene = load_scene(args.scene)
    camera = Camera.load(args.camera)
    if args.pose:
        pose = load_pose(args.pose)
    else:
        pose = random_pose(np.random.default_rng(args.seed), camera)
    out = Path(args.out)
    if out.suffix.lower() not in IMAGE_SUFFIXES:
        raise UsageError(f"{out}: the picture must be .png or .jpg")
    frame = render(scene, camera, pose, RenderOptions(clean=args.clean), seed=args.seed)
    written = write_frame(frame, out)
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
