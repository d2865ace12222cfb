"""Does the plate's rim sit where the stud lattice puts the board? A check against a biased lattice.

The stud lattice (:mod:`calibration.grid`) places the board to a tenth of a pixel when its
studs are crisp, but a small board under a hard light, whose stud tops are drawn darker
than the card, shows each stud as one dark blob: its top, its shaded side and the card's
hole around its foot blurred together. Both shade templates then peak a little off the
top's centre, along the line of sight, on every block alike, so the fit stays tight
(residual 0.3 px over 11 blocks) and every side still steps where it puts the board, yet
the whole board sits a millimetre or so off along its normal (a dev frame 2.2 px off:
1.3 mm; from the true pose itself the fit walked 2.3 px off). No check that reads the
lattice can see it; the sides are judged a whole stud at a time.

The plate's rim is a separate witness: a fit of the rim at full size from a right pose
moves the board's studs by well under two pixels (dev frames with lattices under a
clarity of 6: 0.2 to 1.8 px), from that biased pose by 2.5 px, back toward the truth.
Asked of lattices under :data:`~calibration.evidence.STUD_TOPS_CLARITY` (the dark-top
blobs are what soften them), and, as a witness for the plane, of sharp lattices seen in
too few blocks (:func:`rim_witnesses`); other sharp lattices, and most tracked frames,
pay nothing for it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_shifts
from calibration.camera import Camera, Pose
from calibration.edges import refine_pose
from calibration.evidence import RIM_MODEL

MAX_RIM_MOVE_PX = 2.0
"""How far the rim's own fit may move the board: as far as a pose may be off and still be
right. As the soft lattice's check, the median over the stud centres (right poses of
lattices under a clarity of 6 on 140 development frames: up to 1.76 px, and 2.0 over
sharper lattices; the biased lattice's pose: 2.48 px); as a thin lattice's witness, the
worst stud (a thin lattice's weak point is its tilt, which shows at the far corner)."""
RIM_RADII = (6, 4, 3, 2)
"""Search radii (px) of the rim's fit. The first must reach well past a wrong pose's
2 px: from a pose 3.4 px off, a fit starting at 4 px moved it a pixel back, one
starting at 6 px two."""
MIN_RIM_INLIERS = 20
"""Rim points the fit must keep to say anything (a board mostly off the picture)."""


def rim_moves(gray: NDArray[np.float32], camera: Camera, pose: Pose) -> NDArray[np.float64] | None:
    """How far the rim's own fit from ``pose`` moves each stud centre (px), or None where
    it keeps too few rim points to say anything."""
    rim = refine_pose(gray, camera, pose, RIM_MODEL, radii=RIM_RADII)
    if rim.inliers < MIN_RIM_INLIERS:
        return None
    return stud_shifts(camera, pose, rim.pose)


def rim_problem(moved: NDArray[np.float64] | None) -> str:
    """Why the plate's rim says the pose is off (empty if it agrees, or cannot tell), from
    :func:`rim_moves`."""
    if moved is None:
        return ""
    move = float(np.median(moved))
    if move > MAX_RIM_MOVE_PX:
        return f"the plate's rim puts the board {move:.1f} px from where the stud grid does"
    return ""


def rim_witnesses(moved: NDArray[np.float64] | None) -> bool:
    """Whether the plate's rim, fitted at full size (:func:`rim_moves`), moves no stud
    centre more than :data:`MAX_RIM_MOVE_PX`: the rim lies all round where the pose puts
    it, so a plane the lattice pins only loosely is not tilted (a thin lattice, few
    blocks)."""
    return moved is not None and float(moved.max()) <= MAX_RIM_MOVE_PX
