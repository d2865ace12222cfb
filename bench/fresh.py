"""Fresh seeds in bulk: turn mode and the board pose on games and frames no bench has seen.

    python3 -m bench.fresh --games 60 --shards 40 --jobs 16
    python3 -m bench.fresh --games 60 --shards 40 --jobs 16 --against HEAD~3
    python3 -m bench.fresh --games 4 --shards 2 --jobs 2 --seconds 300

The benches' own sets have been looked at for many rounds, so a rule can fit them and
not the next table. This script draws new ones: ``--games`` games of turn mode (the
first 20 turns of the bot game from seed 70000 + 10 i, as :mod:`bench.vision` draws its
twin turns, read with the true pose and the model) and ``--shards`` shards of 25 board
frames (from seed 80000 + 25 i, :func:`bench.calibration.twin_frame`, located with the
right map and tracked once, as :mod:`bench.calibration` does). Each game and shard runs
in its own process, ``--jobs`` at a time, so a machine with many cores measures
thousands in minutes.

``--against REV`` runs every game and shard on a second tree as well, a ``git worktree``
of REV, interleaved with this one's, and prints both: only the games and shards both
trees finished count, so ``--seconds`` may stop the run early and the comparison stays
paired. Seconds a turn are printed for orientation only: processes share the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from training.pairs import FRESH_GAMES_SEED, TURNS_PER_GAME, twin_turns

GAME_STRIDE = 10
"""Seeds apart between games: a game that ends early takes its next turns from the games
after it (:func:`training.pairs.twin_turns`), and ten seeds keep two games' turns apart."""
FIRST_FRAME = 80_000
FRAMES_A_SHARD = 25
COUNTS = ("tp", "fp", "fn", "exact", "reports", "flagged", "wrong", "wrong_flagged",
          "truth_unseen", "search_missed", "truth_outjudged", "asked", "asked_right")


def vision_shard(seed: int) -> list[dict[str, float]]:
    """One game's turns, one row each (the counts :class:`bench.vision.Tally` keeps)."""
    from bench.vision import measure

    rows = []
    for turn in twin_turns(TURNS_PER_GAME, seed=seed):
        tally = measure([turn], (True,), False)[True]
        # An older tree's tally (``--against``) may not keep every count: 0 there.
        row: dict[str, float] = {k: getattr(tally, k, 0) for k in COUNTS}
        row["seconds"] = tally.seconds[0]
        # What a wrong turn got wrong, and its report's wrong fields (an older tree's tally
        # keeps neither: no keys, counted as none).
        row.update({f"form: {k}": n for k, n in getattr(tally, "forms", {}).items()})
        row.update({f"report: {k}": n for k, n in getattr(tally, "report_fields", {}).items()})
        rows.append(row)
    return rows


def calibration_shard(seed: int) -> dict[str, object]:
    """One shard's right-map column and tracked frames, with the frames' names."""
    from bench.calibration import run_twin

    columns, speed = run_twin(FRAMES_A_SHARD, True, seed)
    right = columns[0]
    return {"frames": right.frames, "found": right.found, "wrong": right.wrong_names,
            "turn_right": right.turn_right, "turn_wrong": right.turn_wrong,
            "tracked": len(speed.tracked_ms), "tracked_found": speed.tracked_found,
            "tracked_wrong": speed.tracked_wrong}


def run_shard(tree: Path, kind: str, seed: int) -> object | None:
    """The shard's result from a process in ``tree`` (None if it failed)."""
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    # This file runs the shard whatever the tree (an older one may not have it), and
    # runpy leaves sys.path alone, so the tree's own packages are the ones measured.
    code = (f"import runpy, sys; sys.argv = ['fresh', '--shard', {kind!r}, '{seed}']; "
            f"runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"{tree.name} {kind} {seed}: {done.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return None
    return json.loads(done.stdout.splitlines()[-1])


def show_vision(name: str, games: list[list[dict[str, float]]]) -> None:
    from bench.vision import Tally
    from bench.wrong_turns import FORMS, REPORT_FIELDS, forms_line

    rows = [row for game in games for row in game]
    total = Tally(turns=len(rows), **{k: sum(int(r.get(k, 0)) for r in rows) for k in COUNTS})
    prec, rec, f1 = total.f1()
    seconds = sorted(r["seconds"] for r in rows)
    n = max(total.turns, 1)
    print(f"{name}: turn mode, {n} turns of {len(games)} games: P {prec:.4f} "
          f"R {rec:.4f} F1 {f1:.4f}; turns exact {total.exact} ({total.exact / n:.1%}), "
          f"reports right {total.reports} ({total.reports / n:.1%}); wrong pieces "
          f"flagged {total.wrong_flagged} of {total.wrong}, right pieces flagged "
          f"{total.flagged - total.wrong_flagged}; turns put to the players {total.asked}, "
          f"wrong reports not put to them {total.unasked_wrong()}; "
          f"wrong turns whose truth does not show "
          f"{total.truth_unseen}, shows and judges better (the search never reached it) "
          f"{total.search_missed}, judges no better {total.truth_outjudged}; "
          f"{seconds[len(seconds) // 2] if seconds else 0:.2f} s a turn (shared machine)")

    def summed(prefix: str, names: tuple[str, ...]) -> dict[str, int]:
        return {name: sum(int(r.get(f"{prefix}: {name}", 0)) for r in rows) for name in names}

    print(f"  {forms_line(summed('form', FORMS), summed('report', REPORT_FIELDS))}")


def show_calibration(name: str, shards: list[dict[str, object]]) -> None:
    def total(key: str) -> int:
        return sum(int(s[key]) for s in shards)  # type: ignore[call-overload]

    frames, found = total("frames"), total("found")
    wrong = [w for s in shards for w in s["wrong"]]  # type: ignore[attr-defined]
    tracked_wrong = [w for s in shards for w in s["tracked_wrong"]]  # type: ignore[attr-defined]
    print(f"{name}: board pose, {frames} frames, right map: found {found} "
          f"({found / max(frames, 1):.1%}), wrong {len(wrong)} {' '.join(wrong)}; turn right "
          f"{total('turn_right')}, claimed wrongly {total('turn_wrong')}; tracked "
          f"{total('tracked_found')} of {total('tracked')}, wrong {len(tracked_wrong)} "
          f"{' '.join(tracked_wrong)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="turn-mode games of 20 turns")
    parser.add_argument("--shards", type=int, default=8, help="shards of 25 board frames")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--against", help="a git revision to run the same seeds on as well")
    parser.add_argument("--seconds", type=float, help="stop starting shards after this long")
    parser.add_argument("--shard", nargs=2, metavar=("KIND", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.shard:
        import cv2

        cv2.setNumThreads(1)
        kind, seed = args.shard[0], int(args.shard[1])
        print(json.dumps(vision_shard(seed) if kind == "vision" else calibration_shard(seed)))
        return
    here = Path(__file__).resolve().parent.parent
    trees = {"this tree": here}
    with tempfile.TemporaryDirectory() as scratch:
        if args.against:
            other = Path(scratch) / "against"
            subprocess.run(["git", "worktree", "add", "--detach", "-q", str(other),
                            args.against], cwd=here, check=True)
            trees[args.against] = other
        try:
            measure_trees(trees, args)
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=here)


def measure_trees(trees: dict[str, Path], args: argparse.Namespace) -> None:
    jobs = [(name, kind, seed)
            for i in range(max(args.games, args.shards))
            for kind, seed, wanted in (("vision", FRESH_GAMES_SEED + GAME_STRIDE * i, args.games),
                                       ("pose", FIRST_FRAME + FRAMES_A_SHARD * i, args.shards))
            if i < wanted for name in trees]
    stop = time.monotonic() + args.seconds if args.seconds else float("inf")
    results: dict[tuple[str, str, int], object] = {}

    def run(job: tuple[str, str, int]) -> None:
        name, kind, seed = job
        if time.monotonic() < stop:
            result = run_shard(trees[name], kind, seed)
            if result is not None:
                results[job] = result

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, jobs))
    for kind in ("vision", "pose"):
        seeds = {seed for _, k, seed in jobs if k == kind}
        paired = sorted(s for s in seeds if all((n, kind, s) in results for n in trees))
        for name in trees:
            done = [results[(name, kind, s)] for s in paired]
            if kind == "vision" and args.games:
                show_vision(name, done)  # type: ignore[arg-type]
            elif kind == "pose" and args.shards:
                show_calibration(name, done)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
