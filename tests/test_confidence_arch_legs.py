"""Confidence: an arch read where only a brick stands under the next step's leg."""

from __future__ import annotations

import pytest

from rules import Kind, Piece
from rules.pieces import Axis
from tests.turn_fixtures import decoder_for, doubted_by_rule, turns_with
from vision import rival_readings
from vision.candidates import built_on

FAINT = 0.05
"""The weight of the arch's own pixels beyond the brick's: a shadow's or a neighbour's
edge that gives the arch a small win over the brick."""


def _ground_arches(brick: Piece) -> list[Piece]:
    """The arches on the ground with a leg on ``brick``'s cell."""
    x, y = brick.x, brick.y
    return [Piece(Kind.ARCH, ax, ay, 0, axis=axis)
            for ax, ay, axis in ((x, y, Axis.X), (x - 3, y, Axis.X),
                                 (x, y, Axis.Y), (x, y - 3, Axis.Y))]


def test_an_arch_read_where_a_brick_holds_the_next_step_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show a brick on the ground under the next step's leg, and faintly
    more beside it; the reading has an arch there. The step stands on it, so no rival
    leaves it out; only the brick on its leg's cell, the pictures' reading, doubts it."""
    checked = 0
    for before, added in turns_with(2):
        for brick in added:
            if brick.kind is not Kind.BRICK or brick.z != 0:
                continue
            if not any(a.kind is Kind.ARCH and a.z == 1 and (brick.x, brick.y) in a.legs()
                       for a in added):
                continue
            for arch in _ground_arches(brick):
                wrong = [p for p in added if p is not brick] + [arch]
                if not arch.on_plate() or built_on(before, wrong) is None:
                    continue
                decoder, _ = decoder_for(before, [*added, arch], [arch], FAINT)
                doubted = doubted_by_rule(monkeypatch, rival_readings, "ARCH_LEG_BRICKS",
                                          decoder, wrong, len(wrong) - 1)
                if doubted is None:
                    continue
                assert doubted
                checked += 1
    assert checked >= 1


def test_a_ground_arch_s_leg_bricks_are_among_its_variants() -> None:
    """Each leg's cell of an arch on the plate gives a brick there; an arch higher up,
    whose legs stand on the palace, is not weighed against bricks on its legs."""
    arch = Piece(Kind.ARCH, 5, 5, 0, axis=Axis.Y)
    found = [p for p in rival_readings._variants(arch) if p.kind is Kind.BRICK]
    assert found == [Piece(Kind.BRICK, 5, 5, 0), Piece(Kind.BRICK, 5, 8, 0)]
    high = arch.moved(z=2)
    assert not [p for p in rival_readings._variants(high) if p.kind is Kind.BRICK]
