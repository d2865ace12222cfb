"""Where on its plane the board lies, from the ground map's colours alone.

The stud lattice fixes the board's plane and leaves its place open by a few studs. The
board's sides usually settle it, but an arm can hide them and a card against the board
can outstep the real edge. The ground map is a second, independent witness: its regions
are a few studs across and laid out differently under each quarter turn, so sliding the
map's layout over the colours seen on the plane finds where (and which way round) the
board lies, wherever enough of the map shows.

Only cells that show a stud take part: the table, a card, a sleeve or a hand beside the
board is often one flat colour, which a region of the map slid onto it would take for a
perfect fit. Each place is scored as the turn is (:func:`calibration.turn.fisher_score`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import moved_pose, turned_pose
from calibration.camera import Camera, FloatArray, Pose, lab_samples
from calibration.lattice_view import rectify_map
from calibration.stud_cell import stud_scores
from calibration.turn import (
    UNTURN,
    VISIBLE_STUD,
    agreements,
    card_means,
    card_points,
    map_explains,
    map_labels,
    null_labelings,
    turn_scores,
)
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, STUD_MM

COARSE_STEP = 2
"""Studs between the places tried first: the map's regions are wider than that."""


@dataclass(frozen=True)
class MapPlace:
    """The whole-stud move and quarter turn under which the map fits best, and its score."""

    dx: int
    dy: int
    turn: int
    score: float
    rival: float = 0.0
    """The best score (any turn) at the move it was asked to compare with."""
    weigh: Callable[[], bool] | None = field(default=None, repr=False, compare=False)
    """Works out :meth:`explains` where the map would move the board away from
    ``rival``'s place (None: it keeps the board there, which needs no weighing)."""

    def explains(self) -> bool:
        """Whether the place fits far better than unrelated layouts would fit anywhere.

        Worked out when asked: a caller asks only of a place that outscores the sides'
        place clearly, and the unrelated layouts slid over the whole search cost most
        of a placement's time (60 to 120 ms on development frames)."""
        return True if self.weigh is None else self.weigh()

    def apply(self, pose: Pose) -> Pose:
        """The pose moved and turned to where the map puts the board."""
        return turned_pose(moved_pose(pose, self.dx, self.dy), self.turn)


def stud_cells(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, reach: int
) -> NDArray[np.bool_]:
    """Which cells of a grid reaching ``reach`` studs beyond the plate show a stud.

    The pose must already sit on the lattice (to a fraction of a stud). Rows y, columns
    x; a cell shows a stud when its rim's edges are clearly sharper than its top's.
    """
    rect = cv2.remap(gray, rectify_map(camera, pose, reach), None, cv2.INTER_LINEAR)
    mag = cv2.magnitude(
        cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3)
    )
    span = BOARD_STUDS + 2 * reach
    return (stud_scores(mag) >= VISIBLE_STUD).reshape(span, span)


def plane_colours(
    image: NDArray[np.uint8], camera: Camera, pose: Pose, reach: int
) -> FloatArray:
    """Mean Lab colour per cell of a grid reaching ``reach`` studs beyond the plate.

    Rows y, columns x, 3 channels; NaN where a cell falls outside the picture.
    """
    span = BOARD_STUDS + 2 * reach
    idx = (np.arange(-reach, BOARD_STUDS + reach) + 0.5) * STUD_MM
    xs, ys = np.meshgrid(idx, idx)
    centres = np.stack([xs.ravel(), ys.ravel()], axis=1)
    return card_means(lab_samples(image, camera, pose, card_points(centres))).reshape(span, span, 3)


def map_scores(
    colours: FloatArray,
    labels: NDArray[np.int32],
    moves: list[tuple[int, int]],
    turns: tuple[int, ...],
) -> FloatArray:
    """The map score per move (``dx``, ``dy`` studs) and turn, from :func:`plane_colours`."""
    reach = (colours.shape[0] - BOARD_STUDS) // 2
    out = np.zeros((len(moves), len(turns)))
    for i, (dx, dy) in enumerate(moves):
        y0, x0 = reach + dy, reach + dx
        window = colours[y0 : y0 + BOARD_STUDS, x0 : x0 + BOARD_STUDS].reshape(-1, 3)
        out[i] = turn_scores(window, labels, turns)
    return out


def place_by_map(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    ground: GroundMap,
    reach: int,
    rival: tuple[int, int] = (0, 0),
) -> MapPlace | None:
    """The move (up to ``reach`` studs each way) and turn that fit the map best, if any.

    Places ``COARSE_STEP`` studs apart under all four turns first, then the
    neighbours of the best under its turn. ``rival`` is a move found otherwise (by the
    sides), scored too so that the caller can weigh the two.
    """
    colours = plane_colours(image, camera, pose, reach)
    colours[~stud_cells(gray, camera, pose, reach)] = np.nan
    labels = map_labels(ground)
    coarse = [
        (dx, dy)
        for dy in range(-reach, reach + 1, COARSE_STEP)
        for dx in range(-reach, reach + 1, COARSE_STEP)
    ]
    scores = map_scores(colours, labels, coarse, (0, 1, 2, 3))
    i, k = np.unravel_index(int(np.argmax(scores)), scores.shape)
    if scores[i, k] <= 0:
        return None
    cx, cy = coarse[i]
    fine = [
        (dx, dy)
        for dy in range(max(cy - 1, -reach), min(cy + 1, reach) + 1)
        for dx in range(max(cx - 1, -reach), min(cx + 1, reach) + 1)
    ]
    near = map_scores(colours, labels, fine, (int(k),))[:, 0]
    j = int(np.argmax(near))
    against = float(map_scores(colours, labels, [rival], (0, 1, 2, 3)).max())
    place = MapPlace(fine[j][0], fine[j][1], int(k), float(near[j]), against)
    if fine[j] == tuple(rival):
        return place
    # The map would move the board by whole studs: only a fit far better than any
    # unrelated layout finds anywhere in the same search may do that (a wrong map has
    # slid boards four studs with a margin of 1.5 over the sides' place).
    own = labels[UNTURN[int(k)]][None]
    return replace(place, weigh=lambda: _explains(colours, fine[j], own, coarse))


def _explains(
    colours: FloatArray,
    move: tuple[int, int],
    labels: NDArray[np.int32],
    moves: list[tuple[int, int]],
) -> bool:
    """:func:`~calibration.turn.map_explains` of the map's agreement at ``move`` against
    the best agreement of unrelated layouts at any of ``moves``.

    The agreement first, then the unrelated layouts a move at a time, stopping at the
    first that leaves the map too little over them (the best of them only grows): the
    same answer as the best of them all, which a place the map fails to explain need not
    wait for."""
    agreement = float(agreements(_window(colours, move), labels)[0])
    if not map_explains(agreement, -np.inf):
        return False
    nulls = null_labelings(NULL_PLACE_MAPS)
    null = -np.inf
    for m in moves:
        null = max(null, float(agreements(_window(colours, m), nulls).max()))
        if not map_explains(agreement, null):
            return False
    return True


NULL_PLACE_MAPS = 8


def _window(colours: FloatArray, move: tuple[int, int]) -> FloatArray:
    """The cells' colours of the board moved by ``move`` studs, cell order y-major."""
    reach = (colours.shape[0] - BOARD_STUDS) // 2
    y0, x0 = reach + move[1], reach + move[0]
    return colours[y0 : y0 + BOARD_STUDS, x0 : x0 + BOARD_STUDS].reshape(-1, 3)


PEAK_OVER_NEIGHBOUR = 1.3
"""A neighbour's score over the pose's own that says the pose is a stud off. A print is
not registered on the studs to the millimetre: on the Cycles frames (print shifted by
up to a third of a stud) right poses saw neighbours at up to 1.23 times; the one twin
pose a stud off that reached this check saw 1.35."""


def map_peaks_here(
    image: NDArray[np.uint8],
    camera: Camera,
    pose: Pose,
    ground: GroundMap,
    turn: int,
    studs: FloatArray | None,
) -> bool:
    """Whether the map (under ``turn`` of ``pose``) fits no place a stud along x or y
    clearly better than the pose's own.

    A map that explains the card still explains it a stud off (only the cells along
    its regions' borders change), so it can vouch for a pose a stud off: on the wide
    twin one passed with three sides good and the fourth excused as an arm. Under the
    right place the map's score peaks; a neighbour scoring more says the pose is off.
    Only cells whose stud shows (``studs``, from the lattice fit) are scored; the ring
    beyond the plate is table.
    """
    colours = plane_colours(image, camera, pose, 1)
    colours[0], colours[-1], colours[:, 0], colours[:, -1] = np.nan, np.nan, np.nan, np.nan
    if studs is not None and len(studs) == BOARD_STUDS * BOARD_STUDS:
        inner = colours[1:-1, 1:-1]
        inner[(studs < VISIBLE_STUD).reshape(BOARD_STUDS, BOARD_STUDS)] = np.nan
    moves = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]
    scores = map_scores(colours, map_labels(ground), moves, (turn,))[:, 0]
    return bool(scores[0] * PEAK_OVER_NEIGHBOUR >= scores.max())
