"""Confidence: a whole staircase read a stud off its place is doubted; a turn read as
nothing asks the players."""

from __future__ import annotations

import numpy as np
import pytest

from rules import Piece
from rules.staircase import analyse_added
from tests.turn_fixtures import SHOWN, decoder_for, doubted_by_rule, turns_with
from vision import rival_readings
from vision.candidates import built_on
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.evidence import Evidence
from vision.reading import UNCERTAIN_BELOW

CLOSE = 20.0
"""Judged score within which the staircase a stud over explains the pictures as well
(a fifth of a brick in full view)."""


def _shifted(pieces: list[Piece], dx: int, dy: int) -> list[Piece]:
    return [p.moved(x=p.x + dx, y=p.y + dy, id="") for p in pieces]


def test_a_staircase_the_pictures_show_as_well_a_stud_over_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show the staircase where it stands and as well a stud over (as a
    soft or shadowed view does), and the rules accept it there too, judged within
    :data:`CLOSE` of the reading: either place explains them. Every piece holds up
    another or stands on one, so no piece can move alone, and each piece's own rivals
    left the reading sure (0.75 to 1.0 here); only the whole staircase a stud over
    weighs what the pictures leave open, and it doubts every piece."""
    checked = 0
    for before, added in turns_with(2)[:4]:
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            other = _shifted(added, dx, dy)
            if built_on(before, other) is None or not analyse_added(before, other).legal:
                continue
            decoder, _ = decoder_for(before, added, [])
            ev = decoder.evidence[0]
            weight = ev.weight.copy()
            for piece in other:
                weight[ev.view.piece_pixels(piece)] = SHOWN
            both = Decoder(before, [Evidence(ev.view, weight, weight > 0,
                                             np.zeros_like(weight))])
            if both.judged(other) < both.judged(added) - CLOSE:
                continue
            for at in range(len(added)):
                doubted = doubted_by_rule(monkeypatch, rival_readings, "WHOLE_SHIFT_RIVALS",
                                          both, added, at)
                if doubted is not None:
                    assert doubted
                    checked += 1
    assert checked >= 4


def test_a_staircase_the_pictures_fix_stays_sure() -> None:
    """Where the pictures show the staircase only where it stands, the reading a stud
    over loses its outline's edges and the pieces in full view stay trusted."""
    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    rated = rate_pieces(decoder, added, legal=True)
    assert sum(r.confidence >= UNCERTAIN_BELOW for r in rated) >= len(added) - 1
