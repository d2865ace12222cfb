"""Render time of the twin per 1280x720 frame, for a 50- and a 200-piece palace.

Run: ``python bench/twin.py`` (one core: OpenCV and BLAS threads are pinned to 1).
Prints the median over several frames, clean and with full realism.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Running this file puts bench/ first on sys.path, where bench/calibration.py would
# shadow the calibration package; the project root is what the imports mean.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from rules.maps import load_map  # noqa: E402
from rules.palace import Palace, PalaceError  # noqa: E402
from rules.pieces import BUILDING_COLORS, Axis, DecorationColor, Kind, Piece  # noqa: E402
from vision.twin import RenderOptions, random_camera, render  # noqa: E402


def random_palace(count: int, seed: int = 0) -> Palace:
    """A legal palace of about ``count`` pieces grown by random placement attempts."""
    rng = np.random.default_rng(seed)
    palace = Palace.setup(load_map("1"))
    attempts = 0
    while len(palace) < count and attempts < count * 400:
        attempts += 1
        kind = rng.choice([Kind.BRICK, Kind.ARCH, Kind.ARCH, Kind.COLUMN, Kind.DECORATION])
        x, y = int(rng.integers(0, 32)), int(rng.integers(0, 32))
        z = int(rng.integers(0, 4))
        color = str(rng.choice(BUILDING_COLORS))
        if kind == Kind.DECORATION:
            color = str(rng.choice([c.value for c in DecorationColor]))
        axis = Axis.X if rng.uniform() < 0.5 else Axis.Y
        try:
            palace.place(Piece(Kind(kind), x, y, z, axis=axis, color=color))
        except PalaceError:
            continue
    return palace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 200])
    args = parser.parse_args()
    cv2.setNumThreads(1)
    for size in args.sizes:
        palace = random_palace(size, seed=size)
        for clean in (True, False):
            times = []
            for i in range(args.frames):
                rng = np.random.default_rng(i)
                camera, pose = random_camera(rng, 1280, 720)
                start = time.perf_counter()
                render(palace, camera, pose, RenderOptions(clean=clean), seed=i)
                times.append(time.perf_counter() - start)
            label = "clean" if clean else "realistic"
            median = statistics.median(times) * 1000
            print(f"{len(palace):4d} pieces  {label:9s}  median {median:6.1f} ms"
                  f"  (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, n={len(times)})")


if __name__ == "__main__":
    main()
