"""One piece as the scorer knows it: its pixels in each view, its price, and the answers
kept for it.

The scorer (:mod:`vision.scoring`) makes a piece's candidate once a turn and reads its
gains against the masks; what a piece costs (a share of what it shows, a floor, and a
column's price for levels of different colours) and what its score depends on
(:func:`piece_key`) are the piece's own, worked out here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Kind, Piece, Voxel
from vision.colours import bricks_shown

if TYPE_CHECKING:
    from vision.scoring import Scorer

PIECE_PRICE = 0.06
"""Share of what it would show (in evidence units) a piece must explain to be worth
reading."""
PIECE_FLOOR = 2.0
"""What every piece costs besides: it keeps hidden stacks out unless a visible piece
needs them, and breaks the tie between a column and three bricks of the same outline in
favour of fewer pieces where their levels show (:func:`vision.stacks.owed_to_bricks`)."""
MIXED_PRICE = 0.15
"""What each of a column's pixels costs when its levels differ in colour by
``UNIFORM_WITHIN`` + ``MIXED_RAMP`` (:mod:`vision.colours`) or more: three bricks of the
box's four colours rarely match, a column is one colour, and the two have the same
outline."""

PieceKey = tuple[object, ...]
Pixels = NDArray[np.intp]


def piece_key(piece: Piece) -> PieceKey:
    """What the score of a piece depends on: not its id, nor a building colour; a gold
    decoration has no leaves, a plant has."""
    return (piece.kind, piece.x, piece.y, piece.z, piece.axis, piece.color == "gold")


class Candidate:
    """One piece as the scorer knows it: its pixels and leaves in each view, its price,
    and its gain alone and bound against the masks as they are."""

    __slots__ = ("_colours", "_price", "_seams", "_voxels", "_weights", "around",
                 "decoration", "evidence", "free", "fresh", "key", "leaf_sums", "leaves", "piece",
                 "pixels", "size", "upper", "ways")

    def __init__(self, piece: Piece, key: PieceKey, scorer: Scorer) -> None:
        # What its price asks, rather than the scorer itself: the scorer keeps its
        # candidates, and a candidate kept back would make every one a reference cycle,
        # left for the cycle collector (tens of thousands of objects a turn) instead of
        # freed as the turn's decoder goes.
        self._colours = scorer.colours
        self._seams = scorer.seams
        self.piece = piece
        self.key = key
        self.decoration = piece.kind is Kind.DECORATION
        self._voxels: frozenset[Voxel] | None = None
        self.pixels: list[Pixels] = []
        self.leaves: list[Pixels] = []
        self.leaf_sums: list[float] = []
        self.around: list[Pixels | None] = []
        """Its leaves' pixels that it does not cover itself, per view (None: no leaves)."""
        self.size = 0
        """Its pixels, over the views."""
        self._price: float | None = None
        self.free: list[Pixels] | None = None
        """Its pixels no new piece covers yet, per view, while the masks stay as they are."""
        self._weights: list[NDArray[np.float32]] | None = None
        """Its free pixels' evidence, per view, as its gain alone read it, kept for its
        bound (asked next, nearly always) and dropped once that is read."""
        self.evidence: float | None = None
        """The evidence of its free pixels (and leaves), its price not taken off, while
        the masks stay as they are."""
        self.fresh: float | None = None
        """Its gain alone (:meth:`Scorer.fresh`), while the masks stay as they are."""
        self.upper: float | None = None
        """Its bound (:meth:`Scorer.upper`), while the masks stay as they are."""
        self.ways: list[list[bool]] = []
        """The stale flags of the ways to hold up a leg it is in, kept while its answers
        are (:class:`vision.ways.Way`): they are stale once its answers are forgotten. The
        flags, not the ways, so that a way and its pieces hold no reference cycle."""

    @property
    def price(self) -> float:
        """What it must explain to be worth reading: a share of its pixels and a floor,
        and for a column a price for levels of different colours, worked out when first
        asked (the decoder needs no price of a piece whose pixels speak against it)."""
        if self._price is None:
            size = self.size
            price = PIECE_PRICE * size + PIECE_FLOOR
            if self.piece.kind is Kind.COLUMN:
                price += MIXED_PRICE * size * bricks_shown(self._colours, self._seams,
                                                           self.piece)
            self._price = price
        return self._price

    @property
    def voxels(self) -> frozenset[Voxel]:
        """The cells it fills, worked out when first asked: only the rounds after the
        first ask it (whether a move joins the pieces read), of a few of the thousands of
        pieces a turn makes."""
        if self._voxels is None:
            self._voxels = frozenset(self.piece.voxels())
        return self._voxels


Move = tuple[Candidate, ...]
"""Pieces added in one step, in the order they are placed: an arch with what holds its
legs up, or one piece."""
