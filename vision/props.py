"""Props that nothing vouches for taken away, with what they alone held up.

The parse (:func:`vision.parse._props`) and the towers' rebuilds
(:mod:`vision.towers`) put bricks under a leg where nothing holds it, since the piece
above says they are there and its neighbours hide them. But the carving keeps a phantom
layer over a palace, and a piece read in it gets phantom bricks under its leg: on the
development palaces extra bricks are the largest kind read wrong, mostly such props.
The pictures tell the two apart less by the prop itself than by what it holds: weighed
alone (:meth:`vision.agreement.Search.gain` of taking it away, the rules aside), a true
prop mostly shows (its faces earn 5 to 250 in the rendered views), while the phantom ones
are mostly hidden (they earn under 5: every view sees the reading's other pieces in
front of them), and a hidden prop is only as sure as the piece it holds up. So a prop
that earns less than :data:`HIDDEN_PAY` is taken away with every piece that no longer
stands without it (:class:`rules.palace.Palace` decides, through
:meth:`~vision.agreement.Search.rebuilt`) unless the pictures lose more than
:data:`DOUBT` by it: the pieces it holds must pay for the assumption, not only for
themselves (a search move's price, :data:`vision.agreement.MOVE_PRICE`, lets them stand
where they earn their price a piece). Measured in docs/vision-log.md, "Props
nothing vouches for".
"""

from __future__ import annotations

import time

from rules.pieces import Kind
from vision.agreement import PIECE_COST, Search

HIDDEN_PAY = 5.0
"""What a prop's own seen faces must earn (the change they cover, less their colour
spread) to vouch for it; one earning less is doubted. On games 2003, 2010 and 2018
(the search's reading) 23 of 24 true props earned 5 or more, 16 of 31 phantom ones less
(22 less than 10)."""
DOUBT = 150.0
"""How much the pictures may lose by taking a doubted prop away with what it alone holds
(each piece's price, :data:`vision.agreement.PIECE_COST`, counted as gained). On the
thirteen development palaces (:data:`HIDDEN_PAY`, this): (5, 150) read 345 right of 621
read, (10, 100) 342 of 621, (10, 150) 342 of 614, (10, 250) 336 of 599, (15, 200) 338
of 598, (20, 300) 333 of 588; without the pass 343 of 645 (docs/vision-log.md)."""


def dropped_props(search: Search, started: float, time_limit: float) -> None:
    """Takes away each doubted prop (a brick something rests on, whose seen faces earn
    less than :data:`HIDDEN_PAY`), lowest first, with what then no longer stands, where
    the pictures lose less than :data:`DOUBT`; stops after ``time_limit`` seconds of
    thread time since ``started``."""
    for slot in sorted(search.slots, key=lambda s: search.slots[s].z):
        if time.thread_time() - started > time_limit:
            break
        piece = search.slots.get(slot)
        if (piece is None or piece.kind is not Kind.BRICK or search.fixed(slot)
                or not search.palace.resting_on(piece)):
            continue
        if PIECE_COST - search.gain([slot], []) >= HIDDEN_PAY:
            continue
        move = search.rebuilt([slot], [])
        if move is None:
            continue
        if search.gain(*move) > -DOUBT:
            search.gain(*move, commit=True)
