"""The stud tops along each side: where the plate's plastic ends, the board's place.

Every stud top is the plate's plastic, one colour all over the board (see
:mod:`calibration.stud_tops`). So the row of stud tops along a side, and the row inside
it, show that colour where the pose is right, and the rows one and two studs outside it
show the table. A board a stud or more off along the axis shows it at both of that
axis's sides: at one its own row lies on the table, at the other the row outside lies on
the board. Unlike the colour step across the side (:mod:`calibration.alias`), nothing
beside the board can mimic that: the card's regions are not the plate's colour, a
striped table or a card against the side steps wherever it lies, but a row of tops of
the plate's colour ends only where the plate does. Where the table is the plate's
colour, or a hand or a card covers the row, the rows say nothing.

Only a lattice that fixes the board's size (:func:`calibration.side_pinning.pins_own_size`) is
asked, where its sides do not pin it: the rows say where the board ends, not how large
it is. At the truths of 400 dev wide-twin frames the rows pinned both axes of 237 of the
316 such lattices, and of 9,464 truths moved 1 to 6 or 8 studs along an axis, that axis
of one (a board 8 studs off whose sides pass it anyway, refused by the far side's read a
block in; see docs/real-tables-log.md, "Sides the colour steps cannot read").
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import stud_centres
from calibration.camera import Camera, FloatArray, Pose
from calibration.stud_tops import plate_top_colours, plate_tops_show
from rules.pieces import BOARD_STUDS, STUD_MM

ROW_MOVES = (-1, 0, 1, 2)
"""Studs outwards of each side's own row that are read: the row inside, its own, and the
two outside."""
EDGE_SHARE = 0.8
"""The least share of a side's own row, and of the row inside it, whose tops must show
the plate's colour for the side to mark where the board ends."""
OFF_SHARE = 0.2
"""The most share of each of the two rows outside a side that may show it."""
END_CELLS = 3
"""Cells left out at each end of a row: the corner bricks stand there."""
MIN_ROW_CELLS = 12
"""Cells of a row that must lie in the picture for its share to count."""
OUTWARDS = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], dtype=float)
"""Each side's outward direction in the board's frame (side 0 at y = 0, 1 at x = 256 mm,
2 at y = 256 mm, 3 at x = 0)."""
MOVE_REACH = 2
"""Studs either way a pose may be moved to where the rows end (:func:`rows_move`)."""


def _edge_rows() -> list[NDArray[np.int64]]:
    """Each side's own row of stud indices (stud_centres is y major), less its ends."""
    idx = np.arange(BOARD_STUDS * BOARD_STUDS).reshape(BOARD_STUDS, BOARD_STUDS)
    keep, last = slice(END_CELLS, BOARD_STUDS - END_CELLS), BOARD_STUDS - 1
    return [idx[0, keep], idx[keep, last], idx[last, keep], idx[keep, 0]]


_ROWS = _edge_rows()


def row_shares(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, moves: tuple[int, ...] = ROW_MOVES
) -> FloatArray:
    """Per side and move (studs outwards), the share of the row's stud tops (the side's
    own row moved that many studs outwards) that show the plate's colour; NaN where too
    little of the row is in the picture.

    The plate's colour is that of the pose's own stud tops: their median colour, within
    :data:`~calibration.stud_tops.PLATE_TOP_SPREAD` times their median distance from it.
    """
    studs = stud_centres()
    rows = [
        studs[_ROWS[side]] + np.append(OUTWARDS[side] * move * STUD_MM, 0.0)
        for side in range(4)
        for move in moves
    ]
    lab = plate_top_colours(image, camera, pose, np.vstack([studs, *rows]))
    reference = np.zeros(len(lab), bool)
    reference[: len(studs)] = True
    plate = plate_tops_show(lab, reference)[len(studs) :]
    seen = np.isfinite(lab[len(studs) :, 0])
    size = len(_ROWS[0])
    shares = np.full(4 * len(moves), np.nan)
    for i in range(len(shares)):
        cells = slice(i * size, (i + 1) * size)
        if seen[cells].sum() >= MIN_ROW_CELLS:
            shares[i] = plate[cells][seen[cells]].mean()
    return shares.reshape(4, len(moves))


def rows_pin(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, states: tuple[str, ...] = ()
) -> bool:
    """Whether the stud-top rows pin the board's place along both axes.

    An axis is pinned when one of its two sides marks the board's end (its own row and
    the row inside at least :data:`EDGE_SHARE` the plate's colour, both rows outside at
    most :data:`OFF_SHARE`) and neither side shows the board going on outside it
    (more than :data:`OFF_SHARE` of the row outside it the plate's colour: the board, a
    table of its colour, or, on a near side seen low, the plate's own side face) or
    ending a stud inside it (its own row at most :data:`OFF_SHARE`, the row inside at
    least :data:`EDGE_SHARE`). Every side whose colour step reads it a stud off (``states``, as
    :attr:`calibration.alias.BoundaryCheck.states`) must itself mark the board's end: a
    striped table or a card beside it then steps outside the rim, not the board.
    """
    shares = np.nan_to_num(row_shares(image, camera, pose), nan=-1.0)
    edge = _ends(shares, ROW_MOVES.index(0))
    if any(state == "off" and not edge[side] for side, state in enumerate(states)):
        return False
    return all(_pinned_axes(shares, edge))


def _pinned_axes(shares: FloatArray, edge: NDArray[np.bool_]) -> tuple[bool, bool]:
    """Per axis (x, y), whether the rows pin it (:func:`rows_pin`, without the sides'
    states); ``shares`` from :func:`row_shares` at :data:`ROW_MOVES`, NaN read as -1, and
    ``edge`` whether each side's own row marks the board's end (:func:`_ends`)."""
    # A side's row outside showing the plate's colour (the board goes on), or its own row
    # not showing it while the row inside does (the board ends a stud in): a board a
    # stud off shows one or the other at one of its axis's sides.
    own, inside = shares[:, ROW_MOVES.index(0)], shares[:, ROW_MOVES.index(-1)]
    against = (shares[:, ROW_MOVES.index(1)] > OFF_SHARE) | (
        (own >= 0.0) & (own <= OFF_SHARE) & (inside >= EDGE_SHARE)
    )
    x, y = ((edge[a] or edge[b]) and not (against[a] or against[b]) for a, b in ((1, 3), (0, 2)))
    return bool(x), bool(y)


def _ends(shares: FloatArray, at: int) -> NDArray[np.bool_]:
    """Per side, whether the board ends at the row of index ``at`` of ``shares`` (rows a
    stud apart, outwards): that row and the one inside it the plate's colour, the two
    outside it not, all four in the picture (NaN read as -1)."""
    inner, outer = shares[:, at - 1 : at + 1], shares[:, at + 1 : at + 3]
    return (inner >= EDGE_SHARE).all(axis=1) & ((outer >= 0.0) & (outer <= OFF_SHARE)).all(
        axis=1
    )


BEYOND_SHARE = 0.5
"""The least share of each row outside a side whose tops must show the plate's colour
for :func:`rows_problem` to read the board going on past it. Fresh wide-twin poses slid
2 to 10 studs along an axis showed 0.54 to 1.0 on every row up to the board's end; about
one right pose in twelve shows 0.5 or more on the two rows past some side (a table of
the plate's colour, the plate's own side face seen low), which is why the rows must
then stop sharply and the opposite side end short."""
SHORT_INSIDE_SHARE = 0.5
"""The most share of the row inside the opposite side whose tops may show the plate's
colour for the board to end short of that side (its own row at most
:data:`OFF_SHARE`): the slid poses showed 0.0 to 0.31."""
END_REACH = 12
"""Studs past a side within which the plate's tops must stop, as far as
:func:`calibration.alias.four_sides_elsewhere` looks. The slid poses' tops stopped 3 to
9 studs past it (0.0 on the first row off the board); on a table of the plate's colour
the share goes on past 12 studs or fades through a half (0.62 at 8 studs, 0.46 at 12,
0.06 at 15 beside a right pose)."""


def rows_problem(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> str:
    """Why the rows of stud tops say the board lies studs along from ``pose`` (empty if
    they do not): past one side the plate's tops go on for two rows or more and then
    stop, within :data:`END_REACH` studs, while the opposite side's own row and the row
    inside it do not show them.

    A lattice slid whole studs along an axis keeps the lattice's blocks agreeing, and
    the sides across the axis can land on a card, a hand or a palace's wall and read
    unclear or even good; what moved is where the plate's tops end, and nothing beside
    the board ends the way its rows of tops do: each row at least half the plate's
    colour, then a row at most a fifth.
    """
    moves = tuple(range(-1, END_REACH + 1))
    shares = np.nan_to_num(row_shares(image, camera, pose, moves), nan=-1.0)
    own, inside = moves.index(0), moves.index(-1)
    for side in range(4):
        opposite = (side + 2) % 4
        past = shares[side, moves.index(1):]
        below = np.flatnonzero(past < BEYOND_SHARE)  # NaN (out of the picture) is -1
        on = int(below[0]) if len(below) else len(past)  # rows showing the plate's tops
        stops = 2 <= on < len(past) and 0.0 <= past[on] <= OFF_SHARE
        ends_short = (0.0 <= shares[opposite, own] <= OFF_SHARE
                      and 0.0 <= shares[opposite, inside] <= SHORT_INSIDE_SHARE)
        if stops and ends_short:
            return (f"the plate's stud tops go on {on} studs past side {side} and end "
                    f"short of side {opposite}: the board lies studs along")
    return ""


def rows_move(image: NDArray[np.uint8], camera: Camera, pose: Pose) -> tuple[int, int]:
    """The whole-stud move (``dx``, ``dy``, up to :data:`MOVE_REACH` each way) that puts
    each axis's sides where the rows of stud tops end, 0 along an axis whose sides do
    not say so or disagree. A start for the checks (:func:`rows_pin` among them), never
    an answer: where a side past the frame's edge or a striped table draws the sides'
    own move (:func:`calibration.alias.best_stud_move`) studs off, the rows are not."""
    moves = tuple(range(-MOVE_REACH - 1, MOVE_REACH + 3))
    shares = np.nan_to_num(row_shares(image, camera, pose, moves), nan=-1.0)
    ends = np.array([_ends(shares, moves.index(m)) for m in range(-MOVE_REACH, MOVE_REACH + 1)])
    out = []
    for a, b in ((1, 3), (2, 0)):
        # Side a ending m studs outwards moves the board +m along its axis, side b -m.
        found = {int(m) - MOVE_REACH for m in np.flatnonzero(ends[:, a])}
        found |= {MOVE_REACH - int(m) for m in np.flatnonzero(ends[:, b])}
        out.append(found.pop() if len(found) == 1 else 0)
    return out[0], out[1]
