"""A soft lattice over 10 or 11 blocks, vouched for by all four sides, the whole board's
stud tops and the plate's rim fitted all round it; tilted, the rim refuses it."""

from __future__ import annotations

from bench.calibration import WRONG_PX
from calibration.alias import check_boundary
from calibration.fit import finish
from calibration.rim_agrees import rim_moves, rim_witnesses
from calibration.stud_tops import quarters_problem, tops_problem
from calibration.vouching import MIN_SOFT_GRID_BLOCKS, as_soft, rim_may_vouch_for_soft_lattice
from tests.calibration_frames import fits_from_truth, grid_error, grid_error_px

SOFT_TEN_SEED = 20118
"""A dev board 7 px a stud, dark tops: from the truth the usual fit settles on the gaps
(4.2 px off, 10 blocks) and the top-blind fit 0.9 px off over 10 blocks at 5.7, all four
sides and the whole board's stud tops agreeing, one quarter's tops not; the rim's fit
moves no stud over 1.4 px."""


def test_the_rim_vouches_for_a_soft_blind_fit_over_ten_blocks() -> None:
    frame, gray, _, blind = fits_from_truth(SOFT_TEN_SEED, seams=None)
    assert blind.blocks < MIN_SOFT_GRID_BLOCKS
    assert grid_error_px(frame.camera, frame.pose, blind.pose) < 1.0
    # The quarters' stud tops refuse it; the rim fitted all round vouches for its plane.
    assert quarters_problem(frame.image, frame.camera, blind.pose)
    assert tops_problem(frame.image, frame.camera, blind.pose) == ""
    assert rim_witnesses(rim_moves(gray, frame.camera, blind.pose))
    result = finish(frame.image, gray, frame.camera, frame.pose, None, False)
    assert result.found, result.reason
    assert grid_error(frame.camera, frame.pose, result) < 1.0


def test_the_rim_refuses_a_tilted_soft_blind_fit_the_sides_and_quarters_pass() -> None:
    # The same board as drawn before the twin drew seams: the blind fit from the truth
    # settles tilted, 2.6 px off over 10 blocks, with every side, the whole board's and
    # every quarter's stud tops agreeing (the search once took such a fit over 11).
    frame, gray, _, blind = fits_from_truth(SOFT_TEN_SEED)
    assert grid_error_px(frame.camera, frame.pose, blind.pose) > WRONG_PX
    boundary = check_boundary(frame.image, frame.camera, blind.pose)
    assert rim_may_vouch_for_soft_lattice(as_soft(blind), boundary)
    assert tops_problem(frame.image, frame.camera, blind.pose) == ""
    assert quarters_problem(frame.image, frame.camera, blind.pose) == ""
    assert not rim_witnesses(rim_moves(gray, frame.camera, blind.pose))
    result = finish(frame.image, gray, frame.camera, frame.pose, None, False)
    assert not result.found or grid_error(frame.camera, frame.pose, result) < WRONG_PX
