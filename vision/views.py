"""Per-view bookkeeping: where the board's space lies in a frame, the working scale, the
board's quarter turn read from the known palace, the pictures before a turn for each view,
and such a picture brought to where the frame after sees the board."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import PLATE_CORNERS, nearest_turn, turned_pose
from calibration.camera import Camera, Pose, plane_points, project, rays_through
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from rules.maps import GroundMap
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM
from vision.look import TableLook
from vision.silhouettes import View

STUD_PX = 9.0
"""Pixels per stud the decoder works at: enough for a brick's outline, few enough to be
quick. A board seen smaller than this is worked at full size."""


def board_volume(levels: int) -> NDArray[np.float64]:
    """The 8 corners (board mm) of the space over the plate up to ``levels`` bricks: every
    piece of a palace that high lies inside it."""
    side = BOARD_STUDS * STUD_MM
    return np.array([[x, y, z] for x in (0, side) for y in (0, side)
                     for z in (0, levels * BRICK_MM)], float)


def board_box(camera: Camera, pose: Pose, top_level: int, margin: int = 8
              ) -> tuple[int, int, int, int] | None:
    """The frame's box holding the whole board up to ``top_level`` bricks, clipped."""
    px = project(camera, pose, board_volume(top_level))
    if not np.all(np.isfinite(px)):
        return None
    x0, y0 = np.floor(px.min(0)).astype(int) - margin
    x1, y1 = np.ceil(px.max(0)).astype(int) + margin
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, camera.width), min(y1, camera.height)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def board_space(view: View, levels: int) -> NDArray[np.bool_]:
    """The region's pixels that show the space over the plate up to ``levels`` bricks: the
    only place a new piece can be. The region's box leaves a margin around it, and a board
    seen at an angle fills much less than its box; a sleeve or a cup moved on the table
    beside the board is no trace of a turn."""
    px = view.to_region(project(view.camera, view.pose, board_volume(levels)))
    mask = np.zeros(view.shape, np.uint8)
    if np.all(np.isfinite(px)):
        hull = cv2.convexHull(np.round(px).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    return mask.astype(bool)


def working_scale(camera: Camera, pose: Pose) -> float:
    px = project(camera, pose, PLATE_CORNERS)
    side = float(np.mean([np.linalg.norm(px[i] - px[(i + 1) % 4]) for i in range(4)]))
    return float(np.clip(STUD_PX * 32 / max(side, 1.0), 0.3, 1.0))


BeforeFrames = NDArray[np.uint8] | Sequence[NDArray[np.uint8] | None] | None
"""The picture before the turn: one, of the first view whose board is found, or one per
view."""
BeforeLocations = BoardLocation | Sequence[BoardLocation | None] | None
"""Where the board lay in the pictures before, as :data:`BeforeFrames` gives them."""


def pictures_before(before: Palace, before_frame: BeforeFrames,
                    before_locations: BeforeLocations, look: TableLook | None, views: int,
                    kept: Sequence[int]
                    ) -> list[tuple[NDArray[np.uint8] | None, BoardLocation | None]]:
    """The picture of the palace before the turn for each of the ``kept`` views (indices
    into the ``views`` given), with where the board lay in it where known: those given one
    per view; else the settled frame, or the frame the table's look learned of this very
    palace, for the first kept view alone (the camera loop's views are of one unmoved
    webcam: the first it found the board in is compared, the others add nothing)."""
    if before_frame is not None and not isinstance(before_frame, np.ndarray):
        given = list(before_frame)
        if len(given) != views:
            raise ValueError(f"{len(given)} frames before the turn for {views} views")
        places: list[BoardLocation | None] = [None] * views
        if before_locations is not None and not isinstance(before_locations, BoardLocation):
            places = list(before_locations)
            if len(places) != views:
                raise ValueError(f"{len(places)} places before the turn for {views} views")
        return [(given[i], places[i]) for i in kept]
    place = before_locations if isinstance(before_locations, BoardLocation) else None
    if before_frame is None and look is not None:
        learned = look.reference_for(before)
        if learned is not None:
            before_frame, place = learned
    return [(before_frame, place)] + [(None, None)] * (len(kept) - 1)


ALIGN_FROM_PX = 0.5
"""Below this (the board's corners' largest shift between the two poses) the frames are
compared as they are: two poses found in frames of an unmoved webcam differ by their
own noise, a few tenths of a pixel, which a resampling would only blur."""
ALIGN_STEP_PX = 8
"""The alignment's mapping is worked out every this many pixels and stretched between:
it is smooth, a camera's small turn and its lens's slow bend."""


def aligned_before(reference: NDArray[np.uint8], camera_before: Camera, pose_before: Pose,
                   camera_after: Camera, pose_after: Pose, box: tuple[int, int, int, int],
                   height_mm: float = 0.0) -> NDArray[np.uint8]:
    """The frame before the turn, its ``box`` resampled to where the frame after sees the
    board: each pixel of the frame after, taken along its ray to the plane ``height_mm``
    over the plate, is filled from where the frame before sees that point.

    A webcam on a clamp turns whenever the table is leant on, and pressing pieces onto
    their studs pushes the board; the camera loop reads such a board as it reads an
    unmoved one (``vision.settle.board_moved``, ``board_pushed``). Compared pixel by
    pixel, a webcam's turn of a tenth of a degree (2 px) already misread 3 of 22
    development turns read right, two tenths all but one (docs/vision-log.md). A
    webcam's turn moves every point alike whatever its height, so it is undone exactly;
    a push or a shift leaves a parallax of a pixel or two on the tallest pieces. The pose
    before is taken under its quarter turn nearest the pose after (the plate looks the
    same under each). About 8 ms for a 600 x 550 box."""
    pose_before = nearest_turn(pose_before, pose_after)
    shift = (project(camera_before, pose_before, PLATE_CORNERS)
             - project(camera_after, pose_after, PLATE_CORNERS))
    if not np.all(np.isfinite(shift)) or float(np.abs(shift).max()) < ALIGN_FROM_PX:
        return reference
    x0, y0, x1, y1 = box
    step = ALIGN_STEP_PX
    nx, ny = -(-(x1 - x0) // step), -(-(y1 - y0) // step)
    # Nodes at the centres of step x step cells, so that the stretch's pixel-centre
    # convention puts the box's pixel i at x0 + i.
    xs = x0 + (np.arange(nx) + 0.5) * step - 0.5
    ys = y0 + (np.arange(ny) + 0.5) * step - 0.5
    nodes = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    points, ahead = plane_points(pose_after, rays_through(camera_after, nodes), height_mm)
    seen = project(camera_before, pose_before, points)
    seen[~ahead] = -1.0
    coarse = seen.reshape(ny, nx, 2).astype(np.float32)
    fine = cv2.resize(coarse, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
    fine = fine[: y1 - y0, : x1 - x0]
    out = reference.copy()
    out[y0:y1, x0:x1] = cv2.remap(reference, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    return out


def given_or_located(frames: Sequence[NDArray[np.uint8]], camera: Camera, ground: GroundMap,
                     locations: Sequence[BoardLocation | None] | None = None
                     ) -> list[BoardLocation]:
    """The board in each frame: the location passed in ``locations`` where there is one
    (the caller's tracker found it already, so it is not searched again), else
    :func:`~calibration.pose.locate_board`'s."""
    out = []
    for i, frame in enumerate(frames):
        given = locations[i] if locations is not None and i < len(locations) else None
        out.append(given if given is not None else locate_board(frame, camera, ground))
    return out


def usable_views(located: Sequence[BoardLocation]) -> list[int]:
    """The views whose board was found with a pose, by index: the only views a reading
    can use (by index, so that what else a view came with follows it)."""
    return [i for i, loc in enumerate(located) if loc.found and loc.pose is not None]


def resolve_turns(usable: Sequence[tuple[NDArray[np.uint8], BoardLocation]], camera: Camera,
                  before: Palace) -> list[tuple[NDArray[np.uint8], BoardLocation]]:
    """Locations whose quarter turn the pose left open get it from the palace before.

    The plate and its corner bricks look the same after a quarter turn; the palace does
    not (the set-up staircase alone breaks the symmetry), so the turn that puts the old
    pieces where the frame shows colours unlike the board is the board's.
    """
    out = []
    for frame, loc in usable:
        if getattr(loc, "turn_resolved", True) or loc.pose is None:
            out.append((frame, loc))
            continue
        cam = loc.camera or camera
        best = max(range(4), key=lambda k: _pieces_show(frame, cam, turned_pose(loc.pose, k),
                                                        before))
        out.append((frame, replace(loc, pose=turned_pose(loc.pose, best))))
    return out


def _pieces_show(frame: NDArray[np.uint8], camera: Camera, pose: Pose, palace: Palace) -> float:
    """How unlike the board the pixels are where ``palace``'s pieces would stand."""
    top = max((p.top for p in palace), default=1)
    box = board_box(camera, pose, top)
    if box is None:
        return -np.inf
    view = View(camera, pose, box, 0.25)
    pieces = [p for p in palace if p.kind.value != "corner"]
    view.paint_old(pieces)
    x0, y0, x1, y1 = box
    small = cv2.resize(frame[y0:y1, x0:x1], view.shape[::-1], interpolation=cv2.INTER_AREA)
    chroma = small.astype(np.float32) / (small.sum(axis=2, keepdims=True) + 6.0)
    on = np.isfinite(view.old_depth)
    if on.sum() < 4:
        return 0.0
    board = np.median(chroma[~on], axis=0)
    return float(np.linalg.norm(chroma[on] - board, axis=1).mean())
