"""The board as calibration sees it: plate outline, corner bricks, stud grid, symmetry.

Everything here is in the board frame (mm, origin at the plate's top surface at the
outer corner of stud (0, 0), z up). The corner bricks are read from
:func:`rules.pieces.corner_setup` so that a table that sets them up differently only
needs a different setup, not different calibration code.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from calibration.camera import Camera, FloatArray, Pose, project
from rules.pieces import (
    BOARD_MM,
    BOARD_STUDS,
    BRICK_MM,
    STUD_HEIGHT_MM,
    STUD_MM,
    Piece,
    corner_setup,
)

BRICK_GAP_MM = 0.1
"""LEGO bricks are 0.1 mm short of the stud grid on each side so that neighbours fit."""
CENTRE = np.array([BOARD_MM / 2, BOARD_MM / 2, 0.0])
PLATE_CORNERS = np.array(
    [[0.0, 0.0, 0.0], [BOARD_MM, 0.0, 0.0], [BOARD_MM, BOARD_MM, 0.0], [0.0, BOARD_MM, 0.0]]
)
"""Counter-clockwise seen from above, starting at the origin."""


@functools.lru_cache(maxsize=4)
def stud_centres(z: float = STUD_HEIGHT_MM) -> FloatArray:
    """The 32 x 32 stud-top centres of the plate, row by row (y major), N x 3 (read-only,
    made once: every tracked frame checks them against the picture)."""
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    studs = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, z)], axis=1)
    studs.setflags(write=False)
    return studs


def stud_shifts(camera: Camera, a: Pose, b: Pose) -> FloatArray:
    """How far (px) each stud centre lies in the picture under pose ``b`` from where pose
    ``a`` puts it: how every check that a pose is right, or moved, measures it."""
    studs = stud_centres()
    return np.linalg.norm(project(camera, b, studs) - project(camera, a, studs), axis=1)


def elevation_deg(pose: Pose, points: FloatArray) -> FloatArray:
    """The camera's elevation over each board point (N x 3, mm), in degrees: how steeply
    it looks down there, which decides what a piece's side face and shadow cover."""
    eye = pose.camera_center[None] - np.atleast_2d(points)
    return np.degrees(np.arcsin(eye[:, 2] / np.maximum(np.linalg.norm(eye, axis=1), 1e-9)))


@functools.lru_cache(maxsize=4)
def quarter_turn(k: int) -> FloatArray:
    """A 4x4 transform turning the board ``k`` quarter turns counter-clockwise about its centre
    (read-only, made once per turn).

    The plate and the corner bricks look the same after any of these; only the ground
    map tells them apart.
    """
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
    out = np.eye(4)
    out[:3, :3] = rot
    out[:3, 3] = CENTRE - rot @ CENTRE
    out.setflags(write=False)
    return out


def slid_pose(pose: Pose, dx_mm: float, dy_mm: float) -> Pose:
    """The pose with the board slid ``dx_mm``, ``dy_mm`` along its own axes, its plane kept."""
    return Pose(pose.rvec, pose.tvec + pose.rotation @ np.array([dx_mm, dy_mm, 0.0]))


def moved_pose(pose: Pose, dx: int, dy: int) -> Pose:
    """The pose with the board moved ``dx``, ``dy`` whole studs along its own axes.

    Every stud of the moved board lands on a stud of the old one: the lattice cannot
    tell the two apart, only the board's sides and the ground map can.
    """
    return slid_pose(pose, dx * STUD_MM, dy * STUD_MM)


def turned_pose(pose: Pose, k: int) -> Pose:
    """The pose that sees board point ``p`` where ``pose`` sees ``quarter_turn(k) p``."""
    t = quarter_turn(k)
    rot = pose.rotation @ t[:3, :3]
    return Pose.from_matrix(rot, pose.rotation @ t[:3, 3] + pose.tvec)


def nearest_turn(pose: Pose, reference: Pose) -> Pose:
    """The quarter turn of ``pose`` whose rotation lies closest to ``reference``'s."""
    relative = pose.rotation.T @ reference.rotation
    traces = [float(np.trace(quarter_turn(k)[:3, :3].T @ relative)) for k in range(4)]
    return turned_pose(pose, int(np.argmax(traces)))


def projected_outline(camera: Camera, pose: Pose, outline: FloatArray) -> FloatArray | None:
    """The pixels of an outline of the board (N x 3 mm), or None when part of it lies behind
    the camera or the pose throws it off to infinity: no box in the picture holds it."""
    if np.any(pose.to_camera(outline)[:, 2] <= 1.0):
        return None
    px = project(camera, pose, outline)
    return px if np.all(np.isfinite(px)) else None


def view_rotation(camera: Camera, pose: Pose) -> int:
    """Which edge of the board faces the viewer: the ``rotation`` reported by ``locate``.

    0 when the map's row y = 0 is the edge nearest the bottom of the image, 1 when it is
    the column x = 0, 2 row y = 31 and 3 column x = 31. Equivalently: the number of
    counter-clockwise quarter turns (seen from above) the board has been given from the
    position where its row 0 faces the camera, so ``GroundMap.rotated`` of the map by this
    number is the map as the player sees it. Measured in the image rather than from the
    camera's position so that it is defined for a camera straight above the board too.
    """
    mids = np.array(
        [
            [BOARD_MM / 2, 0, 0],
            [0, BOARD_MM / 2, 0],
            [BOARD_MM / 2, BOARD_MM, 0],
            [BOARD_MM, BOARD_MM / 2, 0],
            CENTRE,
        ]
    )
    px = project(camera, pose, mids)
    down = px[:4, 1] - px[4, 1]
    return int(np.argmax(down))


@dataclass(frozen=True)
class CornerBrick:
    """One corner brick's top-face outline (z = 9.6 mm) and its three stud tops."""

    index: int
    piece: Piece
    outline: FloatArray  # 6 x 3, counter-clockwise seen from above
    studs: FloatArray  # 3 x 3


def corner_bricks(inset: int = 1) -> tuple[CornerBrick, ...]:
    """The four corner bricks, indexed as :func:`corner_setup` orders them."""
    bricks = []
    for index, piece in enumerate(corner_setup(inset)):
        cells = set(piece.footprint())
        outline = _l_outline(cells)
        studs = np.array(
            [
                [(x + 0.5) * STUD_MM, (y + 0.5) * STUD_MM, BRICK_MM + STUD_HEIGHT_MM]
                for x, y in sorted(cells)
            ]
        )
        bricks.append(CornerBrick(index, piece, outline, studs))
    return tuple(bricks)


def _l_outline(cells: set[tuple[int, int]]) -> FloatArray:
    """The outline of three cells of a 2x2 square as a hexagon at brick-top height."""
    x0 = min(x for x, _ in cells)
    y0 = min(y for _, y in cells)
    missing = next(
        (x0 + dx, y0 + dy) for dx in (0, 1) for dy in (0, 1) if (x0 + dx, y0 + dy) not in cells
    )
    # Walk the 2x2 square's corners counter-clockwise, replacing the missing cell's outer
    # corner by the three corners of the notch.
    square = [(0, 0), (2, 0), (2, 2), (0, 2)]
    mx, my = missing[0] - x0, missing[1] - y0
    notch_corner = (2 * mx, 2 * my)
    pts: list[tuple[float, float]] = []
    for i, corner in enumerate(square):
        if corner != notch_corner:
            pts.append(corner)
            continue
        prev, nxt = square[i - 1], square[(i + 1) % 4]
        # The notch: from the edge toward `corner`, in to the square's centre, and out again.
        pts.append(((prev[0] + corner[0]) / 2, (prev[1] + corner[1]) / 2))
        pts.append((1, 1))
        pts.append(((nxt[0] + corner[0]) / 2, (nxt[1] + corner[1]) / 2))
    outline = np.array([[(x0 + px) * STUD_MM, (y0 + py) * STUD_MM, BRICK_MM] for px, py in pts])
    return inset_polygon(outline, BRICK_GAP_MM)


def inset_polygon(outline: FloatArray, distance: float) -> FloatArray:
    """A counter-clockwise polygon with every edge moved ``distance`` inwards."""
    out = outline.copy()
    n = len(outline)
    for i in range(n):
        prev, here, nxt = outline[i - 1, :2], outline[i, :2], outline[(i + 1) % n, :2]
        d1 = (here - prev) / np.linalg.norm(here - prev)
        d2 = (nxt - here) / np.linalg.norm(nxt - here)
        n1, n2 = np.array([-d1[1], d1[0]]), np.array([-d2[1], d2[0]])
        out[i, :2] = here + distance * (n1 + n2) / (1 + float(n1 @ n2))
    return out


def polygon_edges(outline: FloatArray) -> list[tuple[FloatArray, FloatArray]]:
    """Consecutive vertex pairs of a closed polygon."""
    return [(outline[i], outline[(i + 1) % len(outline)]) for i in range(len(outline))]


def renumber_corners(seen: list[int], before: Pose, after: Pose) -> list[int]:
    """Corner indices of ``before``'s frame expressed in ``after``'s (a quarter turn apart)."""
    for k in range(4):
        candidate = turned_pose(before, k)
        if np.allclose(candidate.rotation, after.rotation, atol=1e-6) and np.allclose(
            candidate.tvec, after.tvec, atol=1e-4
        ):
            # after sees p where before sees T_k p; corner i of before is corner i - k of after.
            return [(i - k) % 4 for i in seen]
    return seen


def in_front(pose: Pose) -> bool:
    """Whether the whole board lies in front of the camera, below it."""
    depth = pose.to_camera(PLATE_CORNERS)[:, 2]
    return bool(np.all(depth > 10.0) and pose.camera_center[2] > 0)
