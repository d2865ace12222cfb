"""The new-piece model's training shows it changes that are no new piece: a player's card
laid over the board's edge between the pictures or picked up (``create_dataset
--cards``; with ``--laid things`` also slabs of any size and colour), and crops centred
on such changes (``train --near-changed``). The bench's phone is laid the same way."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from rules.pieces import BOARD_MM
from training.dataset import RegionPair, region_pairs
from training.pairs import _card_moves
from twin import Card, Phone
from twin.clutter import CARD_ON_STUDS_MM, PHONE_MM, REACH_IN_MM, Slab
from twin.mesh import Mesh

HAS_TORCH = importlib.util.find_spec("torch") is not None


def test_a_card_is_laid_or_picked_up_with_the_chance_asked_and_always_the_same_card() -> None:
    moves = [_card_moves(np.random.default_rng([7, k]), False, 0.3) for k in range(400)]
    laid = sum(1 for after, before in moves if after and not before)
    lifted = sum(1 for after, before in moves if before and not after)
    none = sum(1 for after, before in moves if not after and not before)
    assert laid + lifted + none == 400
    assert 90 <= laid <= 150 and 90 <= lifted <= 150, (laid, lifted)
    # Laid always, the card is the one the turn's stream draws first: the benches' card
    # sets are the same with or without chances drawn after it.
    after, before = _card_moves(np.random.default_rng([7, 3]), True, 0.3)
    assert before == () and after == (Card.over_an_edge(np.random.default_rng([7, 3])),)
    assert _card_moves(np.random.default_rng(1), False, 0.0) == ((), ())


def test_with_things_half_of_what_is_laid_or_picked_up_is_a_slab_and_the_rest_as_before(
) -> None:
    plain = [_card_moves(np.random.default_rng([7, k]), False, 0.3) for k in range(400)]
    things = [_card_moves(np.random.default_rng([7, k]), False, 0.3, things=True)
              for k in range(400)]
    moved = [(a + b, c + d) for (a, b), (c, d) in zip(plain, things, strict=True) if a + b]
    # The same turns lay or pick up something, the same way round.
    assert [bool(a) for a, _ in plain] == [bool(a) for a, _ in things]
    assert [bool(b) for _, b in plain] == [bool(b) for _, b in things]
    slabs = sum(isinstance(t[0], Slab) for _, t in moved)
    assert 0.35 * len(moved) <= slabs <= 0.65 * len(moved), (slabs, len(moved))
    # What is still a card is the card drawn without ``things``.
    assert all(t == p for p, t in moved if isinstance(t[0], Card))
    # A slab lies on the studs, some millimetres to a few centimetres thick.
    slab = next(t[0] for _, t in moved if isinstance(t[0], Slab))
    mesh = Mesh()
    slab.draw(mesh)
    heights = np.concatenate(mesh.polys)[:, 2]
    assert heights.min() == pytest.approx(CARD_ON_STUDS_MM)
    assert 0.5 <= heights.max() - CARD_ON_STUDS_MM <= 25.1


def test_a_phone_or_a_slab_reaches_a_little_way_in_and_rests_on_the_studs() -> None:
    """A thing larger than a card laid with its middle near the edge would lie through
    the palace: a phone or a slab lies on the studs reaching one to six studs in, the
    rest of it over the table."""
    (card,), _ = _card_moves(np.random.default_rng([7, 3]), True, 0.0)
    (phone,), before = _card_moves(np.random.default_rng([7, 3]), True, 0.0, phone=True)
    assert isinstance(phone, Phone) and isinstance(card, Card) and before == ()
    things = [Phone.over_an_edge(np.random.default_rng([8, k])) for k in range(20)]
    things += [Slab.over_an_edge(np.random.default_rng([9, k])) for k in range(20)]
    for thing in things:
        mesh = Mesh()
        thing.draw(mesh)
        points = np.concatenate(mesh.polys)
        assert points[:, 2].min() == pytest.approx(CARD_ON_STUDS_MM)
        thick = PHONE_MM[2] + 0.05 if isinstance(thing, Phone) else thing.size[2]
        assert points[:, 2].max() == pytest.approx(CARD_ON_STUDS_MM + thick, abs=0.06)
        # How far in past the nearest edge its deepest corner lies, and that part of
        # it lies beyond the board.
        xy = points[:, :2]
        inside = np.minimum(xy, BOARD_MM - xy)  # (n, 2): depth past each pair of edges
        axis = int(np.argmax(np.abs(np.array(thing.center) - BOARD_MM / 2)))  # across
        depth = inside[:, axis].max()
        assert REACH_IN_MM[0] - 0.01 <= depth <= REACH_IN_MM[1] + 0.01, (thing, depth)
        assert inside[:, axis].min() < 0


def test_cards_in_a_set_change_its_pictures_and_hardly_its_labels() -> None:
    plain = next(region_pairs(1, 300040, look="wide"))
    carded = next(region_pairs(1, 300040, look="wide", cards="on"))
    # A card is laid or picked up in every turn: one of the two pictures shows it.
    assert not (np.array_equal(plain.after, carded.after)
                and np.array_equal(plain.before, carded.before))
    # A card lies on the studs: it may hide a new piece's foot, never the piece.
    moved = np.abs(plain.mask - carded.mask) > 0.5
    assert moved.sum() <= 0.05 * max(int((plain.mask > 0.5).sum()), 1)
    with pytest.raises(ValueError, match="cards"):
        next(region_pairs(1, 300040, cards="sometimes"))


def _pair_with_a_card() -> RegionPair:
    """A grey region re-exposed 40 % brighter, a new piece in one corner and a bright card
    come in the other."""
    rng = np.random.default_rng(5)
    before = np.clip(rng.normal(90, 3, (300, 400, 3)), 0, 255).astype(np.uint8)
    after = np.clip(before.astype(np.float32) * 1.4, 0, 255).astype(np.uint8)
    after[20:70, 20:60] = (40, 60, 160)
    after[200:260, 300:380] = (240, 240, 230)
    mask = np.zeros((300, 400), np.float32)
    mask[20:70, 20:60] = 1.0
    return RegionPair(before, after, mask)


@pytest.mark.skipif(not HAS_TORCH, reason="the training recipe needs torch (the train extra)")
def test_a_change_that_is_no_new_piece_is_found_and_crops_are_centred_on_it() -> None:
    from training.train import CROP, _changed_not_new, sample

    pair = _pair_with_a_card()
    changed = _changed_not_new(pair)
    # The card, not the new piece, and not the exposure that moved everything alike.
    assert changed[210:250, 310:370].all()
    assert not changed[pair.mask > 0].any()
    assert changed.sum() < 1.3 * 60 * 80
    rng = np.random.default_rng(3)
    for _ in range(6):
        x, _, _ = sample(pair, rng, near_changed=1.0)
        assert x.shape[1:] == (CROP, CROP)
        # The card fills a good part of the crop (crops are turned and flipped, so the
        # difference channels are asked, not the place).
        assert (np.abs(x[6:9]).max(axis=0) > 0.3).mean() > 0.05
