"""How often the board-pose checks accept a candidate pose that is off.

    python3 -m bench.calibration_checks              # 200 wide-twin frames
    python3 -m bench.calibration_checks --frames 40
    python3 -m bench.calibration_checks --seed 3000  # dev frames apart from the bench's
    python3 -m bench.calibration_checks --classic    # the classic twin

`bench.calibration` reports the first pose each frame's search accepts, so a weak check
hides behind the candidates tried before it. Here every start the search can make (each
outline of the full plate search pulled onto the rim, each pose the stud lattice gives)
is finished and judged on its own, with no map (the pose never rests on one), and every
accepted one is compared with the truth under its best quarter turn: the checks'
false-accept rate, measured on many more poses than there are frames. The frames are
the calibration benchmark's (same seeds, ``bench.calibration.twin_frame``). The
reference timing is OpenCV's ArUco detection on the same frames.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from bench.calibration import FIRST_SEED, WRONG_PX, aruco_ms, turn_errors, twin_frame
from calibration.corners import search_plate
from calibration.evidence import gray_float
from calibration.fit import finish
from calibration.outline_pose import initial_pose, rim_start
from calibration.pose import MAX_CANDIDATES, lattice_starts

LOOSE_PX = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=FIRST_SEED,
                        help="first frame's seed (default the calibration bench's own)")
    parser.add_argument("--quick", action="store_true", help="20 frames (a smoke run)")
    parser.add_argument("--classic", action="store_true", help="the classic twin, map 1")
    args = parser.parse_args()
    if args.quick:
        args.frames = 20
    cv2.setNumThreads(1)
    accepted: dict[str, list[float]] = {"outline": [], "lattice": []}
    refused = {"outline": 0, "lattice": 0}
    finish_ms: list[float] = []
    reference_ms: list[float] = []
    for i in range(args.frames):
        seed = args.seed + i
        frame = twin_frame(seed, wide=not args.classic).frame
        camera = frame.camera
        reference_ms.append(aruco_ms(frame.image))
        gray = gray_float(frame.image)
        h, w = gray.shape
        half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        starts = []
        for quad in search_plate(frame.image, camera).quads[:MAX_CANDIDATES]:
            outline = initial_pose(quad, camera)
            if outline is not None:
                starts.append(("outline", rim_start(half, camera, outline)))
        starts += [("lattice", p) for p in lattice_starts(frame.image, gray, camera, None)]
        for kind, start in starts:
            t0 = time.perf_counter()
            result = finish(frame.image, gray, camera, start, None, False)
            finish_ms.append((time.perf_counter() - t0) * 1000)
            if not result.found:
                refused[kind] += 1
                continue
            accepted[kind].append(min(turn_errors(camera, frame.pose, result)))
            if accepted[kind][-1] > WRONG_PX:
                print(f"  wrong {kind} start: seed {seed}, {accepted[kind][-1]:.1f} px")
    look = "classic" if args.classic else "wide"
    print(f"== every candidate start over {args.frames} {look}-twin frames, judged on its own")
    for kind, errors in accepted.items():
        e = np.array(errors)
        print(
            f"{kind:8s} starts {len(e) + refused[kind]:5d}  accepted {len(e):5d}"
            f"  off > {LOOSE_PX:.0f} px {int((e > LOOSE_PX).sum()):3d}"
            f"  wrong (> {WRONG_PX:.0f} px) {int((e > WRONG_PX).sum()):3d}"
            f"  worst {e.max() if len(e) else float('nan'):.2f} px"
        )
    ref = float(np.median(reference_ms))
    med = float(np.median(finish_ms)) if finish_ms else float("nan")
    print(f"one start finished: {med:.1f} ms p50 = {med / ref:.2f} x ArUco ({ref:.1f} ms)")


if __name__ == "__main__":
    main()
