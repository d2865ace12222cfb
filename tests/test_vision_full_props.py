"""Full mode's doubted props (vision.props): a brick under a leg that no view sees, holding
up a piece whose pictures pay too little for the assumption, goes with what it holds.

The rule is weighed on a stand-in for :class:`vision.agreement.Search` whose pieces earn
set amounts (what each piece's seen pixels pay), so each case is the rule's alone; the
rules of the game (:class:`rules.palace.Palace`) and the search's own
:meth:`~vision.agreement.Search.rebuilt` decide what still stands."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest

from rules import Axis, Kind, Piece, load_map
from rules.palace import Palace
from rules.pieces import place_key
from vision import props
from vision.agreement import PIECE_COST, Search
from vision.full import corners_only

TRUE_ARCH = Piece(Kind.ARCH, 10, 12, 0, axis=Axis.X)
PROP = Piece(Kind.BRICK, 16, 12, 0)
UPPER = Piece(Kind.ARCH, 13, 12, 1, axis=Axis.X)
"""An arch on the true arch's end knob, its other leg on ``PROP``."""


class Earning:
    """The search's bookkeeping with each piece earning a set amount: a move gains what
    the pieces taken away cost (their price less what they earn) less what those put
    cost."""

    rebuilt = Search.rebuilt
    fixed = Search.fixed
    pieces = Search.pieces

    def __init__(self, palace: Palace, earns: dict[tuple[object, ...], float]) -> None:
        self.palace = palace
        self.earns = earns
        self.slots = dict(enumerate(palace.pieces))
        self.movable = {p.id for p in palace.pieces if p.kind is not Kind.CORNER}

    def gain(self, out: Sequence[int], put: Sequence[Piece], commit: bool = False) -> float:
        def cost(p: Piece) -> float:
            return PIECE_COST - self.earns.get(place_key(p), 0.0)
        total = sum(cost(self.slots[s]) for s in out) - sum(cost(p) for p in put)
        if commit:
            for s in sorted(out, key=lambda s: -self.slots[s].z):
                self.palace.remove(self.slots.pop(s).id)
            for p in put:
                placed = self.palace.place(p)
                self.slots[max(self.slots) + 1] = placed
                self.movable.add(placed.id)
        return total


def _dropped(upper_earns: float, prop_earns: float) -> set[tuple[object, ...]]:
    palace = corners_only(load_map("1"))
    for p in (TRUE_ARCH, PROP, UPPER):
        palace.place(p)
    search = Earning(palace, {place_key(TRUE_ARCH): 500.0, place_key(UPPER): upper_earns,
                              place_key(PROP): prop_earns})
    props.dropped_props(search, time.thread_time(), 10.0)  # type: ignore[arg-type]
    return {place_key(p) for p in search.pieces()}


def test_a_hidden_prop_goes_with_the_piece_it_alone_holds() -> None:
    """The upper arch earns more than its price (the search would keep it), but not
    enough to vouch for a brick no view sees: both go, the true arch stays."""
    assert 100.0 - PIECE_COST < props.DOUBT
    assert _dropped(100.0, 0.0) == {place_key(TRUE_ARCH)}


def test_a_hidden_prop_under_a_piece_that_pays_well_stays() -> None:
    assert _dropped(400.0, 0.0) == {place_key(p) for p in (TRUE_ARCH, PROP, UPPER)}


@pytest.mark.parametrize("prop_earns", [props.HIDDEN_PAY, 60.0])
def test_a_prop_whose_faces_pay_stays(prop_earns: float) -> None:
    assert _dropped(0.0, prop_earns) == {place_key(p) for p in (TRUE_ARCH, PROP, UPPER)}
