"""The new-piece model's training shows it changes that are no new piece: a player's card
laid over the board's edge between the pictures or picked up (``create_dataset
--cards``), and crops centred on such changes (``train --near-changed``)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from training.dataset import RegionPair, region_pairs
from training.pairs import _card_moves
from twin import Card

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
