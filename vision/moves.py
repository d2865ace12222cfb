"""The moves of a turn: what could be added next on the voxels that changed, best first.

A move is a piece alone that stands on the palace read so far, or an arch with a way to
hold up each leg (:mod:`vision.ways`); each is bounded by its pieces' bounds
(:meth:`vision.scoring.Scorer.upper`) and scored from the highest bound down
(:mod:`vision.rounds`). What the moves are made of is kept for the whole turn and shared
by the decoder's readings (:class:`vision.decode.Decoder` grows and tidies them): each
changed voxel's candidate pieces, the ways to hold up a leg, the close bounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.palace import Palace
from rules.pieces import Kind, Piece, Voxel
from vision.candidates import SUPPORT_DEPTH, shapes_at, supports
from vision.close_bounds import CloseBounds
from vision.rounds import Ranking, Start, rank_moves
from vision.scored_piece import Candidate, PieceKey, piece_key
from vision.scoring import Masks, Scorer
from vision.ways import NO_WAY, Way, shape_key

SUPPORT_REACH = 3 * SUPPORT_DEPTH
"""Studs from a leg within which :func:`~vision.candidates.supports` reads the palace:
an arch's span for each step of staircase it puts under the leg."""

LegKey = tuple[int, int, int, frozenset[PieceKey]]
"""A leg's stud and level with the pieces read near it: the same key, the same ways."""
_NO_LEGS: tuple[Voxel, Voxel] = ((0, 0, 0), (0, 0, 0))
"""A piece alone's legs (it has none to hold up)."""
_NO_CLASH = np.zeros(1, bool)
"""A piece alone's one pairing (two empty ways), which fills no voxel twice."""
_FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


class Moves:
    """The moves on one turn's evidence, with what is kept of them for the turn."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self._shapes: dict[Voxel, list[Piece]] = {}
        """The pieces that could fill each changed voxel: their candidates are made only
        for those the palace lets start a move (:meth:`ranking`), or when asked."""
        self._ways: dict[LegKey, list[list[Candidate]]] = {}
        """The ways to hold up a leg, by stud, level and the pieces read so far near it
        (:meth:`leg_ways`): shared by the rounds and the readings of the turn."""
        self._kept_ways: dict[LegKey, list[Way]] = {}
        """The same ways with what the moves ask of them, kept until one goes stale."""
        self._distinct: dict[tuple[Voxel, ...], list[Piece]] = {}
        """The shapes' pieces on a set of changed voxels (sorted), each once: the
        readings' rounds ask the same sets again (two rounds in three)."""
        self._made: dict[int, Candidate] = {}
        """The candidates of the pieces of :attr:`_shapes`, by the piece's id (they live
        as long as the moves): each round asks for hundreds again, and a piece's
        candidate is the scorer's for the turn."""
        self._cells: dict[LegKey, list[frozenset[Voxel]]] = {}
        """The voxels each way of :attr:`_ways` fills, by the same key."""
        self._clashes: dict[tuple[LegKey, LegKey], NDArray[np.bool_]] = {}
        """For two legs' keys, which pairings of their ways fill a voxel both
        (:meth:`_clash`)."""
        self._close = CloseBounds(scorer)
        """Moves' close bounds' sums, kept while their pixels are (shared like the ways)."""

    def prepare_shapes(self, voxels: Sequence[Voxel]) -> None:
        """Lists the pieces that could fill each of ``voxels`` (voxels already known are
        left)."""
        for v in voxels:
            if v not in self._shapes:
                self._shapes[v] = list(shapes_at(*v))

    def ranking(self, state: Palace, added: Sequence[Piece], hot: set[Voxel]) -> Ranking:
        """Every move on a changed voxel whose bound is above zero, highest bound first
        (:func:`vision.rounds.rank_moves`), given the pieces read so far (``added``, placed
        in ``state``); after the first, only moves that join them (a turn builds one
        staircase, so a lone piece elsewhere is a shadow, a leaf or a hand, not part of
        it). A move is an arch with a way to hold up each leg, or a piece alone between
        two empty ways. A move's bound is the sum of its pieces' bounds
        (:meth:`vision.scoring.Scorer.upper`), in the move's order."""
        scorer = self.scorer
        ids = {p.id for p in added}
        halo = {(x + dx, y + dy, z + dz) for p in added for x, y, z in p.voxels()
                for dx, dy, dz in _FACES}
        if added:
            xs = [c[0] for p in added for c in p.footprint()]
            ys = [c[1] for p in added for c in p.footprint()]
            reach = 4
            hot = {(x, y, z) for x, y, z in hot if min(xs) - reach <= x <= max(xs) + reach
                   and min(ys) - reach <= y <= max(ys) + reach}
        ordered = tuple(sorted(hot))
        # The arches that need their legs held up are found first, so that the ways under
        # all their legs are worked out together (one projection a view for all their
        # pieces); the moves are then made and ranked together.
        # A piece that is no start for what the palace says is passed over before its
        # candidate is made or its pixels asked: a decoration off an end knob of an arch
        # of the turn, a piece that stands but does not join the pieces read so far, or
        # one that cannot stand (an arch off the ground may, with its legs held up,
        # unless the palace already fills its place: :func:`_blocked`). The
        # shapes are shared pieces (each asked once, in the order of its first voxel);
        # the candidates of those left are made together.
        shapes = self._shapes
        starting: list[tuple[Piece, bool, bool]] = []
        distinct = self._distinct.get(ordered)
        if distinct is None:
            self.prepare_shapes(ordered)
            distinct = self._distinct[ordered] = list(
                {id(p): p for voxel in ordered for p in shapes[voxel]}.values())
        decorated = any(p.kind is Kind.DECORATION for p in added)
        for piece in distinct:
            if piece.kind is Kind.DECORATION and (decorated
                                                  or not _decoration_spot(state, piece, ids)):
                continue
            fits = state.fits(piece)
            if not fits and (piece.kind is not Kind.ARCH or piece.z == 0
                             or _blocked(state, piece)):
                continue
            joined = not ids or not halo.isdisjoint(piece.voxels())
            if fits and not joined:
                continue
            starting.append((piece, fits, joined))
        known = self._made
        todo = [piece for piece, _, _ in starting if id(piece) not in known]
        if todo:
            known.update(zip(map(id, todo), scorer.prepare(todo), strict=True))
        made = [known[id(piece)] for piece, _, _ in starting]
        paying: list[tuple[Candidate, bool, bool]] = []
        asked: set[int] = set()
        for cand, (_, fits, joined) in zip(made, starting, strict=True):
            if id(cand) in asked:
                continue  # one piece twice (the shapes are shared pieces)
            asked.add(id(cand))
            # Nor is a piece none of whose own pixels pay for it. Its gain alone less its
            # price, plus its price, is not above zero when its pixels' evidence is not
            # (the price is above zero, and rounding keeps order): a column's price,
            # which asks for its levels' colours, is then not needed.
            if cand.fresh is None and (cand.evidence if cand.evidence is not None
                                       else scorer.unpriced(cand)) <= 0:
                continue
            paying.append((cand, fits, joined))
        # Their prices are asked below (a start's gain alone): the columns' seams are
        # looked at together first.
        scorer.look_ahead([cand for cand, _, _ in paying])
        starts: list[Start] = []
        start_legs: list[tuple[Voxel, Voxel]] = []
        legs: list[Voxel] = []
        for cand, fits, joined in paying:
            fresh_gain = cand.fresh if cand.fresh is not None else scorer.fresh(cand)
            if fresh_gain + cand.price <= 0:
                continue
            up = cand.upper if cand.upper is not None else scorer.upper(cand)
            if fits:
                starts.append((up, cand, joined, False))
                start_legs.append(_NO_LEGS)
                continue
            # Only the piece alone is checked: a move with supports may still fail to
            # stand, which costs far more to find out than scoring it, so only the
            # moves that would win are checked (:meth:`best`).
            piece = cand.piece
            starts.append((up, cand, joined, True))
            (ax, ay), (bx, by) = piece.legs()
            start_legs.append(((ax, ay, piece.z), (bx, by, piece.z)))
            legs += start_legs[-1]
        kept, keys = self._leg_ways(state, added, legs)
        # A pairing whose two ways fill a voxel both cannot stand (the second way's piece
        # there fails :meth:`rules.palace.Palace.stands`): it is no move. Two in five of
        # the pairings over games 6000's first 20 turns.
        clash = np.concatenate([self._clash(keys[a], keys[b]) if is_arch else _NO_CLASH
                                for (_, _, _, is_arch), (a, b) in zip(starts, start_legs,
                                                                      strict=True)]
                               or [_NO_CLASH[:0]])
        return rank_moves(starts, start_legs, kept, halo, clash)

    def _clash(self, a: LegKey, b: LegKey) -> NDArray[np.bool_]:
        """Which pairings of the ways under two legs' keys (``a``'s ways outer) fill a
        voxel both, kept for the turn (the ways under a key never change)."""
        found = self._clashes.get((a, b))
        if found is None:
            cells = self._cells
            for key in (a, b):
                if key not in cells:
                    cells[key] = [frozenset().union(*(c.voxels for c in way))
                                  for way in self._ways[key]]
            found = self._clashes[(a, b)] = np.array(
                [not one.isdisjoint(two) for one in cells[a] for two in cells[b]], bool)
        return found

    def leg_ways(self, state: Palace, added: Sequence[Piece],
                 legs: Sequence[Voxel]) -> dict[Voxel, list[Way]]:
        """The ways to give each stud (x, y) a knob at ``z``
        (:func:`~vision.candidates.supports`) on ``state``, which is the palace before the turn
        and the reading ``added``, for the round: arches share legs."""
        return self._leg_ways(state, added, legs)[0]

    def _leg_ways(self, state: Palace, added: Sequence[Piece], legs: Sequence[Voxel]
                  ) -> tuple[dict[Voxel, list[Way]], dict[Voxel, LegKey]]:
        """:meth:`leg_ways`, with each leg's key into :attr:`_ways` (:meth:`_clash`)."""
        scorer = self.scorer
        keys: dict[Voxel, LegKey] = {}
        raws: dict[LegKey, list[list[Piece]]] = {}
        known: dict[tuple[int, int, int, int], list[list[Piece]]] = {}
        feet = [(shape_key(p), p.footprint()) for p in added]
        for x, y, z in dict.fromkeys(legs):
            # What supports() reads of the palace lies within a staircase's reach of the
            # stud, and the palace is the one before the turn and the pieces read so far:
            # the same pieces read there give the same ways.
            near = frozenset(k for k, cells in feet
                             if any(abs(cx - x) <= SUPPORT_REACH and abs(cy - y) <= SUPPORT_REACH
                                    for cx, cy in cells))
            key = keys[(x, y, z)] = (x, y, z, near)
            if key not in self._ways and key not in raws:
                raws[key] = supports(state, x, y, z, SUPPORT_DEPTH, known)
        if raws:
            # The ways share their pieces (the steps below a leg, and their stacks, are
            # the same objects in every way built on them): each is looked up once.
            pieces = {id(p): p for raw in raws.values() for way in raw for p in way}
            made = dict(zip(pieces, scorer.prepare(list(pieces.values())), strict=True))
            for key, raw in raws.items():
                self._ways[key] = [[made[id(p)] for p in way] for way in raw]
        # An open knob's way has no pieces: the one empty way serves every leg. A way is
        # made anew only when it has gone stale: one that has not keeps its very numbers,
        # and with them what the close bounds kept of it (:class:`vision.close_bounds.CloseBounds`).
        kept = self._kept_ways
        fresh = {key: [w is None or w.stale
                       for w in kept.get(key) or [None] * len(self._ways[key])]
                 for key in dict.fromkeys(keys.values())}
        # The columns of the ways to be made have their seams looked at together first:
        # a way asks its pieces' prices.
        scorer.look_ahead([c for key, made in fresh.items()
                           for new, cands in zip(made, self._ways[key], strict=True)
                           if new for c in cands])
        for key, made in fresh.items():
            if key not in kept or any(made):
                old = kept.get(key) or [NO_WAY] * len(made)
                kept[key] = [(Way(scorer, cands) if cands else NO_WAY) if new else w
                             for new, w, cands in zip(made, old, self._ways[key], strict=True)]
        return {leg: kept[key] for leg, key in keys.items()}, keys

    def best(self, state: Palace, added: Sequence[Piece], masks: Masks, hot: set[Voxel],
             n: int) -> list[tuple[float, tuple[Piece, ...]]]:
        """The ``n`` moves that gain most now (and stand on ``state``), against the pixels
        ``masks`` cover, best first: every move is
        bounded by its pieces' bounds (:meth:`vision.scoring.Scorer.upper`), and moves
        are scored from the highest bound down until no bound left can beat the
        ``n``-th best; an arch's pairing of ways whose closer bound cannot beat it is not
        scored (:class:`vision.close_bounds.CloseBounds`)."""
        scorer = self.scorer
        scorer.sync(masks)
        top: list[tuple[float, tuple[Piece, ...]]] = []
        close = self._close
        ranking = self.ranking(state, added, hot)
        ways, starts = ranking.ways, ranking.starts
        at = 0
        while True:
            floor = top[-1][0] if len(top) >= n else 0.0
            # The moves up to the first whose bound cannot beat the floor, less those
            # that gain at most their bound less the evidence against any one of their
            # pieces (that piece's bound less its gain alone) when that cannot beat it
            # either: until a move is kept, the floor stays, and so do they.
            # The close bounds are asked of the stretch's moves together, as arrays: the
            # moves they rule out are passed over without a step of Python each.
            for k in close.passing(ranking, ranking.stretch(at, floor), floor):
                first, second = ways[ranking.first[k]], ways[ranking.second[k]]
                cand = starts[ranking.start[k]][1]
                alone = not (first.cands or second.cands)
                if alone or cand.decoration:
                    g = scorer.gain((*first.cands, *second.cands, cand))
                else:
                    price = float(ranking.price[k])  # added up as the ways' and piece's
                    # The same sums as scorer.gain(move), on the ways' pixels kept for
                    # the round.
                    g = scorer.free_gain(
                        [[first.free(i), second.free(i), cand.free[i]]  # type: ignore[index]
                         for i in range(len(scorer.evidence))], price)
                if not g > floor:
                    continue
                pieces = tuple(c.piece for c in (*first.cands, *second.cands, cand))
                if alone or state.stands(pieces):
                    top.append((g, pieces))
                    top.sort(key=lambda t: -t[0])
                    del top[n:]
                    at = k + 1
                    break
            else:
                return top

    def shown_arches(self, n: int) -> list[Piece]:
        """The ``n`` arches on the changed voxels whose own evidence less their price is
        best (ties in the voxels' order): final arches for the staircase search where
        the greedy readings put none near the true one."""
        arches = {piece_key(p): p for shapes in self._shapes.values() for p in shapes
                  if p.kind is Kind.ARCH}
        self.scorer.prepare(list(arches.values()))
        ranked = sorted(arches.values(), key=lambda a: -self.scorer.whole([a]))
        return ranked[:n]


def _blocked(state: Palace, arch: Piece) -> bool:
    """Whether no way under its legs can make the arch stand: it is off the plate or a
    piece of the palace fills one of its voxels (the ways only add pieces below its
    legs). Every move of such an arch fails :meth:`rules.palace.Palace.stands`, so it is
    no start: its candidate, the ways under its legs and its moves are not made (a fifth
    of the arches asked over games 6000's first 20 turns, a sixth of the legs only they
    stand on)."""
    return not arch.on_plate() or any(state.occupant(*v) is not None for v in arch.voxels())


def _decoration_spot(state: Palace, piece: Piece, ids: set[str]) -> bool:
    """A decoration goes on an end knob of an arch of this turn (once per turn: the
    caller passes over every decoration once the pieces read hold one)."""
    owner = state.knob_owner(piece.x, piece.y, piece.z)
    return owner is not None and owner.kind is Kind.ARCH and owner.id in ids
