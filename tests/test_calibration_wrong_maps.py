"""A wrong ground map must not settle the board's turn (``bench.wrong_maps`` counts it)."""

from __future__ import annotations

import numpy as np

from bench.calibration import twin_frame
from bench.wrong_maps import TurnInputs, hard_maps, located_with_inputs
from calibration.camera import Pose
from calibration.pose import locate_board
from calibration.turn import TurnEvidence, map_explains, map_labels
from rules.maps import GroundMap
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


def test_a_mirrored_map_does_not_settle_the_turn() -> None:
    """Dev frame 3024: its map mirrored, or transposed, explains the card 0.51 at a turn
    (0.25 over unrelated layouts, the inks in order, the scores' margin past 4) and once
    settled a wrong one; one of its mirror images is the board's own map and agrees 0.48
    better. The right map still settles the turn, 0.5 better than its mirror images."""
    found = _found_pose(3024)
    ground = twin_frame(3024).ground
    wrong = dict(hard_maps(ground, np.random.default_rng(0), 0))
    for kind in ("mirror", "transpose"):
        evidence, resolved, _ = found.judge(wrong[kind])
        assert map_explains(evidence.agreement, evidence.null)  # trusted as before
        assert not resolved
    _, right, _ = found.judge(ground)
    assert right


def test_a_layout_its_mirror_images_match_does_not_settle_the_turn() -> None:
    """Dev frame 3041 with unrelated layout 12: the card's own pattern lets it agree 0.78
    (0.33 over the unrelated layouts) and it once settled a quarter turn off; its mirror
    images, unrelated to the card like itself, agree within 0.01 of it."""
    found = _found_pose(3041)
    wrong = random_map(np.random.default_rng(500_000 + 3041 * 1000 + 12))
    evidence, resolved, _ = found.judge(wrong)
    assert map_explains(evidence.agreement, evidence.null)
    assert not resolved


def test_a_mirror_symmetric_map_has_no_mirror_images() -> None:
    """A map that is its own mirror image leaves its mirror images out (they are its own
    turns, which the turn rules weigh already) and is not held back by them."""
    from calibration.turn_agreement import beats_own_nulls, mirror_labelings
    from rules.maps import load_map

    classic = load_map("1")
    assert len(mirror_labelings(classic)) == 4
    grid = np.array([list(row) for row in classic.ground])
    grid[:, 16:] = grid[:, :16][:, ::-1]
    symmetric = GroundMap(name="symmetric", ground=tuple("".join(row) for row in grid))
    assert len(mirror_labelings(symmetric)) == 0
    # A card printed exactly as the map (one Lab colour an ink), seen under turn 0.
    inks = np.array([[80, -40, 40], [35, -30, 15], [70, 10, 60], [50, 0, 0], [50, 0, 0]])
    colours = inks[map_labels(symmetric)].astype(np.float32)
    evidence = TurnEvidence(Pose(np.zeros(3), np.zeros(3)), agreement=1.0, turn=0,
                            colours=colours)
    assert beats_own_nulls(evidence, symmetric)


def test_a_layout_whose_other_turns_agree_as_well_does_not_settle_the_turn() -> None:
    """Dev frame 3002 with unrelated layout 58: its scores put one turn 35 times ahead of
    the next and it agrees 0.56 there (0.17 over the unrelated layouts, 0.15 over its
    mirror images), but its other turns agree within 0.02 of it: it once settled a
    quarter turn off."""
    found = _found_pose(3002)
    wrong = random_map(np.random.default_rng(500_000 + 3002 * 1000 + 58))
    evidence, resolved, _ = found.judge(wrong)
    assert map_explains(evidence.agreement, evidence.null)
    assert not resolved
