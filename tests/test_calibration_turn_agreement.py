"""A map whose scores' margin is short, settled by its agreement under each turn."""

from __future__ import annotations

from bench.calibration import twin_frame, wrong_map
from calibration.evidence import MIN_MAP_MARGIN
from calibration.pose import locate_board
from tests.calibration_frames import right_map_settles, settles_right

SHORT_MARGIN_SEED = 20045
"""A dev board whose map names 0.96 of the card's cells under the right turn and 0.54
under the half turn: its scores' margin is only 2.3."""


def test_a_map_that_agrees_far_better_under_one_turn_settles_it() -> None:
    assert right_map_settles(SHORT_MARGIN_SEED).map_margin < MIN_MAP_MARGIN


def test_a_wrong_map_does_not_settle_the_turn() -> None:
    drawn = twin_frame(SHORT_MARGIN_SEED)
    frame = drawn.frame
    for i in range(2):
        result = locate_board(frame.image, frame.camera, wrong_map(i, drawn.ground))
        assert result.found, result.reason
        assert not result.turn_resolved


def _stands_out(monkeypatch, agreement: float, kappas: list[float]) -> bool:
    """``turn_stands_out`` for a winning turn 0 of ``agreement`` where the map's
    agreements under the four turns are ``kappas``."""
    import numpy as np

    from calibration import turn_agreement
    from calibration.camera import Pose
    from calibration.turn import TurnEvidence
    from rules.maps import load_map

    monkeypatch.setattr(turn_agreement, "agreements", lambda colours, labels: np.array(kappas))
    evidence = TurnEvidence(Pose(np.zeros(3), np.zeros(3)), agreement=agreement, turn=0,
                            colours=np.zeros((4, 3)))
    return turn_agreement.turn_stands_out(evidence, load_map("1"))


def test_the_turn_stands_out_only_over_both_thresholds(monkeypatch) -> None:
    from calibration.turn_agreement import STRONG_AGREEMENT, TURN_AGREEMENT_GAP

    strong = STRONG_AGREEMENT + 0.1
    clear = strong - TURN_AGREEMENT_GAP - 0.01
    assert _stands_out(monkeypatch, strong, [strong, clear, 0.1, 0.2])
    # Under the strong agreement, however far ahead of the other turns.
    weak = STRONG_AGREEMENT - 0.01
    assert not _stands_out(monkeypatch, weak, [weak, 0.0, 0.0, 0.0])
    # A runner-up turn within the gap.
    close = strong - TURN_AGREEMENT_GAP + 0.01
    assert not _stands_out(monkeypatch, strong, [strong, 0.1, close, 0.2])


def _settled_by_its_map_alone(seed: int) -> None:
    """The dev frame ``seed`` located with its own map: found, the turn settled and
    right; two wrong maps settle no turn there."""
    drawn = twin_frame(seed)
    frame = drawn.frame
    settles_right(drawn)
    for i in range(2):
        wrong = locate_board(frame.image, frame.camera, wrong_map(i, drawn.ground))
        assert not (wrong.found and wrong.turn_resolved)


NEAR_NULL_SEED = 3015
"""A dev board whose card is nearly all dark green: the right map agrees 0.55 under its
winning turn and at most 0.09 under the others, but unrelated layouts reach 0.48."""


def test_a_map_its_own_turns_vouch_for_settles_the_turn() -> None:
    _settled_by_its_map_alone(NEAR_NULL_SEED)


def _vouch(monkeypatch, agreement: float, null: float, kappas: list[float],
           in_order: bool = True) -> bool:
    """``own_turns_vouch`` for a winning turn 0 with the given agreements."""
    import numpy as np

    from calibration import turn_agreement
    from calibration.camera import Pose
    from calibration.turn import TurnEvidence
    from rules.maps import load_map

    monkeypatch.setattr(turn_agreement, "agreements", lambda colours, labels: np.array(kappas))
    monkeypatch.setattr(turn_agreement, "inks_in_order", lambda colours, labels: in_order)
    evidence = TurnEvidence(Pose(np.zeros(3), np.zeros(3)), agreement=agreement, null=null,
                            mapped=True, turn=0, colours=np.zeros((4, 3)))
    return turn_agreement.own_turns_vouch(evidence, load_map("1"))


def test_own_turns_vouch_only_with_every_condition(monkeypatch) -> None:
    from calibration.turn import MIN_AGREEMENT
    from calibration.turn_agreement import OWN_TURNS_GAP

    a = MIN_AGREEMENT + 0.05
    far = a - OWN_TURNS_GAP - 0.01
    assert _vouch(monkeypatch, a, a - 0.05, [a, far, far, far])
    assert not _vouch(monkeypatch, a, a - 0.05, [a, far, far, far], in_order=False)
    assert not _vouch(monkeypatch, a, a + 0.01, [a, far, far, far])  # unrelated layouts beat it
    near = a - OWN_TURNS_GAP + 0.01
    assert not _vouch(monkeypatch, a, a - 0.05, [a, far, near, far])
    low = MIN_AGREEMENT - 0.01
    assert not _vouch(monkeypatch, low, 0.0, [low, 0.0, 0.0, 0.0])


def test_inks_out_of_order_are_told() -> None:
    import numpy as np

    from calibration.turn_agreement import inks_in_order

    light, dark = (150.0, 90.0, 170.0), (70.0, 100.0, 150.0)  # OpenCV Lab
    colours = np.array([light] * 10 + [dark] * 10, dtype=np.float32)
    labels = np.array([0] * 10 + [1] * 10, dtype=np.int32)
    assert inks_in_order(colours, labels)
    assert not inks_in_order(colours, 1 - labels)  # dark green named light


def test_only_a_trusted_map_settles_the_turn(monkeypatch) -> None:
    """The first detection and the tracker ask one rule: a wide margin settles the turn
    only for a map the card trusts."""
    import numpy as np

    from calibration import turn_agreement
    from calibration.camera import Pose
    from calibration.turn import TurnEvidence
    from rules.maps import load_map

    evidence = TurnEvidence(Pose(np.zeros(3), np.zeros(3)), margin=100 * MIN_MAP_MARGIN,
                            score=1.0, agreement=0.9, mapped=True, turn=0,
                            colours=np.zeros((4, 3)))
    # The map's own nulls are a rule of their own (tests/test_calibration_wrong_maps.py).
    monkeypatch.setattr(turn_agreement, "beats_own_nulls", lambda e, g: True)
    for trusted in (True, False):
        monkeypatch.setattr(turn_agreement, "map_trusted", lambda e, g, t=trusted: t)
        assert turn_agreement.turn_settled(evidence, load_map("1"), 12) is trusted
    assert not turn_agreement.turn_settled(evidence, None, 12)


SOFT_STUDS_SEED = 3531
"""A dev board (8 px a stud) whose studs' rims pass only 356 of the 968 cells the card
shows: the map agrees 0.49 on those and 0.84 on every cell shown (0.78 on the cells whose
stud tops have the plate's colour), under the same turn."""


def test_cells_whose_stud_tops_show_the_plate_settle_the_turn() -> None:
    _settled_by_its_map_alone(SOFT_STUDS_SEED)


def test_the_plate_tops_tell_covered_cells_where_the_rims_do_not() -> None:
    """At the true pose of the same board the stud tops' colour keeps the cells the card
    shows and drops the covered ones far better than the rims do."""

    from calibration.evidence import gray_float
    from calibration.lattice_view import lattice_offsets
    from calibration.stud_tops import plate_top_colours, plate_tops_show
    from calibration.turn import VISIBLE_STUD
    from twin.map_views import visible_cells

    frame = twin_frame(SOFT_STUDS_SEED).frame
    shown = visible_cells(frame)
    studs = lattice_offsets(gray_float(frame.image), frame.camera, frame.pose).studs
    rims = studs >= VISIBLE_STUD
    tops = plate_tops_show(plate_top_colours(frame.image, frame.camera, frame.pose), rims)
    # Measured: 0.67 of the shown cells kept against the rims' 0.37, 0.13 of the covered
    # ones against 0.30.
    assert tops[shown].mean() > 1.5 * rims[shown].mean()
    assert tops[~shown].mean() < 0.5 * rims[~shown].mean()


def test_plate_tops_far_from_the_plate_colour_are_covered() -> None:
    import numpy as np

    from calibration.stud_tops import PLATE_TOP_SPREAD, plate_tops_show

    rng = np.random.default_rng(0)
    tops = np.array([60.0, 100.0, 150.0]) + rng.normal(0, 2, (100, 3))
    tops[:10] += 8 * PLATE_TOP_SPREAD  # a brick's colour on ten cells
    tops[10] = np.nan  # outside the picture
    out = plate_tops_show(tops, None)
    assert not out[:11].any() and out[11:].mean() > 0.9
    # The plate's colour taken from the reference cells only: here the bricks'.
    reference = np.zeros(100, bool)
    reference[:10] = True
    assert not plate_tops_show(tops, reference)[11:].any()
