"""The board's pose from a webcam with no intrinsics file: found, wrong poses, focal length.

    python3 -m bench.uncalibrated                 # 200 wide-twin frames + the Cycles set
    python3 -m bench.uncalibrated --frames 40 --cycles 12
    python3 -m bench.uncalibrated --no-sweep      # the outlines' focal length alone

`palace watch` and `palace locate` without an intrinsics file start from a 60-degree
guess of the picture's size and refine the focal length on the board
(``locate_board(..., refine_focal=True)``). Each frame (the pose bench's own,
``bench.calibration.twin_frame``, and the Cycles frames) is located so, with its map; a
found pose is wrong when its stud grid lies over 2 px from the truth under the true
camera. The focal length found is compared with the true one. Time is per first
detection, beside OpenCV's ArUco marker detection on the same frames.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

import calibration.focal_search
from bench.calibration import FIRST_SEED, Column, aruco_ms, twin_frame
from calibration.camera import Camera, Pose
from calibration.pose import locate_board
from rules.maps import GroundMap
from twin.cycles.frames import load_frames


def measure(frames: list[tuple[str, np.ndarray, Camera, Pose, GroundMap]]) -> None:
    if not frames:
        print("  no frames")
        return
    column, focal_errors, aruco = Column(), [], []
    for name, image, camera, pose, ground in frames:
        guess = Camera.default_for(image.shape[1], image.shape[0])
        aruco.append(aruco_ms(image))
        t0 = time.perf_counter()
        result = locate_board(image, guess, ground, refine_focal=True)
        column.add(camera, pose, result, (time.perf_counter() - t0) * 1000, name)
        if result.found and result.camera is not None:
            focal_errors.append(abs(result.camera.fx / camera.fx - 1))
    n = max(column.frames, 1)
    ref = float(np.median(aruco))
    errors = np.array(focal_errors) if focal_errors else np.array([np.nan])
    print(f"  found {column.found}/{column.frames} ({column.found / n:.1%}), wrong poses "
          f"{column.wrong} {' '.join(column.wrong_names)}")
    grid = np.median(column.grid_px) if column.grid_px else np.nan
    print(f"  stud grid error px p50 {grid:.2f}; "
          f"focal length off by p50 {np.median(errors):.1%}, p90 {np.percentile(errors, 90):.1%}")
    print(f"  first detection ms p50 {np.median(column.ms):.0f}, p90 "
          f"{np.percentile(column.ms, 90):.0f} = {np.median(column.ms) / ref:.1f} / "
          f"{np.percentile(column.ms, 90) / ref:.1f} x ArUco ({ref:.1f} ms)")
    for reason, names in sorted(column.missed.items(), key=lambda kv: -len(kv[1]))[:4]:
        print(f"  not found x{len(names)}: {reason}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200, help="wide-twin frames")
    parser.add_argument("--cycles", type=int, help="Cycles frames at most (default all)")
    parser.add_argument("--seed", type=int, default=FIRST_SEED, help="first twin frame's seed")
    parser.add_argument("--no-sweep", action="store_true",
                        help="no search under other fields of view (the outlines alone)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.no_sweep:
        calibration.focal_search.SWEEP_HFOV_DEG = ()
    twin = []
    for seed in range(args.seed, args.seed + args.frames):
        drawn = twin_frame(seed)
        twin.append((str(seed), drawn.frame.image, drawn.frame.camera, drawn.frame.pose,
                     drawn.ground))
    print(f"== wide twin, {len(twin)} frames, no intrinsics file")
    measure(twin)
    cycles = [(f.name, f.image, f.camera, f.pose, f.ground) for f in load_frames(limit=args.cycles)]
    print(f"== Cycles frames, {len(cycles)}, no intrinsics file")
    measure(cycles)


if __name__ == "__main__":
    main()
