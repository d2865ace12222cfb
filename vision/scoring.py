"""What a set of new pieces earns: the evidence of the pixels it covers, less its prices.

The decoder (:mod:`vision.decode`) asks the same questions thousands of times a turn:
what a piece alone would add to the pixels no new piece covers yet, the most it could
add (its bound), what a move (a few pieces together) would add. A piece's pixels, leaves
and price (:mod:`vision.scored_piece`) are worked out once a turn; its gain alone and its
bound are kept until one of the pixels they were read from is covered or uncovered: the
region is cut in tiles, and each tile knows the candidates whose pixels fall in it
(:mod:`vision.tiles`). Kept answers are the very numbers a fresh computation gives (the
same sums over the same pixels in the same order), so keeping them changes no reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Kind, Piece
from vision.colours import LevelColours, seams_needed
from vision.evidence import Evidence
from vision.scored_piece import PIECE_PRICE, Candidate, Move, PieceKey, Pixels, piece_key
from vision.seams import SeamLines
from vision.silhouettes import LEAVES
from vision.tiles import Tiles
from vision.voxels import Box, piece_voxels

Masks = list[NDArray[np.bool_]]
_NONE = np.zeros(0, np.intp)
_NONE.flags.writeable = False
array_sum = np.add.reduce
"""What ``ndarray.sum()`` calls (the same sum, to the bit), without its wrapper: the
decoder sums pixels' evidence hundreds of thousands of times a turn."""


class Scorer:
    """Scores of pieces and moves on one turn's evidence, with everything worked out
    once kept for the rest of the turn (shared by the decoder's readings)."""

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = list(evidence)
        self._cands: dict[PieceKey, Candidate] = {}
        size = max(len(ev.weight) for ev in self.evidence) if self.evidence else 0
        self._stamp = np.zeros(size, np.int64)
        self._mark = np.zeros(size, bool)
        self._order = np.arange(4 * size, dtype=np.int64)
        """0, 1, 2, ...: :meth:`_distinct` slices its positions from here instead of
        making them anew, tens of thousands of times a turn."""
        self._seen: Masks = [np.zeros(ev.weight.shape, bool) for ev in self.evidence]
        """The masks the kept answers were read against."""
        self._open: Masks = [np.ones(ev.weight.shape, bool) for ev in self.evidence]
        """Their opposites (the pixels no new piece covers), kept with them: a piece's
        free pixels are read thousands of times a turn."""
        self._covered = [False for _ in self.evidence]
        """Whether each view's mask covers any pixel: in the first round none does, and a
        piece's free pixels are all of them."""
        self._tiles: Tiles[Candidate] = Tiles([ev.view for ev in self.evidence])
        """Which kept answers a covered or uncovered pixel spoils."""
        self._whole: dict[tuple[PieceKey, ...], float] = {}
        self.colours = LevelColours(self.evidence)
        self.seams = SeamLines(self.evidence)

    # -- candidates --------------------------------------------------------------------
    def candidate(self, piece: Piece) -> Candidate:
        key = piece_key(piece)
        cand = self._cands.get(key)
        if cand is None:
            self._make({key: piece})
            cand = self._cands[key]
        return cand

    def prepare(self, pieces: Sequence[Piece]) -> list[Candidate]:
        """Makes many pieces' candidates at once: their voxels projected together (one
        projection a view) and their pixels gathered together; returns each piece's."""
        found: dict[PieceKey, Piece] = {}
        keys = []
        cands = self._cands
        for p in pieces:
            key = piece_key(p)
            keys.append(key)
            if key not in cands and key not in found:
                found[key] = p
        if found:
            self._make(found)
        return [cands[key] for key in keys]

    def _make(self, found: dict[PieceKey, Piece]) -> None:
        """Makes the candidates of new pieces, by key."""
        todo = list(found.values())
        boxes = [piece_voxels(p) for p in todo]
        voxels = [v for b in boxes for v in b]
        # A column's price asks for its levels' colours (:meth:`LevelColours.steps`).
        levels = [(p.x, p.y, level) for p in todo if p.kind is Kind.COLUMN
                  for level in range(p.z, p.top)]
        voxels += [(x, y, level, 0) for x, y, level in levels]
        plants = [(p.x, p.y, p.z) for p in todo
                  if p.kind is Kind.DECORATION and p.color != "gold"]
        for ev in self.evidence:
            ev.view.prepare(voxels)
            if plants:
                ev.view.prepare_leaves(plants)
            if ev.colour is not None:
                ev.view.prepare_sides(levels)
        pixels = [ev.view.pieces_pixels(boxes) for ev in self.evidence]
        held = voxels[:len(voxels) - len(levels)] + [(*c, LEAVES) for c in plants]
        for i in range(len(self.evidence)):
            self._tiles.hold(i, held)
        for k, (key, p) in enumerate(found.items()):
            self._cands[key] = self._new_candidate(p, key, boxes[k], [px[k] for px in pixels])

    def _new_candidate(self, piece: Piece, key: PieceKey, boxes: Sequence[Box],
                       pixels: list[Pixels]) -> Candidate:
        """The candidate of a piece, given its boxes and its pixels in each view."""
        cand = Candidate(piece.moved(id="") if piece.id else piece, key, self)
        plant = cand.decoration and piece.color != "gold"
        for i, ev in enumerate(self.evidence):
            px = pixels[i]
            cand.pixels.append(px)
            if plant:
                leaves = ev.view.leaf_pixels(piece)
                cand.leaves.append(leaves)
                cand.leaf_sums.append(float(ev.leaf[leaves].sum()))
                cand.around.append(self._around([cand], i, px))
            else:
                # No leaves: what the general case gives for none, without working it out.
                cand.leaves.append(_NONE)
                cand.leaf_sums.append(0.0)
                cand.around.append(None)
            holders = self._tiles.by_box(i)
            for box in boxes:
                holders[box].append(cand)
            if plant:
                holders[(piece.x, piece.y, piece.z, LEAVES)].append(cand)
        cand.size = sum(len(px) for px in cand.pixels)
        return cand

    def _union(self, cands: Sequence[Candidate]) -> tuple[list[Pixels], list[Pixels | None]]:
        """The pixels the pieces cover together (in the order of their first listing,
        each once) and the leaves around them, per view."""
        if len(cands) == 1:
            return cands[0].pixels, cands[0].around
        union, around = [], []
        decorations = [c for c in cands if c.decoration]
        for i in range(len(self.evidence)):
            idx = self._distinct(np.concatenate([c.pixels[i] for c in cands]))
            union.append(idx)
            around.append(self._around(decorations, i, idx))
        return union, around

    def _around(self, decorations: list[Candidate], view: int, idx: Pixels) -> Pixels | None:
        """The leaves' pixels that the pieces themselves do not cover (None when the
        first decoration has no leaves: a gold one)."""
        leaf = [c.leaves[view] for c in decorations]
        if not leaf or not len(leaf[0]):
            return None
        if len(leaf) == 1:
            # One decoration's leaves are ascending and distinct: what setdiff1d gives,
            # the pieces' pixels marked on a scratch mask (and cleared again).
            mark = self._mark
            mark[idx] = True
            out = leaf[0][~mark[leaf[0]]]
            mark[idx] = False
            return out
        return np.setdiff1d(np.concatenate(leaf), idx)

    def outside(self, idx: Pixels, others: Sequence[Pixels]) -> Pixels:
        """The pixels of ``idx`` in none of ``others``, in their order: what
        ``idx[~np.isin(idx, np.concatenate(others))]`` gives, the others marked on a
        scratch mask (and cleared again) instead of sorted."""
        mark = self._mark
        for o in others:
            mark[o] = True
        out = idx[~mark[idx]]
        for o in others:
            mark[o] = False
        return out

    def _distinct(self, idx: Pixels) -> Pixels:
        """Each index once, in linear time (the last write of each index wins)."""
        n = len(idx)
        order = self._order[:n] if n <= len(self._order) else np.arange(n, dtype=np.int64)
        stamp = self._stamp
        stamp[idx] = order
        return idx[stamp[idx] == order]

    def look_ahead(self, cands: Iterable[Candidate]) -> None:
        """Looks at the seams of the columns among ``cands`` whose price is not known yet
        and whose levels' colours leave it open, all at once
        (:meth:`vision.seams.SeamLines.look`): their prices are asked next, each of
        which would look at its place alone (:func:`vision.colours.bricks_shown`). A
        column listed again (the ways under a round's legs share their stacks: a dozen
        times each) is asked once."""
        places: list[tuple[int, int, int]] = []
        asked: set[int] = set()
        colours = self.colours
        for c in cands:
            if c._price is None and c.piece.kind is Kind.COLUMN and id(c) not in asked:
                asked.add(id(c))
                if seams_needed(colours, c.piece):
                    places.append((c.piece.x, c.piece.y, c.piece.z))
        self.seams.look(places)

    # -- scores against the masks ------------------------------------------------------
    def sync(self, masks: Masks) -> None:
        """Forgets every kept answer read from a pixel whose mask has changed since the
        last call; the scores below are against ``masks`` until the next."""
        for i, mask in enumerate(masks):
            changed = np.flatnonzero(self._seen[i] != mask)
            if not len(changed):
                continue
            self._seen[i][changed] = mask[changed]
            self._open[i][changed] = ~mask[changed]
            self._covered[i] = bool(self._seen[i].any())
            for holder in self._tiles.spoiled(i, changed):
                for cand in holder:
                    cand.evidence = cand.fresh = cand.upper = cand.free = None
                    cand._weights = None
                    if cand.ways:
                        for flag in cand.ways:
                            flag[0] = True
                        cand.ways = []

    def fresh(self, cand: Candidate) -> float:
        """What the piece alone would add to the pixels no new piece covers yet, less its
        price."""
        if cand.fresh is None:
            cand.fresh = self.unpriced(cand) - cand.price
        return cand.fresh

    def unpriced(self, cand: Candidate) -> float:
        """What the piece alone would add to the pixels no new piece covers yet, its
        price not taken off."""
        if cand.evidence is None:
            total = 0.0
            free = cand.free = []
            weights = cand._weights = []
            for i, ev in enumerate(self.evidence):
                idx = cand.pixels[i]
                uncovered = self._open[i]
                covered = self._covered[i]
                free.append(idx[uncovered[idx]] if covered else idx)
                weights.append(ev.weight[free[i]])
                total += float(array_sum(weights[i], None))
                leaf = cand.around[i]
                if leaf is not None:
                    total += float(array_sum(ev.leaf[leaf[uncovered[leaf]] if covered else leaf],
                                        None))
            cand.evidence = total
        return cand.evidence

    def upper(self, cand: Candidate) -> float:
        """The most the piece can add now (its fresh pixels that pay, and its leaves'),
        less its price: a move gains at most the sum of its pieces' bounds."""
        if cand.upper is None:
            if cand.fresh is None:
                self.fresh(cand)
            assert cand.free is not None
            weights = cand._weights
            if weights is None:
                weights = [ev.weight[free] for ev, free in zip(self.evidence, cand.free,
                                                                strict=True)]
            hit = -cand.price
            for i in range(len(self.evidence)):
                hit += float(array_sum(np.maximum(weights[i], 0), None))
                hit += cand.leaf_sums[i]
            cand.upper = hit
            cand._weights = None
        return cand.upper

    def gain(self, move: Move) -> float:
        """What the move would add to the pixels no new piece covers yet."""
        if len(move) == 1:
            return self.fresh(move[0])
        if any(c.decoration for c in move):
            union, around = self._union(move)
            return self._gain(union, around, sum(c.price for c in move), self._seen)
        for c in move:
            if c.free is None:
                self.fresh(c)
        return self.free_gain([[c.free[i] for c in move]  # type: ignore[index]
                               for i in range(len(self.evidence))],
                              sum(c.price for c in move))

    def free_gain(self, free: Sequence[Sequence[Pixels]], price: float) -> float:
        """What pieces without leaves add, given their free pixels (per view, listed in
        the move's order), less ``price``: the free pixels of the pieces, each once, are
        the same pixels in the same order as the free ones among all their pixels, each
        once."""
        total = 0.0
        stamp, order = self._stamp, self._order
        for i, ev in enumerate(self.evidence):
            # :meth:`_distinct` written out: this runs thousands of times a turn.
            idx = np.concatenate(free[i])
            n = len(idx)
            at = order[:n] if n <= len(order) else np.arange(n, dtype=np.int64)
            stamp[idx] = at
            total += float(array_sum(ev.weight[idx[stamp[idx] == at]], None))
        return total - price

    def _gain(self, union: list[Pixels], around: list[Pixels | None], price: float,
              masks: Masks | None) -> float:
        """The evidence of the pixels in ``union`` (and of the leaves ``around``) that
        ``masks`` leave free (all of them, with no masks), less ``price``."""
        total = 0.0
        for i, ev in enumerate(self.evidence):
            idx = union[i]
            if masks is None:
                total += float(ev.weight[idx].sum())
            else:
                total += float(ev.weight[idx[~masks[i][idx]]].sum())
            leaf = around[i]
            if leaf is not None:
                if masks is not None:
                    leaf = leaf[~masks[i][leaf]]
                total += float(ev.leaf[leaf].sum())
        return total - price

    def whole(self, pieces: Sequence[Piece]) -> float:
        """The score of a whole set of new pieces, from nothing."""
        if not pieces:
            return 0.0
        # Keyed by the pieces' keys (their candidates' own): a set scored before, as
        # most are (the edits and the rules' checks ask the same readings again), is
        # answered without looking up its candidates.
        key = tuple(map(piece_key, pieces))
        hit = self._whole.get(key)
        if hit is None:
            cands = [self.candidate(p) for p in pieces]
            union, around = self._union(cands)
            hit = self._whole[key] = self._gain(union, around, sum(c.price for c in cands),
                                                None)
        return hit

    def priced_twice(self, pieces: Sequence[Piece]) -> float:
        """What the pieces' prices charge twice: each piece pays a share of its own
        pixels (:data:`~vision.scored_piece.PIECE_PRICE`), so where they cover each
        other (a brick's top under the brick on it) those pixels are paid for by both.
        A column pays for its outline once; three bricks of that outline pay this
        much more besides their two floors."""
        if len(pieces) < 2:
            return 0.0
        cands = [self.candidate(p) for p in pieces]
        union, _ = self._union(cands)
        return PIECE_PRICE * (sum(c.size for c in cands) - sum(len(u) for u in union))

    # -- the picture's other questions -------------------------------------------------
    def view_area(self, piece: Piece) -> float:
        """The piece's whole outline in region pixels (nothing in front, the part beyond
        the region's edges too: :meth:`vision.silhouettes.View.piece_area`), over the
        views."""
        return float(sum(ev.view.piece_area(piece) for ev in self.evidence))
