"""Set-up staircase benchmark: the starting staircase found on the map the camera read.

    python3 -m bench.setup_staircase              # 200 wide-twin set-ups + the Cycles set
    python3 -m bench.setup_staircase --quick      # 30 twin set-ups + the first 16 Cycles frames
    python3 -m bench.setup_staircase --seed 30000 --count 80 --no-cycles   # a dev set

A real game is set up on a map nobody can type in: the dashboard reads the map from the
camera's settled pictures, and the game also needs the starting staircase standing on it
(``palace.camera_map.with_setup``). Each twin picture draws a new random map (seeds from
40000: ``rules.random_map``, whose starting area lies anywhere, or is missing three times
in ten) and renders its set-up position under the wide look, from a random webcam, one
view. The Cycles set's frames are taken as they come: set-ups, empty boards and palaces.

Reported per set: pictures whose map was read; with a staircase standing, found right
(every piece's kind and studs, in the truth's frame), found wrongly, none; without one,
claimed (wrongly) and none. Two rows: :func:`vision.setup_staircase.find_setup` alone, and
the dashboard's whole rule (the shipped maps' place where no place is clear). The finder's
time is set against OpenCV's ArUco marker detection on the same pictures.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from bench.calibration import aruco_ms
from calibration.camera import Camera, Pose
from calibration.map_read import MapReadError, cell_in, read_map
from palace.camera_map import with_setup
from rules.maps import GroundMap
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, Kind, Piece
from rules.random_map import random_map
from twin import RenderOptions, random_camera, render
from twin.cycles.frames import load_frames
from twin.wide import WIDE_FILL
from vision.setup_staircase import SetupView, find_setup

SEED = 40_000
"""The bench's first twin set-up: development sets are drawn from other ranges."""


@dataclass(frozen=True)
class SetupPicture:
    name: str
    image: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    standing: tuple[Piece, ...]
    """The starting staircase standing in the picture (none: no set-up, or a palace)."""
    grown: bool
    """A palace stands, grown round the staircase (a map read mid-game)."""


def twin_setups(seed: int, count: int) -> Iterator[SetupPicture]:
    """The set-up position of ``count`` random maps from ``seed`` on, one webcam each."""
    options = RenderOptions(color_jitter=0.0, settled=True, wide=True)
    for k in range(count):
        ground = random_map(np.random.default_rng([seed, k, 1 << 20]), f"random-{seed + k}")
        rng = np.random.default_rng([seed, k, 0])
        camera, pose = random_camera(rng, 1280, 720, elevation_deg=(30.0, 70.0), fill=WIDE_FILL)
        frame = render(Palace.setup(ground), camera, pose, options,
                       seed=int(rng.integers(1 << 30)))
        yield SetupPicture(str(seed + k), frame.image, camera, pose, _staircase(ground), False)


def cycles_setups(limit: int | None) -> Iterator[SetupPicture]:
    for frame in load_frames(limit=limit):
        built = [p for p in frame.scene.pieces if p.kind is not Kind.CORNER]
        standing = _staircase(frame.ground)
        grown = len(built) > len(standing)
        yield SetupPicture(frame.name, frame.image, frame.camera, frame.pose,
                           standing, grown)


def _staircase(ground: GroundMap) -> tuple[Piece, ...]:
    return tuple(p for p in ground.setup if p.kind is not Kind.CORNER)


def _studs(pieces: Sequence[Piece], where: NDArray[np.int64]) -> set[tuple[Kind, int]]:
    """Each piece's kind and studs, as cells of the truth's frame."""
    return {(p.kind, int(where[y * BOARD_STUDS + x])) for p in pieces for x, y in p.footprint()}


class Tally:
    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    def add(self, picture: SetupPicture, found: Sequence[Piece], where: NDArray[np.int64]
            ) -> None:
        kind = "grown" if picture.grown else "standing" if picture.standing else "empty"
        if not found:
            self.count[f"{kind} none"] += 1
        elif kind == "empty":
            self.count["empty claimed"] += 1
        else:
            truth = {(p.kind, y * BOARD_STUDS + x) for p in picture.standing
                     for x, y in p.footprint()}
            self.count[f"{kind} {'right' if _studs(found, where) == truth else 'wrong'}"] += 1

    def line(self, kind: str) -> str:
        c = self.count
        if kind == "empty":
            n = c["empty claimed"] + c["empty none"]
            return (f"no staircase: {n} pictures, claimed {c['empty claimed']}, "
                    f"none {c['empty none']}")
        n = c[f"{kind} right"] + c[f"{kind} wrong"] + c[f"{kind} none"]
        what = "a palace grown round it" if kind == "grown" else "the staircase standing"
        return (f"{what}: {n} pictures, right {c[f'{kind} right']}, "
                f"wrong {c[f'{kind} wrong']}, none {c[f'{kind} none']}")


def measure(title: str, pictures: Iterator[SetupPicture]) -> None:
    finder, rule = Tally(), Tally()
    unread: list[str] = []
    ms: list[float] = []
    aruco: list[float] = []
    kinds: set[str] = set()
    for picture in pictures:
        try:
            reading = read_map([(picture.name, picture.image)], picture.camera)
        except MapReadError:
            unread.append(picture.name)
            continue
        aruco.append(aruco_ms(picture.image))
        t0 = time.perf_counter()
        found = find_setup(SetupView(picture.image, reading))
        ms.append((time.perf_counter() - t0) * 1000)
        finder.add(picture, found.pieces if found else (), cell_in(reading.pose, picture.pose))
        ground, pose = with_setup(reading, picture.image)
        rule.add(picture, _staircase(ground), cell_in(pose, picture.pose))
        kinds.add("grown" if picture.grown else "standing" if picture.standing else "empty")
    print(f"\n== {title}: map read in {len(ms)} pictures"
          + (f" (not in {len(unread)}: {' '.join(unread)})" if unread else ""))
    for name, tally in (("find_setup alone", finder), ("the dashboard's rule", rule)):
        print(f"  {name}")
        for kind in ("standing", "empty", "grown"):
            if kind in kinds:
                print(f"    {tally.line(kind)}")
    if ms:
        p50, ref = float(np.median(ms)), float(np.median(aruco))
        print(f"  find_setup ms p50 {p50:.0f} = {p50 / ref:.0f} x ArUco ({ref:.1f} ms), "
              f"p90 {float(np.percentile(ms, 90)):.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--count", type=int, help="twin set-ups (default 200, quick 30)")
    parser.add_argument("--seed", type=int, default=SEED,
                        help=f"first twin seed (default {SEED}; take another range as a dev set)")
    parser.add_argument("--no-cycles", action="store_true", help="twin pictures only")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.count if args.count is not None else (30 if args.quick else 200)
    if n:
        measure(f"twin set-ups from seed {args.seed}", twin_setups(args.seed, n))
    if not args.no_cycles:
        measure("Cycles validation frames", cycles_setups(16 if args.quick else None))


if __name__ == "__main__":
    main()
