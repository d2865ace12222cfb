"""`palace calibrate camera IMAGES... --pattern chessboard:COLSxROWS:SQUARE_MM --out CAM.json`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from calibration.intrinsics import (
    CalibrationError,
    ChessboardPattern,
    calibrate_chessboard,
    load_images,
)
from calibration.profile import Profile
from palace.cli import UsageError
from palace.output_path import output_file


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="calibrate the camera's intrinsics from chessboard photos",
        description="Calibrate a camera from photos of a printed chessboard.",
    )
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    cam = sub.add_parser("camera", help="camera intrinsics from chessboard photos")
    cam.add_argument("images", nargs="+", metavar="IMAGE", help="photos of the chessboard")
    cam.add_argument(
        "--pattern",
        required=True,
        help="chessboard:COLSxROWS:SQUARE_MM, inner corners (a 10x7-square board is 9x6)",
    )
    cam.add_argument("--out", required=True, help="camera file to write (JSON)")
    cam.add_argument("--profile", help="also store the camera in this profile file")
    cam.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    output_file(args.out, "--out")
    profile = Profile.load(output_file(args.profile, "--profile")) if args.profile else None
    try:
        pattern = ChessboardPattern.parse(args.pattern)
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None
    images, unreadable = load_images(args.images)
    try:
        result = calibrate_chessboard(images, pattern)
    except CalibrationError as exc:  # one line, the unreadable pictures included
        skipped = "".join(f"; {name}: {why}" for name, why in unreadable)
        raise UsageError(f"{exc}{skipped}") from None
    for name, why in unreadable:
        print(f"skipped {name}: {why}", file=sys.stderr)
    for name, why in result.rejected:
        print(f"rejected {name}: {why}", file=sys.stderr)
    result.camera.save(args.out)
    if profile is not None:
        profile.camera = result.camera
        profile.save(args.profile)
    cam = result.camera
    print(
        f"calibrated from {len(result.used)} of {len(args.images)} images: "
        f"RMS reprojection error {result.rms_px:.3f} px"
    )
    print(
        f"fx {cam.camera_matrix[0, 0]:.1f}  fy {cam.camera_matrix[1, 1]:.1f}  "
        f"cx {cam.camera_matrix[0, 2]:.1f}  cy {cam.camera_matrix[1, 2]:.1f}  "
        f"dist {' '.join(f'{d:.4f}' for d in cam.dist_coeffs)}"
    )
    print(f"wrote {args.out}")
    return 0
