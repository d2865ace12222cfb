"""Render time of the twin per 1280x720 frame, for a 50- and a 200-piece palace.

Run from the project root: ``python3 -m bench.twin`` (OpenCV is pinned to one thread;
for strictly one core also set ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``). Every
frame comes from a new random camera, so each one also pays for its lens table, as a
training set does. Prints the median and the 95th percentile per frame, clean and with
full realism, beside the target; ``--wide`` adds the wide look, without and with the
room's light (pieces shading pieces, a fill light of its own colour), as the training
set renders them.

The process keeps freed memory for reuse, as ``palace dataset`` does (see
:func:`twin.dataset.keep_freed_memory`); ``--plain-malloc`` measures without.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import cv2
import numpy as np

from rules.maps import load_map
from rules.palace import Palace, PalaceError
from rules.pieces import BUILDING_COLORS, Axis, DecorationColor, Kind, Piece
from twin import RenderOptions, random_camera, render
from twin.dataset import keep_freed_memory

TARGET_MS = 150.0  # per frame on one core: 10,000 training images in about 25 minutes
MODES = {
    "clean": RenderOptions(clean=True),
    "realistic": RenderOptions(),
    "wide": RenderOptions(wide=True),
    "wide+room": RenderOptions(wide=True, room_light=True),
}


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


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile: the smallest value with at least ``q`` % at or below it."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q / 100 * len(ordered)) - 1, 0)]


def frame_times(palace: Palace, options: RenderOptions, frames: int, first_seed: int
                ) -> list[float]:
    """Seconds per frame, each frame from its own camera and seed."""
    times = []
    for seed in range(first_seed, first_seed + frames):
        camera, pose = random_camera(np.random.default_rng(seed), 1280, 720)
        start = time.perf_counter()
        render(palace, camera, pose, options, seed=seed)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=20, help="frames per palace and mode")
    parser.add_argument("--quick", action="store_true", help="3 frames each (a smoke run)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 200])
    parser.add_argument("--plain-malloc", action="store_true",
                        help="leave the C allocator as it is (freed memory goes back)")
    parser.add_argument("--wide", action="store_true",
                        help="also the wide look, without and with the room's light")
    args = parser.parse_args()
    if args.quick:
        args.frames = 3
    cv2.setNumThreads(1)
    kept = False if args.plain_malloc else keep_freed_memory()
    print(f"twin: render time per 1280x720 frame, one thread, {args.frames} frames each, "
          f"a new camera every frame, freed memory {'kept' if kept else 'returned'}")
    print(f"{'pieces':>6}  {'mode':9}  {'median':>9}  {'p95':>9}  target")
    for size in args.sizes:
        palace = random_palace(size, seed=size)
        modes = list(MODES) if args.wide else ["clean", "realistic"]
        for mode in modes:
            # Every mode gets cameras of its own, so no lens table is reused between them.
            first_seed = 1000 * size + {"clean": 0, "realistic": 500, "wide": 250,
                                        "wide+room": 750}[mode]
            render(palace, *random_camera(np.random.default_rng(first_seed - 1), 1280, 720),
                   MODES[mode])  # warm-up: caches of the palace's pieces
            times = [t * 1000 for t in frame_times(palace, MODES[mode], args.frames,
                                                   first_seed)]
            median, p95 = statistics.median(times), percentile(times, 95)
            verdict = "ok" if p95 < TARGET_MS else "OVER"
            print(f"{len(palace):6d}  {mode:9}  {median:6.1f} ms  {p95:6.1f} ms  "
                  f"< {TARGET_MS:.0f} ms  {verdict}")


if __name__ == "__main__":
    main()
