"""What a located board rests on, and the checks that turn weak evidence into "not found".

First detection (:mod:`calibration.pose`) and tracking (:mod:`calibration.tracking`)
both answer with a :class:`BoardLocation` and both must refuse the same doubtful fits, so
the evidence they gather (the lattice fit, the plate's rim and the corner bricks'
outlines, the board's sides, the ground map's margin) is judged here, in one place.
A wrong pose puts every piece in the wrong cell while a missing one only costs a frame:
each check errs on the side of "not found", with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.alias import BoundaryCheck
from calibration.board_model import (
    CENTRE,
    PLATE_CORNERS,
    corner_bricks,
    elevation_deg,
    polygon_edges,
    stud_centres,
    view_rotation,
)
from calibration.camera import Camera, Pose, project
from calibration.edges import EdgeModel
from calibration.grid import GridFit
from calibration.vouching import (
    BLURRED_SIDES_CLARITY,
    MIN_SOFT_GRID_BLOCKS,
    PLACED_BLOCKS,
    SOFT_LATTICE_CLARITY,
    TRUSTED_GRID_BLOCKS,
    VOUCHED_GRID_BLOCKS,
    VOUCHED_RMS_PX,
    sides_vouch_for_blurred_lattice,
    sides_vouch_for_soft_lattice,
    vouches_for_soft_lattice,
)

PLATE_GROUP = 4
MAX_RMS_PX = 1.0
MIN_PLATE_SUPPORT = 0.3
MIN_CORNER_SUPPORT = 0.3
MIN_CORNERS_SEEN = 2
MIN_MAP_MARGIN = 3.0
WEAK_MAP_SCORE = 1.5
"""A winning turn's score (between over within scatter) under which the map barely shows."""
WEAK_MAP_MARGIN = 4.0
MIN_GRID_BLOCKS = 5
MIN_LATTICE_CLARITY = 4.5
"""Median block clarity of a sharp lattice is 5 to 10; heavy blur brings it under 4.5,
where the lattice still fits but no longer to the stud."""
STUD_TOPS_CLARITY = 6.0
"""Under this clarity the stud tops' colour must confirm the lattice's place. A lattice
of 5 to 6 has settled on the gaps between studs with all four sides stepping where it
put them (the wide twin, 5 px off at 5.3); right poses from 4.3 to 6.5 on 60 dev twin
frames and the Cycles set all passed the stud tops' check, which misses only on
sharper boards (a card of one colour under glossy tops)."""
BLURRED_LATTICE_CLARITY = 4.0
"""The least clarity a lattice vouched for by the rest of the picture may have."""
THIN_WITNESSED_CORNERS = 3
"""Corner bricks a thin lattice vouched for by the rim must show."""
MIN_BOARD_IN_VIEW = 0.6
MIN_ELEVATION_DEG = 12.0


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
    map_score: float = 0.0
    method: str = ""
    """Which stage found it: outline, lattice, corners, rim or focal on a first detection;
    tracked (the tracker's fast path: one lattice round from the last pose) or refit (the
    whole fit from the last pose, where the fast path refused the frame)."""
    turn_resolved: bool = True
    """Whether the ground map said which way round the board lies. When it did not (no
    map, a wrong one, too little of it in view) the pose is still the board's, in the
    quarter turn whose row y = 0 faces the camera, and ``rotation`` is that choice."""
    turn_evened: bool = False
    """Whether the map settled the turn on the card's colours evened by the stud tops
    (uneven light, :func:`calibration.turn_agreement.judge_turn`): a tracked frame scores
    the kept turn on the same view, since it compares that score with ``map_score``."""

    @classmethod
    def located(
        cls,
        camera: Camera,
        pose: Pose,
        grid: GridFit,
        seen: list[int],
        quality: float,
        focal_refined: bool,
        map_margin: float,
        map_score: float,
        method: str = "",
        turn_resolved: bool = True,
        turn_evened: bool = False,
    ) -> BoardLocation:
        """A found board: the pose with the evidence it passed on, its view rotation worked
        out here so that every stage reports it the same way."""
        return cls(
            True,
            "",
            pose,
            view_rotation(camera, pose),
            grid.residual_px,
            seen,
            quality,
            camera,
            focal_refined,
            map_margin,
            map_score,
            method,
            turn_resolved,
            turn_evened,
        )

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
            "method": self.method,
            "turn_resolved": self.turn_resolved,
            "turn_evened": self.turn_evened,
            "map_margin": round(self.map_margin, 3),
        }
        if self.focal_refined and self.camera is not None:
            out["focal_px"] = round(self.camera.fx, 2)
        return out


def first_found(results: Iterable[BoardLocation]) -> BoardLocation:
    """The first found board of ``results``, else the first refusal (or, with none, that
    no outline gave a pose). ``results`` is read lazily, so the outlines after the first
    found one are never fitted."""
    first: BoardLocation | None = None
    for result in results:
        if result.found:
            return result
        first = first or result
    return first or BoardLocation(False, "no outline of the board gives a pose")


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


def _model_part(keep: NDArray[np.bool_]) -> EdgeModel:
    return EdgeModel(
        EDGE_MODEL.starts[keep],
        EDGE_MODEL.ends[keep],
        EDGE_MODEL.groups[keep],
        EDGE_MODEL.outermost[keep],
    )


RIM_MODEL = _model_part(EDGE_MODEL.groups == PLATE_GROUP)
BRICK_MODEL = _model_part(EDGE_MODEL.groups != PLATE_GROUP)
"""The corner bricks' outlines alone: what a tracked frame reports as seen."""


def gray_float(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return gray.astype(np.float32)


def implausible_view(camera: Camera, pose: Pose) -> str:
    """Why no camera watching a game would see the board like this (empty if it would).

    A lattice can lock onto a sliver of studs at the picture's edge with the rest of the
    board thrown far outside it, or onto a view grazing the table; a camera set up to
    watch the game sees most of the board from above.
    """
    studs = stud_centres()
    px = project(camera, pose, studs)
    inside = (
        (px[:, 0] >= 0) & (px[:, 0] < camera.width) & (px[:, 1] >= 0) & (px[:, 1] < camera.height)
    )
    if inside.mean() < MIN_BOARD_IN_VIEW:
        return f"the pose puts only {inside.mean():.0%} of the board in the picture"
    elevation = float(elevation_deg(pose, CENTRE)[0])
    if elevation < MIN_ELEVATION_DEG:
        return f"the pose looks at the board from {elevation:.0f} degrees above the table"
    return ""


def corners_seen(support: dict[int, float]) -> list[int]:
    """The corner bricks whose outlines the image shows well enough to count as seen."""
    return sorted(g for g, s in support.items() if g != PLATE_GROUP and s >= MIN_CORNER_SUPPORT)


def residual_allowed(blocks: int) -> float:
    """The loosest residual (px) a lattice fit over ``blocks`` blocks may have.

    Few blocks pin the tilt loosely: a fit on six of them can lean a few degrees and
    still leave each of them within a pixel, so fewer blocks must fit tighter.
    """
    return MAX_RMS_PX * min(1.0, blocks / TRUSTED_GRID_BLOCKS)


def lattice_problem(
    grid: GridFit, vouched: bool = False, floor: float = BLURRED_LATTICE_CLARITY,
    vouched_blocks: int = VOUCHED_GRID_BLOCKS,
) -> str:
    """Why a stud-lattice fit cannot be trusted on its own (empty if it can).

    First detection and tracking both stand on the lattice, so both must refuse the
    same fits: a loose residual, blurred or soft studs, or too few blocks agreeing.
    A ``vouched`` lattice (see :mod:`calibration.vouching`) may be softer, down to
    a clarity of ``floor`` (lower only where every quarter's stud tops are asked too),
    over ``vouched_blocks`` blocks (fewer only where the rim places the board).
    """
    limit = residual_allowed(grid.blocks)
    if grid.residual_px > limit:
        return (
            f"the stud grid does not fit (residual {grid.residual_px:.2f} px"
            f" over {grid.blocks} blocks, {limit:.2f} allowed)"
        )
    if grid.blocks < MIN_GRID_BLOCKS:
        return f"the stud grid was seen in only {grid.blocks} of 16 blocks"
    if grid.clarity >= SOFT_LATTICE_CLARITY:
        return ""
    if grid.clarity >= MIN_LATTICE_CLARITY and grid.blocks >= MIN_SOFT_GRID_BLOCKS:
        return ""
    if (
        vouched
        and grid.clarity >= floor
        and grid.blocks >= vouched_blocks
        and grid.residual_px <= VOUCHED_RMS_PX
    ):
        # Mild blur (a slow lens, a hand-held phone) softens the studs without moving
        # them: a soft lattice over most of the board that fits tightly lands within
        # half a pixel. Heavier blur lets it settle a pixel or two off and loosens its
        # fit, so the allowance stops short of that.
        return ""
    if grid.clarity < MIN_LATTICE_CLARITY:
        return (
            f"the studs are too blurred or too small to pin the grid (clarity {grid.clarity:.1f})"
        )
    return (
        f"the studs are soft (clarity {grid.clarity:.1f}) and seen in only"
        f" {grid.blocks} of 16 blocks"
    )


def judge(
    grid: GridFit,
    support: dict[int, float],
    margin: float,
    boundary: BoundaryCheck,
    map_score: float,
    rim_witness: bool = False,
    placed: bool = False,
) -> tuple[str, list[int], float]:
    """Why the fit is not good enough (empty if it is), the corner bricks seen, a 0..1 score.

    ``rim_witness``: the plate's rim lies all round where a thin lattice puts the board
    (asked only where :func:`~calibration.vouching.rim_may_vouch_for_thin_lattice`); with
    three corner bricks it vouches for that lattice. Asked where
    :func:`~calibration.vouching.rim_may_vouch_for_soft_lattice`, it vouches for a soft
    lattice over 10 or 11 blocks (the stud tops are asked in ``calibration.fit``).
    ``placed``: the rim places a thin soft lattice along both axes too, which vouches for
    it from 7 blocks (:func:`~calibration.rim_place.places_thin_fit`).
    """
    seen = corners_seen(support)
    rim = support.get(PLATE_GROUP, 0.0)
    quality = float(
        np.clip(rim / MIN_PLATE_SUPPORT, 0, 1)
        * np.clip(1.5 - grid.residual_px / MAX_RMS_PX, 0, 1)
        * min(1.0, grid.blocks / 8)
        * min(1.0, len(seen) / 3)
    )
    blurred = sides_vouch_for_blurred_lattice(grid, boundary)
    vouched = (
        vouches_for_soft_lattice(boundary, margin)
        or sides_vouch_for_soft_lattice(grid, boundary)
        or blurred
        or rim_witness
        or placed
    )
    problem = lattice_problem(
        grid, vouched, BLURRED_SIDES_CLARITY if blurred else BLURRED_LATTICE_CLARITY,
        PLACED_BLOCKS if placed else VOUCHED_GRID_BLOCKS,
    )
    if problem:
        return problem, seen, quality
    if rim < MIN_PLATE_SUPPORT:
        return f"only {rim:.0%} of the plate's rim was found", seen, quality
    if (
        boundary.off_sides(grid.blocks)
        and not boundary.outweighs(grid.blocks)
        and not boundary.paired
    ):
        sides = ", ".join(boundary.detail)
        return f"the board's sides are not where the stud grid puts them ({sides})", seen, quality
    if not boundary.holds(grid.blocks):
        sides = ", ".join(boundary.detail)
        return (
            f"too few of the board's sides are clear enough to pin the stud grid ({sides})",
            seen,
            quality,
        )
    pinned = boundary.good == 4 or (boundary.passed and grid.blocks >= TRUSTED_GRID_BLOCKS)
    if len(seen) < MIN_CORNERS_SEEN and not (seen and pinned):
        # All four sides where the lattice puts them pin the board on their own, and so
        # do three over a lattice that fixes the board's size (a hand over the fourth
        # side's corner); one corner brick then only has to confirm it.
        return f"only {len(seen)} corner brick(s) seen", seen, quality
    if placed:
        return "", seen, quality
    return thin_lattice_problem(grid.blocks, map_score, boundary.good, len(seen),
                                rim_witness), seen, quality


def thin_lattice_problem(blocks: int, map_score: float, good_sides: int, corners: int,
                         rim_witness: bool) -> str:
    """Why a lattice seen in few blocks is not vouched for (empty if it is or is not thin).

    A lattice seen in a few blocks pins the tilt loosely: a pose leaning a few degrees
    can fit them and throw the hidden part of the board studs off. A map that explains
    the card clearly (``map_score``, 0 when no trusted map was given) vouches for it.
    Without one the sides and corner bricks are not enough (on the wide twin, thin
    lattices with all four sides and two corner bricks confirmed were still 6 studs off)
    unless the plate's rim vouches for the plane as well (``rim_witness``, as
    :func:`judge` is told) and :data:`THIN_WITNESSED_CORNERS` corner bricks show.
    """
    if blocks >= TRUSTED_GRID_BLOCKS or map_score >= WEAK_MAP_SCORE:
        return ""
    if rim_witness and corners >= THIN_WITNESSED_CORNERS:
        return ""
    return (
        f"the stud grid shows in only {blocks} blocks and neither the ground map nor the"
        f" board's sides and corner bricks vouch for it (map score {map_score:.2f},"
        f" {good_sides} sides, {corners} corner bricks)"
    )


def map_problem(margin: float, score: float, blocks: int = TRUSTED_GRID_BLOCKS) -> str:
    """Why the ground map's choice of quarter turn cannot be trusted (empty if it can).

    A wrong turn wins only when little of the map shows: an arm across most of the
    board leaves a few cells whose colours group about as well under any labelling, so
    every turn scores low. There a wrong turn has been seen winning by 2.8 times, while
    a clear map shows the right one winning by tens; a weak map must win by more.
    A pose resting on a thin lattice (fewer than
    :data:`~calibration.vouching.TRUSTED_GRID_BLOCKS` blocks) needs a clear map as well.
    """
    if blocks < TRUSTED_GRID_BLOCKS and score < WEAK_MAP_SCORE:
        # A lattice seen in a few blocks pins the tilt loosely: a pose leaning a few
        # degrees can fit them and throw the hidden part of the board studs off. The
        # map's colours then group badly everywhere, so a thin lattice needs a clear map.
        return (
            f"the stud grid shows in only {blocks} blocks and the ground map barely shows"
            f" (score {score:.2f} of {WEAK_MAP_SCORE} needed)"
        )
    needed = MIN_MAP_MARGIN if score >= WEAK_MAP_SCORE else WEAK_MAP_MARGIN
    if margin < needed:
        return (
            f"the ground map does not tell which way round the board is (margin {margin:.2f}"
            f" of {needed:.0f} needed)"
        )
    return ""
