"""Confidence: a brick read where an arch's leg stands, beside a brick at its far leg."""

from __future__ import annotations

import pytest

from rules import Kind, Piece
from rules.pieces import Axis
from tests.turn_fixtures import decoder_for, doubted_by_rule, turns_with
from vision import rival_readings
from vision.candidates import built_on
from vision.reading import UNCERTAIN_BELOW


def test_a_brick_read_where_an_arch_s_leg_stands_beside_a_brick_at_its_far_leg_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show an arch holding up the next step; the reading has a brick on
    each of its legs. The near brick holds the step, so no rival leaves it out, and the
    arch on its cell collides with the far brick: only the arch that takes both bricks'
    places, the pictures' reading, doubts it. (A far brick that holds nothing is idle
    and the reading no legal staircase; the pieces are weighed as a legal reading's
    are all the same, as where the far brick carries a tower.)"""
    checked = 0
    for before, added in turns_with(2):
        for arch in added:
            if arch.kind is not Kind.ARCH:
                continue
            legs = arch.legs()
            held = [c for c in legs if any(p.z == arch.top and c in p.legs() for p in added)]
            if len(held) != 1:
                continue
            bricks = [Piece(Kind.BRICK, x, y, arch.z) for x, y in legs]
            wrong = [p for p in added if p is not arch] + bricks
            if built_on(before, wrong) is None:
                continue
            decoder, _ = decoder_for(before, added, [])
            at = next(i for i, p in enumerate(wrong) if p in bricks and (p.x, p.y) == held[0])
            doubted = doubted_by_rule(monkeypatch, rival_readings, "LEG_ARCH_RIVALS",
                                      decoder, wrong, at)
            if doubted is None:
                continue
            assert doubted
            checked += 1
    assert checked >= 1


def test_the_far_brick_s_arch_is_no_rival_where_the_far_leg_has_no_brick() -> None:
    """Only a brick of the reading at the far leg's cell and level is taken into the
    arch: a brick one level up, or none, gives no such rival."""
    brick = Piece(Kind.BRICK, 5, 5, 0)
    assert [alt for _, alt in rival_readings._leg_arches([brick], 0)] == []
    higher = [brick, Piece(Kind.BRICK, 8, 5, 1)]
    assert [alt for _, alt in rival_readings._leg_arches(higher, 0)] == []
    beside = [brick, Piece(Kind.BRICK, 8, 5, 0)]
    found = list(rival_readings._leg_arches(beside, 0))
    assert [alt for _, alt in found] == [Piece(Kind.ARCH, 5, 5, 0, axis=Axis.X)]
    assert found[0][0] == [Piece(Kind.ARCH, 5, 5, 0, axis=Axis.X)]


def test_the_ground_arch_cap_leaves_an_arch_over_the_reading_s_own_far_brick_alone() -> None:
    """The ground-arch cap weighs a brick under the next step against an arch on its
    cell by the arch's outline, as its far half is what tells them apart and the palace
    often hides it. Where the reading has its own brick on the arch's far leg, that half
    shows, and the arch is weighed by the brick's outline as any rival is."""
    from vision.confidence import _ground_arch_cap

    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    near, far = Piece(Kind.BRICK, 5, 5, 0), Piece(Kind.BRICK, 8, 5, 0)
    step = Piece(Kind.ARCH, 5, 5, 1, axis=Axis.X)
    arch = Piece(Kind.ARCH, 5, 5, 0, axis=Axis.X)
    rivals = [(-1.0, arch)]
    assert _ground_arch_cap(decoder, [near, step], 0, 0.0, rivals) < UNCERTAIN_BELOW
    assert _ground_arch_cap(decoder, [near, far, step], 0, 0.0, rivals) == 1.0
