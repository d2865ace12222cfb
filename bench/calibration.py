"""Board-pose benchmark on seeded twin frames: detection, accuracy, false poses, speed.

    python3 -m bench.calibration            # 200 frames in range + 40 per extra set
    python3 -m bench.calibration --quick    # 30 + 6 per extra set

Every frame is rendered by the twin with a random camera, light, noise and clutter
(seeded, so figures are reproducible). A pose reported as found is *wrong* when its
stud-grid error exceeds 2 px at the median (a wrong quarter turn gives tens of pixels,
so this also catches a wrongly resolved rotation). The stud-grid error is the distance
between all 32 x 32 stud centres projected with the found pose and with the true one.
Each found in-range frame is followed by a second frame from a camera nudged by a
fraction of a degree (under other light and clutter), which a tracker started from the
first answer must follow: its time, and how many such frames it found and got wrong, are
reported too, and likewise for the frame after that (the same scene nudged again, as a
tracker in a stream sees it). Timing is single-threaded (cv2.setNumThreads(1)) and
includes misses, which search longest.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.board_model import stud_centres
from calibration.camera import project, rotation_angle_deg
from calibration.pose import locate_board
from calibration.tracking import BoardTracker
from rules.maps import load_map
from twin import RenderOptions, random_camera, render

WRONG_PX = 2.0


@dataclass
class TrackTally:
    """A tracker's frames: time each, how many it found and how many of those were off."""

    ms: list[float] = field(default_factory=list)
    found: int = 0
    wrong: int = 0

    def track(self, tracker: BoardTracker, frame) -> bool:
        t0 = time.perf_counter()
        result = tracker.update(frame.image)
        self.ms.append((time.perf_counter() - t0) * 1000)
        if result.found:
            self.found += 1
            self.wrong += grid_error(frame, result) > WRONG_PX
        return result.found

    def report(self, label: str) -> None:
        if not self.ms:
            return
        med, p95 = np.percentile(self.ms, 50), np.percentile(self.ms, 95)
        print(f"{label + ' frame ms':20s} median {med:.3f}  p95 {p95:.3f}")
        print(f"{label + ' frames':20s} {self.found} of {len(self.ms)} found, {self.wrong} wrong")


@dataclass
class Tally:
    frames: int = 0
    found: int = 0
    wrong: int = 0
    grid_px: list[float] = field(default_factory=list)
    trans_mm: list[float] = field(default_factory=list)
    rot_deg: list[float] = field(default_factory=list)
    first_ms: list[float] = field(default_factory=list)
    tracked: TrackTally = field(default_factory=TrackTally)
    following: TrackTally = field(default_factory=TrackTally)
    reasons: dict[str, int] = field(default_factory=dict)
    methods: dict[str, list[float]] = field(default_factory=dict)
    missed: list[int] = field(default_factory=list)

    def report(self, title: str) -> None:
        def pct(values: list[float], q: float) -> str:
            return f"{np.percentile(values, q):.3f}" if values else "n/a"

        print(f"\n== {title}: {self.frames} frames")
        print(f"detection rate       {self.found / max(self.frames, 1):.1%} ({self.found})")
        print(f"wrong poses (found)  {self.wrong}")
        print(f"stud grid error px   median {pct(self.grid_px, 50)}  p95 {pct(self.grid_px, 95)}")
        print(f"translation error mm median {pct(self.trans_mm, 50)}  p95 {pct(self.trans_mm, 95)}")
        print(f"rotation error deg   median {pct(self.rot_deg, 50)}  p95 {pct(self.rot_deg, 95)}")
        print(f"first detection ms   median {pct(self.first_ms, 50)}  p95 {pct(self.first_ms, 95)}")
        self.tracked.report("tracked")
        self.following.report("next tracked")
        for method, errors in sorted(self.methods.items(), key=lambda kv: -len(kv[1])):
            print(
                f"  found by {method:8s} x{len(errors)}: stud grid error median"
                f" {np.median(errors):.3f} px, max {max(errors):.3f} px"
            )
        for reason, count in sorted(self.reasons.items(), key=lambda kv: -kv[1])[:6]:
            print(f"  not found x{count}: {reason}")
        if self.missed:
            print(f"  missed seeds: {' '.join(str(s) for s in self.missed)}")


def grid_error(frame, result) -> float:
    """Median distance (px) between all stud centres under the found and the true pose."""
    studs = stud_centres()
    truth = project(frame.camera, frame.pose, studs)
    got = project(result.camera or frame.camera, result.pose, studs)
    return float(np.median(np.linalg.norm(truth - got, axis=1)))


def score(tally: Tally, frame, result, seed: int) -> None:
    tally.frames += 1
    if not result.found:
        tally.missed.append(seed)
        key = result.reason.split("(")[0].strip()
        tally.reasons[key] = tally.reasons.get(key, 0) + 1
        return
    tally.found += 1
    med = grid_error(frame, result)
    tally.methods.setdefault(result.method or "?", []).append(med)
    if med > WRONG_PX:
        tally.wrong += 1
        return
    tally.grid_px.append(med)
    tally.trans_mm.append(float(np.linalg.norm(result.pose.tvec - frame.pose.tvec)))
    tally.rot_deg.append(rotation_angle_deg(result.pose.rotation, frame.pose.rotation))


def options_for(rng: np.random.Generator, seed: int) -> RenderOptions:
    covered = (int(rng.integers(4)),) if rng.random() < 0.25 else ()
    return RenderOptions(cover_corners=covered)


def run_set(
    title: str, n: int, seed0: int, make_camera, make_options, ground, track: bool
) -> Tally:
    tally = Tally()
    for i in range(n):
        seed = seed0 + i
        rng = np.random.default_rng(seed)
        camera, pose = make_camera(rng)
        options = make_options(rng, seed)
        frame = render(_scene(ground), camera, pose, options, seed=seed)
        t0 = time.perf_counter()
        result = locate_board(frame.image, frame.camera, ground)
        tally.first_ms.append((time.perf_counter() - t0) * 1000)
        score(tally, frame, result, seed)
        if track and result.found:
            # A second frame from a camera nudged by a fraction of a degree, under other
            # light and clutter: the tracker's first frame after a detection.
            tracker = BoardTracker(frame.camera, ground, result)
            nudged = _nudge(pose, rng)
            frame2 = render(_scene(ground), camera, nudged, options, seed=seed + 100000)
            if tally.tracked.track(tracker, frame2):
                # And the next frame of the same scene, nudged again: a tracker in a
                # stream, whose board and light carry over from frame to frame.
                nudged = _nudge(nudged, rng)
                frame3 = render(_scene(ground), camera, nudged, options, seed=seed + 100000)
                tally.following.track(tracker, frame3)
    tally.report(title)
    return tally


def _nudge(pose, rng):
    from calibration.camera import Pose

    return Pose(pose.rvec + rng.normal(0, 0.002, 3), pose.tvec + rng.normal(0, 1.0, 3))


_SCENES: dict[str, object] = {}


def _scene(ground):
    """The board with its corner bricks and a small palace in the middle."""
    if ground.name not in _SCENES:
        _SCENES[ground.name] = palace_in_the_middle(ground)
    return _SCENES[ground.name]


def palace_in_the_middle(ground):
    """The starting staircase plus two columns with bricks on top: a mid-game palace."""
    from rules.palace import Palace
    from rules.pieces import Kind, Piece

    extra = [
        Piece(Kind.COLUMN, 14, 10, 0, color="tan", id="c1"),
        Piece(Kind.COLUMN, 17, 20, 0, color="dark_tan", id="c2"),
        Piece(Kind.BRICK, 14, 10, 3, color="dark_orange", id="b1"),
        Piece(Kind.BRICK, 17, 20, 3, color="reddish_brown", id="b2"),
    ]
    return Palace(ground, [*ground.setup, *extra])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run (about a minute)")
    parser.add_argument("--frames", type=int, help="frames in range (default 200, quick 30)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.frames or (30 if args.quick else 200)
    ground = load_map("1")

    run_set(
        "in range (random camera, light, noise, clutter, 25% one corner covered)",
        n,
        1000,
        lambda rng: random_camera(rng),
        options_for,
        ground,
        track=True,
    )
    m = max(n // 5, 6)
    run_set(
        "clean frames (neutral light, plain table, no clutter)",
        m,
        3000,
        lambda rng: random_camera(rng),
        lambda rng, s: RenderOptions(clean=True),
        ground,
        track=False,
    )
    run_set(
        "outside: elevation 15-30 degrees",
        m,
        5000,
        lambda rng: random_camera(rng, elevation_deg=(15, 30)),
        options_for,
        ground,
        track=False,
    )
    run_set(
        "outside: heavy blur",
        m,
        6000,
        lambda rng: random_camera(rng),
        lambda rng, s: RenderOptions(blur=float(rng.uniform(3.0, 5.0))),
        ground,
        track=False,
    )
    run_set(
        "outside: strong colour cast",
        m,
        7000,
        lambda rng: random_camera(rng),
        lambda rng, s: RenderOptions(white_balance=(0.55, 0.9, 1.6)),
        ground,
        track=False,
    )


if __name__ == "__main__":
    main()
