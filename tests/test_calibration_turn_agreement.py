"""A map whose scores' margin is short, settled by its agreement under each turn."""

from __future__ import annotations

from bench.calibration import WRONG_PX, turn_errors, twin_frame, wrong_map
from calibration.evidence import MIN_MAP_MARGIN
from calibration.pose import locate_board

SHORT_MARGIN_SEED = 20045
"""A dev board whose map names 0.96 of the card's cells under the right turn and 0.54
under the half turn: its scores' margin is only 2.3."""


def test_a_map_that_agrees_far_better_under_one_turn_settles_it() -> None:
    drawn = twin_frame(SHORT_MARGIN_SEED)
    frame = drawn.frame
    result = locate_board(frame.image, frame.camera, drawn.ground)
    assert result.found, result.reason
    assert result.map_margin < MIN_MAP_MARGIN
    assert result.turn_resolved
    assert turn_errors(frame.camera, frame.pose, result)[0] < WRONG_PX


def test_a_wrong_map_does_not_settle_the_turn() -> None:
    drawn = twin_frame(SHORT_MARGIN_SEED)
    frame = drawn.frame
    for i in range(2):
        result = locate_board(frame.image, frame.camera, wrong_map(i, drawn.ground))
        assert result.found, result.reason
        assert not result.turn_resolved
