"""The scorer keeps answers between the decoder's rounds: what it keeps must be what a
fresh computation gives once pixels are covered, and a move scored on its pieces' free
pixels must score what the move's whole pixels give; the shortcuts the decoder takes
(its kept ways under a leg, a column's median colour) give what the long way does."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.turn import row_medians
from rules import Kind, Palace, Piece, load_map
from rules.pieces import BRICK_MM, STUD_MM, Axis
from tests.turn_fixtures import evidence, pieces
from vision.candidates import SUPPORT_DEPTH, supports
from vision.decode import Decoder
from vision.scored_piece import PIECE_FLOOR, piece_key
from vision.scoring import Scorer


def test_kept_answers_equal_fresh_ones_after_pixels_are_covered() -> None:
    ev = evidence()
    kept = Scorer([ev])
    cands = [kept.candidate(p) for p in pieces()]
    masks = [np.zeros(ev.weight.shape, bool)]
    kept.sync(masks)
    before = [(kept.fresh(c), kept.upper(c)) for c in cands]
    # Cover the pixels of an arch in the middle, as a round of the decoder does.
    covered = kept.candidate(Piece(Kind.ARCH, 9, 11, 1, axis=Axis.X))
    masks[0][covered.pixels[0]] = True
    kept.sync(masks)
    fresh = Scorer([ev])
    fresh.sync(masks)
    now = [(kept.fresh(c), kept.upper(c)) for c in cands]
    again = [(fresh.fresh(fresh.candidate(c.piece)), fresh.upper(fresh.candidate(c.piece)))
             for c in cands]
    assert now == again
    assert now != before  # the covered pixels did change some answers


def test_a_move_scored_on_free_pixels_scores_its_whole_pixels() -> None:
    ev = evidence()
    scorer = Scorer([ev])
    masks = [np.zeros(ev.weight.shape, bool)]
    masks[0][scorer.candidate(Piece(Kind.BRICK, 11, 11, 1)).pixels[0]] = True
    scorer.sync(masks)
    move = tuple(scorer.candidate(p) for p in (
        Piece(Kind.COLUMN, 9, 11, 0), Piece(Kind.BRICK, 12, 11, 0),
        Piece(Kind.ARCH, 9, 11, 1, axis=Axis.X)))
    union, around = scorer._union(move)
    whole = scorer._gain(union, around, sum(c.price for c in move), masks)
    assert scorer.gain(move) == whole


def test_the_median_of_a_columns_levels_is_numpys_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    for n in (6, 7, 40, 41, 200):
        values = (rng.uniform(0, 300, (n, 3))).astype(np.float32)
        values[: n // 3] = values[n // 3: 2 * (n // 3)]  # ties, as flat faces give
        assert row_medians(values.T).tobytes() == np.median(values, axis=0).tobytes()


def test_kept_ways_under_a_leg_are_what_the_palace_now_gives() -> None:
    ev = evidence()
    decoder = Decoder(Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0)]), [ev])
    decoder.scorer.sync(decoder.masks)

    def ways() -> list[list[tuple[object, ...]]]:
        return [[c.key for c in way.cands]
                for way in decoder.moves.leg_ways(decoder.state, decoder.added,
                                                  [(10, 13, 2)])[(10, 13, 2)]]

    def truth() -> list[list[tuple[object, ...]]]:
        return [[piece_key(p) for p in way]
                for way in supports(decoder.state, 10, 13, 2, SUPPORT_DEPTH)]

    first = ways()
    assert first == truth()
    decoder.apply([Piece(Kind.BRICK, 25, 25, 0)])  # far from the leg: the kept ways hold
    assert ways() == truth() == first
    decoder.apply([Piece(Kind.BRICK, 13, 13, 0)])  # a step's reach away: they change
    assert ways() == truth() != first


def test_supports_kept_for_a_palace_are_the_ones_worked_out_afresh() -> None:
    palace = Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0), Piece(Kind.COLUMN, 13, 10, 0)])
    known: dict[tuple[int, int, int, int], list[list[Piece]]] = {}
    legs = [(10, 13, 2), (13, 13, 2), (10, 10, 3), (13, 10, 3), (10, 13, 2)]
    for x, y, z in legs:
        kept = supports(palace, x, y, z, SUPPORT_DEPTH, known)
        assert [[piece_key(p) for p in way] for way in kept] == [
            [piece_key(p) for p in way] for way in supports(palace, x, y, z, SUPPORT_DEPTH)]
    assert known  # the steps below were kept, and asked again by the neighbouring legs


def test_voxel_distances_together_are_each_voxels_own_to_the_bit() -> None:
    view = evidence().view
    rng = np.random.default_rng(3)
    voxels = [(int(x), int(y), int(z), 0) for x, y, z in rng.integers(0, 32, (500, 3))]
    one_by_one = [float(np.linalg.norm(np.array([(x + 0.5) * STUD_MM, (y + 0.5) * STUD_MM,
                                                 (z + 0.5) * BRICK_MM]) - view.eye))
                  for x, y, z, _ in voxels]
    assert view.distances(voxels) == one_by_one


def test_a_level_hidden_leaves_the_levels_seen_to_tell_a_column_from_bricks() -> None:
    """The palace hides a stack's foot more often than not: the two levels above it,
    seen in different colours, still say three bricks, and in one colour say nothing."""
    ev = evidence()
    ev.colour = np.zeros((len(ev.weight), 3), np.float32)
    column = Piece(Kind.COLUMN, 12, 12, 0)
    for upper, steps in (((30.0, 100.0, 500.0), 1.0), ((100.0, 100.0, 580.0), 1.0),
                         ((100.0, 100.0, 500.0), 0.0)):
        scorer = Scorer([ev])  # a turn's scorer keeps each column's answer
        seen = {0: None, 1: np.array([100.0, 100.0, 500.0], np.float32),
                2: np.array(upper, np.float32)}
        scorer.colours._colour_of = lambda view, x, y, level, seen=seen: seen[level]
        assert scorer.colours.steps(column) == steps


def test_three_bricks_scored_with_their_pixels_priced_once_are_a_column_less_two_floors() -> None:
    # A column and three bricks have one outline; each brick pays for its own outline,
    # the lower bricks' tops under the bricks on them too. Given back what they pay
    # twice, the bricks score below the column by their two floors alone (the evidence
    # here has no colour, so the column's colours add no price).
    scorer = Scorer([evidence()])
    column = Piece(Kind.COLUMN, 11, 9, 0)
    bricks = [Piece(Kind.BRICK, 11, 9, z) for z in range(3)]
    twice = scorer.priced_twice(bricks)
    assert twice > 5.0
    # Within a pixel's evidence: a lower brick's stud may poke a pixel past the column.
    assert scorer.whole(bricks) + twice + 2 * PIECE_FLOOR == pytest.approx(
        scorer.whole([column]), abs=1.0)
    assert scorer.priced_twice([column]) == 0.0
