"""First detection and tracked frame, this tree against a baseline tree, on the same frames.

    git worktree add /tmp/palace-base 280b158      # the release to compare with
    python3 -m bench.calibration_speed --baseline /tmp/palace-base
    python3 -m bench.calibration_speed --baseline /tmp/palace-base --quick

The machines this runs on change speed by a fifth from one minute to the next, so two
runs of `bench.calibration` an hour apart cannot say whether a change made the board's
pose cheaper. Here both trees see the same frames (those of `bench.calibration`'s
wide twin, a first frame and its nudged second frame, rendered once), each tree in
its own process, the two taking turns for several rounds; each frame's time is its
thread's CPU time, the best of its rounds. The figures are medians over the frames and
the ratio of this tree's to the baseline's, which is what carries over between
machines. A baseline is any checkout of this project whose `locate_board` and
`BoardTracker` take the same arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]


def render_frames(path: Path, n: int) -> None:
    """The first ``n`` wide-twin frames of `bench.calibration` and their nudged second
    frames, as plain arrays, with each frame's own map as JSON."""
    from bench.calibration import twin_frame
    from calibration.camera import Pose
    from twin import render

    frames = []
    for seed in range(1000, 1000 + n):
        drawn = twin_frame(seed)
        camera, pose, rng = drawn.frame.camera, drawn.frame.pose, drawn.rng
        nudged = Pose(pose.rvec + rng.normal(0, 0.002, 3), pose.tvec + rng.normal(0, 1, 3))
        second = render(drawn.palace, camera, nudged, drawn.options, seed=seed + 100_000)
        lens = (camera.width, camera.height, camera.camera_matrix, camera.dist_coeffs)
        frames.append((seed, lens, drawn.frame.image, second.image, drawn.ground.to_json()))
    path.write_bytes(pickle.dumps(frames))


def worker(path: Path) -> None:
    """Times whichever tree is first on the import path; prints per-frame times as JSON."""
    import cv2

    from calibration.camera import Camera
    from calibration.pose import locate_board
    from calibration.tracking import BoardTracker
    from rules.maps import map_from_json

    cv2.setNumThreads(1)
    out: dict[str, list[float | None]] = {"first": [], "tracked": [], "found": []}
    for seed, (w, h, k, dist), image, second, layout in pickle.loads(path.read_bytes()):
        camera = Camera(w, h, k, dist)
        ground = map_from_json(layout, f"frame {seed}")
        t0 = time.thread_time()
        result = locate_board(image, camera, ground)
        out["first"].append(time.thread_time() - t0)
        out["found"].append(1.0 if result.found else 0.0)
        tracked = None
        if result.found:
            tracker = BoardTracker(camera, ground, result)
            t0 = time.thread_time()
            tracker.update(second)
            tracked = time.thread_time() - t0
        out["tracked"].append(tracked)
    print(json.dumps(out))


def run_tree(tree: Path, frames: Path) -> dict[str, list[float | None]]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[variable] = "1"
    # From a neutral folder, and without the script's own folder on the path (-P): the
    # tree on PYTHONPATH is the one imported.
    done = subprocess.run(
        [sys.executable, "-P", str(Path(__file__).resolve()), "--worker", str(frames)],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"bench.calibration_speed: the tree {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_of(rounds: list[dict[str, list[float | None]]], key: str) -> list[float]:
    """Per frame, the least time over the rounds (frames a tree never tracked left out)."""
    per_frame = zip(*(r[key] for r in rounds), strict=True)
    return [min(v for v in values if v is not None) for values in per_frame if None not in values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="a checkout of the project to compare with")
    parser.add_argument("--frames", type=int, default=100, help="frames (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="turns each tree takes (3)")
    parser.add_argument("--quick", action="store_true", help="20 frames, 2 rounds")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return
    if args.baseline is None or not (args.baseline / "calibration" / "pose.py").is_file():
        parser.error("--baseline must name a checkout of this project (with calibration/pose.py)")
    n, rounds = (20, 2) if args.quick else (args.frames, args.rounds)
    with tempfile.TemporaryDirectory() as folder:
        frames = Path(folder) / "frames.pkl"
        render_frames(frames, n)
        trees = {"this tree": HERE, "baseline": args.baseline.resolve()}
        runs: dict[str, list[dict[str, list[float | None]]]] = {name: [] for name in trees}
        for _ in range(rounds):
            for name, tree in trees.items():
                runs[name].append(run_tree(tree, frames))
    print(f"{n} frames, {rounds} rounds each, CPU time of one thread (best round per frame)")
    medians: dict[str, dict[str, float]] = {}
    for name, done in runs.items():
        first, tracked = best_of(done, "first"), best_of(done, "tracked")
        found = int(sum(done[0]["found"]))  # type: ignore[arg-type]
        medians[name] = {"first": 1000 * float(np.median(first))}
        medians[name]["tracked"] = 1000 * float(np.median(tracked)) if tracked else float("nan")
        print(
            f"{name:10s} first detection median {medians[name]['first']:6.1f} ms,"
            f" tracked frame median {medians[name]['tracked']:5.2f} ms, found {found} of {n}"
        )
    for key, label in (("first", "first detection"), ("tracked", "tracked frame")):
        ratio = medians["this tree"][key] / medians["baseline"][key]
        print(f"ratio to baseline, {label}: {ratio:.2f}")


if __name__ == "__main__":
    main()
