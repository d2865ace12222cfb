"""Opposite sides that step together: a board's place along each axis from both its sides.

:mod:`calibration.alias` judges each side on its own: a side is "off" when its colour
step is clearly stronger a stud or two away. A right pose fails that where the card's
regions or a palace just inside a side step harder than the rim does (a dark region
against a light one, a piece at the edge), or where a table of the card's colour, a
board's hard shadow or a card alongside makes a side's own step weak; on the wide twin
such sharp lattices over 15 or 16 blocks were refused with one side "off" or two
"unclear".

What no such side can mimic is the pair: moving the board a stud along an axis moves
both of its sides, one outwards and one inwards, so a board a stud off shows the real
rim a stud over at *both* sides. A move is therefore credited only with the weaker of
the two steps it gives (the pair's joint step); inner regions that step hard at one
side, or a table that steps at the other, do not lift the weaker one. The pose's own
place must beat every move up to two studs either way by :data:`PAIR_RATIO`, on each
axis. It reads the same colour steps as the per-side check (full-size picture, so a
far side is not blurred into the card's first row), with the sides' halves averaged.

A pair cannot pin an axis whose one side shows no rim at all (a table of the board's
colour, a shadow over it): the joint step is that faint side's. There one clear side
pins the axis alone (:func:`_one_side_pins`) when its step at the pose is the strongest
inwards, twice anything outwards (where a board moved in puts the real rim) and twice
the faint side's strongest. On 300 dev wide-twin frames (sharp lattices over 12 or more
blocks) that pinned 220 truths against 202 by pairs alone, and none of the truths moved
by one or two studs along either axis.

A pair read two studs either way says nothing of a board further off, and one clear side
can be a card's edge on the table. So a pose the pairs would take is read again with the
board moved 3 to :data:`FAR_PAIR_MOVES` studs (:func:`_pinned_further`): an axis pinned
by its pair must step harder at the pose than at every such move, an axis pinned by one
side must show no move whose pair steps at both sides far harder than the pose's; and
one side pins no axis whose pair steps twice as hard a stud or two over
(:func:`_pair_prefers_a_move`). Dev seeds 22101 (5 studs off) and 22275 (one stud off)
were located so, from lattice starts, before these.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from calibration.alias import MIN_STEP
from calibration.camera import Camera, FloatArray, Pose
from calibration.side_profiles import side_profiles

PAIR_MOVES = 2
"""Moves (studs either way) the pose's own joint step must beat."""
PAIR_REACH = PAIR_MOVES
"""Studs each way the sides are sampled."""
SIDE_SHARE = 1 / 3
"""The least share of its own strongest step (up to :data:`PAIR_MOVES` studs either way)
a side's step at the pose must have. A pose a stud outside one real side can have a
pair of fake steps (the board's side face or shadow outside it, the card's regions a
stud inside the other side) that outdoes a weak real rim on the other side; the side
outside then still sees the real rim, board against table, a stud in at full strength.
Right poses of the dev frames whose sides were refused one at a time had their weakest
side at 0.42 of its strongest."""
PAIR_RATIO = 2.0
"""How many times every moved pair's joint step the pose's own must be. On 300 dev
wide-twin frames (sharp lattices over 12 or more blocks), the truth moved by one or two
studs reached at most 1.6 (the per-side halves averaged, full size); the truth itself
passed on both axes in 86 % of those frames. With :data:`SIDE_SHARE` too, on 300 more,
none of the truth's moves passed and 83 % of the truths did."""
FAR_PAIR_MOVES = 6
"""Studs either way to which a pair that pins its axis is compared with the board moved
further (3 to this many studs): no such move's joint step may match the pose's own. A
board 5 studs off (dev seed 22101) had one side on a card's straight edge in one half,
flat on the table in the other, and the opposite side on the board's studs; that pair
beat every move up to two studs by 7 times, and the board's real place, 5 studs over,
stepped 1.24 times as hard. Right poses of 240 dev frames pinned by a pair reached at
most 0.81 of their own joint step at 3 to 6 studs (0.95 at 7 or 8: a lattice block's
move is :mod:`calibration.far_side`'s)."""
FAR_SIDE_STEP = 15.0
"""Lab units: the joint step a move of 3 to :data:`FAR_PAIR_MOVES` studs must show (with
:data:`FAR_SIDE_RATIO`) to unpin an axis pinned by one side. Truths of 240 dev frames
(sharp lattices of 20000 to 20299, 22101, 22275) moved by one or 3 to 6 studs along an axis (4,800
moves) had the moved axis pinned by one side in 15, the side on a region edge of the
card or a card's edge on the table and the opposite side faint; in 14 the pair at the
board's real place stepped 4 to 34 times the pose's (the 15th, 22275, is
:func:`_pair_prefers_a_move`'s). Held to this, one of those 14 stays pinned (20162, 11)
and none of the 224 truths the pairs pinned is lost (a floor of 10 and a ratio of 2 lost
20010, whose own faint side shows a card's edge 4 studs out). On 113 more (21000 to
21149) it and the pairs' far check unpinned all 15 moves the pairs took, and none of 96
truths."""
FAR_SIDE_RATIO = 3.0
"""How many times the pose's own joint step that far move's must be (see
:data:`FAR_SIDE_STEP`)."""


def joint_steps(profiles: FloatArray) -> FloatArray:
    """Per axis (x, y) and move of the board (-reach..reach studs), the weaker side's step.

    ``profiles`` as :func:`calibration.side_profiles.side_profiles` gives them: each side's
    rows run from inwards to outwards. Moving the board by +m along x moves side 1
    outwards by m and side 3 inwards by m (along y: side 2 out, side 0 in). NaN where a
    side is out of the picture at that move.
    """
    with np.errstate(all="ignore"):
        per_side = np.array([_halves_mean(halves) for halves in profiles])
    x = np.minimum(per_side[1], per_side[3][::-1])
    y = np.minimum(per_side[2], per_side[0][::-1])
    return np.stack([x, y])


def _halves_mean(halves: FloatArray) -> FloatArray:
    """The mean step of a side's halves that the picture shows, per move (NaN if none)."""
    finite = np.isfinite(halves)
    count = finite.sum(axis=0)
    total = np.where(finite, halves, 0.0).sum(axis=0)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _sides_own_their_steps(profiles: FloatArray) -> bool:
    """Whether every side's step at the pose is at least :data:`SIDE_SHARE` of its
    strongest within :data:`PAIR_MOVES` studs (the sides' halves averaged)."""
    near = slice(PAIR_REACH - PAIR_MOVES, PAIR_REACH + PAIR_MOVES + 1)
    with np.errstate(all="ignore"):
        for halves in profiles:
            steps = _halves_mean(halves)[near]
            if not np.isfinite(steps).all() or steps[PAIR_MOVES] < SIDE_SHARE * steps.max():
                return False
    return True


def _one_side_pins(profiles: FloatArray) -> NDArray[np.bool_]:
    """Per axis (x, y), whether one of its two sides pins it alone, its opposite faint.

    A side whose opposite shows no rim (a table of the board's colour, a shadow over it)
    leaves the pair's joint step to that faint side, and the pair cannot pin. The clear
    side still can: it steps at the pose at least as hard as anywhere inwards (the card's
    regions), :data:`PAIR_RATIO` times anything up to :data:`PAIR_MOVES` studs outwards
    (a board moved in by a stud or two puts the real rim there), and as many times the
    opposite side's strongest step (so no rim there says otherwise). Nor where the pair
    itself says otherwise (:func:`_pair_prefers_a_move`): the opposite side is faint only
    where the pose puts it.
    """
    with np.errstate(all="ignore"):
        per_side = [_halves_mean(halves) for halves in profiles]
    near = slice(PAIR_REACH - PAIR_MOVES, PAIR_REACH + PAIR_MOVES + 1)
    prefers = _pair_prefers_a_move(joint_steps(profiles))
    out = np.zeros(2, bool)
    for axis, (a, b) in enumerate(((1, 3), (2, 0))):
        if prefers[axis]:
            continue
        for side, other in ((per_side[a], per_side[b]), (per_side[b], per_side[a])):
            side, other = side[near], other[near]
            if not (np.isfinite(side).all() and np.isfinite(other).all()):
                continue
            step = side[PAIR_MOVES]
            out[axis] |= bool(
                step >= MIN_STEP
                and step >= side[:PAIR_MOVES].max()
                and step >= PAIR_RATIO * side[PAIR_MOVES + 1 :].max()
                and step >= PAIR_RATIO * other.max()
            )
    return out


def _pair_prefers_a_move(joint: FloatArray) -> NDArray[np.bool_]:
    """Per axis, whether the pair steps together a stud or two over, at least
    :data:`~calibration.alias.MIN_STEP` and :data:`PAIR_RATIO` times its joint step at the
    pose: there both sides show a rim, so the side that looked faint at the pose is not.

    A board a stud off (dev seed 22275) had one side, the pose's, stepping 99 in one half
    on a card's edge a stud outside the rim and 5 in the other half, where the real rim
    stepped 40 a stud in; averaged, that side outstepped its opposite twice, while the
    pair stepped 19 a stud over against 7 at the pose. Of 224 right poses over sharp
    lattices (dev frames 20000 to 20299) pinned in pairs, none had an axis pinned by one
    side that this refuses.
    """
    own = joint[:, PAIR_REACH]
    near = np.delete(joint[:, PAIR_REACH - PAIR_MOVES : PAIR_REACH + PAIR_MOVES + 1],
                     PAIR_MOVES, axis=1)
    with np.errstate(invalid="ignore"):
        strong = (near >= MIN_STEP) & (near >= PAIR_RATIO * own[:, None])
    return strong.any(axis=1)


def strongest_far_move(joint: FloatArray, reach: int
                       ) -> tuple[NDArray[np.float64], NDArray[np.int_]]:
    """Per axis, the strongest joint step (:func:`joint_steps`, read ``reach`` studs each
    way) of the moves beyond the pair's own reach (:data:`PAIR_MOVES`), and that move in
    studs: where a board a few studs off would show both rims at once. -inf and the
    first such move where no step there is known."""
    moves = np.array([m for m in range(-reach, reach + 1) if abs(m) > PAIR_MOVES])
    far = np.nan_to_num(joint[:, reach + moves], nan=-np.inf)
    at = np.argmax(far, axis=1)
    return far[np.arange(len(far)), at], moves[at]


def _pinned_further(
    image: NDArray[np.uint8], camera: Camera, pose: Pose,
    by_pair: NDArray[np.bool_], by_side: NDArray[np.bool_],
) -> bool:
    """Whether every axis stays pinned with the board moved 3 to :data:`FAR_PAIR_MOVES`
    studs either way: a pair pins only the moves it was read at.

    An axis pinned by its pair must step harder there than at every such move (see
    :data:`FAR_PAIR_MOVES`). An axis pinned by one side has a faint pair at the pose by
    construction, so it is held only against a move whose pair shows a rim at both sides:
    a joint step of :data:`FAR_SIDE_STEP` and :data:`FAR_SIDE_RATIO` times the pose's.
    """
    profiles = side_profiles(image, camera, pose, FAR_PAIR_MOVES, halved=False)
    joint = joint_steps(profiles)
    own = joint[:, FAR_PAIR_MOVES]
    best, _ = strongest_far_move(joint, FAR_PAIR_MOVES)
    pair_holds = by_pair & (best < own)
    side_holds = by_side & ~((best >= FAR_SIDE_STEP) & (best >= FAR_SIDE_RATIO * own))
    return bool(np.all(pair_holds | side_holds))


def axis_margins(joint: FloatArray, reach: int) -> NDArray[np.float64]:
    """Per axis, the pose's own joint step over the strongest moved one (NaN if unseen)."""
    own = joint[:, reach]
    moved = np.delete(joint[:, reach - PAIR_MOVES : reach + PAIR_MOVES + 1], PAIR_MOVES, axis=1)
    out = np.full(len(joint), np.nan)
    for axis in range(len(joint)):
        if np.isfinite(own[axis]) and np.isfinite(moved[axis]).all():
            out[axis] = own[axis] / max(float(moved[axis].max()), 1e-3)
    return out


class SidePairs(NamedTuple):
    """What the pairs of opposite sides say of a pose: whether they pin it, and the
    whole-stud move (``dx``, ``dy``) whose pairs step most."""

    pinned: bool
    move: tuple[int, int]


def side_pairs(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> SidePairs:
    """Whether both pairs of opposite sides step clearly where the pose puts them, and
    where they step most.

    To pin, each axis's own joint step must be at least
    :data:`~calibration.alias.MIN_STEP` and :data:`PAIR_RATIO` times every move's up to
    :data:`PAIR_MOVES` studs; an axis with a side out of the picture does not pin (the
    rim just past the frame's edge). A pose so pinned must also stand against moves of 3
    to :data:`FAR_PAIR_MOVES` studs (:func:`_pinned_further`). The move is the one of up
    to :data:`PAIR_MOVES` studs per axis with the strongest joint step (0 where a side is
    unseen): unlike the sides' summed steps (:func:`calibration.alias.best_stud_move`), a
    palace or the card's regions just inside one side cannot pull it.
    """
    profiles = side_profiles(image, camera, pose, PAIR_REACH, halved=False)
    joint = joint_steps(profiles)
    margins = axis_margins(joint, PAIR_REACH)
    own = joint[:, PAIR_REACH]
    by_pair = np.isfinite(margins) & (margins >= PAIR_RATIO) & (own >= MIN_STEP)
    by_side = _one_side_pins(profiles)
    pinned = bool(np.all(by_pair | by_side) and _sides_own_their_steps(profiles))
    if pinned:
        # Read further only for a pose the pairs would take: a few more moves sampled.
        pinned = _pinned_further(image, camera, pose, by_pair, by_side)
    near = joint[:, PAIR_REACH - PAIR_MOVES : PAIR_REACH + PAIR_MOVES + 1]
    dx, dy = (
        int(np.nanargmax(row)) - PAIR_MOVES if np.isfinite(row).all() else 0 for row in near
    )
    return SidePairs(pinned, (dx, dy))
