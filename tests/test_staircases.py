"""The search over whole staircases: the rules' shape hung from the arches read, and a
reading only the greedy search finds still read. Evidence is drawn exactly from the
pieces (as in tests/test_decoder_rules.py), so what is tested is the search."""

from __future__ import annotations

import pytest

from rules import Kind, Palace, Piece
from tests.test_decoder_rules import decoder_for, keys, turns_with
from vision.candidates import built_on
from vision.staircases import proposals


def proposed(before: Palace, readings: list[list[Piece]]) -> set[tuple[object, ...]]:
    """The proposals' pieces, as :func:`tests.test_decoder_rules.keys` gives them."""
    return {tuple(keys([*way, *top])) for top, starts in proposals(before, readings)
            for way in starts}


@pytest.fixture(scope="module")
def staircases() -> list[tuple[Palace, list[Piece]]]:
    found = turns_with(2)
    assert len(found) >= 2
    return found[:2]


def test_a_bot_staircase_is_proposed_from_its_final_arch_alone(staircases) -> None:
    for before, added in staircases:
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                     and (deco.x, deco.y) in p.knobs())
        assert tuple(keys(added)) in proposed(before, [[final]])
        # Nothing read: nothing to hang a staircase from.
        assert not proposed(before, [])


def test_a_turn_no_proposal_holds_is_still_read(staircases) -> None:
    """A column beside the staircase's foot, in full view: the proposals are bare
    staircases, so none holds it, and the greedy reading, which explains it, judges
    best."""
    before, added = staircases[1]
    ground = [p for p in added if p.z == 0]
    extra = None
    for base in ground:
        for x, y in base.footprint():
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                column = Piece(Kind.COLUMN, x + dx, y + dy, 0)
                if built_on(before, [*added, column]) is not None:
                    extra = column
                    break
            if extra:
                break
        if extra:
            break
    assert extra is not None
    turn = [*added, extra]
    decoder, hot = decoder_for(before, turn, [])
    read = decoder.run(hot)
    assert keys(read) == keys(turn)
    assert tuple(keys(turn)) not in proposed(before, [list(r) for _, r in decoder.readings])
