"""Board-pose benchmark: right map, wrong map and no map, on the twin and on Cycles frames.

    python3 -m bench.calibration              # 600 wide-twin frames + the Cycles set
    python3 -m bench.calibration --quick      # 40 + the first 12 Cycles frames
    python3 -m bench.calibration --classic    # the classic twin (map 1 on every board)
    python3 -m bench.calibration --seed 5000 --frames 100 --cycles 0   # a dev set
    python3 -m bench.calibration --seed 5000 --frames 100 --cycles 0 --misses  # and its misses

Every twin frame gets a new random ground map (``rules.random_map``), a palace from a
bot game on it (or the set-up), the twin's wide look and a webcam framing the board
from a third of the picture to past its edges; 25 % have a corner brick under a hand
or a card. Each frame is located three times: with its own map, with a wrong one (the
stand-in map 1 or another random layout, alternately) and with none. A found pose is
*wrong* when, under its best quarter turn, the stud-grid error (median distance of all
32 x 32 stud centres from the truth) exceeds 2 px: the pose must be right whatever the
map. A *turn* is counted right when the location says ``turn_resolved`` and the pose
is right as it stands, claimed wrongly when it says resolved and is a quarter turn off.

Speed: OpenCV's ArUco marker detection (4x4 dictionary) is timed on the same frames in
the same run as the reference; first detection and tracked frames (the right-map
column's board followed in a frame nudged by a fraction of a degree) are reported as
milliseconds and as multiples of it. Timing is single-threaded (cv2.setNumThreads(1)).
The Cycles frames (``tests/data/cycles``, see ``twin/cycles``) are scored the same way;
the bench reports whatever has been rendered.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.board_model import stud_centres, turned_pose
from calibration.camera import Camera, Pose, project
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from calibration.tracking import BoardTracker
from rules.maps import GroundMap, load_map
from rules.palace import Palace
from rules.random_map import random_map
from twin import Frame, RenderOptions, random_camera, render
from twin.cycles.frames import load_frames
from twin.map_views import board_scene
from twin.wide import wide_view

WRONG_PX = 2.0
COLUMNS = ("right map", "wrong map", "no map")


@dataclass
class Column:
    """One column of the table: how the frames came out with one kind of map."""

    frames: int = 0
    found: int = 0
    wrong: int = 0
    turn_right: int = 0
    turn_wrong: int = 0
    ms: list[float] = field(default_factory=list)
    grid_px: list[float] = field(default_factory=list)
    missed: dict[str, list[str]] = field(default_factory=dict)
    """The frames not found, by the reason's first words (counted in the table, listed
    with ``--misses``)."""
    wrong_names: list[str] = field(default_factory=list)

    def add(self, camera: Camera, truth: Pose, result: BoardLocation, ms: float,
            name: str) -> None:
        self.frames += 1
        self.ms.append(ms)
        if not result.found or result.pose is None:
            key = result.reason.split("(")[0].strip()
            self.missed.setdefault(key, []).append(name)
            return
        self.found += 1
        errors = turn_errors(camera, truth, result)
        best = min(errors)
        if best > WRONG_PX:
            self.wrong += 1
            self.wrong_names.append(name)
            return
        self.grid_px.append(best)
        if result.turn_resolved:
            if errors[0] <= WRONG_PX:
                self.turn_right += 1
            else:
                self.turn_wrong += 1
                self.wrong_names.append(f"{name}(turn)")


def turn_errors(camera: Camera, truth: Pose, result: BoardLocation) -> list[float]:
    """Stud-grid error (median px) of the found pose under each of its quarter turns."""
    studs = stud_centres()
    want = project(camera, truth, studs)
    assert result.pose is not None
    cam = result.camera or camera
    return [float(np.median(np.linalg.norm(project(cam, turned_pose(result.pose, k), studs)
                                           - want, axis=1))) for k in range(4)]


@dataclass
class Speed:
    aruco_ms: list[float] = field(default_factory=list)
    tracked_ms: list[float] = field(default_factory=list)
    tracked_found: int = 0
    tracked_wrong: list[str] = field(default_factory=list)


_ARUCO = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))


def aruco_ms(image: np.ndarray) -> float:
    t0 = time.perf_counter()
    _ARUCO.detectMarkers(image)
    return (time.perf_counter() - t0) * 1000


def wrong_map(i: int, ground: GroundMap) -> GroundMap:
    """The stand-in map 1 or an unrelated random layout, alternately (never the right one)."""
    if i % 2 == 0 and load_map("1").ground != ground.ground:
        return load_map("1")
    return random_map(np.random.default_rng(77_000 + i), name="wrong")


def locate_columns(image: np.ndarray, camera: Camera, truth: Pose, ground: GroundMap,
                   i: int, name: str, columns: list[Column]) -> BoardLocation:
    results = []
    for column, given in zip(columns, (ground, wrong_map(i, ground), None), strict=True):
        t0 = time.perf_counter()
        result = locate_board(image, camera, given)
        column.add(camera, truth, result, (time.perf_counter() - t0) * 1000, name)
        results.append(result)
    return results[0]


@dataclass
class TwinFrame:
    """One bench frame with what drew it; ``rng`` goes on where the drawing stopped."""

    frame: Frame
    ground: GroundMap
    palace: Palace
    options: RenderOptions
    rng: np.random.Generator


def twin_frame(seed: int, wide: bool = True, seams: bool | None = None) -> TwinFrame:
    """The bench's frame for ``seed``: a random map (wide) or map 1, a palace, a webcam,
    a corner brick under a hand in a quarter of frames. Other benches and tests draw
    the same frames from here; ``seams`` False gives a wide frame as the twin drew it
    before it drew the joints between stacked pieces (tests whose seed was chosen for
    what that frame shows)."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng) if wide else load_map("1")
    camera, pose = wide_view(rng) if wide else random_camera(rng)
    covered = (int(rng.integers(4)),) if rng.random() < 0.25 else ()
    options = RenderOptions(cover_corners=covered, wide=wide, seams=seams)
    palace = board_scene(rng, seed, ground)
    return TwinFrame(render(palace, camera, pose, options, seed=seed), ground, palace, options,
                     rng)


FIRST_SEED = 1000


def run_twin(n: int, wide: bool, first_seed: int = FIRST_SEED) -> tuple[list[Column], Speed]:
    columns = [Column() for _ in COLUMNS]
    speed = Speed()
    for i in range(n):
        seed = first_seed + i
        drawn = twin_frame(seed, wide)
        frame, ground, palace, options, rng = (
            drawn.frame, drawn.ground, drawn.palace, drawn.options, drawn.rng)
        camera, pose = frame.camera, frame.pose
        speed.aruco_ms.append(aruco_ms(frame.image))
        first = locate_columns(frame.image, camera, pose, ground, i, str(seed), columns)
        if first.found:
            tracker = BoardTracker(camera, ground, first)
            nudged = Pose(pose.rvec + rng.normal(0, 0.002, 3), pose.tvec + rng.normal(0, 1, 3))
            frame2 = render(palace, camera, nudged, options, seed=seed + 100_000)
            speed.aruco_ms.append(aruco_ms(frame2.image))
            t0 = time.perf_counter()
            result = tracker.update(frame2.image)
            speed.tracked_ms.append((time.perf_counter() - t0) * 1000)
            if result.found:
                speed.tracked_found += 1
                error = min(turn_errors(camera, nudged, result))
                if error > WRONG_PX:
                    speed.tracked_wrong.append(f"{seed} ({error:.1f} px)")
    return columns, speed


def run_cycles(limit: int | None) -> tuple[list[Column], Speed]:
    columns = [Column() for _ in COLUMNS]
    speed = Speed()
    for i, frame in enumerate(load_frames(limit=limit)):
        speed.aruco_ms.append(aruco_ms(frame.image))
        locate_columns(frame.image, frame.camera, frame.pose, frame.ground, i, frame.name,
                       columns)
    return columns, speed


def report(title: str, columns: list[Column], speed: Speed, misses: bool = False) -> None:
    """The table; with ``misses``, every reason a frame was not found for and the frames,
    so that a class of misses can be traced frame by frame."""
    frames = columns[0].frames
    print(f"\n== {title}: {frames} frames")
    if not frames:
        return
    aruco = float(np.median(speed.aruco_ms))
    print(f"{'':26s}" + "".join(f"{c:>16s}" for c in COLUMNS))
    rows = [
        ("pose found", [f"{c.found / c.frames:.1%} ({c.found})" for c in columns]),
        ("wrong poses", [str(c.wrong) for c in columns]),
        ("turn right", [f"{c.turn_right / c.frames:.1%} ({c.turn_right})" for c in columns]),
        ("turn claimed wrongly", [str(c.turn_wrong) for c in columns]),
        ("stud grid error px p50", [f"{np.median(c.grid_px):.3f}" if c.grid_px else "n/a"
                                    for c in columns]),
        ("first detection ms p50", [f"{np.median(c.ms):.1f}" for c in columns]),
        ("  x ArUco", [f"{np.median(c.ms) / aruco:.2f}" for c in columns]),
    ]
    for label, values in rows:
        print(f"{label:26s}" + "".join(f"{v:>16s}" for v in values))
    print(f"ArUco detection ms p50   {aruco:.1f} (reference, same frames)")
    if speed.tracked_ms:
        med = float(np.median(speed.tracked_ms))
        print(f"tracked frame ms p50     {med:.1f} = {med / aruco:.2f} x ArUco; "
              f"{speed.tracked_found} of {len(speed.tracked_ms)} found, "
              f"{len(speed.tracked_wrong)} wrong {' '.join(speed.tracked_wrong)}")
    for name, column in zip(COLUMNS, columns, strict=True):
        ranked = sorted(column.missed.items(), key=lambda kv: -len(kv[1]))
        for reason, frames in ranked if misses else ranked[:4]:
            print(f"  {name}: not found x{len(frames)}: {reason}")
            if misses:
                print(f"    {' '.join(frames)}")
        if column.wrong_names:
            print(f"  {name}: wrong: {' '.join(column.wrong_names)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 twin frames, 12 Cycles frames")
    parser.add_argument("--frames", type=int, help="twin frames (default 600, quick 40)")
    parser.add_argument("--cycles", type=int, help="Cycles frames at most (default all)")
    parser.add_argument("--seed", type=int, default=FIRST_SEED,
                        help="first twin frame's seed (default 1000); choose others for a"
                        " dev set apart from the bench's own frames")
    parser.add_argument("--classic", action="store_true",
                        help="the classic twin: map 1 on every board, the old look and framing")
    parser.add_argument("--misses", action="store_true",
                        help="list every reason a frame was not found for, with the frames")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.frames if args.frames is not None else (40 if args.quick else 600)
    look = "classic twin, map 1" if args.classic else "wide twin, a random map per frame"
    if args.seed != FIRST_SEED:
        look += f", seeds from {args.seed}"
    report(look, *run_twin(n, wide=not args.classic, first_seed=args.seed), args.misses)
    limit = args.cycles if args.cycles is not None else (12 if args.quick else None)
    report("Cycles validation frames (tests/data/cycles)", *run_cycles(limit), args.misses)


if __name__ == "__main__":
    main()
