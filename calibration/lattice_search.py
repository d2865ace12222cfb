"""Starts for the board's pose from the stud lattice alone, slid onto the board's sides.

Where no outline explains the board (a sleeve across two sides, a hand over a corner),
the stud lattice's squeeze across the picture gives the plane and the turn
(:mod:`calibration.lattice_pose`); the lattice fit puts every stud on a stud, and the
board's sides (:mod:`calibration.alias`), or the ground map's layout slid over the
plane (:mod:`calibration.map_place`), say which stud is the edge's. Each start goes to
:func:`calibration.fit.finish` like an outline's pose.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from calibration.alias import best_stud_move
from calibration.board_model import moved_pose
from calibration.camera import Camera, Pose
from calibration.fit import SETTLE_ROUNDS, in_front
from calibration.grid import GridFit, align_on_grid, refine_on_grid
from calibration.lattice_patches import STRIDE_PX, Patch
from calibration.lattice_pose import lattice_poses
from calibration.map_place import place_by_map
from calibration.outline_pose import same_outline
from rules.maps import GroundMap

MAX_MAP_REACH = 10
MAP_OVER_SIDES = 1.5
"""How much better the map must fit its own place than the sides' place to be tried."""


class LatticeStart(NamedTuple):
    """A lattice start: where :func:`~calibration.fit.finish` begins, its own lattice fit
    from there when the search already made it, and the start's place (the fit slid onto
    the board's sides), by which starts already tried are told apart.

    Where the sides leave the lattice fit where it is, that fit (from the aligned pose,
    with finish's rounds) is finish's: fitting again from its result took two more looks
    at the lattice (7 ms) to land within a hundredth of a pixel of it.
    """

    pose: Pose
    fit: GridFit | None
    placed: Pose


def lattice_starts(
    image: NDArray[np.uint8], gray: NDArray[np.float32], camera: Camera,
    ground: GroundMap | None, stride: int = STRIDE_PX, patches: list[Patch] | None = None,
) -> Iterator[Pose]:
    """Poses from the stud lattice's squeeze across the picture, slid onto the board's sides.

    The lattice gives the plane and the turn but leaves the board's place in it to a few
    studs: the lattice fit puts every stud on a stud, and the sides, searched as many
    studs each way as the lattice left open, pick which stud is the edge's. The fit
    starts from the squeeze's pose slid onto the lattice first (which keeps its plane
    from tilting when few blocks show), then from the squeeze's pose itself. Last come
    the places where the ground map fits clearly better than where the sides put it (an
    arm over a side, a card against one).

    Lazily, in that order: the caller stops at the first start that
    :func:`~calibration.fit.finish` takes, and the later starts' fits and the map's
    placements (which only follow the sides' starts) are then never worked out.
    """
    for start in lattice_fits(image, gray, camera, ground, stride, patches):
        yield start.placed


def lattice_fits(
    image: NDArray[np.uint8], gray: NDArray[np.float32], camera: Camera,
    ground: GroundMap | None, stride: int = STRIDE_PX, patches: list[Patch] | None = None,
) -> Iterator[LatticeStart]:
    """:func:`lattice_starts`, each with the lattice fit it was slid from
    (:class:`LatticeStart`)."""
    starts: list[Pose] = []
    for_map: list[tuple[Pose, int, tuple[int, int]]] = []
    for start in lattice_poses(gray, camera, stride=stride, patches=patches):
        for i, begin in enumerate((align_on_grid(gray, camera, start.pose), start.pose)):
            grid = refine_on_grid(
                gray, camera, begin, max_rounds=SETTLE_ROUNDS, blind_too=True
            )
            if grid is None or not in_front(grid.pose):
                continue
            move = best_stud_move(image, camera, grid.pose, start.reach)
            placed = moved_pose(grid.pose, *move)
            if not any(same_outline(camera, placed, s, 2.0) for s in starts):
                starts.append(placed)
                unmoved = move == (0, 0)
                yield LatticeStart(begin, grid, placed) if unmoved else LatticeStart(
                    placed, None, placed
                )
            if i == 0 and ground is not None:
                for_map.append((grid.pose, min(start.reach + 1, MAX_MAP_REACH), move))
    by_map: list[Pose] = []
    for pose, reach, move in for_map if ground is not None else []:
        found = place_by_map(image, gray, camera, pose, ground, reach, move)
        if found is not None and found.score >= MAP_OVER_SIDES * found.rival and found.explains():
            by_map.append(found.apply(pose))
    for placed in by_map:
        if not any(same_outline(camera, placed, s, 2.0) for s in starts):
            yield LatticeStart(placed, None, placed)
