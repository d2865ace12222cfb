"""The board's pose from one frame: outline, rim, stud lattice, ground-map symmetry.

Coarse to fine: the plate's outline in a quarter-size image (:mod:`calibration.corners`)
gives a pose within tens of pixels; the plate's rim pulls it within a pixel or two
(:mod:`calibration.edges`); the stud lattice brings it to a tenth of a pixel
(:mod:`calibration.grid`). The plate and its four corner bricks look the same after a
quarter turn, so geometry alone gives four equally good poses; the ground map's colours
pick one of them. Every answer carries the evidence behind it (lattice residual, rim
and corner-brick outlines found, how clearly the rim rules out the lattice one stud
over, how clearly the map chose the turn), and any weak link turns the answer into "not
found" with the reason, because a wrong pose puts every piece in the wrong cell while a
missing one only costs a frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import (
    PLATE_CORNERS,
    corner_bricks,
    polygon_edges,
    turned_pose,
    view_rotation,
)
from calibration.camera import Camera, FloatArray, Pose, project
from calibration.corners import find_plate_quads
from calibration.edges import EdgeFit, EdgeModel, edge_support, refine_pose, rim_side_support
from calibration.grid import GridFit, refine_on_grid
from calibration.intrinsics import focal_from_homography
from calibration.intrinsics import refine_focal as search_focal
from calibration.turn import resolve_turn
from rules.maps import GroundMap
from rules.pieces import STUD_MM

PLATE_GROUP = 4
MAX_RMS_PX = 1.0
MIN_PLATE_SUPPORT = 0.3
MIN_CORNER_SUPPORT = 0.3
MIN_CORNERS_SEEN = 2
MIN_MAP_MARGIN = 1.5
MIN_GRID_BLOCKS = 5
MAX_CANDIDATES = 5
MIN_ALIAS_RATIO = 1.2


@dataclass
class BoardLocation:
    """What one frame says about the board; ``pose`` is None when it was not found."""

    found: bool
    reason: str = ""
    pose: Pose | None = None
    rotation: int | None = None
    reprojection_error_px: float = float("nan")
    corner_bricks: list[int] = field(default_factory=list)
    quality: float = 0.0
    camera: Camera | None = None
    focal_refined: bool = False
    map_margin: float = 0.0

    def to_json(self) -> dict[str, object]:
        if not self.found or self.pose is None:
            return {"found": False, "reason": self.reason}
        out: dict[str, object] = {
            "found": True,
            "rvec": [round(v, 6) for v in self.pose.rvec.tolist()],
            "tvec": [round(v, 4) for v in self.pose.tvec.tolist()],
            "rotation": self.rotation,
            "reprojection_error_px": round(self.reprojection_error_px, 4),
            "corner_bricks": self.corner_bricks,
            "quality": round(self.quality, 3),
        }
        if self.focal_refined and self.camera is not None:
            out["focal_px"] = round(self.camera.fx, 2)
        return out


def board_edge_model() -> EdgeModel:
    """The plate's top rim and each corner brick's top outline, grouped for support."""
    starts, ends, groups, outer = [], [], [], []
    for a, b in polygon_edges(PLATE_CORNERS):
        starts.append(a)
        ends.append(b)
        groups.append(PLATE_GROUP)
        outer.append(True)
    for brick in corner_bricks():
        for a, b in polygon_edges(brick.outline):
            starts.append(a)
            ends.append(b)
            groups.append(brick.index)
            outer.append(False)
    return EdgeModel(
        np.array(starts), np.array(ends), np.array(groups, dtype=np.int32), np.array(outer)
    )


EDGE_MODEL = board_edge_model()
RIM_MODEL = EdgeModel(
    EDGE_MODEL.starts[EDGE_MODEL.groups == PLATE_GROUP],
    EDGE_MODEL.ends[EDGE_MODEL.groups == PLATE_GROUP],
    EDGE_MODEL.groups[EDGE_MODEL.groups == PLATE_GROUP],
    EDGE_MODEL.outermost[EDGE_MODEL.groups == PLATE_GROUP],
)


def initial_pose(quad: FloatArray, camera: Camera) -> Pose | None:
    """The plate pose from its four outline corners (undistorted pixels), facing up."""
    best: tuple[float, Pose] | None = None
    pinhole = Camera(camera.width, camera.height, camera.camera_matrix, np.zeros(5))
    for corners in (quad, quad[::-1].copy()):
        ok, rvec, tvec = cv2.solvePnP(
            PLATE_CORNERS,
            corners.reshape(-1, 1, 2),
            camera.camera_matrix,
            None,
            flags=cv2.SOLVEPNP_IPPE,
        )
        if not ok:
            continue
        pose = Pose(rvec.reshape(3), tvec.reshape(3))
        if pose.camera_center[2] <= 0:
            continue
        err = float(np.abs(project(pinhole, pose, PLATE_CORNERS) - corners).max())
        if best is None or err < best[0]:
            best = (err, pose)
    return None if best is None else best[1]


def focal_guess(quad: FloatArray, camera: Camera) -> Camera:
    """The camera with the focal length the plate's perspective implies, if it says one."""
    homography, _ = cv2.findHomography(PLATE_CORNERS[:, :2], quad)
    if homography is None:
        return camera
    f = focal_from_homography(homography, camera)
    return camera if f is None else camera.with_focal(f)


def gray_float(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return gray.astype(np.float32)


def _stud_pitch_px(camera: Camera, pose: Pose) -> float:
    """The projected stud pitch at the board's centre."""
    a = project(
        camera, pose, np.array([[124.0, 128.0, 0.0], [132.0, 128.0, 0.0], [128.0, 132.0, 0.0]])
    )
    return float(min(np.linalg.norm(a[1] - a[0]), np.linalg.norm(a[2] - a[0]) * 2))


def lattice_alias(
    gray: NDArray[np.float32], camera: Camera, pose: Pose
) -> tuple[float, Pose | None]:
    """How much better the rim fits this pose than the same pose one stud off.

    The stud grid repeats every 8 mm, so a lattice fit one stud off fits the studs as
    well as the right one; only the rim tells them apart. Returns the rim hits of this
    pose over the best of its four one-stud neighbours (above 1: this one is better),
    and that neighbour when it is the better one.
    """
    reach = 0.45 * _stud_pitch_px(camera, pose)

    def hits(candidate: Pose) -> float:
        return sum(n * f for n, f in rim_side_support(gray, camera, candidate, RIM_MODEL, reach))

    own = hits(pose)
    rot = pose.rotation
    neighbours = [
        Pose(pose.rvec, pose.tvec + rot @ np.array([dx, dy, 0.0]))
        for dx, dy in ((STUD_MM, 0), (-STUD_MM, 0), (0, STUD_MM), (0, -STUD_MM))
    ]
    scores = [hits(n) for n in neighbours]
    best = int(np.argmax(scores))
    ratio = own / max(scores[best], 1.0)
    return ratio, neighbours[best] if scores[best] > own else None


def judge(
    grid: GridFit, support: dict[int, float], margin: float, alias: float
) -> tuple[str, list[int], float]:
    """Why the fit is not good enough (empty if it is), the corner bricks seen, a 0..1 score."""
    seen = sorted(g for g, s in support.items() if g != PLATE_GROUP and s >= MIN_CORNER_SUPPORT)
    rim = support.get(PLATE_GROUP, 0.0)
    quality = float(
        np.clip(rim / MIN_PLATE_SUPPORT, 0, 1)
        * np.clip(1.5 - grid.residual_px / MAX_RMS_PX, 0, 1)
        * min(1.0, grid.blocks / 8)
        * min(1.0, len(seen) / 3)
        * np.clip((margin - 1) / (MIN_MAP_MARGIN - 1) / 2, 0, 1)
    )
    if grid.residual_px > MAX_RMS_PX:
        return f"the stud grid does not fit (residual {grid.residual_px:.2f} px)", seen, quality
    if grid.blocks < MIN_GRID_BLOCKS:
        return f"the stud grid was seen in only {grid.blocks} of 16 blocks", seen, quality
    if rim < MIN_PLATE_SUPPORT:
        return f"only {rim:.0%} of the plate's rim was found", seen, quality
    if alias < MIN_ALIAS_RATIO:
        return (
            f"the rim does not tell the stud grid from one stud over (ratio {alias:.2f})",
            seen,
            quality,
        )
    if len(seen) < MIN_CORNERS_SEEN:
        return f"only {len(seen)} corner brick(s) seen", seen, quality
    if margin < MIN_MAP_MARGIN:
        return (
            f"the ground map does not tell which way round the board is (margin {margin:.2f})",
            seen,
            quality,
        )
    return "", seen, quality


def locate_board(
    image: NDArray[np.uint8],
    camera: Camera,
    ground: GroundMap,
    *,
    refine_focal: bool = False,
) -> BoardLocation:
    """The board's pose in one BGR frame, searched from scratch."""
    if (image.shape[1], image.shape[0]) != (camera.width, camera.height):
        camera = camera.scaled_to(image.shape[1], image.shape[0])
    quads = find_plate_quads(image, camera)
    if not quads:
        return BoardLocation(False, "no board-coloured, stud-textured region in the image")
    gray = gray_float(image)
    h, w = gray.shape
    half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    first: BoardLocation | None = None
    for quad in quads[:MAX_CANDIDATES]:
        cam = focal_guess(quad, camera) if refine_focal else camera
        pose = initial_pose(quad, cam)
        if pose is None:
            continue
        # Half resolution first: the studs blur away there and the rim is the strongest
        # step around, so the search can reach twice as far without locking onto them.
        coarse = refine_pose(
            half,
            cam.scaled_to(w // 2, h // 2),
            pose,
            RIM_MODEL,
            radii=(12, 9, 6, 4),
            spacing_px=4.0,
        )
        rim = refine_pose(gray, cam, coarse.pose, RIM_MODEL, radii=(6, 4, 4))
        if refine_focal:
            cam, rim = _refine_focal(gray, cam, rim)
        result = finish(image, gray, cam, rim.pose, ground, refine_focal)
        if result.found:
            return result
        first = first or result
    return first or BoardLocation(False, "the board outline gives no pose with the camera above it")


def finish(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    ground: GroundMap,
    focal_refined: bool,
) -> BoardLocation:
    """From a pose within a few pixels: lattice alignment, evidence, the quarter turn."""
    grid = refine_on_grid(gray, camera, pose)
    if grid is None or not _in_front(grid.pose):
        return BoardLocation(False, "the stud grid was not found where the board outline puts it")
    alias, better = lattice_alias(gray, camera, grid.pose)
    for _ in range(2):
        if better is None:
            break
        # The grid locked one stud off: start again from the neighbour the rim prefers.
        moved = refine_on_grid(gray, camera, better)
        if moved is None or not _in_front(moved.pose):
            break
        grid = moved
        alias, better = lattice_alias(gray, camera, grid.pose)
    support = edge_support(gray, camera, grid.pose, EDGE_MODEL, 6.0, 4.0)
    pose, margin = resolve_turn(image, camera, grid.pose, ground)
    reason, seen, quality = judge(grid, support, margin, alias)
    # Corner bricks are reported in the resolved board frame's numbering.
    seen = sorted(_renumber(seen, grid.pose, pose))
    if reason:
        return BoardLocation(False, reason, quality=quality, corner_bricks=seen, map_margin=margin)
    return BoardLocation(
        True,
        "",
        pose,
        view_rotation(camera, pose),
        grid.residual_px,
        seen,
        quality,
        camera,
        focal_refined,
        margin,
    )


def _in_front(pose: Pose) -> bool:
    """Whether the whole board lies in front of the camera, below it."""
    depth = pose.to_camera(PLATE_CORNERS)[:, 2]
    return bool(np.all(depth > 10.0) and pose.camera_center[2] > 0)


def _renumber(seen: list[int], before: Pose, after: Pose) -> list[int]:
    """Corner indices of ``before``'s frame expressed in ``after``'s (a quarter turn apart)."""
    for k in range(4):
        candidate = turned_pose(before, k)
        if np.allclose(candidate.rotation, after.rotation, atol=1e-6) and np.allclose(
            candidate.tvec, after.tvec, atol=1e-4
        ):
            # after sees p where before sees T_k p; corner i of before is corner i - k of after.
            return [(i - k) % 4 for i in seen]
    return seen


def _refine_focal(
    gray: NDArray[np.float32], camera: Camera, fit: EdgeFit
) -> tuple[Camera, EdgeFit]:
    """Search the focal length that lets the rim fit best, re-fitting the pose for each."""

    def residual(candidate: Camera) -> float:
        trial = refine_pose(gray, candidate, fit.pose, RIM_MODEL, radii=(3, 2))
        if trial.inliers < 20:
            return float("inf")
        return trial.rms_px

    best = search_focal(camera, residual, low=0.8, high=1.25, iterations=12)
    return best, refine_pose(gray, best, fit.pose, RIM_MODEL, radii=(3, 2, 2))
