"""Dashboard speed: the camera view's frames per second, and a turn's way to the page.

Run from the project root: ``python3 -m bench.dashboard`` (``--quick`` for a smoke run).

1. ``show_frame`` (what the camera loop pays per frame), then the same with the overlay
   (stud grid, every piece outlined, this turn's path) drawn and encoded as a page asks
   for it, on a 1280x720 twin frame of a palace grown by bots; the reference is
   ``cv2.imencode`` of the same frame, timed in the same run.
2. From ``camera_turn`` (a settled board read) to the report arriving at each of four
   server-sent-event clients connected at once to a real server (uvicorn, loopback).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import uvicorn

from calibration.evidence import BoardLocation
from palace.server import create_app
from palace.session import TableSession
from rules.bot import simulate_game
from rules.game import Game
from rules.moves import Hand, staircases
from twin.cameras import random_camera
from twin.frame import RenderOptions
from twin.renderer import render

FPS_TARGET = 10.0
LATENCY_TARGET_S = 1.5
CLIENTS = 4


class Reading:
    """A reading as vision gives it (duck-typed like its TurnReading)."""

    def __init__(self, pieces: tuple) -> None:
        self.found, self.uncertain, self.reason = True, False, ""
        self.added = tuple(Piece(p) for p in pieces)


class Piece:
    def __init__(self, piece: object) -> None:
        self.piece, self.confidence, self.alternatives = piece, 0.95, ()


def frames_per_second(session: TableSession, frames: int) -> None:
    record = simulate_game(3, seed=1, frog_chance=0.0)
    palace = record.scenes[-1]
    camera, pose = random_camera(np.random.default_rng(5), 1280, 720, elevation_deg=(50, 60))
    image = render(palace, camera, pose, RenderOptions(clean=True), seed=2).image
    location = BoardLocation(found=True, pose=pose, camera=camera, rotation=0)
    # The session's game must hold that palace for the overlay to draw it.
    game = session.game
    for piece in palace.pieces:
        if piece.id not in game.palace:
            game.palace.place(piece)
    pieces = len(game.palace)
    t0 = time.perf_counter()
    for _ in range(frames):
        session.show_frame(image, location)
    show = (time.perf_counter() - t0) / frames
    t0 = time.perf_counter()
    for _ in range(frames):
        session.show_frame(image, location)
        session.feed.jpeg()
    page_jpeg = (time.perf_counter() - t0) / frames - show
    t0 = time.perf_counter()
    for _ in range(frames):
        cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    reference = (time.perf_counter() - t0) / frames
    fps = 1.0 / (show + page_jpeg)
    print(f"show_frame (the camera loop's cost), 1280x720: {show * 1000:.2f} ms")
    print(f"overlay drawn ({pieces} pieces) and encoded for a page (960 wide): "
          f"{page_jpeg * 1000:.1f} ms")
    print(f"show_frame + overlay + JPEG: {fps:.0f} frames/s (target >= {FPS_TARGET:.0f}) "
          f"[{'ok' if fps >= FPS_TARGET else 'MISSED'}]")
    print(f"reference cv2.imencode of the 1280x720 frame: {reference * 1000:.1f} ms; "
          f"show_frame / reference = {show / reference:.2f}, "
          f"show_frame + overlay + JPEG / reference = {(show + page_jpeg) / reference:.2f}")


def turn_latency(db: Path, turns: int) -> None:
    session = TableSession.open(db, resume=False)
    session.new_game(players=3)
    server = uvicorn.Server(uvicorn.Config(create_app(session), host="127.0.0.1", port=0,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    arrivals: list[list[float]] = [[] for _ in range(CLIENTS)]
    ready = threading.Barrier(CLIENTS + 1)
    stop = threading.Event()

    def client(i: int) -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/events", timeout=30) as s:
            ready.wait()
            event = ""
            for line in s.iter_lines():
                if stop.is_set():
                    return
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "state" and '"report": {' in line:
                    arrivals[i].append(time.perf_counter())

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    ready.wait()
    game: Game = session.game
    hand = Hand(game.player.arches, game.player.bricks, game.player.columns)
    found = [c.pieces for c in staircases(game.palace, hand, game.tray.decorations)
             if game.check_turn(c.pieces).legal]
    starts = []
    for k in range(turns):
        time.sleep(0.05)
        starts.append(time.perf_counter())
        session.camera_turn(Reading(tuple(found[k % len(found)])), [])
        deadline = time.monotonic() + 5
        while min(len(a) for a in arrivals) <= k and time.monotonic() < deadline:
            time.sleep(0.001)
        session.discard()
    stop.set()
    worst = [max(a[k] for a in arrivals) - starts[k] for k in range(turns)]
    med = statistics.median(worst)
    verdict = "ok" if max(worst) < LATENCY_TARGET_S else "MISSED"
    print(f"camera_turn -> report at all {CLIENTS} SSE clients, {turns} turns: median "
          f"{med * 1000:.1f} ms, worst {max(worst) * 1000:.1f} ms "
          f"(target < {LATENCY_TARGET_S:.1f} s) [{verdict}]")
    server.should_exit = True
    thread.join(5)
    session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions (smoke run)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        session = TableSession.open(Path(tmp) / "fps.sqlite", resume=False)
        frames_per_second(session, 10 if args.quick else 100)
        session.close()
        turn_latency(Path(tmp) / "latency.sqlite", 5 if args.quick else 30)


if __name__ == "__main__":
    main()
