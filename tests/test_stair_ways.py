"""The staircase search's ways kept as a tree, and its closer bound: the tree lists the
very ways a plain enumeration gives, with the very bounds a plain loop sums, and the
closer bound never falls below a proposal's score."""

from __future__ import annotations

import numpy as np
import pytest

from rules import Kind, Palace, Piece
from tests.turn_fixtures import decoder_for, turns_with
from vision.stair_bounds import CloserBound
from vision.stair_ways import LegWays
from vision.staircases import _signed, proposals


@pytest.fixture(scope="module")
def staircase() -> tuple[Palace, list[Piece]]:
    found = turns_with(2)
    assert found
    return found[0]


def final_arch(added: list[Piece]) -> Piece:
    deco = next(p for p in added if p.kind is Kind.DECORATION)
    return next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                and (deco.x, deco.y) in p.knobs())


def test_each_way_made_alone_and_each_bound_are_the_listed_ones(staircase) -> None:
    before, added = staircase
    found = list(proposals(before, [[final_arch(added)]]))
    starts: list[LegWays] = list({id(s): s for _, s in found}.values())
    assert any(len(s) > 1 for s in starts)
    rng = np.random.default_rng(3)
    signed: dict[int, tuple[float, float]] = {}
    for ways in starts:
        listed = list(ways)
        assert len(listed) == len(ways)
        for way in listed:
            for p in way:
                signed.setdefault(id(p), (float(rng.normal(0, 50)), -float(rng.exponential(30))))
    for ways in starts:
        gains, worsts = ways.bounds(signed)
        for i, way in enumerate(ways):
            assert ways.way(i) == way
            gain, worst = 0, 0.0
            for p in way:
                gain += signed[id(p)][0]
                worst = min(worst, signed[id(p)][1])
            assert (gains[i], worsts[i]) == (gain, worst)


def test_the_closer_bound_is_never_below_the_score(staircase) -> None:
    before, added = staircase
    decoder, _ = decoder_for(before, added, [])
    scorer = decoder.scorer
    found = list(proposals(before, [[final_arch(added)], added]))
    pieces = {id(p): p for top, ways in found for way in [*ways, top] for p in way}
    scorer.prepare(list(pieces.values()))
    signs = [(np.maximum(ev.weight, 0), np.minimum(ev.weight, 0)) for ev in scorer.evidence]
    signed = {k: _signed(scorer, scorer.candidate(p), signs) for k, p in pieces.items()}
    beyond = CloserBound(scorer, signs, signed)
    closer = 0
    for top, ways in found:
        head = scorer.whole(top)
        for i, way in enumerate(ways):
            bound = beyond.bound(top, ways, i, head)
            assert bound >= scorer.whole([*way, *top])
            # The search's first bound: the top's score and the lower pieces' own.
            closer += bound < head + sum(signed[id(p)][0] for p in way)
    assert closer
