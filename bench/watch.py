"""Camera loop speed: frames per second while idle, and from a settled frame to the turn.

Idle: the loop (board tracking, the settle detector, the page's camera view) on still
1280x720 frames of the simulated table, several tables (webcam, light, map) one after
the other; the first frame of each, where the board is found afresh, is left out. The
target is at least 10 frames a second on one core. The reference, timed in the same
run on the same frames, is OpenCV's ArUco marker detection (grey conversion
included): what a marker-based board tracker would pay a frame at the least.

Turns: simulated games through the whole pipeline (``palace demo``'s), timing each turn
from the frame on which the board was found settled to ``camera_turn`` being called
(target under 1.5 s), and how often the camera read the turn right. One core
(cv2.setNumThreads(1), numpy's BLAS pinned by ``bench/__init__``).

    python3 -m bench.watch [--quick] [--tables N] [--turns N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from palace.session import TableSession
from palace.watch import CameraLoop
from twin.table import SimulatedTable
from twin.table_settings import TableSettings


class _NoLook:
    def learn(self, *args: object) -> None:
        """Idle frames teach nothing the bench measures."""


def _never_read(*args: object, **kwargs: object) -> None:
    raise AssertionError("an idle board was read")


def idle(tables: int, frames: int, db: Path) -> tuple[list[float], list[float]]:
    """Per-frame seconds of the loop and of the ArUco reference on the same frames."""
    loop_s: list[float] = []
    aruco_s: list[float] = []
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(
        cv2.aruco.DICT_4X4_50))
    for seed in range(tables):
        settings = TableSettings(setup_s=(frames + 1) / 10.0)
        table = SimulatedTable(seed=100 + seed, players=3, turns=0, settings=settings)
        shots = list(table)
        session = TableSession.open(db.with_name(f"idle{seed}.sqlite"), resume=False)
        loop = CameraLoop(session, camera=table.camera, reader=_never_read, look=_NoLook())
        loop.step(shots[0])  # the board found afresh: not an idle frame
        for shot in shots[1:]:
            started = time.perf_counter()
            loop.step(shot)
            loop_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            detector.detectMarkers(cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY))
            aruco_s.append(time.perf_counter() - started)
        session.close()
        lost = loop.stats.frames - loop.stats.found
        print(f"  table {seed}: {len(shots) - 1} idle frames, board lost in {lost}, "
              f"{1 / statistics.median(loop_s[-len(shots) + 1:]):.1f} frames/s")
    return loop_s, aruco_s


def turns(games: int, count: int, db: Path) -> None:
    """The whole pipeline on simulated turns: latency, how often it read right, and the
    loop's frame time by what the table showed (reads left out)."""
    from palace.demo import TablePlayers

    latencies: list[float] = []
    in_reader: list[float] = []
    by_phase: dict[str, list[float]] = {}
    right = built = doubted = 0
    for seed in range(games):
        table = SimulatedTable(seed=200 + seed, players=3, turns=count)
        session = TableSession.open(db.with_name(f"turns{seed}.sqlite"), resume=False)
        players = TablePlayers(session, table)
        players.set_up()
        loop = CameraLoop(session, camera=table.camera, on_turn=players.on_turn)
        for frame in table:
            players.watch(frame)
            reads = loop.stats.reads
            started = time.perf_counter()
            loop.step(frame)
            if loop.stats.reads == reads and loop.stats.frames > 1:
                by_phase.setdefault(frame.phase, []).append(time.perf_counter() - started)
        players.finish_all()
        session.close()
        stats = loop.stats
        latencies += stats.read_s
        in_reader += stats.reader_s
        right += players.tally.read_right
        doubted += players.tally.doubted
        built += players.tally.built
        print(f"  game {seed}: {players.tally.line()}; reads {stats.reads}, moves "
              f"{stats.moves}, settled-to-turn {', '.join(f'{s:.2f}' for s in stats.read_s)} s")
    for phase, times in sorted(by_phase.items()):
        print(f"loop frame time with the table {phase}: median {1000 * np.median(times):.1f} "
              f"ms, p95 {1000 * np.percentile(times, 95):.1f} ms over {len(times)} frames")
    if latencies:
        print(f"settled frame to camera_turn: median {statistics.median(latencies):.2f} s, "
              f"max {max(latencies):.2f} s over {len(latencies)} turns (target < 1.5 s); "
              f"outside the reader (vision.read_turn): median "
              f"{statistics.median(a - b for a, b in zip(latencies, in_reader, strict=True)):.3f}"
              f" s")
    print(f"turns read right by the camera: {right} of {built}; right pieces but held in "
          f"doubt: {doubted} more (python3 -m bench.watch_reads says why each turn was lost)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--tables", type=int, help="idle tables (default 5, quick 2)")
    parser.add_argument("--frames", type=int, help="idle frames a table (default 40, quick 15)")
    parser.add_argument("--games", type=int, help="games for the turn timing (default 2, "
                        "quick 1)")
    parser.add_argument("--turns", type=int, help="turns a game (default 4, quick 2)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    db = Path(tempfile.mkdtemp(prefix="bench-watch-")) / "x.sqlite"
    tables = args.tables or (2 if args.quick else 5)
    frames = args.frames or (15 if args.quick else 40)
    print(f"idle: {tables} tables x {frames} still 1280x720 frames, one core")
    loop_s, aruco_s = idle(tables, frames, db)
    loop_ms, aruco_ms = 1000 * np.median(loop_s), 1000 * np.median(aruco_s)
    sustained = len(loop_s) / sum(loop_s)
    print(f"idle loop: median {loop_ms:.1f} ms a frame (p95 "
          f"{1000 * np.percentile(loop_s, 95):.1f} ms), sustained {sustained:.1f} frames/s "
          f"(target >= 10)")
    print(f"reference, ArUco detection on the same frames: median {aruco_ms:.1f} ms; "
          f"ratio loop / ArUco {loop_ms / aruco_ms:.2f}")
    games = args.games or (1 if args.quick else 2)
    count = args.turns or (2 if args.quick else 4)
    try:
        import vision

        vision.read_turn  # noqa: B018 - present once reconstruction is there
    except (ImportError, AttributeError):
        print("turns: reconstruction (vision.read_turn) is not available; skipped")
        return
    print(f"turns: {games} games x {count} turns through the whole pipeline")
    turns(games, count, db)


if __name__ == "__main__":
    main()
