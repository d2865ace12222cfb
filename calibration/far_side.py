"""A board 3 or 4 studs, or a whole lattice block, off that the sides' check, two studs
each way, cannot see.

:func:`calibration.alias.check_boundary` compares each side with itself moved up to two
studs in and out. A board three studs off passes it where one side lies on the table,
unclear, and its opposite on the straight edge of a sleeve or a card over the board,
which steps like a rim; the two other sides run along the shift and stay right. The
side that did not confirm the pose then shows the real rim further in.

A board a whole lattice block (8 studs) off passes the lattice too, whose blocks agree
modulo a stud: its three other sides step on straight edges of the card's regions or
of the table, and the side that did not confirm lies on the table, flat, with the real
rim a block in.

The same holds of a side that did confirm the pose in one half only, on such an edge,
while its other half lies flat: on the table, with the real rim 3 or 4 studs in (a card
against the near side, the wide twin, 3 or 4 studs off), or on the board, with a step
3 or 4 studs out (two hands and a sleeve over a board 7 studs off).

Between the two, a board 5 to 7 studs off shows a real rim too weak to stand out (a
green table against the green plate) on a table whose own check pattern the lattice took
for studs. There the side that did not confirm lies flat, nothing of the board inside
it, so its axis rests on the opposite side alone, and that side steps on an edge inside
the board (a hand's fingertips, a region of the card): a step the picture keeps making
beyond it, where a rim has only the table.

And a board 3 to 10 studs off along an axis, whatever its sides said: the side moved
onto the board lies on the card's regions, unclear or stepping on a region's edge, and
its opposite, moved onto the table, steps on the table's own pattern or on something
lying there in one half; the two
sides along the shift stay right. Each side alone reads nothing a stud or two over, but
the pair, read as far as the real place, steps there at both sides together
(:func:`far_pair_problem`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.alias import MIN_STEP, BoundaryCheck
from calibration.board_model import moved_pose
from calibration.camera import Camera, Pose
from calibration.edges import edge_support
from calibration.evidence import EDGE_MODEL, MIN_CORNER_SUPPORT
from calibration.side_pairs import (
    FAR_SIDE_STEP,
    PAIR_RATIO,
    joint_steps,
    strongest_far_move,
)
from calibration.side_profiles import side_profiles

FAR_REACH = 4
"""Studs inwards to which a side that did not confirm the pose is looked at for a rim
3 or 4 studs in."""
FAR_RATIO = 1.5
"""How many times every nearer move's step a step 3 or 4 studs in must be to be a rim."""
FAR_OVER_OPPOSITE = 1.3
"""How many times the opposite side's own step that far step must also be."""
BLOCK_STUDS = 8
"""Studs along a side in one lattice block: how far a board a block off lies."""
BLOCK_REACH = BLOCK_STUDS + 1
"""Studs inwards to which a side that did not confirm the pose is looked at for a rim a
block in (one more, for a step that falls between two studs' moves)."""
BLOCK_RATIO = 2.5
"""How many times every other move's step, in each half of the side, a step a block in
must be to be a rim: nothing vouches for it on the opposite side (there the wrong pose
steps on a straight edge of the card, as strongly as a rim), so it must stand out."""
FLAT_STEP = 6.0
"""Lab units: a side stepping under this at every move from 1 to :data:`FLAT_DEPTH` studs
in, in both halves, shows nothing of the board inside it (the card's studs and regions
step 10 to 30 there; an arm over the side, or a table with a check pattern, 0 to 4)."""
FLAT_DEPTH = 5
"""Studs in to which a flat side shows nothing of the board: deeper than a side's own
check (2) reads, shallower than a wrong pose's real rim a block in."""
BEYOND_STUDS = 4
"""Studs beyond a lone rim over which the table must stay calm."""
CALM_BEYOND = 0.8
"""How large a share of a lone rim's own step any move beyond it may step, in each half:
right poses on development frames 0.03 to 0.7, a board 6 studs off whose lone "rim" was a
hand's fingertips 0.92."""
FAR_PAIR_REACH = BLOCK_REACH + 1
"""Studs either way to which each axis's pair of sides is read (:func:`far_pair_problem`):
a board that a lattice start or the finish's own move took two studs further than a
block (a dev board taken 10 studs off from a start 8 off) still shows its real place."""
FAR_PAIR_RATIO = PAIR_RATIO
"""How many times the pose's own joint step a pair's joint step 3 to
:data:`FAR_PAIR_REACH` studs over must be to be the board's real place. Dev boards 3 to 10
studs off that everything else passed: 2.2 to 50; right poses at most 0.98 (dev frames
3000 to 3149 and 20000 to 20149, see docs/real-tables-log.md, "Boards 3 to 8 studs off
that the sides passed")."""
FAR_PAIR_STEP = FAR_SIDE_STEP
"""Lab units: the least joint step of that far place. Right poses with a faint side can
have a far pair many times their own and still small: a card's edge 4 studs out of a
faint side (dev 20010, 11 against 1.1), a region edge 8 studs in (dev 20022, 13 against
6.6); the wrong poses' real places stepped 18 to 90."""
INWARD = {0: (0, BLOCK_STUDS), 1: (-BLOCK_STUDS, 0), 2: (0, -BLOCK_STUDS), 3: (BLOCK_STUDS, 0)}
"""Per side, the board's move (studs along x, y) that brings that side a block inwards."""


def far_side_problem(
    image: NDArray[np.uint8], gray: NDArray[np.float32], camera: Camera, pose: Pose,
    check: BoundaryCheck,
) -> str:
    """Why a side that did not confirm the pose may hide a board 3 or 4 studs, or a
    lattice block, over, or why an axis's pair of sides may hide one 3 to
    :data:`FAR_PAIR_REACH` studs over (:func:`far_pair_problem`, asked of every axis,
    also where all four sides confirmed the pose; empty if none does).

    The sides are judged a stud or two either way, so a board three studs off passes
    them where one side lies on the table, unclear, and its opposite on the straight
    edge of a sleeve or a card over the board, which steps like a rim (the wide twin, a
    board 3 studs off with three sides right). The side that did not confirm then finds
    the real rim 3 or 4 studs in: a step well above every nearer move's and above the
    step its opposite side makes at the pose.

    A side good in one half only, the other half flat (under :data:`FLAT_STEP` at the
    pose), has that half looked at the same way, 3 or 4 studs in and out.

    A board a whole block off (the wide twin: 58 and 64 px, three sides good on the
    card's region edges or an arm, the fourth flat on the table) shows the real rim a
    block in, along the whole side: in both halves a step far above every other move's
    from 6 studs in to 9 out. A right pose with an unclear side (an arm over it, a
    table of the card's colour) showed no such step there.
    """
    states = check.states
    if "good" not in states:
        return ""
    wide = side_profiles(image, camera, pose, FAR_PAIR_REACH, halved=False)
    if all(st == "good" for st in states):
        return far_pair_problem(wide)
    profiles = wide[:, :, FAR_PAIR_REACH - BLOCK_REACH : FAR_PAIR_REACH + BLOCK_REACH + 1]
    pose_at = BLOCK_REACH
    for side, state in enumerate(states):
        rows = profiles[side]
        opposite = profiles[(side + 2) % 4][:, pose_at]
        if state == "good":
            flat = _flat_half_problem(rows, opposite, pose_at)
            if flat:
                return f"half of side {side} {flat}"
            continue
        # Moves from FAR_REACH studs in to FAR_REACH out, as the 3-or-4 test reads them.
        window = rows[:, pose_at - FAR_REACH : pose_at + FAR_REACH + 1]
        far, near = window[:, :2], window[:, 2:]
        if (np.isfinite(far).any() and np.isfinite(near).any()
                and np.isfinite(opposite).any()):
            step = float(np.nanmax(far))
            if (step >= MIN_STEP and step >= FAR_RATIO * float(np.nanmax(near))
                    and step >= FAR_OVER_OPPOSITE * float(np.nanmin(opposite))):
                return f"side {side} steps {step:.0f} three or four studs in, like a rim"
        block = block_step(rows)
        if block and _corners_a_block_in(gray, camera, pose, side):
            return (
                f"side {side} steps {block:.0f} a lattice block in, like a rim, with both"
                " corner bricks there"
            )
    return lone_rim_problem(profiles, states, pose_at) or far_pair_problem(wide)


def far_pair_problem(profiles: NDArray[np.float64]) -> str:
    """Why an axis may hide a board 3 to :data:`FAR_PAIR_REACH` studs over (empty if none
    does).

    ``profiles`` are :func:`side_profiles` rows read :data:`FAR_PAIR_REACH` studs each
    way. The sides' check reads two studs each way, the far side 3 or 4 studs in and a
    block in, one side at a time; boards 3 to 7 studs off (dev boards, sharp lattices of
    15 blocks) passed all of them with the side moved onto the board unclear, or good,
    on the card's regions, and its opposite, moved onto the table, stepping on a striped
    table or good in one half on something lying there. Moving the board back moves both
    sides onto the real rims, so the pair's joint step (the weaker side's, as
    :mod:`calibration.side_pairs` reads it) there is :data:`FAR_PAIR_RATIO` times the
    pose's own and at least :data:`FAR_PAIR_STEP`: a card's region inside one side does
    not lift the table side, a striped table outside the other does not lift the board
    side. The profiles are those the far side reads anyway, a stud further.
    """
    joint = joint_steps(profiles)
    best, at = strongest_far_move(joint, FAR_PAIR_REACH)
    for axis, sides in ((0, (1, 3)), (1, (2, 0))):
        own = float(joint[axis, FAR_PAIR_REACH])
        step = float(best[axis])
        if not np.isfinite(own) or not np.isfinite(step):
            continue
        if step >= FAR_PAIR_STEP and step >= FAR_PAIR_RATIO * own:
            return (
                f"sides {sides[0]} and {sides[1]} step {step:.0f} together {int(at[axis]):+d}"
                f" studs along {'xy'[axis]}, {step / max(own, 1e-3):.1f} times the pose's"
            )
    return ""


def _flat_half_problem(rows: NDArray[np.float64], opposite: NDArray[np.float64],
                       pose_at: int) -> str:
    """Why a good side's flat half may hide a rim 3 or 4 studs over (empty if it does not).

    A side good in one half only, on a sleeve's, a hand's or a card's straight edge,
    while its other half lies flat, stepping under :data:`FLAT_STEP` at the pose and at
    every nearer move (on the table, or on a plain stretch of the board): that half is
    looked at for a rim 3 or 4 studs in (or out), a step of :data:`MIN_STEP` and
    :data:`FAR_OVER_OPPOSITE` times the opposite side's own, as a side that did not
    confirm the pose is looked at further in. A right pose whose half side stepped 7.6
    at the pose (a dev board, its region edge 4 studs in stepping 24) is no flat half.
    """
    quiet = rows[:, pose_at] < FLAT_STEP
    if quiet.all() or not quiet.any() or not np.isfinite(opposite).any():
        return ""
    flat = rows[quiet]
    for far, near, where in (
        (flat[:, pose_at - FAR_REACH : pose_at - FAR_REACH + 2],
         flat[:, pose_at - FAR_REACH + 2 : pose_at + FAR_REACH + 1], "in"),
        (flat[:, pose_at + FAR_REACH - 1 : pose_at + FAR_REACH + 1],
         flat[:, pose_at - FAR_REACH : pose_at + FAR_REACH - 1], "out"),
    ):
        if not (np.isfinite(far).any() and np.isfinite(near).any()):
            continue
        step = float(np.nanmax(far))
        if (float(np.nanmax(near)) < FLAT_STEP and step >= MIN_STEP
                and step >= FAR_OVER_OPPOSITE * float(np.nanmin(opposite))):
            return f"lies flat and steps {step:.0f} three or four studs {where}, like a rim"
    return ""


def lone_rim_problem(profiles: NDArray[np.float64], states: tuple[str, ...], pose_at: int
                     ) -> str:
    """Why an axis held by one side alone is not held (empty if it is).

    ``profiles`` are :func:`side_profiles` rows running outwards, the pose's own move at
    ``pose_at``. A side that did not confirm the pose and shows nothing of the board
    for :data:`FLAT_DEPTH` studs in leaves its axis to the opposite side; that side is a
    rim only if the table beyond it is calm in both halves.
    """
    for side, state in enumerate(states):
        opposite = (side + 2) % 4
        if state == "good" or states[opposite] != "good":
            continue
        inward = profiles[side][:, pose_at - FLAT_DEPTH : pose_at]
        if not np.isfinite(inward).all() or float(inward.max()) >= FLAT_STEP:
            continue
        rim = profiles[opposite]
        beyond_rim = rim[:, pose_at + 1 : pose_at + 1 + BEYOND_STUDS]
        for at, beyond in zip(rim[:, pose_at], beyond_rim, strict=True):
            if (np.isfinite(at) and np.isfinite(beyond).any()
                    and float(np.nanmax(beyond)) >= CALM_BEYOND * float(at)):
                return (
                    f"side {side} shows no board {FLAT_DEPTH} studs in, and side {opposite},"
                    " the only one left along it, steps beyond itself as at the pose"
                )
    return ""


def block_step(rows: NDArray[np.float64]) -> float:
    """The weaker half's step a block in (7 to 9 studs), if in both halves of the side
    it stands :data:`BLOCK_RATIO` times above every other move's; else 0."""
    steps = []
    for row in rows:
        far, rest = row[: BLOCK_REACH - BLOCK_STUDS + 2], row[BLOCK_REACH - BLOCK_STUDS + 2 :]
        if not (np.isfinite(far).any() and np.isfinite(rest).any()):
            return 0.0
        step = float(np.nanmax(far))
        if step < MIN_STEP or step < BLOCK_RATIO * float(np.nanmax(rest)):
            return 0.0
        steps.append(step)
    return min(steps)


def _corners_a_block_in(gray: NDArray[np.float32], camera: Camera, pose: Pose, side: int) -> bool:
    """Whether both corner bricks at ``side``'s ends show with the board moved a block
    inwards from it: where a real rim a block in has them, and a sleeve's edge not."""
    moved = moved_pose(pose, *INWARD[side])
    support = edge_support(gray, camera, moved, EDGE_MODEL, 6.0, 4.0)
    ends = (side, (side + 1) % 4)
    return all(support.get(corner, 0.0) >= MIN_CORNER_SUPPORT for corner in ends)
