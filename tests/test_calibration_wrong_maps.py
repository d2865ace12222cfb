"""A wrong ground map must not settle the board's turn (``bench.wrong_maps`` counts it)."""

from __future__ import annotations

import numpy as np

from bench.calibration import twin_frame
from bench.wrong_maps import TurnInputs, located_with_inputs
from calibration.pose import locate_board
from calibration.turn import map_explains
from rules.random_map import random_map


def _found_pose(seed: int) -> TurnInputs:
    """What the first detection weighed the turn on for the dev frame ``seed``."""
    drawn = twin_frame(seed)
    result, inputs = located_with_inputs(drawn.frame.image, drawn.frame.camera, drawn.ground)
    assert result.found and result.turn_resolved and inputs is not None
    return inputs


def test_map_with_its_inks_out_of_order_does_not_settle_the_turn() -> None:
    """Dev frame 3002 with unrelated layout 26 (one of 100 drawn for it): the layout
    explains the card far better than the unrelated layouts do (agreement 0.55) and once
    settled it a quarter turn off; its regions' colours break the inks' order (a wrong
    map names its inks at random), which no right map's did on the dev frames."""
    found = _found_pose(3002)
    wrong = random_map(np.random.default_rng(500_000 + 3002 * 1000 + 26))
    evidence, resolved, problem = found.judge(wrong)
    assert map_explains(evidence.agreement, evidence.null)  # the old trust held
    assert not resolved and not problem
    drawn = twin_frame(3002)
    _, right, _ = found.judge(drawn.ground)
    assert right


def test_tracker_asks_the_pose_check_before_a_map_settles_the_turn() -> None:
    """Dev frame 3005, found without a map, then followed with unrelated layout 67: the
    layout is trusted at the found pose and its turns settle, but it fits the card better
    a stud away, which the first detection refuses; the tracker's fast path once settled
    the turn on it (a quarter turn off) because it did not ask."""
    from calibration.tracking import BoardTracker

    drawn = twin_frame(3005)
    image, camera = drawn.frame.image, drawn.frame.camera
    first = locate_board(image, camera, None)
    assert first.found and not first.turn_resolved
    wrong = random_map(np.random.default_rng(500_000 + 3005 * 1000 + 67))
    again = BoardTracker(camera, wrong, first).update(image)
    assert not (again.found and again.turn_resolved)
