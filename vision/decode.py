"""Decoding a turn: the physically possible set of new pieces that best explains the change.

The score of a set of new pieces is the change evidence summed over the pixels where the
set would show in front of the palace before the turn (evidence is centred, so pixels
that did not change count against it), less a small price per piece
(:mod:`vision.scoring`). The decoder grows the set the way a player builds: each round
it tries every piece that could stand now (on an open knob of the ground or of the
palace so far) on a cell that changed, an arch also with the stack of bricks and
columns its unsupported leg needs (:mod:`vision.candidates`), and keeps the move that
gains most. Pieces that stop paying for themselves are dropped at the end. Every set it
can return passes :meth:`rules.Palace.place`, so the reading is always a palace that can
stand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rules.palace import Palace
from rules.pieces import Kind, Piece, Voxel
from vision import rulings, stacks
from vision.candidates import (
    SUPPORT_DEPTH,
    built_on,
    is_legal_turn,
    shapes_at,
    supports,
)
from vision.evidence import Evidence
from vision.refine import refine
from vision.rounds import CloseBounds, Ranking, Start, rank_moves
from vision.scored_piece import Candidate, PieceKey
from vision.scoring import Masks, Scorer
from vision.staircases import weigh_staircases
from vision.ways import NO_WAY, Way, shape_key

STARTS = 3
"""First moves the decoder grows a reading from (:meth:`Decoder.run`)."""
STAIRCASE_SEARCH = True
"""Whether a reading the rules refuse is weighed against whole legal staircases
(:mod:`vision.staircases`); off only to measure what the search brings."""
SEARCH_LEGAL = True
"""Whether whole staircases are weighed where the best reading is a legal staircase
too: the final arch read from the wrong side, or a step the greedy growth read as a
brick beneath it, still stands. On the three development sets of 40 turns (games 6000,
7000, 8000 on) it read two more turns exactly (32 / 25 / 31 of 40) and broke none, for
about 5 % more time."""
MAX_ROUNDS = 40
LEGAL_BONUS = 100.0
"""What a reading earns for being a legal staircase, in evidence units (a 1x1 brick
in full view shows 100 to 200). Players build legal staircases; where one view leaves a
step's lower half hidden, the reading that reaches the ground by the rules should beat
one that props the visible arch on a lone brick, and a whole piece's clear evidence
should still beat it. On the development turns (games 6000-6001) 15, 30, 60, 100 and
300 read 17, 18, 18, 19 and 19 of 30 turns exactly."""
SUPPORT_REACH = 3 * SUPPORT_DEPTH
"""Studs from a leg within which :func:`~vision.candidates.supports` reads the palace:
an arch's span for each step of staircase it puts under the leg."""

_NO_LEGS: tuple[Voxel, Voxel] = ((0, 0, 0), (0, 0, 0))
"""A piece alone's legs (it has none to hold up)."""
_FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))



class Decoder:
    """The greedy search over physically possible additions, with its running score."""

    def __init__(self, before: Palace, evidence: Sequence[Evidence], *,
                 one_staircase: bool = True) -> None:
        self.before = before
        self.one_staircase = one_staircase
        """Whether the addition is one turn's staircase, so that whole staircases are
        weighed against a reading the rules refuse; not for a whole palace."""
        self.evidence = list(evidence)
        self.state = before.copy()
        self.added: list[Piece] = []
        self.masks: Masks = [np.zeros(ev.weight.shape, bool) for ev in self.evidence]
        """Pixels the pieces read so far cover (and their leaves), per view."""
        self.scorer = Scorer(self.evidence)
        self._shapes: dict[Voxel, list[Candidate]] = {}
        self._ways: dict[tuple[int, int, int, frozenset[PieceKey]], list[list[Candidate]]] = {}
        """The ways to hold up a leg, by stud, level and the pieces read so far near it
        (:meth:`_leg_ways`): shared by the rounds and the readings of the turn."""
        self._kept_ways: dict[tuple[int, int, int, frozenset[PieceKey]], list[Way]] = {}
        """The same ways with what the moves ask of them, kept until one goes stale."""
        self._close = CloseBounds(self.scorer)
        """Moves' close bounds' sums, kept while their pixels are (shared like the ways)."""
        self.readings: list[tuple[float, tuple[Piece, ...]]] = []
        """Every reading :meth:`run` grew, with its judged score: how close the runners-up
        came says which pieces the evidence did not decide."""

    def score_of(self, pieces: Sequence[Piece]) -> float:
        """The score of a whole set of new pieces, from nothing."""
        return self.scorer.whole(pieces)

    def view_area(self, piece: Piece) -> float:
        """The piece's whole outline in region pixels (nothing in front), over the views."""
        return self.scorer.view_area(piece)

    def _shapes_at(self, voxel: Voxel) -> list[Candidate]:
        found = self._shapes.get(voxel)
        if found is None:
            found = self._shapes[voxel] = [self.scorer.candidate(p) for p in shapes_at(*voxel)]
        return found

    def _prepare_shapes(self, voxels: Sequence[Voxel]) -> None:
        """Makes the candidates of many voxels' shapes, their outlines projected together
        (each voxel's pieces made once for both)."""
        shapes = {v: list(shapes_at(*v)) for v in voxels}
        made = iter(self.scorer.prepare([p for pieces in shapes.values() for p in pieces]))
        for v, pieces in shapes.items():
            self._shapes[v] = [next(made) for _ in pieces]

    def moves(self, hot: set[Voxel]) -> Ranking:
        """Every move on a changed voxel whose bound is above zero, highest bound first
        (:func:`vision.rounds.rank_moves`); after the first, only moves that join the
        pieces read so far (a turn builds one staircase, so a lone piece elsewhere is a
        shadow, a leaf or a hand, not part of it). A move is an arch with a way to hold
        up each leg, or a piece alone between two empty ways. A move's bound is the sum
        of its pieces' bounds (:meth:`vision.scoring.Scorer.upper`), in the move's
        order."""
        scorer = self.scorer
        ids = {p.id for p in self.added}
        halo = {(x + dx, y + dy, z + dz) for p in self.added for x, y, z in p.voxels()
                for dx, dy, dz in _FACES}
        if self.added:
            xs = [c[0] for p in self.added for c in p.footprint()]
            ys = [c[1] for p in self.added for c in p.footprint()]
            reach = 4
            hot = {(x, y, z) for x, y, z in hot if min(xs) - reach <= x <= max(xs) + reach
                   and min(ys) - reach <= y <= max(ys) + reach}
        ordered = sorted(hot)
        fresh = [v for v in ordered if v not in self._shapes]
        if fresh:
            self._prepare_shapes(fresh)
        # The arches that need their legs held up are found first, so that the ways under
        # all their legs are worked out together (one projection a view for all their
        # pieces); the moves are then made and ranked together.
        paying: list[Candidate] = []
        for cand in dict.fromkeys(c for voxel in ordered for c in self._shapes_at(voxel)):
            # A piece none of whose own pixels pay for it is no start of a move. Its gain
            # alone less its price, plus its price, is not above zero when its pixels'
            # evidence is not (the price is above zero, and rounding keeps order): a
            # column's price, which asks for its levels' colours, is then not needed.
            if cand.fresh is None and (cand.evidence if cand.evidence is not None
                                       else scorer.unpriced(cand)) <= 0:
                continue
            paying.append(cand)
        # Their prices are asked below (a start's gain alone): the columns' seams are
        # looked at together first.
        scorer.look_ahead(paying)
        starts: list[Start] = []
        start_legs: list[tuple[Voxel, Voxel]] = []
        legs: list[Voxel] = []
        for cand in paying:
            fresh_gain = cand.fresh if cand.fresh is not None else scorer.fresh(cand)
            if fresh_gain + cand.price <= 0:
                continue
            up = cand.upper if cand.upper is not None else scorer.upper(cand)
            if cand.decoration and not self._decoration_spot(cand.piece, ids):
                continue
            piece = cand.piece
            joined = not ids or not halo.isdisjoint(cand.voxels)
            if self.state.fits(piece):
                if joined:
                    starts.append((up, cand, joined, False))
                    start_legs.append(_NO_LEGS)
                continue
            # Only the piece alone is checked: a move with supports may still fail to
            # stand, which costs far more to find out than scoring it, so only the
            # moves that would win are checked (:meth:`_best_moves`).
            if piece.kind is not Kind.ARCH or piece.z == 0:
                continue
            starts.append((up, cand, joined, True))
            (ax, ay), (bx, by) = piece.legs()
            start_legs.append(((ax, ay, piece.z), (bx, by, piece.z)))
            legs += start_legs[-1]
        return rank_moves(starts, start_legs, self._leg_ways(legs), halo)

    def _leg_ways(self, legs: Sequence[Voxel]) -> dict[Voxel, list[Way]]:
        """The ways to give each stud (x, y) a knob at ``z``
        (:func:`~vision.candidates.supports`), for the round: arches share legs."""
        scorer = self.scorer
        keys: dict[Voxel, tuple[int, int, int, frozenset[PieceKey]]] = {}
        raws: dict[tuple[int, int, int, frozenset[PieceKey]], list[list[Piece]]] = {}
        known: dict[tuple[int, int, int, int], list[list[Piece]]] = {}
        feet = [(shape_key(p), p.footprint()) for p in self.added]
        for x, y, z in dict.fromkeys(legs):
            # What supports() reads of the palace lies within a staircase's reach of the
            # stud, and the palace is the one before the turn and the pieces read so far:
            # the same pieces read there give the same ways.
            near = frozenset(k for k, cells in feet
                             if any(abs(cx - x) <= SUPPORT_REACH and abs(cy - y) <= SUPPORT_REACH
                                    for cx, cy in cells))
            key = keys[(x, y, z)] = (x, y, z, near)
            if key not in self._ways and key not in raws:
                raws[key] = supports(self.state, x, y, z, SUPPORT_DEPTH, known)
        if raws:
            # The ways share their pieces (the steps below a leg, and their stacks, are
            # the same objects in every way built on them): each is looked up once.
            pieces = {id(p): p for raw in raws.values() for way in raw for p in way}
            made = dict(zip(pieces, scorer.prepare(list(pieces.values())), strict=True))
            for key, raw in raws.items():
                self._ways[key] = [[made[id(p)] for p in way] for way in raw]
        # An open knob's way has no pieces: the one empty way serves every leg. A way is
        # made anew only when it has gone stale: one that has not keeps its very numbers,
        # and with them what the close bounds kept of it (:class:`vision.rounds.CloseBounds`).
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
        return {leg: kept[key] for leg, key in keys.items()}

    def _decoration_spot(self, piece: Piece, ids: set[str]) -> bool:
        """A decoration goes on an end knob of an arch of this turn, once per turn."""
        if any(p.kind is Kind.DECORATION for p in self.added):
            return False
        owner = self.state.knob_owner(piece.x, piece.y, piece.z)
        return owner is not None and owner.kind is Kind.ARCH and owner.id in ids

    def apply(self, move: Sequence[Piece]) -> None:
        for piece in move:
            placed = self.state.place(piece)
            self.added.append(placed)
            self._cover(placed)

    def _cover(self, piece: Piece) -> None:
        """Marks the pixels (and leaves) of a piece read as covered."""
        cand = self.scorer.candidate(piece)
        for i, mask in enumerate(self.masks):
            mask[cand.pixels[i]] = True
            mask[cand.leaves[i]] = True

    def _best_moves(self, hot: set[Voxel], n: int) -> list[tuple[float, tuple[Piece, ...]]]:
        """The ``n`` moves that gain most now (and stand), best first: every move is
        bounded by its pieces' bounds (:meth:`vision.scoring.Scorer.upper`), and moves
        are scored from the highest bound down until no bound left can beat the
        ``n``-th best; an arch's pairing of ways whose closer bound cannot beat it is not
        scored (:class:`vision.rounds.CloseBounds`)."""
        scorer = self.scorer
        scorer.sync(self.masks)
        top: list[tuple[float, tuple[Piece, ...]]] = []
        close = self._close
        ranking = self.moves(hot)
        ways, starts = ranking.ways, ranking.starts
        at = 0
        while True:
            floor = top[-1][0] if len(top) >= n else 0.0
            # The moves up to the first whose bound cannot beat the floor, less those
            # that gain at most their bound less the evidence against any one of their
            # pieces (that piece's bound less its gain alone) when that cannot beat it
            # either: until a move is kept, the floor stays, and so do they.
            for k in ranking.worth(at, floor):
                first, second = ways[ranking.first[k]], ways[ranking.second[k]]
                cand = starts[ranking.start[k]][1]
                alone = not (first.cands or second.cands)
                if alone or cand.decoration:
                    g = scorer.gain((*first.cands, *second.cands, cand))
                else:
                    price = sum(second.prices, first.price) + cand.price
                    if close.cannot_beat(first, second, cand, price, floor):
                        continue
                    # The same sums as scorer.gain(move), on the ways' pixels kept for
                    # the round.
                    g = scorer.free_gain(
                        [[first.free(i), second.free(i), cand.free[i]]  # type: ignore[index]
                         for i in range(len(scorer.evidence))], price)
                if not g > floor:
                    continue
                pieces = tuple(c.piece for c in (*first.cands, *second.cands, cand))
                if alone or self.state.stands(pieces):
                    top.append((g, pieces))
                    top.sort(key=lambda t: -t[0])
                    del top[n:]
                    at = k + 1
                    break
            else:
                return top

    def fork(self) -> Decoder:
        """A decoder on the same evidence from nothing read, sharing what is kept."""
        other = Decoder.__new__(Decoder)
        other.__dict__.update(self.__dict__)
        other.state = self.before.copy()
        other.added = []
        other.masks = [np.zeros_like(m) for m in self.masks]
        return other

    def shown_arches(self, n: int) -> list[Piece]:
        """The ``n`` arches on the changed voxels whose own evidence less their price is
        best (ties in the voxels' order): final arches for the staircase search where
        the greedy readings put none near the true one."""
        arches = {c.key: c.piece for shapes in self._shapes.values() for c in shapes
                  if c.piece.kind is Kind.ARCH}
        ranked = sorted(arches.values(), key=lambda a: -self.scorer.whole([a]))
        return ranked[:n]

    def run(self, hot: set[Voxel]) -> list[Piece]:
        """Grows a reading from each of the ``STARTS`` best first moves and keeps the
        one that scores best: the first move is where one view misleads most (a piece a
        level lower and nearer covers nearly what the true one does), and a greedy
        search never takes it back."""
        best: tuple[float, Decoder] | None = None
        self.readings = []
        for _, first in self._best_moves(hot, STARTS):
            trial = self.fork()
            trial.apply(first)
            trial.grow(hot)
            rulings.crown(trial)
            score = refine(trial, rulings.resupport(trial))
            self.readings.append((score, tuple(trial.added)))
            if best is None or score > best[0]:
                best = (score, trial)
        if (best is not None and STAIRCASE_SEARCH and self.one_staircase
                and (SEARCH_LEGAL or not is_legal_turn(self.before, best[1].added))):
            best = weigh_staircases(self, best, LEGAL_BONUS, rulings.CROWN_TOLERANCE)
        if best is not None:
            if stacks.FINAL_RESTACK:
                self._restack_final(best[1])
            self.state, self.added, self.masks = best[1].state, best[1].added, best[1].masks
        return self.added

    def search_nothing(self, voxels: set[Voxel]) -> list[Piece]:
        """The best whole staircase (:func:`vision.staircases.weigh_staircases`) where it
        judges better than reading nothing, its arches shown best among those on
        ``voxels``; nothing otherwise. For a turn the greedy search read as nothing though
        something changed: a staircase behind the palace shows only its top, too little
        for any voxel to light up or any first move to gain."""
        self._prepare_shapes([v for v in sorted(voxels) if v not in self._shapes])
        best: tuple[float, Decoder] = (self.judged([]), self.fork())
        if STAIRCASE_SEARCH and self.one_staircase:
            best = weigh_staircases(self, best, LEGAL_BONUS, rulings.CROWN_TOLERANCE)
        self.state, self.added, self.masks = best[1].state, best[1].added, best[1].masks
        return self.added

    def _restack_final(self, chosen: Decoder) -> None:
        """Restacks the chosen reading judged whole (:func:`vision.stacks.restack`); its
        entry among the readings becomes the restacked one, so that the readings do not
        doubt the very pieces the swap brought in."""
        was = tuple(chosen.added)
        if stacks.restack(chosen, chosen.judged):
            now = (chosen.judged(chosen.added), tuple(chosen.added))
            self.readings = [now if pieces == was else (score, pieces)
                             for score, pieces in self.readings]

    def grow(self, hot: set[Voxel]) -> None:
        """Adds the move that gains most until none gains, then tidies the reading."""
        for _ in range(MAX_ROUNDS):
            moves = self._best_moves(hot, 1)
            if not moves:
                break
            self.apply(moves[0][1])
        self.prune()
        self.restack()

    def judged(self, pieces: Sequence[Piece], floor: float = -np.inf) -> float:
        """A whole reading's score with the rules' word in it: the evidence, and
        ``LEGAL_BONUS`` if it is a legal staircase. A reading that cannot beat ``floor``
        even with the bonus is answered with its evidence alone (no more than ``floor``
        either way): asking the rules costs ten times the score, and the edits and the
        supports ask for hundreds of readings that cannot win."""
        score = self.score_of(pieces)
        if score + LEGAL_BONUS <= floor:
            return score
        return score + (LEGAL_BONUS if is_legal_turn(self.before, pieces) else 0.0)

    def restack(self) -> None:
        """Swaps each column read for three bricks, and each run of three bricks for a
        column, where that scores better (:func:`vision.stacks.restack`)."""
        stacks.restack(self, self.score_of)

    def take(self, pieces: Sequence[Piece]) -> bool:
        """Makes ``pieces`` the reading (placed bottom-up on the palace before), if they
        stand; the reading is left as it was if not. The restacking, the supports and
        :mod:`vision.refine`'s edits all change a reading this way."""
        built = built_on(self.before, pieces)
        if built is None:
            return False
        self.state, self.added = built
        self._rebuild_masks()
        return True

    def prune(self) -> None:
        """Drops pieces, top first, that explain less than they cost (a greedy step taken
        early can be made redundant by a bigger piece taken later)."""
        changed = True
        while changed:
            changed = False
            for piece in sorted(self.added, key=lambda p: -p.top):
                others = [p for p in self.added if p.id != piece.id]
                if self.state.resting_on(piece):
                    continue
                if self.score_of(others) >= self.score_of(self.added):
                    self.state.remove(piece.id)
                    self.added = others
                    self._rebuild_masks()
                    changed = True
                    break

    def _rebuild_masks(self) -> None:
        self.masks = [np.zeros_like(m) for m in self.masks]
        for piece in self.added:
            self._cover(piece)

