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
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

import calibration.fit as fit
from bench.calibration import WRONG_PX, turn_errors, twin_frame
from calibration.camera import Camera, FloatArray, Pose
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from calibration.turn import TurnEvidence
from calibration.turn_agreement import judge_turn
from rules.maps import GroundMap
from rules.random_map import random_map

INKS = "LDG"


def _grid(ground: GroundMap) -> NDArray[np.str_]:
    """The map's characters as an array, so it can be rolled, mirrored and masked."""
    return np.array([list(row) for row in ground.ground])


def _map(grid: NDArray[np.str_], name: str) -> GroundMap:
    """The array back as a map (named for the report)."""
    return GroundMap(name=name, ground=tuple("".join(row) for row in grid))


def hard_maps(ground: GroundMap, rng: np.random.Generator, recolours: int
              ) -> Iterator[tuple[str, GroundMap]]:
    """The right map made wrong as a user might pass it, each with its kind: shifted,
    mirrored or transposed, its inks swapped, some regions recoloured."""
    grid = _grid(ground)
    for step in (-2, -1, 1, 2):
        for axis in (0, 1):
            yield "shift", _map(np.roll(grid, step, axis=axis), f"shift{'yx'[axis]}{step:+d}")
    yield "mirror", _map(grid[:, ::-1], "mirror")
    yield "transpose", _map(grid.T, "transpose")
    for perm in itertools.permutations(INKS):
        if "".join(perm) != INKS:
            swapped = grid.copy()
            for old, new in zip(INKS, perm, strict=True):
                swapped[grid == old] = new
            yield "inks", _map(swapped, "inks " + "".join(perm))
    regions = []
    for ink in INKS:
        count, labels = cv2.connectedComponents((grid == ink).astype(np.uint8), connectivity=4)
        regions += [(ink, labels == i) for i in range(1, count)]
    if not regions:
        return
    for j in range(recolours):
        out = grid.copy()
        picks = rng.choice(len(regions), size=min(len(regions), 1 + j % 3), replace=False)
        for p in picks:
            ink, cells = regions[p]
            out[cells] = rng.choice([c for c in INKS if c != ink])
        if not (out == grid).all():
            yield "recolour", _map(out, "recolour")


@dataclass(frozen=True)
class TurnInputs:
    """What the first detection weighed the turn on (:func:`judge_turn`'s arguments but
    the map), so that other maps can be weighed at the very same pose."""

    image: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    studs: FloatArray | None
    blocks: int

    def judge(self, ground: GroundMap) -> tuple[TurnEvidence, bool, str]:
        """The turn weighed with ``ground`` at this pose, as the first detection would."""
        return judge_turn(self.image, self.camera, self.pose, ground, self.studs, self.blocks)


def located_with_inputs(image: NDArray[np.uint8], camera: Camera, ground: GroundMap
                        ) -> tuple[BoardLocation, TurnInputs | None]:
    """``locate_board`` with ``ground``, and what it last weighed the turn on (None if it
    never did): ``fit.judge_turn`` is watched for the call and put back after."""
    calls: list[tuple[Any, ...]] = []
    real = fit.judge_turn

    def watched(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    fit.judge_turn = watched
    try:
        result = locate_board(image, camera, ground)
    finally:
        fit.judge_turn = real
    if not calls:
        return result, None
    image_, camera_, pose, _, studs, blocks = calls[-1]
    return result, TurnInputs(image_, camera_, pose, studs, blocks)


def _turn_right(frame_camera: Camera, truth: Pose, evidence_pose: Pose, camera: Camera
                ) -> bool:
    """Whether a pose settled by a wrong map still has the board's own turn."""
    located = BoardLocation(True, pose=evidence_pose, camera=camera)
    return turn_errors(frame_camera, truth, located)[0] <= WRONG_PX


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3000)
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--random", type=int, default=40, help="random wrong maps a frame")
    parser.add_argument("--recolours", type=int, default=6)
    args = parser.parse_args()
    tally: Counter[str] = Counter()
    claims: list[str] = []
    for seed in range(args.seed, args.seed + args.frames):
        drawn = twin_frame(seed)
        frame, ground = drawn.frame, drawn.ground
        result, inputs = located_with_inputs(frame.image, frame.camera, ground)
        tally["frames"] += 1
        if not result.found or inputs is None:
            continue
        errors = turn_errors(frame.camera, frame.pose, result)
        if min(errors) > WRONG_PX:
            continue
        tally["found"] += 1
        tally["right map: turn right"] += bool(result.turn_resolved and errors[0] <= WRONG_PX)
        rng = np.random.default_rng(seed)
        wrong = [("random", random_map(np.random.default_rng(500_000 + seed * 1000 + j),
                                       name=f"random {j}"))
                 for j in range(args.random)]
        wrong += [(kind, m) for kind, m in hard_maps(ground, rng, args.recolours)
                  if m.ground != ground.ground]
        for kind, given in wrong:
            tally[f"{kind} maps"] += 1
            evidence, resolved, problem = inputs.judge(given)
            if problem:
                tally[f"{kind} refused"] += 1
            if resolved:
                ok = _turn_right(frame.camera, frame.pose, evidence.pose, inputs.camera)
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
