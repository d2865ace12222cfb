"""A board 3 or 4 studs off that the sides' check, two studs each way, cannot see.

:func:`calibration.alias.check_boundary` compares each side with itself moved up to two
studs in and out. A board three studs off passes it where one side lies on the table,
unclear, and its opposite on the straight edge of a sleeve or a card over the board,
which steps like a rim; the two other sides run along the shift and stay right. The
side that did not confirm the pose then shows the real rim further in.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.alias import MIN_STEP, BoundaryCheck
from calibration.camera import Camera, Pose
from calibration.side_profiles import side_profiles

FAR_REACH = 4
"""Studs inwards to which a side that did not confirm the pose is looked at again."""
FAR_RATIO = 1.5
"""How many times every nearer move's step a step 3 or 4 studs in must be to be a rim."""
FAR_OVER_OPPOSITE = 1.3
"""How many times the opposite side's own step that far step must also be."""


def far_side_problem(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, check: BoundaryCheck
) -> str:
    """Why a side that did not confirm the pose may hide a board 3 or 4 studs over
    (empty if none does).

    The sides are judged a stud or two either way, so a board three studs off passes
    them where one side lies on the table, unclear, and its opposite on the straight
    edge of a sleeve or a card over the board, which steps like a rim (the wide twin, a
    board 3 studs off with three sides right). The side that did not confirm then finds
    the real rim 3 or 4 studs in: a step well above every nearer move's and above the
    step its opposite side makes at the pose.
    """
    states = [d.split(":")[1] for d in check.detail]
    if "good" not in states or all(st == "good" for st in states):
        return ""
    profiles = side_profiles(image, camera, pose, FAR_REACH, halved=False)
    for side, state in enumerate(states):
        if state == "good":
            continue
        rows, opposite = profiles[side], profiles[(side + 2) % 4][:, FAR_REACH]
        far, near = rows[:, :2], rows[:, 2:]
        if not (np.isfinite(far).any() and np.isfinite(near).any()
                and np.isfinite(opposite).any()):
            continue
        step = float(np.nanmax(far))
        if (step >= MIN_STEP and step >= FAR_RATIO * float(np.nanmax(near))
                and step >= FAR_OVER_OPPOSITE * float(np.nanmin(opposite))):
            return f"side {side} steps {step:.0f} three or four studs in, like a rim"
    return ""
