"""The whole-reading edits on development turns rendered alone: a final arch whose near
half the view hides, read at first as the decoration on the step below
(:func:`vision.refine.edits`' final arches), and a two-step staircase's final arch read
at first a level lower on the plate (its raised steps)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from calibration.evidence import BoardLocation
from rules.pieces import ANIMAL_KINDS, Piece, place_key
from training.pairs import TurnPair, turn_pairs
from vision import read_turn, refine


def _turn(game: int, turn: int) -> TurnPair:
    """One development turn of the wide twin (games 13000 on), rendered alone."""
    return next(turn_pairs(3, 13000, wide=True, max_turns=20, only={(game, turn)}))


def _read(turn: TurnPair) -> set[tuple[object, ...]]:
    given = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
    reading = read_turn([turn.after_frame], turn.camera, turn.before,
                        before_frame=turn.before_frame, locations=[given], hand=turn.hand)
    return {place_key(p) for p in reading.pieces}


def _truth(turn: TurnPair) -> set[tuple[object, ...]]:
    return {place_key(p) for p in turn.added if p.kind not in ANIMAL_KINDS}


def _none(pieces: list[Piece]) -> Iterator[list[Piece]]:
    yield from ()


@pytest.mark.parametrize(("game", "turn", "edit"), [
    (13000, 5, "_final_arches"),   # an arch at level 3 seen end on, its decoration beyond
    (13001, 4, "_steps_raised"),   # an arch on a first step and a brick, seen from above
])
def test_a_turn_the_search_misses_is_read_by_its_edit(
        game: int, turn: int, edit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pair = _turn(game, turn)
    assert _read(pair) == _truth(pair)
    monkeypatch.setattr(refine, edit, _none)
    assert _read(pair) != _truth(pair)
