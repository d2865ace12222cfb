"""A first step on the plate that the first-step prior chose is doubted as much as the
prior decided: the reading with the lone brick under the next step's leg in its place
is kept among the decoder's readings (:data:`vision.decode.STEP_RIVALS`)."""

from __future__ import annotations

import pytest

from rules import Kind, Palace, Piece
from tests.turn_fixtures import decoder_for, keys, turns_with
from vision import decode
from vision.candidates import built_on, first_steps
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.reading import UNCERTAIN_BELOW

CASES = 2
"""Staircases read: each is two whole decodings."""


def hidden_first_steps() -> list[tuple[Palace, list[Piece], Piece]]:
    """Seeded staircases whose first step is an arch on the plate that could as well be
    the lone brick under the next step's leg (the reading with the brick stands)."""
    out = []
    for before, added in turns_with(2, seed=35):
        steps = first_steps(added)
        if not steps:
            continue
        arch, near, _ = steps[0]
        propped = [p for p in added if p is not arch] + [Piece(Kind.BRICK, *near, 0)]
        if built_on(before, propped) is not None:
            out.append((before, added, arch))
    return out


def test_a_first_step_the_picture_does_not_show_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for before, added, arch in hidden_first_steps():
        # Everything shows in full view but the first arch, whose pixels say nothing:
        # only the prior tells it from the brick under the next step's leg.
        evidence, hot = decoder_for(before, added, [arch])
        trusted = {}
        for rule in (False, True):
            monkeypatch.setattr(decode, "STEP_RIVALS", rule)
            decoder = Decoder(before, evidence.evidence)
            pieces = decoder.run(hot)
            if keys(pieces) != keys(added):
                break
            at = next(i for i, p in enumerate(pieces)
                      if (p.kind, p.x, p.y, p.z, p.axis) == (arch.kind, arch.x, arch.y, 0,
                                                              arch.axis))
            trusted[rule] = rate_pieces(decoder, pieces, legal=True)[at].confidence
        if len(trusted) < 2 or trusted[False] < UNCERTAIN_BELOW:
            continue  # read otherwise, or doubted by another rule already
        assert trusted[True] < UNCERTAIN_BELOW
        checked += 1
        if checked == CASES:
            break
    assert checked >= 1
