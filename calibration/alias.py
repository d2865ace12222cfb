"""Is the stud grid on the right stud? The board's sides as boundaries between two regions.

The stud lattice repeats every 8 mm, so a lattice fit one stud off fits the studs as
well as the right one, and an edge search finds stud rows as strong as the rim a stud
further in. What the stud one over cannot mimic is the boundary itself: just inside the
right rim lies the board, just outside it the table. One stud off outwards both bands
lie on the table, one stud off inwards both lie on the board, and either way the colour
step across the side vanishes. Each half of each side is compared with itself moved one
and two studs in and out; a pose passes when no side is clearly better elsewhere and at
least three sides are clearly right where the pose puts them. The test compares
colours, never particular ones, so it holds for any table, light or colour cast that
leaves the board distinguishable from the table at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import moved_pose
from calibration.camera import Camera, FloatArray, Pose
from calibration.side_profiles import REACH, side_profiles

MIN_STEP = 10.0
"""Lab units: a side stepping less than this is covered or lies against its own colour."""
GOOD_RATIO = 1.5
BAD_RATIO = 1.3
TABLE_RATIO = 3.0
"""How many times the table's own steps (further out) a side's step must be to be an edge."""
MIN_EDGE_STEP = 6.0
"""A step this small still marks an edge when the table further out is three times calmer."""
MIN_GOOD_SIDES = 3
SIZE_PINNING_BLOCKS = 10
"""Lattice blocks (of 16) from which on the lattice alone fixes the board's size."""
ALIAS_SHARE = 0.6
OUTWEIGH_RATIO = 3.0
"""How many times the step elsewhere that puts a side a stud off its opposite side's own
step must be, for the side to count against a lattice that pins the board's size."""
OUTWEIGHED_BLOCKS = 12
"""Lattice blocks from which on a side outweighed by its opposite is not held against it."""
FOUR_SIDES_REACH = 12
"""Studs along each axis over which :func:`four_sides_elsewhere` looks for the board.
1,000 fresh wide-twin frames (seeds 80000-80999) held two poses taken 6 and 10 studs
along one axis, two or three sides good and none off, with all four sides good at the
truth; 12 covers both with a margin, and a look is about 40 ms."""


@dataclass(frozen=True)
class BoundaryCheck:
    """Sides whose boundary is where the pose puts it, and sides where it lies a stud off."""

    good: int
    bad: int
    detail: tuple[str, ...]
    both_axes: bool = False
    """Whether each direction (x and y) has at least one good side."""
    excused: int = 0
    """Bad sides off in one half only, whose opposite side steps firmly where it should."""
    outweighed: int = 0
    """Bad sides whose stronger step elsewhere is a small fraction of the step their
    opposite side makes, firmly, where the pose puts it (see :meth:`outweighs`)."""
    paired: bool = False
    """Whether the board's place is pinned along both axes without the per-side rule:
    both pairs of opposite sides step together where the pose puts them, far more than
    with the board moved a stud or two (:mod:`calibration.side_pairs`), or, along an axis
    with no good side, the corner bricks pin it (:mod:`calibration.corner_pins`), or the
    rows of stud tops end where the board ends on both axes (:mod:`calibration.stud_rows`).
    Worked out only for sharp lattices over most of the board, see ``calibration.fit``."""

    @property
    def states(self) -> tuple[str, ...]:
        """Each side's state in side order (``good``, ``off``, ``unclear``, ...), as
        :attr:`detail` writes them."""
        return tuple(d.split(":", 1)[1] for d in self.detail)

    @property
    def passed(self) -> bool:
        """No side a stud off, and at least three sides right.

        Two sides are not enough on their own: a pair of opposite sides says nothing
        about a shift along them, and a pair of neighbouring sides fixes one corner
        only, so that a lattice with a stud too few between that corner and the far
        sides would pass. Three sides pin both directions and the board's size.
        """
        return self.bad == 0 and self.good >= MIN_GOOD_SIDES

    def holds(self, lattice_blocks: int) -> bool:
        """:attr:`passed`, or as good as that when the lattice pins the board's size.

        A stud too few across the board puts the far studs half a stud off after 16
        studs, which a lattice fit over most of the board cannot absorb: with
        :data:`SIZE_PINNING_BLOCKS` blocks agreeing, the lattice fixes the board's size
        and its tilt. Then one good side per direction fixes the board's place, and a
        side off in one half only while its opposite side steps firmly is an arm over
        that half: a pose a stud off across it would be off at the opposite side too.
        Sides that step in pairs, or rows of stud tops ending the board on both axes
        (:attr:`paired`), pin the board on both axes as well.
        """
        if self.passed or self.outweighs(lattice_blocks) or self.paired:
            return True
        if lattice_blocks < SIZE_PINNING_BLOCKS or self.off_sides(lattice_blocks):
            return False
        return self.good >= MIN_GOOD_SIDES or self.both_axes

    def outweighs(self, lattice_blocks: int) -> bool:
        """Whether three sides right and every side off outweighed pin the board.

        A board a stud off across two opposite sides moves both of them: the real
        boundary shows a stud over at each, as strong as a board-to-table step. Where one
        of the pair steps firmly at the pose and the other finds only a step a third as
        strong anywhere (the table there has the card's colour, a card lies along it),
        that weak step is no boundary. Only over a lattice that pins the board's size
        and tilt, so that the two sides cannot disagree by a stud.
        """
        return (
            lattice_blocks >= OUTWEIGHED_BLOCKS
            and self.bad > 0
            and self.outweighed == self.bad
            and self.good >= MIN_GOOD_SIDES
        )

    def off_sides(self, lattice_blocks: int) -> int:
        """Sides a stud off, less the excused ones where the lattice pins the size."""
        return self.bad - (self.excused if lattice_blocks >= SIZE_PINNING_BLOCKS else 0)


def check_boundary(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, halved: bool = True
) -> BoundaryCheck:
    """Whether the board's four sides are each where the pose puts them, to the stud.

    A side is good when its colour step is clearly stronger than with the side moved a
    stud or two either way, bad when the step is clearly stronger somewhere else (the
    lattice sits a stud off there, or the pose has one stud too many across the
    board), and undecided when the side is covered or out of the picture. Every side
    is judged on its own, so one sharp side cannot vouch for a pose that is wrong at
    the other end of the board. The picture is looked at in half size unless not
    ``halved`` (see :func:`_side_picture`).
    """
    return judge_sides(side_profiles(image, camera, pose, halved=halved))


def four_sides_elsewhere(image: NDArray[np.uint8], camera: Camera, pose: Pose,
                         boundary: BoundaryCheck) -> str:
    """Why a pose short of four good sides is not the board's place (empty if nothing
    says so): the board whole studs along one of its axes has all four sides where it
    puts them.

    A lattice slid whole studs along an axis keeps the two sides parallel to it where
    they were, and the sides across it can land on a palace's wall, a card or a hand
    and read unclear, or even good: no side reads off, and the search takes the first
    start that passes. Four good sides are what the right place shows wherever nothing
    covers the board (none of 194 right development poses had a rival with four good
    sides, while two of ten wrong fresh poses, 6 and 10 studs off, did).
    """
    if boundary.good == 4:
        return ""
    for axis in (0, 1):
        for step in range(-FOUR_SIDES_REACH, FOUR_SIDES_REACH + 1):
            if step == 0:
                continue
            move = (step, 0) if axis == 0 else (0, step)
            if check_boundary(image, camera, moved_pose(pose, *move)).good == 4:
                return f"all four of the board's sides stand {abs(step)} studs along"
    return ""


def judge_sides(profiles: FloatArray) -> BoundaryCheck:
    """The boundary check on side profiles already sampled (see :func:`side_profiles`)."""
    halves_states = [_side_states(halves) for halves in profiles]
    states = [_side_state(h) for h in halves_states]
    excused = sum(
        states[side] == "off"
        and halves.count("off") == 1
        and states[(side + 2) % 4] == "good"
        and _firm(profiles[(side + 2) % 4])
        for side, halves in enumerate(halves_states)
    )
    outweighed = sum(
        states[side] == "off"
        and states[(side + 2) % 4] == "good"
        and _firm(profiles[(side + 2) % 4])
        and _outweighed(profiles[side], profiles[(side + 2) % 4])
        for side in range(len(states))
    )
    good, bad = states.count("good"), states.count("off")
    both_axes = "good" in (states[0], states[2]) and "good" in (states[1], states[3])
    detail = tuple(f"{side}:{state}" for side, state in enumerate(states))
    return BoundaryCheck(good, bad, detail, both_axes, excused, outweighed)


def _outweighed(off: FloatArray, opposite: FloatArray) -> bool:
    """Whether every step of the ``off`` side, moved or not, is under a third of the
    opposite side's own step in each of its halves that the picture shows."""
    seen = [row for row in opposite if np.isfinite(row).all()]
    shown = [row for row in off if np.isfinite(row).all()]
    if not seen or not shown:
        return False
    strong = min(float(row[REACH]) for row in seen)
    weak = max(float(row.max()) for row in shown)
    return strong >= OUTWEIGH_RATIO * weak


def _side_states(halves: FloatArray) -> list[str]:
    """Each half side's state, an arm's step across one half told from a turned pose."""
    states = [_half_state(row) for row in halves]
    if "good" in states and "off" in states:
        # One half right and the other a stud off is what a pose turned by a stud
        # along the side looks like, but also what an arm lying across half a side
        # looks like. A turned pose finds the real boundary, as strong as the good
        # half's, a stud over; an arm shows only a weaker step of its own.
        # Two studs between the halves would be a turn of four studs along the side,
        # which no lattice fit survives: that half sees something else.
        sharp = max(float(r[REACH]) for r, st in zip(halves, states, strict=True) if st == "good")
        states = [
            "unclear" if st == "off" and (_other(r) < ALIAS_SHARE * sharp or _only_far(r)) else st
            for r, st in zip(halves, states, strict=True)
        ]
    return states


def _side_state(states: list[str]) -> str:
    if "off" in states:
        return "off"
    if "good" in states:
        return "good"
    if all(s == "unseen" for s in states):
        return "unseen"
    return "unclear"


def _firm(halves: FloatArray) -> bool:
    """Whether a half of the side steps clearly above every moved copy (not only the table)."""
    return any(bool(np.isfinite(row).all()) and _steps_clearly(row) for row in halves)


def _steps_clearly(row: FloatArray) -> bool:
    """Whether the pose's own step is strong and well above every moved copy's."""
    own = float(row[REACH])
    return own >= MIN_STEP and own >= GOOD_RATIO * _other(row)


def _only_far(row: FloatArray) -> bool:
    """Whether the steps that beat the pose's own all lie two or more studs away."""
    own = float(row[REACH])
    near = max(float(row[REACH - 1]), float(row[REACH + 1]))
    return near < BAD_RATIO * own or near < MIN_STEP


def _other(row: FloatArray) -> float:
    """The strongest step with the side moved by one or more studs."""
    return float(np.delete(row, REACH).max())


def _half_state(row: FloatArray) -> str:
    """Good, off, unclear or unseen: one half side's step against its moved copies.

    Two kinds of stronger step elsewhere do not count against the pose, because a pose
    a stud or two off cannot show them:

    - A step stronger only two studs away, while the pose's own stands clearly above
      its neighbours one stud either way: a pose two studs off would find its own bands
      both on the card or both on the table, with no step between them.
    - A step stronger only inwards (a region of the ground map, an arm on the board),
      while the pose's own is several times what the table shows further out: a pose
      a stud too far out would have both its bands on the table too.

    For the same reason a pose's own step that is the strongest of all and several times
    the table's is good even where the map's regions inside come close to it.
    """
    if not np.isfinite(row).all():
        return "unseen"
    own = float(row[REACH])
    other = _other(row)
    table = float(row[REACH + 1 :].max())
    clear_of_table = own >= MIN_EDGE_STEP and own >= TABLE_RATIO * table
    if _steps_clearly(row):
        return "good"
    if clear_of_table and own >= other:
        return "good"
    if other >= MIN_STEP and other >= BAD_RATIO * own:
        near = max(float(row[REACH - 1]), float(row[REACH + 1]))
        if own >= MIN_STEP and own >= GOOD_RATIO * near and near < BAD_RATIO * own:
            return "unclear"
        if clear_of_table:  # so whatever beats the pose's own step lies inwards
            return "unclear"
        return "off"
    return "unclear"


def best_stud_shift(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int = REACH
) -> Pose:
    """The pose moved by whole studs (up to ``reach`` each way) whose sides step most.

    A lattice fit started a few pixels off can lock on a stud or two over, and every
    stud of such a fit still sits on a stud; only the boundary tells which one is the
    edge's. Whole-stud moves keep the lattice fit, so no refitting is needed after.
    """
    return moved_pose(pose, *best_stud_move(image, camera, pose, reach))


def best_stud_move(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int = REACH
) -> tuple[int, int]:
    """The whole-stud move (``dx``, ``dy``) of :func:`best_stud_shift`.

    Each axis is settled by its own two sides.
    """
    return stud_moves(image, camera, pose, reach)[0]


def stud_moves(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int = REACH
) -> list[tuple[int, int]]:
    """The sides' best whole-stud move first (:func:`best_stud_move`), then the runners-up:
    the best move with one axis taken to its second peak instead, the nearer to its
    axis's best first.

    A card against a side, or a hand and a sleeve along it, can step harder a few studs
    off than the rim does: the summed steps along that axis then peak on the card and
    next on the rim (dev boards 4 and 7 studs off, the rim's peak 0.8 times the card's),
    while the other axis is right. The runners-up are starts for the checks to judge,
    never answers of their own.
    """
    profiles = side_profiles(image, camera, pose, reach)
    filled = np.nan_to_num(profiles, nan=0.0).sum(axis=1)
    # Rows 0 and 3 were flipped to run outwards: undo that to index them by the move.
    along = (filled[1] + filled[3, ::-1], filled[2] + filled[0, ::-1])
    best = tuple(int(np.argmax(a)) for a in along)
    ranked: list[tuple[float, tuple[int, int]]] = []
    for axis, steps in enumerate(along):
        second = _second_peak(steps, best[axis])
        if second is not None:
            move = list(best)
            move[axis] = second
            ranked.append((float(steps[second] / max(steps[best[axis]], 1e-9)), tuple(move)))
    ranked.sort(key=lambda item: -item[0])
    return [(best[0] - reach, best[1] - reach)] + [
        (mx - reach, my - reach) for _, (mx, my) in ranked
    ]


def _second_peak(steps: FloatArray, best: int) -> int | None:
    """The strongest local maximum of ``steps`` other than ``best``, if any."""
    padded = np.concatenate(([-np.inf], steps, [-np.inf]))
    peaks = [
        i for i in range(len(steps))
        if i != best and padded[i + 1] >= padded[i] and padded[i + 1] >= padded[i + 2]
        and steps[i] > 0
    ]
    return max(peaks, key=lambda i: steps[i]) if peaks else None
