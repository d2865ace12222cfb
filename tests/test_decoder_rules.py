"""The decoder asks the rules where one view cannot see: evidence drawn exactly from a
bot game's true pieces, with the pieces a camera could not see given no evidence at
all, so that what is tested is the search and the rules' part in it, not the picture."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from rules import Kind, Palace, Piece
from rules.pieces import DecorationColor
from tests.turn_fixtures import BARE, FIGURE, UNSEEN, decoder_for, keys, turns_with, two_staircases
from vision import confidence, rival_readings, rulings
from vision.candidates import is_legal_turn
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.evidence import hot_cells
from vision.reading import UNCERTAIN_BELOW


@pytest.fixture(autouse=True)
def hand_made_confidence() -> Iterator[None]:
    """The rules here are caps of the hand-made confidence, each tried on and off; the
    fitted confidence (tested in ``test_confidence_fitted.py``) weighs them among the
    other features rather than obeying one, so they are asked of the hand-made one. Set
    outside ``monkeypatch``, whose ``undo`` the tests call to switch a rule back on."""
    fitted = confidence.FITTED_CONFIDENCE
    confidence.FITTED_CONFIDENCE = False
    yield
    confidence.FITTED_CONFIDENCE = fitted


def decode(before: Palace, added: list[Piece], unseen: list[Piece],
           unseen_weight: float = UNSEEN) -> list[Piece]:
    """What the decoder reads when ``added`` show in full view except ``unseen``."""
    decoder, hot = decoder_for(before, added, unseen, unseen_weight)
    return decoder.run(hot)


@pytest.fixture(scope="module")
def staircases() -> list[tuple[Palace, list[Piece]]]:
    return two_staircases()


def test_a_decoration_no_pixel_shows_is_put_on_by_the_rules(staircases) -> None:
    for before, added in staircases:
        decoration = [p for p in added if p.kind is Kind.DECORATION]
        read = decode(before, added, decoration)
        assert keys(read) == keys(added)
        assert is_legal_turn(before, read)


def test_a_decoration_its_pixels_deny_is_not_put_on(staircases) -> None:
    for before, added in staircases:
        decoration = [p for p in added if p.kind is Kind.DECORATION]
        read = decode(before, added, decoration, unseen_weight=BARE)
        assert not any(p.kind is Kind.DECORATION for p in read)


def test_a_round_decoration_is_drawn_round(staircases) -> None:
    """The gold decoration is a round 1x1 piece: its outline lies inside its cell's box
    and leaves the box's corners (a tenth to a quarter of its pixels) to what stands
    behind."""
    before, added = staircases[0]
    view = decoder_for(before, added, [])[0].evidence[0].view
    for deco in (Piece(Kind.DECORATION, x, y, z, color="gold")
                 for x, y, z in ((4, 4, 0), (16, 20, 2), (27, 9, 5))):
        box = view.piece_pixels(deco.moved(kind=Kind.BRICK, color=""))
        body = view.piece_pixels(deco)
        assert len(body) and np.isin(body, box).all()
        assert 0.65 < len(body) / len(box) < 0.95


def test_a_round_decoration_s_box_corners_do_not_deny_it(staircases) -> None:
    """Where a gold decoration's own outline says nothing (hidden, or faint) and the
    corners of its cell's box show plainly what stands behind it, the rules' decoration
    is still put on: those corners are not the piece's."""
    for before, added in staircases:
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        gold = [p.moved(color="gold") if p is deco else p for p in added]
        decoder, hot = decoder_for(before, gold, [gold[added.index(deco)]])
        ev = decoder.evidence[0]
        others = np.concatenate([ev.view.piece_pixels(p) for p in gold if p.kind
                                 is not Kind.DECORATION])
        box = ev.view.piece_pixels(deco.moved(kind=Kind.BRICK, color=""))
        corners = np.setdiff1d(box, np.union1d(ev.view.piece_pixels(gold[added.index(deco)]),
                                               others))
        assert len(corners)
        ev.weight[corners] = -4.0
        assert keys(decoder.run(hot)) == keys(added)


def test_a_decoration_s_rim_does_not_deny_it(staircases) -> None:
    """Where the staircase's pieces cover all of its decoration but a rim, pixels whose
    evidence mixes the piece with what stands behind it, that rim denying it plainly does
    not keep the rules' decoration off (game 21000 turn 195: 5 rim pixels at -0.51, the
    whole outline at 0.62)."""
    for before, added in staircases:
        deco = next(p for p in added if p.kind is Kind.DECORATION)
        decoder, hot = decoder_for(before, added, [deco])
        ev = decoder.evidence[0]
        outline = ev.view.piece_pixels(deco)
        others = np.concatenate([ev.view.piece_pixels(p) for p in added if p is not deco])
        shown = np.setdiff1d(outline, others)
        width = ev.view.shape[1]
        rim = shown[~np.all([np.isin(shown + step, outline)
                             for step in (1, -1, width, -width)], axis=0)]
        assert len(rim)
        # The rest of the decoration's pixels say nothing; its rim denies it plainly.
        ev.weight[np.setdiff1d(shown, rim)] = UNSEEN
        ev.weight[rim] = -4.0
        read = decoder.run(hot)
        assert keys(read) == keys(added)
        assert is_legal_turn(before, read)


def test_a_hidden_lower_step_is_rebuilt_by_the_rules(staircases) -> None:
    for before, added in staircases:
        arches = sorted((p for p in added if p.kind is Kind.ARCH), key=lambda p: p.z)
        lowest = arches[0]
        # The lowest step and everything under it: what a tower in front would hide.
        hidden = [p for p in added if p.top <= lowest.top and p.kind is not Kind.DECORATION]
        read = decode(before, added, hidden)
        assert is_legal_turn(before, read)
        assert keys(read) == keys(added)


def test_a_first_step_under_a_rebuilt_step_is_rebuilt_too() -> None:
    """A staircase of five steps (ground arch, a brick, a step, a brick on its knob, a
    step and two more) read as its top three steps on a column: the resupport finds
    the two steps under the column's leg, and then the ground arch under the lower
    one's leg, which the first way it tried put a brick in place of."""
    before, added = next((b, a) for b, a in turns_with(3)
                         if sum(p.kind is Kind.ARCH for p in a) == 5)
    # The first step, on the ground, shows faintly; the rest in full view.
    decoder, _ = decoder_for(before, added, [p for p in added if p.z == 0], 0.3)
    lowest = min((p for p in added if p.kind is Kind.ARCH and p.z > 2), key=lambda p: p.z)
    leg = next(c for c in lowest.legs() if any(c in p.footprint() for p in added
                                               if p.top <= lowest.z))
    reading = [p for p in added if p.z >= lowest.z]
    assert decoder.take([*reading, Piece(Kind.COLUMN, *leg, 0)])
    rulings.resupport(decoder)
    assert keys(decoder.added) == keys(added)

def test_every_piece_of_a_reading_the_rules_refuse_is_doubted(staircases) -> None:
    before, added = staircases[0]
    decoder, hot = decoder_for(before, added, [])
    read = decoder.run(hot)
    trusted = rate_pieces(decoder, read, legal=True)
    doubted = rate_pieces(decoder, read, legal=False)
    assert max(r.confidence for r in trusted) >= UNCERTAIN_BELOW
    assert all(r.confidence < UNCERTAIN_BELOW for r in doubted)
    assert [r.piece for r in doubted] == [r.piece for r in trusted]


def test_a_piece_a_close_rival_reading_leaves_out_is_doubted(staircases) -> None:
    """Two readings close: the pieces they disagree on are doubted, the rest kept."""
    before, added = staircases[0]
    decoder, hot = decoder_for(before, added, [])
    read = decoder.run(hot)
    assert decoder.readings, "the decoder keeps the readings it grew"
    clear = rate_pieces(decoder, read)
    best = max(score for score, _ in decoder.readings)
    dropped = max(read, key=lambda p: p.z)
    rest = tuple(p for p in read if p is not dropped)
    decoder.readings = [(best, tuple(read)), (best - 5.0, rest)]
    close = rate_pieces(decoder, read)
    decoder.readings = [(best, tuple(read)), (best - 500.0, rest)]
    far = rate_pieces(decoder, read)
    for c, n, f, piece in zip(clear, close, far, read, strict=True):
        if piece is dropped:
            assert n.confidence < UNCERTAIN_BELOW <= c.confidence
            assert f.confidence == c.confidence
        else:
            assert n.confidence == c.confidence


def test_a_legal_reading_s_round_decoration_is_weighed_against_decorations_only(
        staircases) -> None:
    """The readings hold a round decoration as the decoder read it (a decoration, not
    its brick outline), and a legal staircase's decoration is not weighed against none
    at all: its rivals stand on the arch's other end knob."""
    before, added = staircases[0]
    gold = [p.moved(color="gold") if p.kind is Kind.DECORATION else p for p in added]
    decoder, _ = decoder_for(before, gold, [])
    decoder.readings = [(decoder.score_of(gold), tuple(gold))]
    rated = rate_pieces(decoder, gold, legal=True)
    deco = next(r for r in rated if r.piece.kind is Kind.DECORATION)
    assert deco.confidence >= UNCERTAIN_BELOW
    assert deco.alternatives
    assert all(a.kind is Kind.DECORATION for a in deco.alternatives)
    assert all((a.x, a.y) != (deco.piece.x, deco.piece.y) for a in deco.alternatives)


def test_a_legal_reading_s_rivals_that_break_the_staircase_lose_the_legal_bonus(
        staircases, monkeypatch) -> None:
    """A decoration no pixel shows sits on one end knob or the other as far as the
    evidence goes; only the rules say which: judged as the decoder judges readings,
    the other knob breaks the staircase and the decoration read is trusted."""
    import vision.confidence as confidence
    before, added = staircases[0]
    decoration = [p for p in added if p.kind is Kind.DECORATION]
    decoder, _ = decoder_for(before, added, decoration)
    assert is_legal_turn(before, added)

    def trust(judged: bool) -> float:
        monkeypatch.setattr(confidence, "JUDGED_RIVALS", judged)
        rated = rate_pieces(decoder, added, legal=True)
        return next(r.confidence for r in rated if r.piece.kind is Kind.DECORATION)

    assert trust(False) < UNCERTAIN_BELOW <= trust(True)


def one_step_shorter(before: Palace, added: list[Piece]) -> tuple[Piece, list[Piece]] | None:
    """The staircase's last arch, and the staircase without it, its decoration on the
    knob the arch stood on (None: that is no legal staircase)."""
    decoration = next(p for p in added if p.kind is Kind.DECORATION)
    arch = next(p for p in added if p.kind is Kind.ARCH and p.top == decoration.z
                and (decoration.x, decoration.y) in p.knobs())
    x, y = next(c for c in arch.legs() if c != (decoration.x, decoration.y))
    shorter = [p for p in added if p is not decoration and p is not arch]
    shorter.append(decoration.moved(x=x, y=y, z=arch.z, id=""))
    return (arch, shorter) if is_legal_turn(before, shorter) else None


def test_a_staircase_read_one_step_too_long_is_doubted_at_its_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show a staircase that ends a step short of the reading: its last
    arch left out and the decoration on the knob the arch stood on. No rival of that
    arch stands with the decoration still on it, so without the staircase one step
    shorter as a rival nothing doubts it."""

    cases = [(before, added, found) for before, added in turns_with(2)
             if (found := one_step_shorter(before, added)) is not None][:2]
    assert len(cases) == 2
    for before, added, (arch, shorter) in cases:
        decoder, _ = decoder_for(before, shorter, [])
        rated = {r.piece.z: r.confidence for r in rate_pieces(decoder, added)}
        assert rated[arch.z] < UNCERTAIN_BELOW
        assert rated[arch.top] < UNCERTAIN_BELOW
        monkeypatch.setattr(rival_readings, "END_RIVALS", False)
        alone = {r.piece.z: r.confidence for r in rate_pieces(decoder, added)}
        monkeypatch.undo()
        assert alone[arch.z] >= UNCERTAIN_BELOW


def test_a_start_no_margin_decides_leaves_the_decoration_in_doubt(staircases) -> None:
    """The rules name the decoration by the colour where the staircase starts: when a
    rival does as well as the start piece, the decoration is doubted; a doubt anywhere
    else leaves it as it was."""
    from rules.staircase import analyse_added
    from vision.confidence import _start_open
    from vision.reading import PieceReading

    for before, added in staircases:
        start = analyse_added(before, added).start
        assert start is not None
        first = next(p for p in added if p.z == 0 and start in p.footprint())
        other = next(p for p in added if p is not first and p.kind is not Kind.DECORATION)
        sure = [PieceReading(p, 1.0) for p in added]
        assert not _start_open(before, added, sure)
        open_start = [PieceReading(p, 0.0 if p is first else 1.0) for p in added]
        assert _start_open(before, added, open_start)
        elsewhere = [PieceReading(p, 0.0 if p is other else 1.0) for p in added]
        assert not _start_open(before, added, elsewhere)


def test_a_figure_on_the_final_arch_s_open_knob_is_not_read_as_a_brick(
        staircases, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Monkey a gold staircase earns stands on an open end knob, most often the
    final arch's other one, and is not read: its pixels (fainter than a piece's, where
    the staircase's own do not cover them) pay for a brick there, which the rules let
    stand (it joins the staircase). A piece that holds nothing up and earns nothing is
    no part of a staircase a player builds, so that reading loses the legal bonus and
    the staircase alone is read."""
    from rules.staircase import analyse_added
    from vision import candidates

    for before, added in staircases:
        decoration = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == decoration.z
                     and (decoration.x, decoration.y) in p.knobs())
        x, y = next(k for k in final.knobs() if k != (decoration.x, decoration.y))
        figure = Piece(Kind.BRICK, x, y, final.top)
        assert analyse_added(before, [*added, figure]).legal
        ev = decoder_for(before, added, [])[0].evidence[0]
        own = np.setdiff1d(ev.view.piece_pixels(figure),
                           np.concatenate([ev.view.piece_pixels(p) for p in added]))
        ev.weight[own] = FIGURE
        ev.hot[own] = True
        hot = hot_cells([ev], max(p.top for p in before))
        assert keys(Decoder(before, [ev]).run(hot)) == keys(added)
        monkeypatch.setattr(candidates, "IDLE_REFUSED", False)
        assert keys(Decoder(before, [ev]).run(hot)) == keys([*added, figure])
        monkeypatch.undo()


def test_a_piece_off_the_path_that_earns_something_keeps_the_turn_legal(staircases) -> None:
    """The rules let bricks and columns stand off the staircase's path: a tower on the
    final arch's other knob that reaches five bricks earns the bonus card, and the
    reading keeps its legal bonus; a lone brick there earns nothing and loses it."""
    from rules.staircase import analyse_added

    checked = 0
    for before, added in staircases:
        decoration = next(p for p in added if p.kind is Kind.DECORATION)
        final = next(p for p in added if p.kind is Kind.ARCH and p.top == decoration.z
                     and (decoration.x, decoration.y) in p.knobs())
        x, y = next(k for k in final.knobs() if k != (decoration.x, decoration.y))
        z = final.top
        tower = [Piece(Kind.COLUMN, x, y, z), Piece(Kind.BRICK, x, y, z + 3),
                 Piece(Kind.BRICK, x, y, z + 4)]
        report = analyse_added(before, [*added, *tower])
        assert report.legal and report.bonus_card
        if analyse_added(before, added).bonus_card:
            continue  # the tower earns nothing the staircase had not
        assert is_legal_turn(before, [*added, *tower])
        lone = Piece(Kind.BRICK, x, y, z)
        assert analyse_added(before, [*added, lone]).legal
        assert not is_legal_turn(before, [*added, lone])
        checked += 1
    assert checked


def test_a_staircase_read_as_its_ground_step_alone_leaves_the_decoration_in_doubt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show a staircase's first step, an arch on the ground, and on its knob
    the near leg of the next step, the rest of which the palace hides: read as one arch
    and its decoration, the evidence is sure of both, and only the shortness of such a
    staircase says otherwise."""
    from vision import confidence

    cases = []
    for before, added in turns_with(2):
        ground = next((p for p in added if p.kind is Kind.ARCH and p.z == 0), None)
        if ground is None:
            continue
        for x, y in ground.knobs():
            for colour in DecorationColor:
                lone = [ground, Piece(Kind.DECORATION, x, y, ground.top, color=colour.value)]
                if is_legal_turn(before, lone):
                    cases.append((before, added, lone))
    assert len(cases) >= 2
    for before, added, lone in cases[:2]:
        decoder, _ = decoder_for(before, lone, [])
        rated = rate_pieces(decoder, lone, legal=True)
        assert rated[1].confidence < UNCERTAIN_BELOW <= rated[0].confidence
        monkeypatch.setattr(confidence, "LONE_STEP_DOUBT", False)
        alone = rate_pieces(decoder, lone, legal=True)
        monkeypatch.undo()
        assert alone[1].confidence >= UNCERTAIN_BELOW
        # The staircase as built is longer: no doubt of this kind on it.
        assert not confidence._lone_step(added)


def test_a_staircase_top_read_a_level_too_high_on_bricks_is_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show a staircase; the reading puts a brick under each leg of its
    last arch and the arch and its decoration a level higher. Every piece of that top
    holds up another, so none can be left out or moved alone: without the reading with
    that level taken out as a rival, the bricks are trusted fully."""
    from vision.candidates import built_on

    cases = []
    for before, added in turns_with(2):
        crown = next(p for p in added if p.kind is Kind.DECORATION)
        top = next(p for p in added if p.kind is Kind.ARCH and p.top == crown.z)
        bricks = [Piece(Kind.BRICK, x, y, top.z) for x, y in top.legs()]
        high = [p.moved(z=p.z + 1) if p is top or p is crown else p for p in added]
        if built_on(before, [*high, *bricks]) is not None:
            cases.append((before, added, [*high, *bricks]))
    assert len(cases) >= 2
    for before, added, wrong in cases[:2]:
        decoder, _ = decoder_for(before, added, [])
        rated = rate_pieces(decoder, wrong, legal=True)[-2:]
        assert all(r.confidence < UNCERTAIN_BELOW for r in rated)
        monkeypatch.setattr(rival_readings, "LEVEL_RIVALS", False)
        alone = rate_pieces(decoder, wrong, legal=True)[-2:]
        monkeypatch.undo()
        assert all(r.confidence >= UNCERTAIN_BELOW for r in alone)


def test_two_steps_read_round_the_wrong_corner_are_doubted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pictures show two steps that turn a corner; the reading takes them round the
    square's other corner (on whatever holds that corner up). No single piece of the
    two can be told otherwise and still stand, so without the reading round the other
    corner as a rival the two arches are trusted; with it they are doubted."""
    from vision.candidates import built_on
    from vision.corners import corner_swapped

    cases = []
    for before, added in turns_with(2):
        for i, low in enumerate(added):
            for wrong, _ in corner_swapped(before, added, i):
                if low.kind is Kind.ARCH and built_on(before, wrong) is not None:
                    cases.append((before, added, wrong))
                    break
    assert len(cases) >= 2
    for before, added, wrong in cases[:2]:
        decoder, _ = decoder_for(before, added, [])
        turned = [j for j, p in enumerate(wrong) if p.kind is Kind.ARCH and p not in added]
        assert len(turned) == 2
        rated = rate_pieces(decoder, wrong, legal=True)
        assert all(rated[j].confidence < UNCERTAIN_BELOW for j in turned)
        monkeypatch.setattr(rival_readings, "CORNER_RIVALS", False)
        alone = rate_pieces(decoder, wrong, legal=True)
        monkeypatch.undo()
        assert all(alone[j].confidence >= UNCERTAIN_BELOW for j in turned)
