"""The plate's rim slid along each of the board's axes: a witness of the board's place
along its sides, which overrules the stud tops' colour on a sharp-ish lattice and vouches
for a thin, soft top-blind fit; half a stud off, it refuses."""

from __future__ import annotations

import cv2

from bench.calibration import WRONG_PX, twin_frame
from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose
from calibration.corners import search_plate
from calibration.evidence import BoardLocation, gray_float
from calibration.fit import SETTLE_ROUNDS
from calibration.grid import refine_on_grid
from calibration.outline_pose import initial_pose, rim_start
from calibration.pose import MAX_CANDIDATES
from calibration.rim_place import (
    now_or_later,
    placed_last,
    places_thin_fit,
    rim_places,
    slid,
    witnesses_against,
)
from calibration.stud_tops import ON_GAPS_PLACEMENT, top_colours, tops_move, tops_problem
from calibration.vouching import VOUCHED_GRID_BLOCKS
from tests.calibration_frames import fits_from_truth, found_right, grid_error, grid_error_px

TOPS_OVERRULED_SEED = 3004
"""A dev board 11.6 px a stud: every start fits 0.17 px off over 16 blocks at 5.9, all
four sides and the rim agreeing, and the stud tops' colour spreads least 3 mm along x
(placement 0.04 to 0.08): refused as on the gaps until the rim was read along the axes."""
THIN_PLACED_SEED = 20020
"""A dev board 14.9 px a stud: the usual fits from its outlines walk 10 to 11 px off with
sides off; the top-blind fit from the same start stays 0.66 px off over 7 blocks."""
SOFT_TEN_SEED = 20118
"""A dev board 7 px a stud whose blind fit from the truth, drawn without the seams,
settles tilted 2.6 px off with every side and quarter's stud tops agreeing."""
HALF_STUD_MM = 4.0


def _off(camera: Camera, truth: Pose, pose: Pose) -> float:
    """The stud-grid error (px) under the pose's best quarter turn."""
    return min(grid_error_px(camera, truth, turned_pose(pose, k)) for k in range(4))


def test_the_rim_overrules_the_stud_tops_colour_on_the_gaps() -> None:
    frame = twin_frame(TOPS_OVERRULED_SEED).frame
    camera, truth = frame.camera, frame.pose
    gray = gray_float(frame.image)
    result = found_right(frame)
    assert result.pose is not None and grid_error(camera, truth, result) < 1.0
    pose = result.pose
    colours = top_colours(frame.image, camera, pose)
    # The colour alone would refuse the right pose, putting the studs on the gaps...
    assert tops_problem(frame.image, camera, pose, ON_GAPS_PLACEMENT, colours)
    rival = tops_move(colours)
    assert witnesses_against(gray, camera, pose, rival)
    # ...and the rim never vouches for the colour's place against the right one.
    moved = slid(slid(pose, 0, rival[0]), 1, rival[1])
    assert not witnesses_against(gray, camera, moved, (-rival[0], -rival[1]))


def test_the_rim_places_a_thin_soft_blind_fit_and_not_half_a_stud_off() -> None:
    frame = twin_frame(THIN_PLACED_SEED).frame
    camera, truth = frame.camera, frame.pose
    gray = gray_float(frame.image)
    assert grid_error(camera, truth, found_right(frame)) < 1.0
    # The search's starts near the truth: outlines, their rims fitted at half size.
    h, w = gray.shape
    half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    outlines = [initial_pose(q, camera) for q in search_plate(frame.image, camera).quads]
    starts = [rim_start(half, camera, o) for o in outlines[:MAX_CANDIDATES] if o is not None]
    starts = [p for p in starts if _off(camera, truth, p) < 5.0]
    assert starts
    placed = []
    for start in starts:
        usual = refine_on_grid(gray, camera, start, max_rounds=SETTLE_ROUNDS)
        assert usual is not None and _off(camera, truth, usual.pose) > WRONG_PX
        blind = refine_on_grid(gray, camera, start, max_rounds=SETTLE_ROUNDS, top_blind=True)
        if blind is not None and places_thin_fit(frame.image, gray, camera, blind):
            placed.append(blind)
    assert placed
    assert all(_off(camera, truth, b.pose) < 1.0 for b in placed)
    blind = placed[0]
    assert blind.blocks < VOUCHED_GRID_BLOCKS
    for axis in (0, 1):
        for sign in (-1, 1):
            assert not rim_places(gray, camera, slid(blind.pose, axis, sign * HALF_STUD_MM))


def test_a_tilted_blind_fit_is_not_placed() -> None:
    frame, gray, _, blind = fits_from_truth(SOFT_TEN_SEED)
    assert grid_error_px(frame.camera, frame.pose, blind.pose) > WRONG_PX
    assert not places_thin_fit(frame.image, gray, frame.camera, blind)


def test_a_placed_refit_waits_until_the_search_finds_nothing() -> None:
    tried: list[str] = []

    def refit() -> BoardLocation:
        tried.append("placed")
        return BoardLocation(True, "")

    @placed_last
    def search(found: bool) -> BoardLocation:
        assert now_or_later(refit) is None
        return BoardLocation(found, "" if found else "no start taken")

    assert search(True).method == "" and tried == []
    result = search(False)
    assert result.found and result.method == "placed" and tried == ["placed"]
    # Outside a search (the tracker's refit), it is judged at once.
    assert now_or_later(refit) is not None and tried == ["placed", "placed"]
