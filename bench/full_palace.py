"""Full mode on the twin: seeded bot-game palaces seen from four views, the board turned a
quarter between them, read with :func:`vision.full.read_palace` and scored piece by piece.

    python3 -m bench.vision --only full [--quick]
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose
from rules import Kind, Palace, Piece, load_map
from rules.bot import simulate_game
from rules.maps import GroundMap
from rules.pieces import place_key
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision.full import read_palace

UNREAD = (Kind.CORNER, Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG)
BENCH_GAMES = range(1000, 1010)
"""The bot games whose palaces the bench reads (``--quick``: the first); settings are
chosen on other games (``bench.full_dev``)."""


def palace_keys(pieces: tuple[Piece, ...] | list[Piece]) -> set[tuple[object, ...]]:
    """What must be right for each piece that counts: kind, place, height, axis, colour."""
    return {place_key(p) for p in pieces if p.kind not in UNREAD}


@dataclass
class Views:
    palace: Palace
    ground: GroundMap
    camera: Camera
    poses: list[Pose]
    frames: list[NDArray[np.uint8]]


def palace_views(seed: int, pieces: int, views: int = 4,
                 options: RenderOptions | None = None) -> Views:
    """A bot game's palace once it holds about ``pieces`` pieces, on a random map, seen by
    one random camera with the board turned a quarter between views."""
    rng = np.random.default_rng(seed)
    ground = load_map(str(int(rng.integers(1, 5))))
    game = simulate_game(4, seed=seed, map_name=ground)
    scene = next((s for s in game.scenes if len(s.pieces) >= pieces), game.scenes[-1])
    palace = Palace(ground, scene.pieces)
    camera, pose = random_camera(rng, elevation_deg=(35.0, 65.0))
    poses = [turned_pose(pose, k % 4) for k in range(views)]
    frames = [render(scene, camera, p, options or RenderOptions(), seed=seed * 10 + k).image
              for k, p in enumerate(poses)]
    return Views(palace, ground, camera, poses, frames)


@dataclass
class FullTally:
    palaces: int = 0
    found: int = 0
    views: int = 0
    right: int = 0
    read: int = 0
    truth: int = 0
    exact: int = 0

    def f1(self) -> tuple[float, float, float]:
        p = self.right / max(self.read, 1)
        r = self.right / max(self.truth, 1)
        return p, r, 2 * p * r / max(p + r, 1e-9)


def measure_full(sets: Iterator[Views]) -> tuple[FullTally, list[float]]:
    tally, seconds = FullTally(), []
    for s in sets:
        started = time.perf_counter()
        reading = read_palace(s.frames, s.camera, ground=s.ground)
        seconds.append((time.perf_counter() - started) / len(s.frames))
        tally.palaces += 1
        tally.views += len(s.frames)
        tally.found += reading.found
        got, want = palace_keys(list(reading.pieces)), palace_keys(list(s.palace.pieces))
        tally.right += len(got & want)
        tally.read += len(got)
        tally.truth += len(want)
        tally.exact += got == want
    return tally, seconds


def show_full(title: str, tally: FullTally, seconds: list[float], reference: float) -> None:
    prec, rec, f1 = tally.f1()
    med = statistics.median(seconds) if seconds else float("nan")
    print(f"{title}: {tally.palaces} palaces, {tally.views} views, "
          f"{tally.truth} pieces to read")
    print(f"  board found {tally.found}/{tally.palaces}")
    print(f"  pieces precision {prec:.3f} recall {rec:.3f} F1 {f1:.3f}; "
          f"palaces exactly right {tally.exact}/{tally.palaces}")
    print(f"  seconds per view median {med:.2f} s; reference (twin render) {reference:.2f} s;"
          f" ratio {med / reference:.1f}")
