"""A round's moves made as arrays must be the moves, bounds and order the plain double
loop and sort give; the close bound must never rule out a move that beats the floor,
and asked of many moves at once must answer as asked of each, from each way's pixels
off its arch;
pieces' pixels gathered together must be each piece's own; ways kept from round to round
must hold what ways made afresh hold; a whole reading's kept score must be the one worked
out, and a column listed again must have its seams looked at once."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from rules import Kind, Palace, Piece, load_map
from rules.pieces import Axis, Voxel
from tests.turn_fixtures import evidence, pieces
from vision.candidates import shapes_at
from vision.close_bounds import CloseBounds
from vision.decode import Decoder
from vision.rounds import Ranked, Ranking, Start, rank_moves
from vision.scored_piece import Candidate, piece_key
from vision.scoring import Scorer
from vision.voxels import _voxels, piece_voxels
from vision.ways import NO_WAY, Way


def ranked_moves(starts: Sequence[Start], legs: Sequence[tuple[Voxel, Voxel]],
                 kept: dict[Voxel, list[Way]], halo: set[Voxel]) -> Iterator[Ranked]:
    """Every move of :func:`rank_moves`, in its order."""
    ranking = rank_moves(starts, legs, kept, halo)
    for k in range(len(ranking)):
        yield ranking.move(k)


def _round(seed: int) -> tuple[Scorer, list[Start], list, dict, set]:
    """A round of random arches and pieces alone over random ways, on covered pixels."""
    ev = evidence()
    scorer = Scorer([ev])
    cands = [scorer.candidate(p) for p in pieces()]
    masks = [np.zeros(ev.weight.shape, bool)]
    masks[0][scorer.candidate(Piece(Kind.ARCH, 9, 11, 1, axis=Axis.X)).pixels[0]] = True
    scorer.sync(masks)
    rng = np.random.default_rng(seed)
    legs = [(int(x), int(y), 1) for x, y in rng.integers(0, 6, (8, 2))]
    kept = {}
    for leg in legs:
        options = []
        for _ in range(int(rng.integers(0, 5))):
            size = int(rng.integers(0, 3))
            chosen = [cands[int(k)] for k in rng.integers(0, len(cands), size)]
            options.append(Way(scorer, chosen) if chosen else NO_WAY)
        kept[leg] = options
    starts: list[Start] = []
    start_legs = []
    for k in rng.integers(0, len(cands), 60):
        cand = cands[int(k)]
        arch = bool(rng.integers(0, 2))
        starts.append((scorer.upper(cand) + float(rng.uniform(0, 30)), cand,
                       bool(rng.integers(0, 2)), arch))
        scorer.fresh(cand)
        pick = rng.integers(0, len(legs), 2)
        start_legs.append((legs[pick[0]], legs[pick[1]]) if arch else ((0, 0, 0), (0, 0, 0)))
    halo = {v for c in cands[:40] for v in c.voxels}
    return scorer, starts, start_legs, kept, halo


def _plain(starts: list[Start], start_legs: list, kept: dict, halo: set) -> list[tuple]:
    """The moves as one loop over every pairing, sorted by bound (stable)."""
    out = []
    for (up, cand, joined, arch), (a, b) in zip(starts, start_legs, strict=True):
        if not arch:
            out.append((0 + up, NO_WAY, NO_WAY, cand))
            continue
        for first in kept[a]:
            for second in kept[b]:
                if not (first.cands or second.cands):
                    continue
                if not (joined or first.joins(halo) or second.joins(halo)):
                    continue
                out.append((sum(second.uppers, first.upper) + up, first, second, cand))
    out = [m for m in out if m[0] > 0]
    out.sort(key=lambda m: m[0], reverse=True)
    return out


def test_moves_ranked_as_arrays_are_the_plain_loops_in_its_order() -> None:
    for seed in range(4):
        _, starts, start_legs, kept, halo = _round(seed)
        got = list(ranked_moves(starts, start_legs, kept, halo))
        want = _plain(starts, start_legs, kept, halo)
        assert len(want) > 20
        assert [(b, f, s, c) for b, _, f, s, c in got] == want
        for b, reach, f, s, c in got:
            assert reach == b - max(f.slack, s.slack, c.upper - c.fresh)  # type: ignore[operator]


def test_the_close_bound_never_rules_out_a_move_that_beats_the_floor() -> None:
    ruled_out = 0
    for seed in range(3):
        scorer, starts, start_legs, kept, _ = _round(seed)
        close = CloseBounds(scorer)
        for (_, cand, _, arch), (a, b) in zip(starts, start_legs, strict=True):
            if not arch or cand.decoration:
                continue
            for first in kept[a]:
                for second in kept[b]:
                    price = sum(second.prices, first.price) + cand.price
                    gain = scorer.free_gain([[first.free(0), second.free(0), cand.free[0]]],
                                            price)  # type: ignore[index]
                    assert not close.cannot_beat(first, second, cand, price,
                                                 float(np.nextafter(gain, -np.inf)))
                    ruled_out += close.cannot_beat(first, second, cand, price, gain + 1.0)
    assert ruled_out > 50  # and it is close: a floor a little above the gain rules most out


def test_close_bounds_asked_together_are_each_moves_own() -> None:
    for seed in range(3):
        scorer, starts, start_legs, kept, halo = _round(seed)
        ranking = rank_moves(starts, start_legs, kept, halo)
        every = np.arange(len(ranking))
        asked = ruled = 0
        for floor in (-100.0, -30.0, 0.0, 40.0):
            close = CloseBounds(scorer)
            got = close.ruled_out(ranking, every, floor)
            for k in every.tolist():
                _, _, first, second, cand = ranking.move(k)
                if not (first.cands or second.cands) or cand.decoration:
                    assert not got[k]
                    continue
                price = sum(second.prices, first.price) + cand.price
                assert ranking.price[k] == price
                asked += 1
                assert got[k] == CloseBounds(scorer).cannot_beat(first, second, cand, price,
                                                                 floor)
            ruled += int(got.sum())
            # In parts, as the move loop asks: the same moves pass, in their order.
            passing = list(CloseBounds(scorer).passing(ranking, every, floor))
            assert passing == np.flatnonzero(~got).tolist()
        assert asked > 100 and 0 < ruled < asked  # both answers are given


def test_a_way_s_sums_off_its_arch_are_those_of_its_pixels_off_the_arch() -> None:
    scorer, starts, start_legs, kept, _ = _round(0)
    weight = scorer.evidence[0].weight.astype(np.float64)
    pairs = [(way, cand) for (_, cand, _, arch), legs in zip(starts, start_legs, strict=True)
             if arch for leg in legs for way in kept[leg] if way.cands]
    assert len(pairs) > 20
    made = CloseBounds(scorer)._beside_many(pairs)
    for (way, cand), (_, gain, against, size) in zip(pairs, made, strict=True):
        off = np.setdiff1d(np.unique(way.free(0)), cand.free[0])  # type: ignore[index]
        w = weight[off]
        want_against = float(np.maximum(-w, 0).sum())
        assert abs(gain - w.sum()) <= 1e-9 * (1 + np.abs(w).sum())
        assert abs(against[0] - want_against) <= 1e-9 * (1 + np.abs(w).sum())
        assert abs(size - np.abs(w).sum()) <= 1e-9 * (1 + np.abs(w).sum())


def test_pieces_pixels_gathered_together_are_each_pieces_own() -> None:
    view = evidence().view
    many = pieces()
    together = view.pieces_pixels([piece_voxels(p) for p in many])
    for p, px in zip(many, together, strict=True):
        own = view.piece_pixels(p)
        assert px.tobytes() == own.tobytes() and px.dtype == own.dtype


def test_ways_kept_between_rounds_hold_what_fresh_ones_do() -> None:
    decoder = Decoder(Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0)]), [evidence()])
    legs = [(10, 13, 2), (12, 11, 1), (9, 12, 2), (25, 25, 1)]

    def held(ways: dict[tuple[int, int, int], list[Way]]) -> list[tuple]:
        return [(w.upper, w.uppers, w.slack, w.prices) for leg in legs for w in ways[leg]]

    def fresh(cands: list[Candidate]) -> Way:
        return Way(decoder.scorer, cands) if cands else NO_WAY

    decoder.scorer.sync(decoder.masks)
    before = decoder.moves.leg_ways(decoder.state, decoder.added, legs)
    # Pixels covered as a round covers them (the pieces read near the legs unchanged, so
    # the legs' ways are the same pieces): stale ways are made anew, the rest kept.
    arch = decoder.scorer.candidate(Piece(Kind.ARCH, 9, 11, 1, axis=Axis.X))
    decoder.masks[0][arch.pixels[0]] = True
    decoder.scorer.sync(decoder.masks)
    kept = decoder.moves.leg_ways(decoder.state, decoder.added, legs)
    assert held(kept) == held({leg: [fresh(list(w.cands)) for w in kept[leg]]
                               for leg in legs})
    assert held(kept) != held(before)  # the covered pixels did change some
    assert kept[(25, 25, 1)] is before[(25, 25, 1)]  # far from them: kept as it was


def test_boxes_written_out_are_the_general_ways() -> None:
    for kind in Kind:
        for axis in Axis:
            for turn in range(4):
                for x, y, z in ((0, 0, 0), (5, 9, 2), (20, 3, 7)):
                    p = Piece(kind, x, y, z, axis=axis, turn=turn)
                    assert piece_voxels(p) == _voxels(kind, x, y, z, axis, turn), p


def test_the_moves_a_floor_leaves_are_those_the_plain_loop_looks_at() -> None:
    for seed in range(3):
        _, starts, start_legs, kept, halo = _round(seed)
        ranking = rank_moves(starts, start_legs, kept, halo)
        moves = [ranking.move(k) for k in range(len(ranking))]
        bounds = sorted({b for b, _, _, _, _ in moves})
        for floor in [0.0, *bounds[:: max(1, len(bounds) // 7)]]:
            for at in (0, len(moves) // 3, len(moves)):
                want = []
                for k in range(at, len(moves)):
                    bound, reach, first, second, _ = moves[k]
                    if bound <= floor:
                        break
                    if (first.cands or second.cands) and reach <= floor:
                        continue
                    want.append(k)
                assert ranking.stretch(at, floor).tolist() == want
        assert ranking.stretch(0, bounds[-1]).tolist() == [] and ranking.stretch(0, 0.0).tolist()


def test_a_round_makes_candidates_only_of_pieces_that_can_start_a_move() -> None:
    before = Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0)])
    hot = {(x, y, z) for x in range(8, 14) for y in range(8, 14) for z in range(3)}

    def round_of(decoder: Decoder) -> list[tuple]:
        decoder.scorer.sync(decoder.masks)
        ranking = decoder.moves.ranking(decoder.state, decoder.added, hot)
        return [(b, r, [c.key for c in (*f.cands, *s.cands, cand)])
                for b, r, f, s, cand in map(ranking.move, range(len(ranking)))]

    lazy = Decoder(before, [evidence()])
    moves = round_of(lazy)
    made = [c.piece for c in lazy.scorer._cands.values()]
    # A brick, a column or a decoration is made only where it stands, or as a piece of a
    # way to hold up an arch's leg (an arch off the ground may stand on its legs' ways).
    held = {c.piece for ways in lazy.moves._ways.values() for way in ways for c in way}
    assert all(p.kind is Kind.ARCH or before.fits(p) or p in held for p in made)
    assert piece_key(Piece(Kind.BRICK, 12, 12, 2)) not in lazy.scorer._cands
    # The same moves, bounds and order as with every shape's candidate made first.
    eager = Decoder(before, [evidence()])
    eager.scorer.prepare([p for v in sorted(hot) for p in shapes_at(*v)])
    assert round_of(eager) == moves


def test_a_whole_reading_s_kept_score_is_the_one_a_fresh_scorer_works_out() -> None:
    ev = evidence()
    scorer = Scorer([ev])
    many = pieces()
    sets = [many[k:k + 3] for k in range(0, 60, 7)]
    first = [scorer.whole(s) for s in sets]
    # The same pieces under ids (as placed) are the same reading.
    again = [scorer.whole([p.moved(id=f"p{j}") for j, p in enumerate(s)]) for s in sets]
    fresh = [Scorer([ev]).whole(s) for s in sets]
    assert first == again == fresh


def test_a_column_listed_again_has_its_seams_looked_at_once() -> None:
    scorer = Scorer([evidence()])
    columns = [scorer.candidate(Piece(Kind.COLUMN, x, 10, 0)) for x in range(8, 13)]
    asked: list[list[tuple[int, int, int]]] = []
    scorer.seams.look = asked.append  # type: ignore[method-assign]
    scorer.look_ahead([*columns, *columns[::-1], columns[0]])
    want = [(c.piece.x, c.piece.y, c.piece.z) for c in columns
            if scorer.colours.steps(c.piece) < 1.0]
    assert len(want) >= 2
    assert asked == [want]


def test_pairings_whose_ways_clash_are_left_out_and_the_rest_keep_their_order() -> None:
    for seed in range(3):
        _, starts, start_legs, kept, halo = _round(seed)
        row, at = {}, 1
        for leg, options in kept.items():
            row[leg], at = at, at + len(options)
        pairings = [(s, row[a] + i, row[b] + j) if arch else (s, 0, 0)
                    for s, ((*_, arch), (a, b)) in enumerate(zip(starts, start_legs, strict=True))
                    for i in range(len(kept[a]) if arch else 1)
                    for j in range(len(kept[b]) if arch else 1)]
        clash = np.random.default_rng(seed).random(len(pairings)) < 0.4
        flagged = dict(zip(pairings, clash.tolist(), strict=True))

        def triples(ranking: Ranking) -> list[tuple[int, int, int]]:
            return list(zip(ranking.start, ranking.first, ranking.second, strict=True))

        every = triples(rank_moves(starts, start_legs, kept, halo))
        left = triples(rank_moves(starts, start_legs, kept, halo, clash))
        assert len(left) < len(every)
        assert left == [t for t in every if not flagged[t]]


def test_a_round_leaves_out_only_moves_that_cannot_stand() -> None:
    before = Palace(load_map("1"), [Piece(Kind.BRICK, 10, 10, 0), Piece(Kind.BRICK, 10, 10, 1),
                                    Piece(Kind.BRICK, 12, 11, 0)])
    hot = {(x, y, z) for x, y in [(10, 13), (12, 11), (9, 12), (10, 10)] for z in range(4)}
    decoder = Decoder(before, [evidence()])
    decoder.scorer.sync(decoder.masks)
    state = decoder.state
    ranking = decoder.moves.ranking(state, decoder.added, hot)
    # Arches whose place the palace fills are no start, and no way makes them stand.
    blocked = {p for v in hot for p in shapes_at(*v) if p.kind is Kind.ARCH and p.z > 0
               and any(state.occupant(*c) is not None for c in p.voxels())}
    assert blocked
    assert not {cand.piece for _, cand, _, _ in ranking.starts} & blocked
    for arch in blocked:
        legs = [(x, y, arch.z) for x, y in arch.legs()]
        ways = decoder.moves.leg_ways(state, [], legs)
        assert not any(state.stands([c.piece for c in (*f.cands, *s.cands)] + [arch])
                       for f in ways[legs[0]] for s in ways[legs[1]])
    # Pairings whose ways fill a voxel both cannot stand; the others' ways are apart.
    moves = decoder.moves
    assert any(found.any() for found in moves._clashes.values())
    for (a, b), found in moves._clashes.items():
        pairs = [(f, s) for f in moves._ways[a] for s in moves._ways[b]]
        for clash, (f, s) in zip(found.tolist(), pairs, strict=True):
            cells = [v for c in (*f, *s) for v in c.voxels]
            assert clash == (len(cells) != len(set(cells)))
            if clash:
                assert not state.stands([c.piece for c in (*f, *s)])
