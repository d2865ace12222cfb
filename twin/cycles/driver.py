"""Validation frames and turn pairs from Blender's Cycles: what to show, the files.

Each frame draws its own random ground map, a scene of a bot game on it (the set-up or
a later turn), a webcam somewhere over the table, a light and a table (``jobs.py``);
runs ``render_scene.py`` inside Blender, then develops Blender's linear-ish picture as a
webcam would and writes it as JPEG beside its truth.

    nice -n 19 python3 -m twin.cycles.driver tests/data/cycles --frames 64 --samples 16 --quality 88

renders frames ``000..063`` into the folder, skipping those already there (so an
interrupted run resumes with the same command). With ``--turns N`` it renders N turn
pairs instead: one played turn of a bot game, the settled table before it and after it
from the same camera, light, table and clutter:

    python3 -m twin.cycles.driver tests/data/cycles_turns --turns 34 --samples 16 --quality 85

With ``--second-view DEG`` as well it renders each pair again from a second webcam of the
same make that many degrees round the table (the same table, light, card, clutter and
development), as ``NNN.before2.jpg``, ``NNN.after2.jpg`` and ``NNN.pose2.json``:

    python3 -m twin.cycles.driver tests/data/cycles_turns --turns 34 --second-view 180 \
        --samples 16 --quality 85

With ``--palaces N --views 4`` it renders N whole palaces of a bot game's late scene,
each from four places round the table, for full mode (:mod:`twin.cycles.palaces`):

    nice -n 10 python3 -m twin.cycles.driver tests/data/cycles_full --palaces 6 --views 4 \\
        --samples 16 --quality 85

Never train on these frames: they exist to say how the vision does outside the renderer
it was built on.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.bot import GameRecord, simulate_game
from rules.formats import write_json
from rules.maps import GroundMap
from rules.pieces import pieces_built
from rules.random_map import random_map
from rules.scene import Scene
from twin.cameras import around_board
from twin.cycles.jobs import (
    blender_camera,
    develop,
    develop_settings,
    draw_camera,
    drifted,
    run_blender,
    scene_json,
    table_jobs,
)
from twin.cycles.palaces import render_palace


def make_job(seed: int, work: Path, samples: int, width: int = 1280,
             height: int = 720) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Blender job and the truth it is rendered from, both drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, name=f"cycles-{seed}")
    record = simulate_game(int(rng.integers(2, 5)), seed, ground)
    turn = 0 if rng.random() < 0.35 else int(rng.integers(1, len(record.scenes)))
    scene = Scene(map="map.json", pieces=record.scenes[turn].pieces)
    camera, pose = draw_camera(rng, width, height)
    (job,), margin = table_jobs(rng, ground, camera, pose, work, samples, seed,
                                [scene.pieces])
    settings = develop_settings(rng, margin, seed)
    truth = {"camera": camera, "pose": pose, "scene": scene, "map": ground,
             "develop": settings, "turn": turn, "game_seed": seed}
    return job, truth


def write_truth(out: Path, stem: str, truth: dict[str, Any]) -> None:
    write_json(out / f"{stem}.camera.json", truth["camera"].to_json())
    write_json(out / f"{stem}.pose.json",
               truth["pose"].to_json() | {"develop": truth["develop"], "turn": truth["turn"]})
    write_json(out / f"{stem}.scene.json", scene_json(truth["scene"], stem))
    write_json(out / f"{stem}.map.json", truth["map"].to_json())


def render_frame(seed: int, out: Path, blender: str, samples: int, quality: int) -> float:
    stem = f"{seed:03d}"
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        job, truth = make_job(seed, work, samples)
        img = develop(run_blender(blender, job, work, stem), truth["camera"], truth["develop"])
    write_truth(out, stem, truth)
    cv2.imwrite(str(out / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return time.time() - start


# -- turn pairs: the settled table before a turn and after it ----------------------------
TURN_SEEDS = 10_000
"""Pair ``n`` draws from seed ``TURN_SEEDS + n``, apart from the single frames' seeds."""
TURN_ELEVATION_DEG = (30.0, 70.0)
TURN_ADDED = (3, 8)
"""How many pieces (animals aside) a chosen turn adds: enough to read, few enough to be
one player's turn."""


def _chosen_turn(rng: np.random.Generator, seed: int) -> tuple[GroundMap, GameRecord, int]:
    """A turn adding 3 to 8 pieces of a bot game, from its first, middle or last third.

    The third goes round with ``seed`` so that a set of pairs holds small palaces as well
    as large ones.
    """
    for attempt in range(50):
        ground = random_map(rng, name=f"cycles-turn-{seed}")
        record = simulate_game(int(rng.integers(2, 5)), seed * 100 + attempt, ground)
        fits = [t for t in range(len(record.scenes) - 1)
                if TURN_ADDED[0] <= len(pieces_built(record.scenes[t].pieces,
                                                       record.scenes[t + 1].pieces))
                <= TURN_ADDED[1]]
        if fits:
            third = seed % 3
            part = fits[third * len(fits) // 3:(third + 1) * len(fits) // 3] or fits
            return ground, record, int(rng.choice(part))
    raise RuntimeError(f"seed {seed}: no bot game with a turn of {TURN_ADDED} pieces")


def make_turn_jobs(number: int, work: Path, samples: int, width: int = 1280,
                   height: int = 720) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The jobs of pair ``number`` (before, after) and the truth they are rendered from."""
    seed = TURN_SEEDS + number
    rng = np.random.default_rng(seed)
    ground, record, turn = _chosen_turn(rng, seed)
    scenes = [Scene(map="map.json", pieces=record.scenes[t].pieces) for t in (turn, turn + 1)]
    camera, pose = draw_camera(rng, width, height, TURN_ELEVATION_DEG)
    jobs, margin = table_jobs(rng, ground, camera, pose, work, samples, seed,
                               [s.pieces for s in scenes])
    jobs[1]["seed"] = seed + TURN_SEEDS  # the path tracer's own noise is fresh too
    before = develop_settings(rng, margin, seed)
    after = drifted(before, rng, seed + TURN_SEEDS)
    truth = {"camera": camera, "pose": pose, "before": scenes[0], "after": scenes[1],
             "map": ground, "develop": [before, after], "turn": turn, "game_seed": seed,
             "players": record.players, "hand": record.hands[turn]}
    return jobs, truth


def render_turn(number: int, out: Path, blender: str, samples: int, quality: int) -> float:
    """Renders pair ``number``; its ``after.jpg`` is written last, so a pair is complete
    exactly when that file is there."""
    stem = f"{number:03d}"
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs, truth = make_turn_jobs(number, work, samples)
        images = [develop(run_blender(blender, job, work, f"{stem}.{part}"), truth["camera"],
                          settings)
                  for job, part, settings in zip(jobs, ("before", "after"), truth["develop"],
                                                 strict=True)]
    write_json(out / f"{stem}.camera.json", truth["camera"].to_json())
    write_json(out / f"{stem}.pose.json", truth["pose"].to_json() | {
        "develop": truth["develop"], "turn": truth["turn"], "game_seed": truth["game_seed"],
        "players": truth["players"], "hand": asdict(truth["hand"])})
    for part in ("before", "after"):
        write_json(out / f"{stem}.{part}.json", scene_json(truth[part], stem))
    write_json(out / f"{stem}.map.json", truth["map"].to_json())
    for part, img in zip(("before", "after"), images, strict=True):
        cv2.imwrite(str(out / f"{stem}.{part}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return time.time() - start


def render_second_view(number: int, out: Path, blender: str, samples: int, quality: int,
                       degrees: float) -> float:
    """Renders pair ``number`` from a second webcam ``degrees`` round the table: the
    pair's very jobs with the camera moved (:func:`twin.cameras.around_board`); its
    ``after2.jpg`` is written last."""
    stem = f"{number:03d}"
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs, truth = make_turn_jobs(number, work, samples)
        camera, pose = truth["camera"], around_board(truth["pose"], degrees)
        margin = ((jobs[0]["camera"]["width"] - camera.width) // 2,
                  (jobs[0]["camera"]["height"] - camera.height) // 2)
        images = []
        for job, part, settings in zip(jobs, ("before", "after"), truth["develop"],
                                       strict=True):
            job["camera"] = blender_camera(camera, pose, margin)
            images.append(develop(run_blender(blender, job, work, f"{stem}.{part}2"), camera,
                                  settings))
    write_json(out / f"{stem}.pose2.json", pose.to_json() | {"degrees": degrees})
    for part, img in zip(("before", "after"), images, strict=True):
        cv2.imwrite(str(out / f"{stem}.{part}2.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return time.time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--turns", type=int, default=None,
                        help="render this many turn pairs (before and after) instead of frames")
    parser.add_argument("--palaces", type=int, default=None,
                        help="render this many whole palaces, each from --views places "
                             "round the table (twin.cycles.palaces), instead of frames")
    parser.add_argument("--views", type=int, default=4)
    parser.add_argument("--second-view", type=float, default=None, metavar="DEG",
                        help="with --turns: render each pair from a second webcam this many "
                             "degrees round the table")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--quality", type=int, default=88)
    parser.add_argument("--blender", default="blender")
    args = parser.parse_args(argv)
    if args.second_view is not None and args.turns is None:
        print("--second-view: only with --turns (turn pairs)", file=sys.stderr)
        return 2
    blender = shutil.which(args.blender)
    if blender is None:
        print(f"{args.blender}: not installed (apt-get install blender)", file=sys.stderr)
        return 2
    for flag, value, low, high in (("--samples", args.samples, 1, 4096),
                                   ("--quality", args.quality, 1, 100),
                                   ("--first", args.first, 0, 999),
                                   ("--views", args.views, 1, 12)):
        if not low <= value <= high:
            print(f"{flag} {value}: must be {low} to {high}", file=sys.stderr)
            return 2
    if args.out.exists() and not args.out.is_dir():
        print(f"{args.out}: is a file, not a folder to render into", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if args.palaces is not None:
        _render_missing(functools.partial(render_palace, views=args.views), "palace",
                        f".view{args.views - 1}.jpg", args.palaces, args, blender)
    elif args.turns is not None and args.second_view is not None:
        _render_missing(functools.partial(render_second_view, degrees=args.second_view),
                        "second view", ".after2.jpg", args.turns, args, blender)
    elif args.turns is not None:
        _render_missing(render_turn, "pair", ".after.jpg", args.turns, args, blender)
    else:
        _render_missing(render_frame, "frame", ".jpg", args.frames, args, blender)
    return 0


def _render_missing(render: Callable[[int, Path, str, int, int], float], label: str,
                    last_file: str, count: int, args: argparse.Namespace, blender: str
                    ) -> None:
    """Renders numbers ``--first`` on, ``count`` of them, each timed, skipping those whose
    ``NNN<last_file>`` (written last) is already there: an interrupted run resumes."""
    for number in range(args.first, args.first + count):
        if (args.out / f"{number:03d}{last_file}").exists():
            continue
        took = render(number, args.out, blender, args.samples, args.quality)
        print(f"{label} {number:03d}: {took:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
