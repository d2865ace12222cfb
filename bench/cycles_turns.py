"""Turn mode on the Cycles turn pairs (tests/data/cycles_turns), a renderer it never saw.

Reads every pair's turn from its settled frame before and after, with the board placed
at its true pose (so that this measures reading, not locating; ``--locate`` lets
``read_turn`` find the board itself). Prints pieces precision / recall / F1 (a piece
counts when kind, cells, level, arch axis and decoration colour are all right; animals
are not read), turns exactly right, and seconds per turn (median) beside a reference
timed in the same run (the twin rendering one frame). Usage:
python3 -m bench.cycles_turns [--quick] [--locate] [--folder DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from calibration.evidence import BoardLocation
from rules import simulate_game
from rules.pieces import place_key
from twin import RenderOptions, render
from twin.cameras import random_camera
from twin.cycles.frames import TURNS_FOLDER, load_turn, turn_names
from vision import read_turn


def _reference_seconds() -> float:
    scene = simulate_game(4, seed=1).scenes[8]
    cam, pose = random_camera(np.random.default_rng(1))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        render(scene, cam, pose, RenderOptions(), seed=1)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first 3 pairs only")
    parser.add_argument("--locate", action="store_true",
                        help="let read_turn locate the board instead of the true pose")
    parser.add_argument("--folder", type=Path, default=TURNS_FOLDER)
    args = parser.parse_args()
    names = turn_names(args.folder)[:3 if args.quick else None]
    if not names:
        print(f"{args.folder}: no turn pairs (render them with twin.cycles.driver --turns)")
        return 2
    tp = fp = fn = exact = found = 0
    seconds: list[float] = []
    for name in names:
        try:
            pair = load_turn(args.folder, name)
        except ValueError as error:
            print(error)
            return 2
        locations = None if args.locate else [
            BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)]
        t = time.perf_counter()
        reading = read_turn([pair.after_image], pair.camera, pair.before,
                            before_frame=pair.before_image, locations=locations)
        seconds.append(time.perf_counter() - t)
        truth = {place_key(p) for p in pair.added}
        got = {place_key(r.piece) for r in reading.added}
        tp += len(truth & got)
        fp += len(got - truth)
        fn += len(truth - got)
        exact += truth == got
        found += reading.found
        print(f"  {name}: {len(truth)} added, read {len(got)}, right {len(truth & got)}"
              f"{'' if reading.found else ' (not found: ' + reading.reason + ')'}", flush=True)
    n = len(names)
    prec = tp / max(tp + fp, 1)
    rec = tp / max(tp + fn, 1)
    f1 = 2 * prec * rec / max(prec + rec, 1e-9)
    med = statistics.median(seconds)
    ref = _reference_seconds()
    pose = "read_turn locating the board" if args.locate else "true pose"
    print(f"Cycles turns ({pose}, one view, 1280x720): {n}, found {found}/{n}")
    print(f"  pieces precision {prec:.3f} recall {rec:.3f} F1 {f1:.3f}")
    print(f"  turns exactly right {exact}/{n} ({exact / n:.1%})")
    print(f"  seconds per turn median {med:.2f} s; reference (twin render) {ref:.2f} s; "
          f"ratio {med / ref:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
