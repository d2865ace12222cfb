"""Following the board from frame to frame without searching the whole image again.

Between two frames of a game the board barely moves, so the last pose is already within
a few pixels: one stud-lattice round from it (one resampling of the board, no
full-image pass) gives the new pose. When that fit fails (a hand over a side, the table
bumped by a stud) or the ground map no longer vouches for the last quarter turn (a
player turned the board), the whole first-detection fit runs from the last pose, and
only when that fails too, a full search (the camera was moved).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.alias import check_boundary
from calibration.board_model import CENTRE, nearest_turn, quarter_turn, view_rotation
from calibration.camera import Camera, Pose
from calibration.edges import edge_support
from calibration.evidence import (
    BRICK_MODEL,
    MAX_RMS_PX,
    BoardLocation,
    corners_seen,
    gray_float,
    implausible_view,
    lattice_problem,
    map_problem,
)
from calibration.fit import finish
from calibration.grid import GridFit, refine_on_grid
from calibration.lattice_view import lattice_window
from calibration.pose import locate_board
from calibration.stud_tops import tops_problem
from calibration.turn import (
    map_labels,
    shown_cell_colours,
    turn_scores,
    winning_turn,
)
from calibration.turn_agreement import judge_turn
from calibration.vouching import SOFT_LATTICE_CLARITY, TRUSTED_GRID_BLOCKS
from rules.maps import GroundMap

KEEP_TURN_SHARE = 0.6
"""A tracked frame keeps the last turn while the map scores it at least this share as high."""
MAX_TRACK_SHIFT_MM = 4.0
"""Beyond this the stud lattice could have slipped a stud; a full search decides."""
SEARCH_AFTER_S = 1.0
"""A board the tracker leaves unexplained this long (frame time) is searched for afresh
by a camera loop: it was moved (a hand over it passes sooner, and a search costs up to a
second)."""
WINDOW_MARGIN_PX = 24
"""Pixels of room around the last pose's lattice: the board moves a few before the fit
refuses it, and the corner bricks' edge profiles reach 4 px across their outlines and
must stay 7 px inside the window."""


@dataclass
class TrackStats:
    """How the tracker answered so far: from the last pose (``refitted`` of them by the
    whole fit rather than the fast path), full searches, turns noticed."""

    tracked: int = 0
    refitted: int = 0
    searched: int = 0
    turns: int = 0


class BoardTracker:
    """Board pose per frame, reusing the last one; ``moved`` and ``turned`` say what changed."""

    def __init__(
        self, camera: Camera, ground: GroundMap | None = None, last: BoardLocation | None = None
    ) -> None:
        self.camera = camera
        self.ground = ground
        self.last = last if last is not None and last.found else None
        self.moved = False
        self.turned = False
        self.stats = TrackStats()

    def update(self, image: NDArray[np.uint8], *, search: bool = True) -> BoardLocation:
        """The board in this frame: tracked from the last pose when possible.

        With ``search`` false, a frame the last pose cannot explain is answered "not
        found" at once and the last pose is kept: a camera loop that sees a hand over the
        board knows the board is still there, and a full search per frame would cost it
        up to a second each.
        """
        self.moved = self.turned = False
        previous = self.last
        result = self._track(image) if previous is not None else None
        if result is None and previous is not None:
            result = self._refit(image, previous)
        if (result is None or not result.found) and not search and previous is not None:
            return BoardLocation(False, "the last pose does not explain this frame")
        if result is None or not result.found:
            result = locate_board(image, self.camera, self.ground)
            self.stats.searched += 1
        else:
            self.stats.tracked += 1
            self.stats.refitted += int(result.method == "refit")
        if result.found and result.pose is not None and previous is not None:
            assert previous.pose is not None
            self.moved = _centre_shift_mm(previous.pose, result.pose) > MAX_TRACK_SHIFT_MM
        if result.found and previous is not None and not _same_turn(result, previous):
            self.turned = True
            self.stats.turns += 1
        self.last = result if result.found else None
        return result

    def _refit(self, image: NDArray[np.uint8], previous: BoardLocation) -> BoardLocation | None:
        """The whole first-detection fit from the last pose, or None if it does not hold.

        The fast path refuses a frame on one doubtful check (a hand over a side, the
        lattice a little further off than one round reaches); the last pose is still a
        far better start than any outline, and the fit from it (more lattice rounds,
        the sides' whole-stud correction, the turn afresh) costs a fraction of a search.
        A board it moves by more than :data:`MAX_TRACK_SHIFT_MM` to where the map no
        longer vouches for its turn is left to the search.
        """
        assert previous.pose is not None
        camera = previous.camera or self.camera
        result = finish(
            image, gray_float(image), camera, previous.pose, self.ground, previous.focal_refined,
            quarters=True,
        )
        if not result.found or result.pose is None:
            return None
        if (previous.turn_resolved and not result.turn_resolved
                and _centre_shift_mm(previous.pose, result.pose) > MAX_TRACK_SHIFT_MM):
            # The map vouched for the last pose and does not for this one, a stud or
            # more away: a side under a card or a sleeve pulls the fit a whole stud as
            # readily as a bump moves the board, and the map tells the two (a board
            # moved by hand keeps its print); the search's checks decide.
            return None
        result.method = "refit"
        if not result.turn_resolved:
            # No map vouches for a turn: keep the one the board had, not a new choice.
            result.pose = nearest_turn(result.pose, previous.pose)
            result.rotation = view_rotation(camera, result.pose)
        return result

    def _track(self, image: NDArray[np.uint8]) -> BoardLocation | None:
        """One lattice round from the last pose and a look at the map, or None."""
        assert self.last is not None and self.last.pose is not None
        camera = self.last.camera or self.camera
        # Only the board's part of the picture is read as grey, with room for the board
        # to move by more than the fit accepts (the corner bricks are read there too).
        x0, y0, x1, y1 = lattice_window(camera, self.last.pose, WINDOW_MARGIN_PX)
        gray = gray_float(image[y0:y1, x0:x1])
        window = camera.cropped(x0, y0, x1 - x0, y1 - y0)
        # The lattice fit reaches half a stud on its own, further than a board moves
        # between two frames; the rim fit is only needed to find the board afresh.
        grid = refine_on_grid(gray, window, self.last.pose, rounds=1)
        if grid is None or lattice_problem(grid):
            return None
        shift = _centre_shift_mm(grid.pose, self.last.pose)
        if shift > MAX_TRACK_SHIFT_MM:
            return None  # moved further than the lattice fit can vouch for: search afresh
        if not check_boundary(image, camera, grid.pose).holds(grid.blocks):
            # A bump of a whole stud leaves every stud on a stud: only the sides see it.
            return None
        if grid.clarity < SOFT_LATTICE_CLARITY and tops_problem(image, camera, grid.pose):
            # A lattice this soft may have slid half a stud onto the gaps, which the
            # sides cannot see: the first detection asks the stud tops, and so does this.
            return None
        pose, margin = grid.pose, self.last.map_margin
        if self.ground is None or not self.last.turn_resolved:
            return self._track_unresolved(image, camera, grid, gray, window)
        # The board keeps its turn unless a player turned it, and then the map's score
        # for the old turn collapses. The score is compared with the one that settled the
        # turn, so it is taken on the same view: evened by the stud tops where the light's
        # fall had to be taken out (as seen, a steeper fall has left the fast path on a
        # board the evened colours keep; docs/real-tables-log.md, "The turn under uneven
        # light").
        evened = self.last.turn_evened
        colours = shown_cell_colours(image, camera, grid.pose, grid.studs, evened)
        # All four turns at once cost little more than the last one alone.
        scores = turn_scores(colours, map_labels(self.ground))
        score = float(scores[0]) if self.last.map_score > 0 else 0.0
        if score < KEEP_TURN_SHARE * self.last.map_score or score == 0:
            # The map no longer vouches for the last turn as it did: a hand now hides
            # part of it, or a player turned the board. The other turns' scores tell
            # which; a new turn is not taken on one lattice round's evidence (a wrong one
            # has won here by 3 times on colours a stud off): the whole fit from the last
            # pose decides.
            turn, margin, score = winning_turn(scores)
            if turn != 0:
                return None
        if map_problem(margin, score, grid.blocks) or implausible_view(camera, pose):
            return None
        support = edge_support(gray, window, pose, BRICK_MODEL, 6.0, 4.0)
        seen = corners_seen(support)
        quality = float(
            min(1.0, grid.blocks / 8) * np.clip(1.5 - grid.residual_px / MAX_RMS_PX, 0, 1)
        )
        return BoardLocation.located(
            camera, pose, grid, seen, quality, self.last.focal_refined, margin, score, "tracked",
            turn_evened=evened,
        )

    def _track_unresolved(
        self, image: NDArray[np.uint8], camera: Camera, grid: GridFit,
        gray: NDArray[np.float32], window: Camera,
    ) -> BoardLocation | None:
        """The fast path while no map says which way round: the pose keeps its turn,
        and a given map is asked again (it may show more of itself now)."""
        pose, margin, score, resolved, evened = grid.pose, 0.0, 0.0, False, False
        if self.ground is not None:
            # The first detection's own rule, the pose's check included: a map trusted
            # here that fits the card better a stud away says the pose is off (and a
            # wrong map has settled a turn on such a pose), so the whole fit decides.
            turn, resolved, problem = judge_turn(
                image, camera, grid.pose, self.ground, grid.studs, grid.blocks)
            if problem:
                return None
            margin, score = turn.margin, turn.score
            if resolved:
                pose, evened = turn.pose, turn.evened
        if grid.blocks < TRUSTED_GRID_BLOCKS and not resolved:
            return None  # a thin lattice needs the whole fit's checks
        if implausible_view(camera, pose):
            return None
        support = edge_support(gray, window, pose, BRICK_MODEL, 6.0, 4.0)
        seen = corners_seen(support)
        quality = float(
            min(1.0, grid.blocks / 8) * np.clip(1.5 - grid.residual_px / MAX_RMS_PX, 0, 1)
        )
        assert self.last is not None
        return BoardLocation.located(
            camera, pose, grid, seen, quality, self.last.focal_refined, margin, score,
            "tracked", turn_resolved=resolved, turn_evened=evened,
        )


def _centre_shift_mm(a: Pose, b: Pose) -> float:
    """How far apart (mm, in the camera) two poses put the board's middle."""
    return float(np.linalg.norm(a.to_camera(CENTRE[None]) - b.to_camera(CENTRE[None])))


def _same_turn(a: BoardLocation, b: BoardLocation) -> bool:
    """Whether no quarter turn of ``a`` lies closer to ``b`` than ``a`` itself.

    The turn nearest ``b`` is the one whose rotation relative to ``b`` has the largest
    trace (the smallest angle), so one relative rotation serves all four turns.
    """
    assert a.pose is not None and b.pose is not None
    relative = a.pose.rotation.T @ b.pose.rotation
    traces = [float(np.trace(quarter_turn(k)[:3, :3].T @ relative)) for k in range(4)]
    return int(np.argmax(traces)) == 0

