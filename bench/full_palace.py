"""Full mode on the twin: seeded bot-game palaces seen from four views, the board turned a
quarter between them, read with :func:`vision.full.read_palace` and scored piece by piece;
and the same on the validation renderer's palaces (``tests/data/cycles_full``).

    python3 -m bench.vision --only full [--quick]
    python3 -m bench.vision --only cycles_full [--quick]
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from bench.full_seen import (
    SeenTally,
    Shown,
    key_kind,
    key_level,
    seen_keys,
    show_seen,
    shown_pixels,
    whole_pixels,
)
from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose
from rules import Kind, Palace, Piece, load_map
from rules.bot import simulate_game
from rules.maps import GroundMap
from rules.pieces import place_key
from twin import RenderOptions, render
from twin.cameras import random_camera
from twin.cycles.frames import load_palaces
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
    shown: Shown | None = None
    """Per true piece, the pixels each view shows of it (:func:`bench.full_seen.shown_pixels`);
    ``None`` where the renderer gives no labels (the Cycles palaces)."""
    whole: Shown | None = None
    """Per true piece, its whole silhouette in each view (:func:`bench.full_seen.whole_pixels`)."""


def palace_views(seed: int, pieces: int, views: int = 4,
                 options: RenderOptions | None = None) -> Views:
    """A bot game's palace once it holds about ``pieces`` pieces, on a random map, seen by
    one random camera with the board turned a quarter between views."""
    rng = np.random.default_rng(seed)
    ground = load_map(str(int(rng.integers(1, 5))))
    game = simulate_game(4, seed=seed, map_name=ground)
    scene = game.scene_with(pieces)
    palace = Palace(ground, scene.pieces)
    camera, pose = random_camera(rng, elevation_deg=(35.0, 65.0))
    poses = [turned_pose(pose, k % 4) for k in range(views)]
    rendered = [render(scene, camera, p, options or RenderOptions(), seed=seed * 10 + k)
                for k, p in enumerate(poses)]
    return Views(palace, ground, camera, poses, [r.image for r in rendered],
                 shown_pixels(rendered), whole_pixels(rendered))


def cycles_views(limit: int | None = None) -> Iterator[Views]:
    """The validation renderer's palaces (``tests/data/cycles_full``, :mod:`twin.cycles.palaces`):
    four views of one webcam from places round the table. Never tuned on."""
    for v in load_palaces(limit=limit):
        yield Views(v.palace, v.ground, v.camera, list(v.poses), list(v.frames))


@dataclass
class FullTally:
    palaces: int = 0
    found: int = 0
    views: int = 0
    right: int = 0
    read: int = 0
    truth: int = 0
    exact: int = 0
    level_right: Counter[int] = field(default_factory=Counter)
    level_read: Counter[int] = field(default_factory=Counter)
    level_truth: Counter[int] = field(default_factory=Counter)
    missed: Counter[str] = field(default_factory=Counter)
    extra: Counter[str] = field(default_factory=Counter)
    seen: SeenTally = field(default_factory=SeenTally)
    missed_seen: Counter[str] = field(default_factory=Counter)

    def f1(self) -> tuple[float, float, float]:
        p = self.right / max(self.read, 1)
        r = self.right / max(self.truth, 1)
        return p, r, 2 * p * r / max(p + r, 1e-9)

    def add(self, got: set[tuple[object, ...]], want: set[tuple[object, ...]],
            shown: Shown | None = None, whole: Shown | None = None) -> None:
        """Counts one palace's reading (``got``) against its truth (``want``), place keys
        (:func:`palace_keys`): in all, by level, and what was missed or read too many by kind;
        with ``shown`` and ``whole`` (:class:`Views`) also what the views show at all,
        and the missed pieces some view shows, by kind."""
        self.right += len(got & want)
        self.read += len(got)
        self.truth += len(want)
        self.exact += got == want
        self.level_right.update(key_level(k) for k in got & want)
        self.level_read.update(key_level(k) for k in got)
        self.level_truth.update(key_level(k) for k in want)
        self.missed.update(key_kind(k) for k in want - got)
        self.extra.update(key_kind(k) for k in got - want)
        if shown is not None:
            self.seen.add(want, shown, whole)
            self.missed_seen.update(key_kind(k) for k in (want - got) & seen_keys(shown))


def measure_full(sets: Iterator[Views]) -> tuple[FullTally, list[float]]:
    tally, seconds = FullTally(), []
    for s in sets:
        started = time.perf_counter()
        reading = read_palace(s.frames, s.camera, ground=s.ground)
        seconds.append((time.perf_counter() - started) / len(s.frames))
        tally.palaces += 1
        tally.views += len(s.frames)
        tally.found += reading.found
        tally.add(palace_keys(list(reading.pieces)), palace_keys(list(s.palace.pieces)),
                  s.shown, s.whole)
    return tally, seconds


def show_full(title: str, tally: FullTally, seconds: list[float], reference: float) -> None:
    prec, rec, f1 = tally.f1()
    med = statistics.median(seconds) if seconds else float("nan")
    print(f"{title}: {tally.palaces} palaces, {tally.views} views, "
          f"{tally.truth} pieces to read")
    print(f"  board found {tally.found}/{tally.palaces}")
    print(f"  pieces precision {prec:.3f} recall {rec:.3f} F1 {f1:.3f}; "
          f"palaces exactly right {tally.exact}/{tally.palaces}")
    levels = sorted(tally.level_truth | tally.level_read)
    seen = tally.seen.truth > 0
    print(f"  by level (right / read / {'visible in some view / ' if seen else ''}to read): "
          + ", ".join(f"{z}: {tally.level_right[z]}/{tally.level_read[z]}/"
                      + (f"{tally.seen.level_seen[z]}/" if seen else "")
                      + f"{tally.level_truth[z]}" for z in levels))
    print(f"  missed by kind {dict(tally.missed.most_common())}; "
          f"read too many by kind {dict(tally.extra.most_common())}")
    if seen:
        print(f"  missed though some view shows them, by kind "
              f"{dict(tally.missed_seen.most_common())}")
        show_seen(tally.seen)
    print(f"  seconds per view median {med:.2f} s; reference (twin render) {reference:.2f} s;"
          f" ratio {med / reference:.1f}")
