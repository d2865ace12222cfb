"""How often a wrong ground map settles the board's quarter turn.

    python3 -m bench.wrong_maps --seed 3000 --frames 150 --random 40

Each twin frame (``bench.calibration.twin_frame``) is located once with its own map; at
the found pose the turn is then weighed again with many wrong maps through the very
function the first detection and the tracker's unresolved fast path ask
(:func:`calibration.turn_agreement.judge_turn`). Wrong
maps: unrelated random layouts, and the right map made wrong as a user might pass it
(shifted by one or two studs, mirrored, its inks swapped, some regions recoloured). A
*claim* is a wrong map that settles the turn; it is right by luck when the turn it picks
is the board's.
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from collections.abc import Iterator

import numpy as np
from scipy import ndimage

import calibration.fit as fit
from bench.calibration import WRONG_PX, turn_errors, twin_frame
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from calibration.turn_agreement import judge_turn
from rules.maps import GroundMap
from rules.random_map import random_map

INKS = "LDG"


def _grid(ground: GroundMap) -> np.ndarray:
    return np.array([list(row) for row in ground.ground])


def _map(grid: np.ndarray, name: str) -> GroundMap:
    return GroundMap(name=name, ground=tuple("".join(row) for row in grid))


def hard_maps(ground: GroundMap, rng: np.random.Generator, recolours: int) -> Iterator[GroundMap]:
    """The right map made wrong: shifted, mirrored, inks swapped, regions recoloured."""
    grid = _grid(ground)
    for step in (-2, -1, 1, 2):
        for axis in (0, 1):
            yield _map(np.roll(grid, step, axis=axis), f"shift{'yx'[axis]}{step:+d}")
    yield _map(grid[:, ::-1], "mirror")
    yield _map(grid.T, "transpose")
    for perm in itertools.permutations(INKS):
        if "".join(perm) != INKS:
            swapped = grid.copy()
            for old, new in zip(INKS, perm, strict=True):
                swapped[grid == old] = new
            yield _map(swapped, "inks " + "".join(perm))
    regions = []
    for ink in INKS:
        labels, count = ndimage.label(grid == ink)
        regions += [(ink, labels == i) for i in range(1, count + 1)]
    if not regions:
        return
    for j in range(recolours):
        out = grid.copy()
        picks = rng.choice(len(regions), size=min(len(regions), 1 + j % 3), replace=False)
        for p in picks:
            ink, cells = regions[p]
            out[cells] = rng.choice([c for c in INKS if c != ink])
        if not (out == grid).all():
            yield _map(out, "recolour")


def _turn_right(frame_camera, truth, evidence_pose, camera) -> bool:  # type: ignore[no-untyped-def]
    located = BoardLocation(True, pose=evidence_pose, camera=camera)
    return turn_errors(frame_camera, truth, located)[0] <= WRONG_PX


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3000)
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--random", type=int, default=40, help="random wrong maps a frame")
    parser.add_argument("--recolours", type=int, default=6)
    args = parser.parse_args()
    calls: list[tuple] = []
    real = fit.judge_turn

    def spy(*a, **k):  # type: ignore[no-untyped-def]
        calls.append((a, k))
        return real(*a, **k)

    fit.judge_turn = spy  # type: ignore[assignment]
    tally: Counter[str] = Counter()
    claims: list[str] = []
    for seed in range(args.seed, args.seed + args.frames):
        drawn = twin_frame(seed)
        frame, ground = drawn.frame, drawn.ground
        calls.clear()
        result = locate_board(frame.image, frame.camera, ground)
        tally["frames"] += 1
        if not result.found or not calls:
            continue
        if min(turn_errors(frame.camera, frame.pose, result)) > WRONG_PX:
            continue
        tally["found"] += 1
        errors = turn_errors(frame.camera, frame.pose, result)
        right = result.turn_resolved and errors[0] <= WRONG_PX
        tally["right map: turn right"] += right
        (image, camera, pose, _, studs, blocks), _ = calls[-1]
        rng = np.random.default_rng(seed)
        wrong = [random_map(np.random.default_rng(500_000 + seed * 1000 + j), name=f"random {j}")
                 for j in range(args.random)]
        wrong += [m for m in hard_maps(ground, rng, args.recolours) if m.ground != ground.ground]
        for given in wrong:
            kind = given.name.split()[0].rstrip("+-0123456789").replace("shiftx", "shift").replace(
                "shifty", "shift")
            tally[f"{kind} maps"] += 1
            evidence, resolved, problem = judge_turn(image, camera, pose, given, studs, blocks)
            if problem:
                tally[f"{kind} refused"] += 1
            if resolved:
                ok = _turn_right(frame.camera, frame.pose, evidence.pose, camera)
                tally[f"{kind} locate claims ({'right' if ok else 'wrong'})"] += 1
                claims.append(f"locate {seed} {given.name} right={ok} agr={evidence.agreement:.2f}"
                              f" null={evidence.null:.2f} margin={evidence.margin:.2f}")
        print(seed, dict(tally), flush=True)
    for line in claims:
        print(line)
    for key in sorted(tally):
        print(f"{key:40s} {tally[key]}")


if __name__ == "__main__":
    main()
