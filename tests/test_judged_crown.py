"""A chosen reading with no decoration is given the mostly hidden one its objective asks
for (:func:`vision.rulings.judged_crown`), on a development turn rendered alone."""

from __future__ import annotations

import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, Kind, place_key
from training.pairs import TurnPair, turn_pairs
from vision import read_turn, rulings


@pytest.fixture(scope="module")
def gold_behind_its_arch() -> TurnPair:
    """Game 14002 turn 4 (a few seconds): a gold decoration on the final arch's far end
    knob, the arch in front leaving 11 of its pixels off its rim."""
    return next(turn_pairs(3, 14000, wide=True, max_turns=20, only={(14002, 4)}))


def _read(turn: TurnPair) -> set[tuple[object, ...]]:
    given = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
    reading = read_turn([turn.after_frame], turn.camera, turn.before,
                        before_frame=turn.before_frame, locations=[given])
    return {place_key(p) for p in reading.pieces}


def test_a_decoration_its_arch_mostly_hides_is_put_on_where_the_objective_asks(
        gold_behind_its_arch: TurnPair, monkeypatch: pytest.MonkeyPatch) -> None:
    turn = gold_behind_its_arch
    truth = {place_key(p) for p in turn.added if p.kind not in ANIMAL_KINDS}
    assert any(p.kind is Kind.DECORATION for p in turn.added)
    assert _read(turn) == truth
    monkeypatch.setattr(rulings, "JUDGED_CROWN", False)
    without = _read(turn)
    assert without == {k for k in truth if k[0] is not Kind.DECORATION}


def test_a_decoration_shown_in_full_is_still_left_to_its_pixels(
        gold_behind_its_arch: TurnPair, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same turn with every decoration counted as shown in full: its sliver of
    # pixels denies it, and the reading is left without one, as before the rule.
    monkeypatch.setattr(rulings, "MOSTLY_HIDDEN", 0.0)
    truth = {place_key(p) for p in gold_behind_its_arch.added if p.kind not in ANIMAL_KINDS}
    read = _read(gold_behind_its_arch)
    assert read == {k for k in truth if k[0] is not Kind.DECORATION}
