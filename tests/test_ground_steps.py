"""The first step on the plate: an arch seen end on is read as the arch, not as the brick
its near leg looks like."""

from __future__ import annotations

import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, Axis, Kind, Piece, place_key
from training.pairs import TurnPair, twin_turns
from vision import decode, read_turn
from vision.candidates import ground_step
from vision.refine import edits

STEP = Piece(Kind.ARCH, 6, 25, 1, axis=Axis.X)
PROPPED = [Piece(Kind.BRICK, 9, 25, 0), Piece(Kind.BRICK, 6, 25, 0), STEP,
           Piece(Kind.DECORATION, 6, 25, 2, color="gold")]


def test_an_arch_on_the_plate_under_the_next_arch_s_leg_is_a_ground_step() -> None:
    first = Piece(Kind.ARCH, 9, 25, 0, axis=Axis.Y)
    assert ground_step([first, Piece(Kind.BRICK, 6, 25, 0), STEP])
    assert not ground_step(PROPPED)
    # An arch on the plate carrying a brick, not the next step, is no ground step.
    assert not ground_step([first, Piece(Kind.BRICK, 9, 25, 1)])


def test_a_lone_brick_under_a_step_s_leg_is_tried_as_an_arch_on_the_plate() -> None:
    tried = [e for e in edits(PROPPED)
             if any(p.kind is Kind.ARCH and p.z == 0 for p in e)]
    firsts = {(p.x, p.y, p.axis) for e in tried for p in e if p.kind is Kind.ARCH and p.z == 0}
    # Both bricks hold the step's legs: each is tried as either end of an arch each way.
    assert (9, 25, Axis.Y) in firsts and (9, 22, Axis.Y) in firsts
    assert {(6, 25, Axis.Y), (6, 22, Axis.Y), (3, 25, Axis.X), (9, 25, Axis.X)} <= firsts
    # The decoration is tried in both outlines: the arch moves the staircase's start.
    assert {p.color for e in tried for p in e if p.kind is Kind.DECORATION} == {
        "gold", "light_green"}


@pytest.fixture(scope="module")
def end_on() -> TurnPair:
    """Game 6000's ninth turn (seeded twin): the first step, an arch on the plate, lies
    end on to the camera with its far leg before an old piece of its colour."""
    return list(twin_turns(9, seed=6000))[-1]


def _read(turn: TurnPair) -> set[tuple[object, ...]]:
    given = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
    reading = read_turn([turn.after_frame], turn.camera, turn.before,
                        before_frame=turn.before_frame, locations=[given])
    return {place_key(r.piece) for r in reading.added}


def test_a_first_step_seen_end_on_is_read_as_the_arch(end_on: TurnPair,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    truth = {place_key(p) for p in end_on.added if p.kind not in ANIMAL_KINDS}
    first = place_key(Piece(Kind.ARCH, 9, 25, 0, axis=Axis.Y))
    assert first in truth
    assert _read(end_on) == truth
    # Without the first step's bonus the step above is propped on a brick under its leg.
    monkeypatch.setattr(decode, "GROUND_STEP_BONUS", 0.0)
    without = _read(end_on)
    assert first not in without
    assert place_key(Piece(Kind.BRICK, 9, 25, 0)) in without
