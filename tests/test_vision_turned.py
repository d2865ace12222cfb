"""The decoder's last pass over its reading (:mod:`vision.turned`): the whole staircase
turned about its middle or slid aslant, and a stack under a step's leg taken as the
staircase going on down (:func:`vision.refine.stacks_as_steps`)."""

from __future__ import annotations

import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, Axis, Kind, Piece, place_key
from training.pairs import turn_pairs
from vision import decode, read_turn
from vision.refine import stacks_as_steps
from vision.turned import turned_readings

L_READ = [Piece(Kind.BRICK, 13, 20, 0), Piece(Kind.ARCH, 13, 20, 1, axis=Axis.Y),
          Piece(Kind.ARCH, 13, 23, 0, axis=Axis.X),
          Piece(Kind.DECORATION, 13, 20, 2, color="gold")]
"""Game 10000 turn 10 as the greedy search reads it: an L of two arches."""
L_TRUE = [Piece(Kind.BRICK, 12, 22, 0), Piece(Kind.ARCH, 12, 22, 1, axis=Axis.X),
          Piece(Kind.ARCH, 15, 19, 0, axis=Axis.Y),
          Piece(Kind.DECORATION, 12, 22, 2, color="gold")]
"""The same L as built: the read one turned a quarter clockwise, slid a stud aslant."""


def keys(pieces: list[Piece]) -> set[tuple[object, ...]]:
    return {place_key(p) for p in pieces}


def test_the_true_l_is_among_the_turned_trials() -> None:
    trials = [keys(t) for t in turned_readings(L_READ)]
    assert keys(L_TRUE) in trials


def test_the_reading_itself_and_its_straight_slides_are_left_to_the_refinement() -> None:
    shifts = {(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx == 0 or dy == 0}
    straight = [keys([p.moved(x=p.x + dx, y=p.y + dy, id="") for p in L_READ])
                for dx, dy in shifts]
    trials = [keys(t) for t in turned_readings(L_READ)]
    assert not any(s in trials for s in straight)


def test_a_half_turn_of_a_straight_run_lands_on_its_own_cells() -> None:
    run = [Piece(Kind.ARCH, 4, 6, 0, axis=Axis.X), Piece(Kind.BRICK, 7, 6, 1),
           Piece(Kind.BRICK, 4, 6, 1)]
    assert keys(run) in [keys(t) for t in turned_readings(run)]


def test_a_column_under_a_step_s_leg_is_tried_as_steps_going_down() -> None:
    read = [Piece(Kind.COLUMN, 13, 3, 0), Piece(Kind.ARCH, 10, 3, 3, axis=Axis.X)]
    steps = [Piece(Kind.BRICK, 13, 3, 0), Piece(Kind.ARCH, 13, 3, 1, axis=Axis.X),
             Piece(Kind.BRICK, 13, 3, 2), Piece(Kind.ARCH, 16, 3, 0, axis=Axis.X)]
    trials = [keys(t) for t in stacks_as_steps(read)]
    assert keys([read[1], *steps]) in trials
    # Four ways down, three ways on from each (never back over the stack), less the
    # arch on the plate that would run off its edge at y < 0; only a stack with a leg on it.
    assert len(trials) == 11
    assert list(stacks_as_steps([read[0]])) == []


@pytest.fixture(scope="module")
def development_turns() -> dict[tuple[int, int], object]:
    """Two development turns the last pass mends (each rendered alone, a few seconds):
    game 10000 turn 10, an L read turned; game 12002 turn 15, lower steps read as a
    column."""
    wanted = {(10000, 10), (12002, 15)}
    found = [*turn_pairs(1, 10000, wide=True, max_turns=20, only=wanted),
             *turn_pairs(3, 12000, wide=True, max_turns=20, only=wanted)]
    return {(t.game, t.turn): t for t in found}


def _read(turn: object) -> set[tuple[object, ...]]:
    given = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)  # type: ignore[attr-defined]
    reading = read_turn([turn.after_frame], turn.camera, turn.before,  # type: ignore[attr-defined]
                        before_frame=turn.before_frame, locations=[given])  # type: ignore[attr-defined]
    return {place_key(r.piece) for r in reading.added}


@pytest.mark.parametrize("which", [(10000, 10), (12002, 15)])
def test_the_last_pass_reads_the_turn_where_the_judge_prefers_it(
        development_turns: dict[tuple[int, int], object], which: tuple[int, int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    turn = development_turns[which]
    truth = {place_key(p) for p in turn.added  # type: ignore[attr-defined]
             if p.kind not in ANIMAL_KINDS}
    assert _read(turn) == truth
    monkeypatch.setattr(decode, "TURN_WHOLE", False)
    assert _read(turn) != truth
