"""How often the board-pose checks accept a candidate pose that is off.

    python3 -m bench.calibration_checks              # 200 frames (about 1.5 minutes)
    python3 -m bench.calibration_checks --frames 40

`bench.calibration` reports the first pose each frame's search accepts, so a weak check
hides behind the candidates tried before it. Here every start the search can make (each
outline of the full plate search pulled onto the rim, each pose the stud lattice gives)
is finished and judged on its own, and every accepted one is compared with the truth:
the checks' false-accept rate, measured on many more poses than there are frames. The
frames are the calibration benchmark's in-range set (same seeds).
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

from bench.calibration import WRONG_PX, _scene, grid_error, options_for
from calibration.corners import search_plate
from calibration.evidence import gray_float
from calibration.fit import finish
from calibration.pose import MAX_CANDIDATES, initial_pose, lattice_starts, rim_start
from rules.maps import load_map
from twin import random_camera, render

LOOSE_PX = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 frames (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.frames = 20
    cv2.setNumThreads(1)
    ground = load_map("1")
    accepted: dict[str, list[float]] = {"outline": [], "lattice": []}
    refused = {"outline": 0, "lattice": 0}
    for i in range(args.frames):
        seed = 1000 + i
        rng = np.random.default_rng(seed)
        camera, pose = random_camera(rng)
        frame = render(_scene(ground), camera, pose, options_for(rng, seed), seed=seed)
        gray = gray_float(frame.image)
        h, w = gray.shape
        half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        starts = []
        for quad in search_plate(frame.image, frame.camera).quads[:MAX_CANDIDATES]:
            outline = initial_pose(quad, frame.camera)
            if outline is not None:
                starts.append(("outline", rim_start(half, frame.camera, outline)))
        starts += [("lattice", p) for p in lattice_starts(frame.image, gray, frame.camera, ground)]
        for kind, start in starts:
            result = finish(frame.image, gray, frame.camera, start, ground, False)
            if result.found:
                accepted[kind].append(grid_error(frame, result))
                if accepted[kind][-1] > WRONG_PX:
                    print(f"  wrong {kind} start: seed {seed}, {accepted[kind][-1]:.1f} px")
            else:
                refused[kind] += 1
    print(f"== every candidate start over {args.frames} in-range frames, judged on its own")
    for kind, errors in accepted.items():
        e = np.array(errors)
        print(
            f"{kind:8s} starts {len(e) + refused[kind]:5d}  accepted {len(e):5d}"
            f"  off > {LOOSE_PX:.0f} px {int((e > LOOSE_PX).sum()):3d}"
            f"  wrong (> {WRONG_PX:.0f} px) {int((e > WRONG_PX).sum()):3d}"
            f"  worst {e.max() if len(e) else float('nan'):.2f} px"
        )


if __name__ == "__main__":
    main()
