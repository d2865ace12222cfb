"""The ways to hold up an arch's leg, as the decoder's move loop uses them.

A move (:meth:`vision.moves.Moves.ranking`) is an arch with a way to hold up each leg,
or a piece alone between two empty ways; the ways under one leg are shared by every arch
standing there, so each keeps what the moves ask of it again and again: its pieces'
bounds and prices, its worst piece's slack, its free pixels. A way is kept from round to
round until one of its pieces' kept answers is forgotten (the scorer marks it stale):
what it keeps is then the very numbers it would make anew.
"""

from __future__ import annotations

import numpy as np

from rules.pieces import Piece, Voxel
from vision.scored_piece import Candidate, PieceKey, Pixels
from vision.scoring import Scorer


def shape_key(piece: Piece) -> PieceKey:
    """Where a piece stands and what it is, all that holding up another piece asks of it."""
    return (piece.kind, piece.x, piece.y, piece.z, piece.axis, piece.turn)


class Way:
    """One way to hold up an arch's leg, for one round: its pieces (bottom-up), their
    bounds, and whether it touches the pieces read so far."""

    __slots__ = ("_free", "_stale", "cands", "price", "prices", "slack", "upper", "uppers")

    def __init__(self, scorer: Scorer | None, cands: list[Candidate]) -> None:
        self.cands = tuple(cands)
        self._stale = [False]
        """Whether a piece's kept answers were forgotten since it was made: a flag its
        pieces hold (:attr:`vision.scored_piece.Candidate.ways`) rather than the way itself."""
        uppers: list[float] = []
        slack = -np.inf
        prices: list[float] = []
        if scorer is not None:
            for c in cands:
                # The kept answers read directly: a hundred thousand ways a turn. A kept
                # bound means a kept gain alone, and a price (kept for the turn).
                u = c.upper if c.upper is not None else scorer.upper(c)
                uppers.append(u)
                against = u - c.fresh  # type: ignore[operator]  # set with the bound
                if against > slack:
                    slack = against
                prices.append(c._price)  # type: ignore[arg-type]  # set with the gain
                c.ways.append(self._stale)
        self.uppers = tuple(uppers)
        self.upper = sum(self.uppers)
        """The sum of the bounds, from the first piece on (as a move adds them up)."""
        self.slack = slack
        """The most evidence against one of its pieces: its bound less its gain alone."""
        self.prices = tuple(prices)
        self.price = sum(self.prices)
        self._free: dict[int, Pixels] = {}

    @property
    def stale(self) -> bool:
        """Whether a piece's kept answers were forgotten since it was made."""
        return self._stale[0]

    def free(self, view: int) -> Pixels:
        """Its pieces' free pixels in one view, one after the other."""
        found = self._free.get(view)
        if found is None:
            parts = [c.free[view] for c in self.cands]  # type: ignore[index]
            found = self._free[view] = (np.concatenate(parts) if parts
                                        else np.zeros(0, np.intp))
        return found

    def joins(self, halo: set[Voxel]) -> bool:
        """Whether a piece of the way fills a voxel of ``halo`` (the cells beside, under
        and over the pieces read so far)."""
        return any(not halo.isdisjoint(c.voxels) for c in self.cands)


NO_WAY = Way(None, [])
"""The empty way a piece alone stands with (a move is two ways and a piece)."""
