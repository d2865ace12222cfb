"""The decoder's last pass over its reading (:mod:`vision.turned`): the whole staircase
turned about its middle or slid aslant, and a stack under a step's leg taken as the
staircase going on down (:func:`vision.refine.stacks_as_steps`)."""

from __future__ import annotations

import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, Axis, Kind, Piece, place_key
from training.pairs import turn_pairs
from vision import decode, read_turn
from vision.refine import Reading, stacks_as_steps
from vision.turned import turn_whole, turned_readings

L_READ = [Piece(Kind.BRICK, 13, 20, 0), Piece(Kind.ARCH, 13, 20, 1, axis=Axis.Y),
          Piece(Kind.ARCH, 13, 23, 0, axis=Axis.X),
          Piece(Kind.DECORATION, 13, 20, 2, color="dark_green")]
"""Game 10000 turn 10 as the greedy search read it on an earlier model's evidence: an L of
two arches."""
L_TRUE = [Piece(Kind.BRICK, 12, 22, 0), Piece(Kind.ARCH, 12, 22, 1, axis=Axis.X),
          Piece(Kind.ARCH, 15, 19, 0, axis=Axis.Y),
          Piece(Kind.DECORATION, 12, 22, 2, color="dark_green")]
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


STACK_READ = [Piece(Kind.ARCH, 10, 3, 3, axis=Axis.X), Piece(Kind.ARCH, 10, 3, 4, axis=Axis.Y),
              Piece(Kind.ARCH, 7, 6, 5, axis=Axis.X), Piece(Kind.ARCH, 7, 6, 6, axis=Axis.Y),
              Piece(Kind.BRICK, 13, 3, 0), Piece(Kind.BRICK, 13, 3, 1),
              Piece(Kind.BRICK, 13, 3, 2), Piece(Kind.DECORATION, 7, 9, 7, color="dark_green")]
"""Game 12002 turn 15 as an earlier model's evidence read it: the two lowest steps (a
brick, an arch on it, a brick on the arch's end, and the arch on the plate beside them)
read as three bricks stacked."""


@pytest.fixture(scope="module")
def development_turns() -> dict[tuple[int, int], object]:
    """Two development turns (each rendered alone, a few seconds): game 10000 turn 10, an
    L; game 12002 turn 15, a staircase going down to the plate."""
    wanted = {(10000, 10), (12002, 15)}
    found = [*turn_pairs(1, 10000, wide=True, max_turns=20, only=wanted),
             *turn_pairs(3, 12000, wide=True, max_turns=20, only=wanted)]
    return {(t.game, t.turn): t for t in found}


@pytest.mark.parametrize(("which", "misread"), [((10000, 10), L_READ), ((12002, 15), STACK_READ)])
def test_the_last_pass_mends_a_misread_staircase_where_the_judge_prefers_it(
        development_turns: dict[tuple[int, int], object], which: tuple[int, int],
        misread: list[Piece], monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the search reads, the last pass starts here from a misreading the search
    once made on these very pixels (the L turned; the lower steps as a stack), put in
    the search's place: the pass mends it to the staircase built, and without the pass
    the misreading stands. The search's own reading of these turns depends on the
    learned model, which is retrained; what the pass does with a misreading does not."""
    turn = development_turns[which]
    truth = {place_key(p) for p in turn.added  # type: ignore[attr-defined]
             if p.kind not in ANIMAL_KINDS}

    def read(mend: bool) -> set[tuple[object, ...]]:
        def misread_then(reading: Reading, score: float) -> float | None:
            assert reading.take(misread)
            return turn_whole(reading, reading.judged(misread)) if mend else None

        monkeypatch.setattr(decode, "turn_whole", misread_then)
        given = BoardLocation(True, pose=turn.pose, rotation=0,  # type: ignore[attr-defined]
                              camera=turn.camera)  # type: ignore[attr-defined]
        reading = read_turn([turn.after_frame], turn.camera, turn.before,  # type: ignore[attr-defined]
                            before_frame=turn.before_frame,  # type: ignore[attr-defined]
                            locations=[given])
        return {place_key(r.piece) for r in reading.added}

    assert read(mend=True) == truth
    assert read(mend=False) == {place_key(p) for p in misread}
