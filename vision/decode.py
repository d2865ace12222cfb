"""Decoding a turn: the physically possible set of new pieces that best explains the change.

The score of a set of new pieces is the change evidence summed over the pixels where the
set would show in front of the palace before the turn (evidence is centred, so pixels
that did not change count against it), less a small price per piece
(:mod:`vision.scoring`). The decoder grows the set the way a player builds: each round
it tries every piece that could stand now (on an open knob of the ground or of the
palace so far) on a cell that changed, an arch also with the stack of bricks and
columns its unsupported leg needs (:mod:`vision.candidates`; the moves themselves,
bounded and ranked, are :mod:`vision.moves`), and keeps the move that gains most. Pieces
that stop paying for themselves are dropped at the end. Every set it can return passes
:meth:`rules.Palace.place`, so the reading is always a palace that can stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import Kind, Piece, Voxel
from vision import rulings, stacks
from vision.candidates import built_on, ground_step, is_legal_turn
from vision.evidence import Evidence
from vision.moves import Moves
from vision.refine import refine
from vision.scoring import Masks, Scorer
from vision.staircases import weigh_staircases
from vision.turned import turn_whole

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
TURN_WHOLE = True
"""Whether the chosen reading is tried turned about its middle and slid aslant
(:mod:`vision.turned`); off only to measure what it brings."""
LEGAL_BONUS = 100.0
"""What a reading earns for being a legal staircase, in evidence units (a 1x1 brick
in full view shows 100 to 200). Players build legal staircases; where one view leaves a
step's lower half hidden, the reading that reaches the ground by the rules should beat
one that props the visible arch on a lone brick, and a whole piece's clear evidence
should still beat it. On the development turns (games 6000-6001) 15, 30, 60, 100 and
300 read 17, 18, 18, 19 and 19 of 30 turns exactly."""
GROUND_STEP_BONUS = 40.0
"""What a legal reading earns besides when its first step is the starting set-up's: an
arch on the plate with the next arch's leg on its end knob (:func:`ground_step`). Seen
end on, or with its far half behind the palace or in front of an old piece of its
colour, that arch shows little more than its near leg, and the model denies the rest
(game 6000 turn 8: its far leg's 29 pixels -18.6, the whole arch 9 against the lone
brick's 27); the reading that props the step above on a brick under that leg is legal
too and judged better by the evidence, by 1 to 26 on the development turns. Players
build their first step on the plate far more often (36 against 11 of the 80 development
staircases' lowest arches). On games 6000 / 7000 (exact, reports of 40), 0: 32/34, 33/36;
10 and 15: 34/36, 33/36; 25: 36/38, 34/37; 40: 36/38, 35/38; 60: the same; 100: 34/36,
33/36 (true bricks under legs read as arches). The staircase search's bounds
(:func:`vision.staircases.weigh_staircases`) keep the legal bonus alone: the readings
and their edits (:func:`vision.refine.refine`, :func:`vision.rulings.resupport`) bring
the first steps; bounds raised by this bonus as well prune far less (with an earlier,
broader form of the bonus, games 7000 took a median 0.94 against 0.64 s, wall clock)."""
BEYOND_HAND_PRICE = 40.0
"""What a reading pays, in :meth:`Decoder.judged`, for each arch, brick or column it
needs beyond the hand of the player who built, where the game knows it
(:meth:`vision.stacks.Supply.beyond_hand`). The game would refuse such a staircase, so
the reading it stands for is seldom the one built: a lone brick at a staircase's start
read as a ground arch the player did not have, phantom bricks beside a step. A price,
not a veto, so that a piece in plain view (100 to 200 units) is still read where the
game's record of the hand is wrong, and the rules then say what it lacks; restacking
judges with it too (:meth:`restack`). On development
games 9000-12000 (240 turns, the hands known), against the hand for restacking alone:
0 read 203 turns exactly and 211 reports right, 40 and 100 both 208 and 215 (100 left a
wrong report unasked that 40 asks)."""
HIDDEN_CELL_PRICE = 0.01
"""What a reading pays, in :meth:`Decoder.judged`, for each cell of a piece that shows no
pixel in any view: nothing in the picture asks for it, so where two readings tie (a
wholly hidden arch or the wholly hidden brick its end stands on, game 10000 turn 59:
967.1 each), the one with less unseen volume wins. Far below any piece's evidence, it
breaks ties only."""


class Decoder:
    """The greedy search over physically possible additions, with its running score."""

    def __init__(self, before: Palace, evidence: Sequence[Evidence], *,
                 one_staircase: bool = True, hand: Hand | None = None) -> None:
        self.before = before
        self.supply = stacks.Supply.of(before, hand)
        """Where the turn's pieces come from: the box less the palace before, and the
        builder's hand where the game knows it."""
        self.one_staircase = one_staircase
        """Whether the addition is one turn's staircase, so that whole staircases are
        weighed against a reading the rules refuse; not for a whole palace."""
        self.evidence = list(evidence)
        self.state = before.copy()
        self.added: list[Piece] = []
        self.masks: Masks = [np.zeros(ev.weight.shape, bool) for ev in self.evidence]
        """Pixels the pieces read so far cover (and their leaves), per view."""
        self.scorer = Scorer(self.evidence)
        self.moves = Moves(self.scorer)
        """The turn's moves and what is kept of them (shared by the readings, like the
        scorer)."""
        self.readings: list[tuple[float, tuple[Piece, ...]]] = []
        """Every reading :meth:`run` grew, with its judged score: how close the runners-up
        came says which pieces the evidence did not decide."""

    def score_of(self, pieces: Sequence[Piece]) -> float:
        """The score of a whole set of new pieces, from nothing."""
        return self.scorer.whole(pieces)

    def view_area(self, piece: Piece) -> float:
        """The piece's whole outline in region pixels (nothing in front), over the views."""
        return self.scorer.view_area(piece)

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

    def fork(self) -> Decoder:
        """A decoder on the same evidence from nothing read, sharing what is kept."""
        other = Decoder.__new__(Decoder)
        other.__dict__.update(self.__dict__)
        other.state = self.before.copy()
        other.added = []
        other.masks = [np.zeros_like(m) for m in self.masks]
        return other

    def run(self, hot: set[Voxel]) -> list[Piece]:
        """Grows a reading from each of the ``STARTS`` best first moves and keeps the
        one that scores best: the first move is where one view misleads most (a piece a
        level lower and nearer covers nearly what the true one does), and a greedy
        search never takes it back."""
        best: tuple[float, Decoder] | None = None
        self.readings = []
        for _, first in self.moves.best(self.state, self.added, self.masks, hot, STARTS):
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
        if best is not None and TURN_WHOLE and self.one_staircase:
            best = self._turned(best)
        if best is not None and self.one_staircase:
            best = self._crowned(best)
        if best is not None:
            if stacks.FINAL_RESTACK:
                self._restack_final(best[1])
            self.state, self.added, self.masks = best[1].state, best[1].added, best[1].masks
        return self.added

    def _turned(self, best: tuple[float, Decoder]) -> tuple[float, Decoder]:
        """The chosen reading turned or slid aslant where that judges better
        (:func:`vision.turned.turn_whole`); its entry among the readings becomes the new
        one, as restacking's does, so that the reading it was edited from does not doubt
        it (game 10000 turn 10: its four right pieces read at 0.385 beside the old L,
        0.81-0.98 without)."""
        was = tuple(best[1].added)
        turned = turn_whole(best[1], best[0])
        if turned is None:
            return best
        self._renew(was, (turned, tuple(best[1].added)))
        return turned, best[1]

    def _crowned(self, best: tuple[float, Decoder]) -> tuple[float, Decoder]:
        """The chosen reading with the decoration its objective judges best, where it
        has none (:func:`vision.rulings.judged_crown`); its entry among the readings
        becomes the crowned one, as the turned reading's does."""
        was = tuple(best[1].added)
        if not rulings.judged_crown(best[1]):
            return best
        now = (best[1].judged(best[1].added), tuple(best[1].added))
        self._renew(was, now)
        return now[0], best[1]

    def _renew(self, was: tuple[Piece, ...], now: tuple[float, tuple[Piece, ...]]) -> None:
        """Puts an edited reading in the place among the readings of the one it was
        edited from (``was``), or beside them where that one is not among them: a
        reading must not be doubted by the very reading it mends."""
        if any(pieces == was for _, pieces in self.readings):
            self.readings = [now if pieces == was else (score, pieces)
                             for score, pieces in self.readings]
        else:
            self.readings.append(now)

    def search_nothing(self, voxels: set[Voxel]) -> list[Piece]:
        """The best whole staircase (:func:`vision.staircases.weigh_staircases`) where it
        judges better than reading nothing, its arches shown best among those on
        ``voxels``; nothing otherwise. For a turn the greedy search read as nothing though
        something changed: a staircase behind the palace shows only its top, too little
        for any voxel to light up or any first move to gain."""
        self.moves.prepare_shapes(sorted(voxels))
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
        if stacks.restack(chosen, chosen.judged, partial(stacks.owed_to_bricks, chosen.scorer)):
            now = (chosen.judged(chosen.added), tuple(chosen.added))
            self.readings = [now if pieces == was else (score, pieces)
                             for score, pieces in self.readings]

    def grow(self, hot: set[Voxel]) -> None:
        """Adds the move that gains most until none gains, then tidies the reading."""
        for _ in range(MAX_ROUNDS):
            moves = self.moves.best(self.state, self.added, self.masks, hot, 1)
            if not moves:
                break
            self.apply(moves[0][1])
        self.prune()
        self.restack()

    def judged(self, pieces: Sequence[Piece], floor: float = -np.inf, *,
               hand: bool = True) -> float:
        """A whole reading's score with the rules' word in it: the evidence (less
        ``HIDDEN_CELL_PRICE`` for the cells of its pieces that show nothing, and
        ``BEYOND_HAND_PRICE`` for each piece beyond the builder's hand unless ``hand``
        is False), and ``LEGAL_BONUS`` if it is a legal staircase (``GROUND_STEP_BONUS``
        more if its first step is an arch on the plate under the next one's leg). A
        reading that cannot beat ``floor`` even with the bonuses is answered with its
        evidence alone (no more than ``floor`` either way): asking the rules costs ten
        times the score, and the edits and the supports ask for hundreds of readings
        that cannot win."""
        score = self.score_of(pieces) - self._hidden_price(pieces)
        if hand:
            score -= self.hand_price(pieces)
        if score + LEGAL_BONUS + GROUND_STEP_BONUS <= floor:
            return score
        if not is_legal_turn(self.before, pieces):
            return score
        return score + LEGAL_BONUS + (GROUND_STEP_BONUS if ground_step(pieces) else 0.0)

    def hand_price(self, pieces: Sequence[Piece]) -> float:
        """``BEYOND_HAND_PRICE`` for each piece ``pieces`` need beyond the builder's
        hand (0 where the hand is not known)."""
        return BEYOND_HAND_PRICE * self.supply.beyond_hand(pieces)

    def weighed(self, pieces: Sequence[Piece]) -> float:
        """The whole objective the decoder reads a turn by, for weighing a reading
        against another set of pieces (a bench's truth): :meth:`judged`, less what each
        column owes three bricks of its outline when the two are weighed
        (:func:`vision.stacks.owed_to_bricks`, the restacking's prior), so that a
        reading and its restacked twin weigh as restacking chose between them."""
        owed = sum(stacks.owed_to_bricks(self.scorer, p) for p in pieces
                   if p.kind is Kind.COLUMN)
        return self.judged(pieces) - owed

    def _hidden_price(self, pieces: Sequence[Piece]) -> float:
        """``HIDDEN_CELL_PRICE`` for each cell of the pieces no view shows a pixel of."""
        return HIDDEN_CELL_PRICE * sum(len(c.voxels) for c in map(self.scorer.candidate, pieces)
                                       if c.size == 0)

    def restack(self) -> None:
        """Swaps each column read for three bricks, and each run of three bricks for a
        column, where that scores better (:func:`vision.stacks.restack`), the builder's
        hand priced in as :meth:`judged` prices it."""
        stacks.restack(self, self._priced, partial(stacks.owed_to_bricks, self.scorer))

    def _priced(self, pieces: Sequence[Piece]) -> float:
        return self.score_of(pieces) - self.hand_price(pieces)

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

