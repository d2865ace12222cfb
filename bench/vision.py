"""Turn mode on seeded twin turns the tests never see (games from seed 5000 on).

Prints, per set: turns read, pieces precision / recall / F1 (a piece counts when kind,
cells, level, arch axis and decoration colour are all right; animals are not read),
turns exactly right, turn reports exactly right (legal, credits, highest decoration,
bonus), pieces flagged uncertain and how many of those were wrong, wrong pieces that
were flagged, and seconds per frame (median), beside a reference timing taken in the
same run (the twin rendering one frame). Usage: python3 -m bench.vision [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

from calibration.evidence import BoardLocation
from rules import Kind
from rules.staircase import analyse_added
from training.pairs import turn_pairs
from vision import read_turn

ANIMALS = (Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG)


def key(p):
    return (p.kind, p.x, p.y, p.z, p.axis if p.kind is Kind.ARCH else None,
            p.color if p.kind is Kind.DECORATION else None)


def report_key(r):
    return (r.legal, r.credits, r.decoration_highest, r.bonus_card)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--games", type=int, default=12)
    args = parser.parse_args()
    games, turns = (1, 6) if args.quick else (args.games, 20)
    tp = fp = fn = exact = reports = flagged = flagged_wrong = wrong = wrong_flagged = 0
    n = 0
    seconds: list[float] = []
    render_s: list[float] = []
    for pair in turn_pairs(games, 5000, max_turns=turns):
        t = time.perf_counter()
        loc = BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)
        reading = read_turn([pair.after_frame], pair.camera, pair.before,
                            before_frame=pair.before_frame, locations=[loc])
        seconds.append(time.perf_counter() - t)
        truth = {key(p) for p in pair.added if p.kind not in ANIMALS}
        got = {key(r.piece) for r in reading.added}
        tp += len(truth & got)
        fp += len(got - truth)
        fn += len(truth - got)
        exact += truth == got
        true_pieces = [p for p in pair.added if p.kind not in ANIMALS]
        reports += report_key(analyse_added(pair.before, true_pieces)) == report_key(
            analyse_added(pair.before, reading.pieces))
        for r in reading.added:
            bad = key(r.piece) not in truth
            wrong += bad
            if r.confidence < 0.5:
                flagged += 1
                flagged_wrong += bad
                wrong_flagged += bad
        n += 1
    import numpy as np

    from rules import simulate_game
    from twin import RenderOptions, render
    from twin.cameras import random_camera
    scene = simulate_game(4, seed=1).scenes[8]
    cam, pose = random_camera(np.random.default_rng(1))
    for _ in range(3):
        t = time.perf_counter()
        render(scene, cam, pose, RenderOptions(), seed=1)
        render_s.append(time.perf_counter() - t)
    prec = tp / max(tp + fp, 1)
    rec = tp / max(tp + fn, 1)
    f1 = 2 * prec * rec / max(prec + rec, 1e-9)
    med = statistics.median(seconds)
    ref = statistics.median(render_s)
    print(f"twin turns (one view, 1280x720, elevation 30-70, clutter on): {n}")
    print(f"  pieces precision {prec:.3f} recall {rec:.3f} F1 {f1:.3f}")
    print(f"  turns exactly right {exact}/{n} ({exact / max(n, 1):.1%}); "
          f"turn reports right {reports}/{n} ({reports / max(n, 1):.1%})")
    print(f"  pieces flagged uncertain {flagged}, of which wrong {flagged_wrong}; "
          f"wrong pieces flagged {wrong_flagged}/{wrong}")
    print(f"  seconds per frame median {med:.2f} s; reference (twin render) {ref:.2f} s; "
          f"ratio {med / ref:.1f}")


if __name__ == "__main__":
    main()
