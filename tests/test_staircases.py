"""The search over whole staircases: the rules' shape hung from the arches read, and a
reading only the greedy search finds still read. Evidence is drawn exactly from the
pieces (as in tests/test_decoder_rules.py), so what is tested is the search."""

from __future__ import annotations

import pytest

from rules import Kind, Palace, Piece, load_map
from rules.pieces import Axis
from tests.turn_fixtures import decoder_for, keys, two_staircases
from vision import staircases as search
from vision.candidates import built_on, stacks_under
from vision.decode import LEGAL_BONUS
from vision.rulings import CROWN_TOLERANCE
from vision.staircases import STEPS_DOWN, look_alikes, proposals


def proposed(before: Palace, readings: list[list[Piece]]) -> set[tuple[object, ...]]:
    """The proposals' pieces, as :func:`tests.test_decoder_rules.keys` gives them."""
    return {tuple(keys([*way, *top])) for top, starts in proposals(before, readings)
            for way in starts}


@pytest.fixture(scope="module")
def staircases() -> list[tuple[Palace, list[Piece]]]:
    return two_staircases()


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


def test_a_first_step_on_the_ground_below_the_steps_down_is_proposed() -> None:
    """A straight staircase with one step more below its final arch than
    ``STEPS_DOWN``: the lowest, on the ground, needs nothing under it, so the proposal
    reaches it instead of propping the step above on a brick."""
    before = Palace(load_map("1"), [])
    arches = [Piece(Kind.ARCH, 3 * k + 2, 10, k, axis=Axis.X) for k in range(STEPS_DOWN + 2)]
    staircase = list(arches)
    for step in arches[1:]:
        staircase += stacks_under(before, step.x + 3, step.y, step.z)[0]
    final = arches[-1]
    staircase.append(Piece(Kind.DECORATION, final.x + 3, final.y, final.top,
                           color="light_green"))
    assert built_on(before, staircase) is not None
    assert tuple(keys(staircase)) in proposed(before, [[final]])


def test_a_final_arch_read_a_level_low_and_a_stud_near_still_ends_a_proposal(
        staircases) -> None:
    """The greedy search read the final arch a level lower and nearer, where its outline
    is nearly the true one's: the true arch is a look-alike of it, so the whole true
    staircase is still proposed, as it is not from the low arch alone."""
    tried = 0
    for before, added in staircases:
        decoder, _ = decoder_for(before, added, [])
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                     and (deco.x, deco.y) in p.knobs())
        for low in look_alikes(decoder.scorer, [[final]]):
            if low.z != final.z - 1:
                continue
            tried += 1
            alike = look_alikes(decoder.scorer, [[low]])
            assert tuple(keys(added)) not in proposed(before, [[low]])
            assert tuple(keys(added)) in {tuple(keys([*way, *top])) for top, starts
                                          in proposals(before, [[low]], alike)
                                          for way in starts}
    assert tried


def test_a_final_arch_read_a_level_low_on_its_own_cells_still_ends_a_proposal(
        staircases) -> None:
    """The greedy search read the final arch on the very cells it spans, a level lower
    (where the step under it is hidden and that step's pixels pass for other pieces'):
    the same arch a level up is a final arch too, so the true staircase is proposed."""
    tried = 0
    for before, added in staircases:
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                     and (deco.x, deco.y) in p.knobs())
        if final.z == 0:
            continue
        tried += 1
        low = final.moved(z=final.z - 1, id="")
        assert tuple(keys(added)) in proposed(before, [[low]])
    assert tried


def test_the_cap_on_proposals_keeps_the_final_arches_the_picture_shows_best(
        staircases, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the arches read make more proposals than the cap allows, those under the
    arches the picture shows best are made: the true final arch, listed after four
    arches the picture shows nothing of, is still weighed."""
    before, added = staircases[0]
    deco = next(p for p in added if p.kind is Kind.DECORATION)
    final = next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                 and (deco.x, deco.y) in p.knobs())
    taken = {c for p in [*before.pieces, *added] for c in p.footprint()}
    decoys = [Piece(Kind.ARCH, x, y, 0, axis=Axis.X) for y in range(3, 29, 2)
              for x in range(3, 26, 5)
              if not taken & set(Piece(Kind.ARCH, x, y, 0, axis=Axis.X).footprint())][:4]
    assert len(decoys) == 4
    readings = [[*decoys, final]]
    cap = sum(len(starts) for top, starts in proposals(before, readings)
              if any(p.kind is Kind.ARCH and p in decoys for p in top))
    assert cap
    monkeypatch.setattr(search, "MAX_PROPOSALS", cap)
    assert tuple(keys(added)) not in proposed(before, readings)  # as listed: cut off
    decoder, _ = decoder_for(before, added, [])
    found = search.best_staircases(decoder, readings, -1e9, LEGAL_BONUS, CROWN_TOLERANCE)
    assert found and keys(found[0][1]) == keys(added)


def test_a_final_arch_no_reading_holds_ends_a_proposal_where_the_picture_shows_it(
        staircases) -> None:
    """No greedy reading holds an arch near the true final one (only a brick elsewhere
    was read): the arches the picture shows best on the changed voxels are final arches
    too (:data:`vision.staircases.SHOWN_ARCHES`), so the true staircase is still
    weighed, and judges best."""
    for before, added in staircases:
        decoder, hot = decoder_for(before, added, [])
        decoder.run(hot)
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == deco.z
                     and (deco.x, deco.y) in p.knobs())
        shown = decoder.moves.shown_arches(search.SHOWN_ARCHES)
        assert any(keys([a]) == keys([final]) for a in shown)
        taken = {c for p in [*before.pieces, *added] for c in p.footprint()}
        stray = next(Piece(Kind.BRICK, x, y, 0) for x in range(2, 30) for y in range(2, 30)
                     if (x, y) not in taken and before.is_open_knob(x, y, 0))
        readings = [[stray]]
        assert tuple(keys(added)) not in proposed(before, readings)
        found = search.best_staircases(decoder, readings, -1e9, LEGAL_BONUS,
                                       CROWN_TOLERANCE, shown)
        assert found and keys(found[0][1]) == keys(added)
