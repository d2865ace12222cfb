"""Rules engine speed: turn-report time by palace size, and bot games per second.

Run from the project root: ``python3 -m bench.rules`` (``--quick`` for a smoke run).
Everything runs in one process, so the figures are for one core. Palaces of 50, 150
and 300 pieces are grown by bot turns (with a bottomless tray so the game never ends
early); the turn report is then timed on the legal staircases the generator finds there.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rules.bot import Bot, simulate_game
from rules.game import Game
from rules.moves import Hand, staircases
from rules.palace import Palace
from rules.pieces import Piece
from rules.staircase import analyse_added, analyse_turn

REPORT_TARGET_MS = 1.0
GAMES_TARGET = 20.0


def grow(sizes: list[int], seed: int = 0) -> dict[int, Palace]:
    """Palaces of (at least) each size, grown by bot turns from the set-up."""
    game = Game.new(4, "1", seed=seed)
    bot = Bot(seed, max_starts=12)
    out: dict[int, Palace] = {}
    stuck = 0
    while len(out) < len(sizes) and stuck < 40:
        game.tray.arches = game.tray.bricks = 10**6  # never run out
        game.tray.decorations.update(dict.fromkeys(game.tray.decorations, 10**6))
        player = game.player
        player.arches, player.bricks = max(player.arches, 8), max(player.bricks, 8)
        size = len(game.palace)
        result = bot.play(game)
        stuck = stuck + 1 if result.passed else 0
        for target in sizes:
            if target not in out and len(game.palace) >= target:
                out[target] = game.palace.copy()
        if len(game.palace) == size and game.is_over:
            break
    return out


def turns_on(palace: Palace, count: int) -> list[tuple[Piece, ...]]:
    """Legal staircases that could be played next on ``palace``."""
    rng = random.Random(1)
    decorations = {"light_green": 16, "dark_green": 16, "gold": 16}
    found: list[tuple[Piece, ...]] = []
    for _ in range(20):
        for c in staircases(palace, Hand(6, 8, 2), decorations, rng=rng, max_starts=12):
            if analyse_added(palace, c.pieces).legal:
                found.append(c.pieces)
        if len(found) >= count:
            break
    return found[:count]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_reports(palace: Palace, turns: list[tuple[Piece, ...]], reps: int) -> tuple[list, list]:
    added_ms, turn_ms = [], []
    afters = []
    for pieces in turns:
        after = palace.copy()
        for i, p in enumerate(pieces):
            after.place(p.moved(id=f"new{i}"))
        afters.append(after)
    for _ in range(reps):
        for pieces, after in zip(turns, afters, strict=True):
            t = time.perf_counter()
            analyse_added(palace, pieces)
            added_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            analyse_turn(palace, after)
            turn_ms.append((time.perf_counter() - t) * 1000)
    return added_ms, turn_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions, a smoke run")
    args = parser.parse_args()
    reps, games = (3, 5) if args.quick else (30, 60)

    print("turn report (one core)")
    palaces = grow([50, 150, 300])
    for _, palace in sorted(palaces.items()):
        turns = turns_on(palace, 10)
        if not turns:
            print(f"  {len(palace):4d} pieces: no legal staircase found to time")
            continue
        added, whole = time_reports(palace, turns, reps)
        for name, ms in (("analyse_added", added), ("analyse_turn", whole)):
            print(f"  {len(palace):4d} pieces  {name:13s}  median {statistics.median(ms):6.3f} ms"
                  f"  p95 {percentile(ms, 0.95):6.3f} ms  (target < {REPORT_TARGET_MS:g} ms;"
                  f" {len(turns)} staircases x {reps})")

    print("simulated 4-player bot games (one core)")
    start = time.perf_counter()
    turns = 0
    for seed in range(games):
        turns += len(simulate_game(players=4, seed=seed).turns)
    elapsed = time.perf_counter() - start
    print(f"  {games / elapsed:6.1f} games/s  ({elapsed * 1000 / games:.1f} ms per game, "
          f"{turns / games:.1f} turns per game, {games} games)  (target >= {GAMES_TARGET:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
