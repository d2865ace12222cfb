"""The true pose moved whole studs along a board axis and finished without a map: which
moves the checks take, and how far off (median stud-centre error, px).

A search start or the tracker after a jump can land a board several studs off; the
sides, their pairs and the far-side reads are each asked a stud range, and a move that
falls between those ranges is what this probe finds. One JSON line per move taken.

    python3 -m bench.moved_truths 3000 50 [--studs 1-8] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time

from bench.calibration import WRONG_PX, turn_errors, twin_frame
from calibration.alias import check_boundary
from calibration.board_model import moved_pose
from calibration.evidence import gray_float
from calibration.fit import finish


def probe(seed: int, studs: range) -> list[dict[str, object]]:
    """Every move of ``seed``'s true pose by ``studs`` whole studs, along x and y, both
    ways, that ``finish`` takes without a map, with its error and the sides' states."""
    frame = twin_frame(seed).frame
    gray = gray_float(frame.image)
    taken = []
    for k in studs:
        for dx, dy in ((k, 0), (-k, 0), (0, k), (0, -k)):
            result = finish(frame.image, gray, frame.camera, moved_pose(frame.pose, dx, dy),
                            None, False)
            if not result.found or result.pose is None:
                continue
            error = min(turn_errors(frame.camera, frame.pose, result))
            sides = check_boundary(frame.image, frame.camera, result.pose, halved=False)
            taken.append({"seed": seed, "move": [dx, dy], "px": round(error, 2),
                          "wrong": error >= WRONG_PX, "sides": list(sides.states),
                          "corners": result.corner_bricks})
    return taken


def _stud_range(text: str) -> tuple[int, int]:
    """``A-B`` (studs, 1 <= A <= B <= 16), for ``--studs``."""
    try:
        low, high = (int(v) for v in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a range such as 5-6") from None
    if not 1 <= low <= high <= 16:
        raise argparse.ArgumentTypeError(f"{text!r}: studs 1 to 16, the first no larger")
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--studs", default="1-8", type=_stud_range,
                        help="range of studs, e.g. 5-6")
    parser.add_argument("--out", default="", help="JSON lines file (default stdout)")
    args = parser.parse_args()
    low, high = args.studs
    with open(args.out, "a") if args.out else contextlib.nullcontext(sys.stdout) as out:
        wrong = 0
        start = time.process_time()
        for seed in range(args.first, args.first + args.count):
            for row in probe(seed, range(low, high + 1)):
                wrong += bool(row["wrong"])
                print(json.dumps(row), file=out, flush=True)
        print(f"# {args.count} frames from {args.first}, studs {low}-{high}: {wrong} wrong,"
              f" {time.process_time() - start:.0f} s CPU", file=out, flush=True)

if __name__ == "__main__":
    main()
