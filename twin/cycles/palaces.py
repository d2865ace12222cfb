"""Whole palaces from the validation renderer, each seen from several places round the table.

Full mode reads a palace with no history from a few views of one webcam, the board turned
or moved between them. For palace ``n`` this draws (from seed ``PALACE_SEEDS + n``, apart
from the single frames' and the turn pairs' seeds) a random ground map and a bot game of
four players on it that builds at least ``PALACE_PIECES`` pieces, and takes its first
scene of that many pieces (:meth:`rules.bot.GameRecord.scene_with`, as the twin's full
bench does). One webcam (its lens drawn once) looks at it from ``views`` places round the
table, a turn's ``1 / views`` apart in azimuth give or take ``AZIMUTH_JITTER_DEG``, each at
its own elevation (30 to 70 degrees) and framing (the whole board in the picture), under
one light, on one table with one set of clutter. Each view is its own path-tracer run and
its own development: the webcam re-exposes as it moves (white balance, exposure and noise
drift a little from the first view's).

    nice -n 10 python3 -m twin.cycles.driver tests/data/cycles_full --palaces 6 --views 4 \\
        --samples 16 --quality 85

writes ``NNN.view{0..3}.jpg`` with ``NNN.viewK.camera.json`` and ``NNN.viewK.pose.json``
(the true pose, the view's development, the game's seed and the number of views) beside
``NNN.scene.json`` and ``NNN.map.json``. The last view's picture is written last, so a
palace is complete exactly when it is there; a view already written is not rendered
again, so an interrupted run resumes with the same command.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.camera import Camera, Pose
from rules.bot import simulate_game
from rules.formats import write_json
from rules.maps import GroundMap
from rules.random_map import random_map
from rules.scene import Scene
from twin.cycles.jobs import (
    blender_camera,
    develop,
    develop_settings,
    draw_intrinsics,
    draw_pose,
    drifted,
    run_blender,
    scene_json,
    table_jobs,
)

PALACE_SEEDS = 40_000
"""Palace ``n`` draws from seed ``PALACE_SEEDS + n`` (frames use 0 on, turn pairs 10000 on)."""
PALACE_PIECES = 120
"""The size of palace the twin's full bench reads (``bench.full_palace``)."""
PALACE_ELEVATION_DEG = (30.0, 70.0)
"""Degrees above the table each view's camera is drawn between (each view its own): a
little wider than the twin's full bench (35 to 65, ``bench.full_palace``), from a player
seated low to one leaning over the board, as full mode is meant to be used."""
PALACE_FILL = (0.7, 0.97)
"""How far towards the picture's edge the board's outermost corner reaches: the whole
board in view, as a player framing a palace to read it would (the twin's full bench
frames its views the same, ``twin.cameras.random_camera``'s default)."""
AZIMUTH_JITTER_DEG = 25.0
"""Degrees either way (drawn evenly) a view strays from its even share of the way round
the table: players do not stand at exact quarter turns, and with four views the
neighbours stay at least 40 degrees apart."""


def _chosen_palace(rng: np.random.Generator, seed: int,
                   pieces: int) -> tuple[GroundMap, Scene, int]:
    """A random map, a four-player bot game on it that builds ``pieces`` pieces, and its
    first scene of that size; the game's seed with it. A map that starts no game or a
    game that ends smaller is drawn again."""
    for attempt in range(50):
        ground = random_map(rng, name=f"cycles-palace-{seed}")
        record = simulate_game(4, seed * 100 + attempt, ground)
        if len(record.scenes[-1].pieces) >= pieces:
            return ground, record.scene_with(pieces), record.seed
    raise RuntimeError(f"seed {seed}: no bot game reached {pieces} pieces")


def view_poses(rng: np.random.Generator, camera: Camera, views: int) -> list[Pose]:
    """Where the webcam stands for each view: round the table, each at its own elevation."""
    start = rng.uniform(0, 2 * math.pi)
    jitter = math.radians(AZIMUTH_JITTER_DEG)
    return [draw_pose(rng, camera, PALACE_ELEVATION_DEG,
                      azimuth=start + 2 * math.pi * k / views + rng.uniform(-jitter, jitter),
                      fill=PALACE_FILL)
            for k in range(views)]


def make_palace_jobs(number: int, work: Path, samples: int, views: int = 4,
                     width: int = 1280, height: int = 720
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The Blender jobs of palace ``number`` (one a view) and the truth they show."""
    seed = PALACE_SEEDS + number
    rng = np.random.default_rng(seed)
    ground, scene, game_seed = _chosen_palace(rng, seed, PALACE_PIECES)
    scene = Scene(map="map.json", pieces=scene.pieces)
    camera = draw_intrinsics(rng, width, height)
    poses = view_poses(rng, camera, views)
    (job,), margin = table_jobs(rng, ground, camera, poses[0], work, samples, seed,
                                [scene.pieces])
    # Each view is its own path-tracer run: its own noise.
    jobs = [job | {"camera": blender_camera(camera, pose, (margin[0], margin[1])),
                   "seed": seed * 10 + k}
            for k, pose in enumerate(poses)]
    first = develop_settings(rng, margin, seed * 10)
    settings = [first, *(drifted(first, rng, seed * 10 + k) for k in range(1, views))]
    truth = {"camera": camera, "poses": poses, "scene": scene, "map": ground,
             "develop": settings, "game_seed": game_seed}
    return jobs, truth


def render_palace(number: int, out: Path, blender: str, samples: int, quality: int,
                  views: int = 4) -> float:
    """Renders palace ``number``'s views not yet in ``out``; seconds taken."""
    stem = f"{number:03d}"
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs, truth = make_palace_jobs(number, work, samples, views)
        write_json(out / f"{stem}.scene.json", scene_json(truth["scene"], stem))
        write_json(out / f"{stem}.map.json", truth["map"].to_json())
        for k, (job, pose, settings) in enumerate(zip(jobs, truth["poses"], truth["develop"],
                                                      strict=True)):
            view = f"view{k}"
            picture = out / f"{stem}.{view}.jpg"
            if picture.exists():
                continue
            image = develop(run_blender(blender, job, work, f"{stem}.{view}"),
                            truth["camera"], settings)
            write_json(out / f"{stem}.{view}.camera.json", truth["camera"].to_json())
            write_json(out / f"{stem}.{view}.pose.json", pose.to_json() | {
                "develop": settings, "game_seed": truth["game_seed"], "views": views})
            cv2.imwrite(str(picture), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            print(f"palace {stem} {view}: {time.time() - start:.0f} s", flush=True)
    return time.time() - start

