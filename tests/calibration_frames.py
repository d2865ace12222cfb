"""What the calibration tests share: the frames they start from and the checks they ask of
a located board (found, within :data:`bench.calibration.WRONG_PX` of the truth, never a
whole stud off)."""

from __future__ import annotations

import numpy as np

import twin
from bench.calibration import WRONG_PX, TwinFrame, turn_errors, twin_frame
from calibration.board_model import moved_pose, stud_shifts
from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation, gray_float
from calibration.fit import finish
from calibration.grid import GridFit, refine_on_grid
from calibration.pose import locate_board
from calibration.tracking import BoardTracker
from rules.maps import load_map
from rules.palace import Palace
from twin.frame import Frame

GROUND = load_map("1")


def setup_frame(seed: int) -> twin.Frame:
    """Map 1's set-up alone, rendered from the random camera of ``seed`` (and with that
    render seed): the plain frame several calibration tests' fixtures start from."""
    camera, pose = twin.random_camera(np.random.default_rng(seed))
    return twin.render(Palace(GROUND, list(GROUND.setup)), camera, pose, seed=seed)



def grid_error_px(camera: Camera, truth: Pose, got: Pose) -> float:
    return float(np.median(stud_shifts(camera, truth, got)))



def grid_error(camera: Camera, truth: Pose, result: BoardLocation) -> float:
    """Median stud-centre error (px) under the found pose's best quarter turn."""
    return min(turn_errors(camera, truth, result))



def found_right(frame: Frame) -> BoardLocation:
    """The board located with no map, asserted found and within :data:`WRONG_PX` of the
    truth: what every "this board is now found" test asks first."""
    result = locate_board(frame.image, frame.camera, None)
    assert result.found and result.pose is not None, result.reason
    assert grid_error(frame.camera, frame.pose, result) < WRONG_PX
    return result



def not_located_wrong(frame: Frame) -> BoardLocation:
    """The board located with no map, asserted refused or found within :data:`WRONG_PX`:
    what every "this wrong pose is no longer taken" test asks."""
    result = locate_board(frame.image, frame.camera, None)
    assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX
    return result



def lattice_from_truth(seed: int) -> tuple[Frame, np.ndarray, GridFit]:
    """A dev frame, its grey picture and the stud lattice refined from the true pose:
    where every test of what the sides and corner bricks make of a fit starts."""
    frame = twin_frame(seed).frame
    gray = gray_float(frame.image)
    grid = refine_on_grid(gray, frame.camera, frame.pose, max_rounds=5)
    assert grid is not None
    return frame, gray, grid



def fits_from_truth(
    seed: int, seams: bool | None = False
) -> tuple[Frame, np.ndarray, GridFit, GridFit]:
    """A dev frame (as drawn before the seams unless ``seams``; None as the bench draws it),
    its grey picture, and the lattice fitted from the truth with the usual template and
    with the top-blind one: where every test of what a blind fit is judged starts."""
    frame = twin_frame(seed, seams=seams).frame
    gray = gray_float(frame.image)
    usual = refine_on_grid(gray, frame.camera, frame.pose, max_rounds=5)
    blind = refine_on_grid(gray, frame.camera, frame.pose, max_rounds=5, top_blind=True)
    assert usual is not None and blind is not None
    return frame, gray, usual, blind


def never_a_stud_off(frame: Frame, gray: np.ndarray) -> None:
    """Started a whole stud off along either axis, either way, the board is refused or
    brought back within :data:`WRONG_PX` of the truth: never taken where it was put."""
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        moved = finish(frame.image, gray, frame.camera, moved_pose(frame.pose, dx, dy), None,
                       False)
        assert not moved.found or grid_error(frame.camera, frame.pose, moved) < WRONG_PX



def right_map_settles(seed: int) -> BoardLocation:
    """The dev frame ``seed`` located with its own map: found, its turn settled, and
    settled right."""
    return settles_right(twin_frame(seed))



def settles_right(drawn: TwinFrame) -> BoardLocation:
    """:func:`right_map_settles` for a frame already drawn (whose other maps a test then
    tries too)."""
    frame = drawn.frame
    result = locate_board(frame.image, frame.camera, drawn.ground)
    assert result.found, result.reason
    assert result.turn_resolved
    assert turn_errors(frame.camera, frame.pose, result)[0] < WRONG_PX
    return result


def track_nudged(seed: int) -> tuple[BoardLocation, BoardTracker, float]:
    """The bench's tracked frame for a wide-twin ``seed``: the first frame located, the
    board nudged by a fraction of a degree and a mm and tracked; the answer, the tracker
    and the answer's error in px (infinite when not found)."""
    drawn = twin_frame(seed)
    first = locate_board(drawn.frame.image, drawn.frame.camera, drawn.ground)
    assert first.found
    camera, pose = drawn.frame.camera, drawn.frame.pose
    nudged = Pose(pose.rvec + drawn.rng.normal(0, 0.002, 3), pose.tvec + drawn.rng.normal(0, 1, 3))
    second = twin.render(drawn.palace, camera, nudged, drawn.options, seed=seed + 100_000)
    tracker = BoardTracker(camera, drawn.ground, first)
    result = tracker.update(second.image)
    error = min(turn_errors(camera, nudged, result)) if result.found else float("inf")
    return result, tracker, error
