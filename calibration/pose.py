"""The board's pose from one frame: coarse outline, edge refinement, ground-map symmetry.

The plate and its four corner bricks look the same after a quarter turn, so geometry
alone gives four equally good poses; the ground map's colours pick one of them. Every
answer carries the evidence behind it (edge residual, how many edge samples found
their edge, which corner bricks showed their outline, how clearly the map chose the
turn), and any weak link turns the answer into "not found" with the reason, because a
wrong pose puts every piece in the wrong cell while a missing one only costs a frame.
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
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM

PLATE_GROUP = 4
MAX_RMS_PX = 1.0
MIN_PLATE_SUPPORT = 0.3
MIN_CORNER_SUPPORT = 0.3
MIN_CORNERS_SEEN = 2
MIN_MAP_MARGIN = 1.5
MIN_GRID_BLOCKS = 5
MAX_CANDIDATES = 5
MIN_SIDE_SUPPORT = 0.3


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


def map_sample_points() -> tuple[FloatArray, NDArray[np.int32]]:
    """Two points on the card beside each stud (clear of it, opposite corners) per cell."""
    offsets = np.array([[3.0, 3.0], [-3.0, -3.0]])
    idx = (np.arange(BOARD_STUDS) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
    pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    cells = np.repeat(np.arange(len(centres)), len(offsets)).astype(np.int32)
    return np.hstack([pts, np.zeros((len(pts), 1))]), cells


MAP_POINTS, MAP_CELLS = map_sample_points()


def map_fisher_score(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, labels: NDArray[np.int32]
) -> float:
    """How well the ground map's colour classes separate in the image under ``pose``.

    Between-class over within-class scatter of per-cell colours: no colour calibration
    is needed, so warm light or a colour cast does not matter, only that the map's
    regions differ from each other.
    """
    px = project(camera, pose, MAP_POINTS).astype(np.float32)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] < w - 1) & (px[:, 1] >= 0) & (px[:, 1] < h - 1)
    bgr = cv2.remap(image, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR)
    samples = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    samples[~inside] = np.nan
    per_cell = np.mean(samples.reshape(-1, len(MAP_POINTS) // len(labels), 3), axis=1)
    valid = np.all(np.isfinite(per_cell), axis=1)
    colours, lab_ids = per_cell[valid], labels[valid]
    if len(colours) < 50:
        return 0.0
    mean = colours.mean(axis=0)
    between = 0.0
    within = 0.0
    for c in np.unique(lab_ids):
        group = colours[lab_ids == c]
        if len(group) < 3:
            continue
        between += len(group) * float(np.sum((group.mean(axis=0) - mean) ** 2))
        within += float(np.sum((group - group.mean(axis=0)) ** 2))
    return between / max(within, 1e-6)


def map_labels(ground: GroundMap) -> NDArray[np.int32]:
    """The map's ground characters as class numbers, cell order y-major like the samples."""
    codes = {"L": 0, "D": 1, "G": 2, "X": 3}
    return np.array([codes[ground.char(x, y)] for y in range(BOARD_STUDS) for x in range(BOARD_STUDS)], dtype=np.int32)


def resolve_turn(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap
) -> tuple[Pose, float]:
    """The quarter turn of ``pose`` the ground map agrees with, and by what margin."""
    labels = map_labels(ground)
    scores = [map_fisher_score(image, camera, turned_pose(pose, k), labels) for k in range(4)]
    order = np.argsort(scores)[::-1]
    best, second = scores[order[0]], scores[order[1]]
    margin = best / max(second, 1e-6)
    return turned_pose(pose, int(order[0])), margin


def initial_pose(quad: FloatArray, camera: Camera) -> Pose | None:
    """The plate pose from its four outline corners, in whichever winding faces up."""
    best: tuple[float, Pose] | None = None
    for corners in (quad, quad[::-1].copy()):
        ok, rvec, tvec = cv2.solvePnP(
            PLATE_CORNERS, corners.reshape(-1, 1, 2), camera.camera_matrix, camera.dist_coeffs,
            flags=cv2.SOLVEPNP_IPPE,
        )
        if not ok:
            continue
        pose = Pose(rvec.reshape(3), tvec.reshape(3))
        if pose.camera_center[2] <= 0:
            continue
        err = float(np.abs(project(camera, pose, PLATE_CORNERS) - corners).max())
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
    a = project(camera, pose, np.array([[124.0, 128.0, 0.0], [132.0, 128.0, 0.0], [128.0, 132.0, 0.0]]))
    return float(min(np.linalg.norm(a[1] - a[0]), np.linalg.norm(a[2] - a[0]) * 2))


def judge(
    grid: GridFit, support: dict[int, float], margin: float, sides: list[tuple[int, float]]
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
    weak = [frac for n, frac in sides if n >= 6 and frac < MIN_SIDE_SUPPORT]
    if weak or sum(n for n, _ in sides) < 12:
        return "the plate's rim is not where the stud grid puts it", seen, quality
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
    quads = find_plate_quads(image)
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
            half, cam.scaled_to(w // 2, h // 2), pose, RIM_MODEL, radii=(12, 9, 6, 4), spacing_px=4.0
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
    support = edge_support(gray, camera, grid.pose, EDGE_MODEL, 6.0, 4.0)
    sides = rim_side_support(gray, camera, grid.pose, RIM_MODEL, 0.45 * _stud_pitch_px(camera, grid.pose))
    pose, margin = resolve_turn(image, camera, grid.pose, ground)
    reason, seen, quality = judge(grid, support, margin, sides)
    # Corner bricks are reported in the resolved board frame's numbering.
    seen = sorted(_renumber(seen, grid.pose, pose))
    if reason:
        return BoardLocation(False, reason, quality=quality, corner_bricks=seen, map_margin=margin)
    return BoardLocation(
        True, "", pose, view_rotation(camera, pose), grid.residual_px, seen, quality, camera,
        focal_refined, margin,
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


def _refine_focal(gray: NDArray[np.float32], camera: Camera, fit: EdgeFit) -> tuple[Camera, EdgeFit]:
    """Search the focal length that lets the edges fit best, re-fitting the pose for each."""
    from calibration.intrinsics import refine_focal

    def residual(candidate: Camera) -> float:
        trial = refine_pose(gray, candidate, fit.pose, RIM_MODEL, radii=(3, 2))
        if trial.inliers < 20:
            return float("inf")
        return trial.rms_px

    best = refine_focal(camera, residual, low=0.8, high=1.25, iterations=12)
    return best, refine_pose(gray, best, fit.pose, RIM_MODEL, radii=(3, 2, 2))
