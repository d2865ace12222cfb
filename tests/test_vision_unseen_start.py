"""A staircase the model misses whole: a turn read as nothing with no trace in the model's
map is read from the classical change, every piece put to the players."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, place_key
from training.pairs import TurnPair, twin_turns
from vision import read_turn
from vision.reading import UNCERTAIN_BELOW, TurnReading


@pytest.fixture(scope="module")
def second() -> TurnPair:
    """Game 6000's second turn (seeded twin)."""
    return list(twin_turns(2, seed=6000))[-1]


def _read(turn: TurnPair) -> TurnReading:
    given = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
    return read_turn([turn.after_frame], turn.camera, turn.before,
                     before_frame=turn.before_frame, locations=[given])


def test_a_staircase_the_model_misses_is_read_classically_and_doubted(
        second: TurnPair, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model finding every pixel surely old (as it does a first arch on the plate
    that shows 10 pixels beside the palace) leaves the classical change to read the
    staircase; each piece is then doubted, with what else it could be."""
    import vision.turn as turn_mode

    truth = {place_key(p) for p in second.added if p.kind not in ANIMAL_KINDS}
    monkeypatch.setattr(turn_mode, "new_piece_evidence",
                        lambda after, before: np.zeros(after.shape[:2], np.float32))
    reading = _read(second)
    assert {place_key(r.piece) for r in reading.added} == truth
    assert reading.uncertain
    assert all(r.confidence < UNCERTAIN_BELOW for r in reading.added)
    assert any(r.alternatives for r in reading.added)
    # Without the classical reading the turn is read as nothing, which is put to the
    # players only because a turn adds a staircase (the pictures gave no reason).
    monkeypatch.setattr(turn_mode, "_read_classically", lambda *args: ((), args[-1]))
    missed = _read(second)
    assert missed.added == () and missed.uncertain and missed.reason == turn_mode.NOTHING_READ
    monkeypatch.setattr(turn_mode, "NOTHING_READ_DOUBTED", False)
    assert not _read(second).uncertain


def test_the_voxels_near_a_changed_one_reach_a_level_down_and_stay_on_the_board() -> None:
    from vision.turn import _near

    near = _near({(0, 5, 1)}, (-1, 0))
    assert (1, 6, 0) in near and (0, 4, 1) in near
    assert all(x >= 0 and z >= 0 for x, _, z in near)
    assert len(near) == 12 and len(_near({(0, 5, 0)}, (-1, 0))) == 6
