"""The parse's pieces picked again by what the pictures would show: a local search.

The carving is saturated (every voxel no view sees through is kept), so the greedy parse
(:mod:`vision.parse`) takes false pieces that the carving scores as high as true ones:
an arch a stud or a quarter turn off bridging two true arches' ends, a brick over a
true piece. What tells them apart is what each view would show, weighed by
:class:`vision.agreement.Search` (the reading rendered with occlusion: silhouette pay,
colour spread a piece, a price a piece).

The search tries, for each building piece, every carving candidate
(:func:`vision.parse.candidates`, columns left out) that shares a voxel with it (the
same kind shifted a stud, an arch quarter-turned, a brick for an arch and back), the
pieces in the candidate's way taken away with it and what rests on them taken off and
put back where it still stands; for the best :data:`PAIRS` of those, a second candidate
in the space left; and taking the piece away where nothing rests on it. It keeps the
best change that the rules let stand (:class:`rules.palace.Palace`) and that gains more
than :data:`~vision.agreement.MOVE_PRICE`, and goes round again near what changed. Then
the towers are offered again whole (:mod:`vision.towers`), and the props nothing vouches
for taken away (:mod:`vision.props`), each with a time of its own.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rules.palace import Palace
from rules.pieces import Kind, Piece, place_key
from vision.agreement import MOVE_PRICE, Near, Search
from vision.carve import Carving, ViewData
from vision.parse import candidates
from vision.props import dropped_props
from vision.towers import rebuilt_towers

TIME_PER_VIEW_S = 0.45
"""Seconds of this thread's CPU time the search may run, a view: it stops where it is
once over (CPU time, not wall clock, so a busy machine reads a frame as a quiet one, as
the board's location does). To run to its end it needs about 0.8 to 1.0 s a view of
one core on the 120-piece development palace, 0.6 s or less on the others, so the
largest palaces are read by a cut search (the full-mode budget is about 1 s a view in
all; docs/vision-log.md, "Full mode's speed"). With the towers' and the props' passes after
it (:data:`TOWER_TIME_PER_VIEW_S`, :data:`PROPS_TIME_PER_VIEW_S`) the three share the
0.75 s the search had alone. Before the props' pass, on the
thirteen development palaces 0.75 here and 0.25 for the towers read 344 right of 639
read, 0.5 and 0.25 342 of 646 (the same within a run's noise), 0.6 and 0.15 333 of 638,
0.75 and 0.1 330 of 622."""
ROUNDS = 3
"""Most passes over the pieces."""
REACH = 4
"""Studs around a round's changes within which the next round tries the pieces again
(a piece's own moves reach four studs: an arch's length)."""
TOWER_TIME_PER_VIEW_S = 0.25
"""Seconds of thread CPU time a view for the towers read whole after the rounds
(:mod:`vision.towers`): enough for the development palaces of up to 60 pieces (0.1 s a
view or less), not for every tower of the 120-piece ones, whose tallest are tried first
(docs/vision-log.md, "Towers read whole")."""
PROPS_TIME_PER_VIEW_S = 0.05
"""Seconds of thread CPU time a view for the props nothing vouches for taken away after
the towers (:mod:`vision.props`), taken from :data:`TIME_PER_VIEW_S` (0.5 before) so the
time a view is as before."""
PAIRS = 3
"""The best moves of a piece (by gain) whose freed space is offered a second candidate:
a false arch over two true arches' ends gives way to both of them, two bricks to the
arch over them and back. On the ten development palaces F1 0.583 without, 0.588 with
the best one, 0.609 with three (eight read the same as three), at the first settings
(docs/vision-log.md, "Full mode's speed: inside the search")."""


def picked(views: Sequence[ViewData], carving: Carving, palace: Palace,
           pieces: Sequence[Piece], time_limit: float | None = None) -> list[Piece]:
    """``pieces`` (standing in ``palace`` beside its corner bricks) after the local
    search: each building piece swapped for a carving candidate sharing a voxel with it
    (what rests on it taken off and put back where it still stands), or taken away if
    nothing rests on it, wherever the rendered views then agree better with the frames;
    ``time_limit`` seconds of thread CPU time at most (:data:`TIME_PER_VIEW_S` a view
    when None), then the towers read whole (:mod:`vision.towers`) for
    :data:`TOWER_TIME_PER_VIEW_S` a view more, then the doubted props taken away
    (:mod:`vision.props`) for :data:`PROPS_TIME_PER_VIEW_S` a view more."""
    if not views or not pieces:
        return list(pieces)
    started = time.thread_time()
    time_limit = TIME_PER_VIEW_S * len(views) if time_limit is None else time_limit
    search = Search(views, palace, pieces)
    near: Near = {}
    pool = [c for level in range(carving.full.shape[2]) for c in candidates(level, carving)
            if c[1].kind is not Kind.COLUMN]
    for _, cand in pool:
        for v in cand.voxels():
            near.setdefault(v, []).append(cand)
    near_change: set[tuple[int, int]] | None = None
    for _ in range(ROUNDS):
        moved: list[Piece] = []
        for slot in list(search.slots):
            if time.thread_time() - started > time_limit:
                break
            piece = search.slots.get(slot)
            if (piece is None or search.fixed(slot)
                    or (near_change is not None
                        and not near_change.intersection(piece.footprint()))):
                continue
            moved.extend(_improve(search, slot, piece, near))
        if not moved or time.thread_time() - started > time_limit:
            break
        near_change = {(x + dx, y + dy) for p in moved for x, y in p.footprint()
                       for dx in range(-REACH, REACH + 1) for dy in range(-REACH, REACH + 1)}
    if TOWER_TIME_PER_VIEW_S > 0:
        rebuilt_towers(search, near, carving.full, time.thread_time(),
                       TOWER_TIME_PER_VIEW_S * len(views))
    if PROPS_TIME_PER_VIEW_S > 0:
        dropped_props(search, time.thread_time(), PROPS_TIME_PER_VIEW_S * len(views))
    return search.pieces()


def _improve(search: Search, slot: int, piece: Piece, near: Near) -> list[Piece]:
    """Makes the best move of ``piece`` (taken away, or swapped for a candidate sharing a
    voxel, the free pieces in that candidate's way taken away too) if it gains more
    than :data:`~vision.agreement.MOVE_PRICE`; returns the pieces it took away and put
    (none if no move gains so much)."""
    at = {v: s for s, p in search.slots.items() for v in p.voxels()}
    seen = {place_key(piece)}
    moves: list[tuple[list[int], list[Piece]]] = [([slot], [])]
    for v in piece.voxels():
        for cand in near.get(v, ()):
            ck = place_key(cand)
            if ck in seen:
                continue
            seen.add(ck)
            out = {slot}
            for w in cand.voxels():
                other = at.get(w)
                if other is not None:
                    out.add(other)
            if any(search.fixed(s) for s in out):
                continue
            moves.append((sorted(out), [cand]))
    if search.palace.resting_on(piece):
        moves = moves[1:]
    best, best_gain = None, MOVE_PRICE
    tried: list[tuple[float, list[int], list[Piece]]] = []
    for out0, put0 in moves:
        move = search.rebuilt(out0, put0)
        if move is None:
            continue
        out, put = move
        g = search.gain(out, put)
        tried.append((g, out0, put0))
        if g > best_gain:
            best, best_gain = (out, put), g
    if PAIRS:
        tried.sort(key=lambda t: -t[0])
        for _, out0, put0 in tried[:PAIRS]:
            if not put0:
                continue
            first = set(put0[0].voxels())
            freed = {v for s in out0 for v in search.slots[s].voxels()} - first
            kept = {v for s, p in search.slots.items() if s not in out0 for v in p.voxels()}
            seconds: dict[tuple[object, ...], Piece] = {}
            for v in freed:
                for cand in near.get(v, ()):
                    if not any(w in kept or w in first for w in cand.voxels()):
                        seconds[place_key(cand)] = cand
            for cand in seconds.values():
                move = search.rebuilt(out0, [*put0, cand])
                if move is None:
                    continue
                g = search.gain(*move)
                if g > best_gain:
                    best, best_gain = move, g
    if best is None:
        return []
    gone = [search.slots[s] for s in best[0]]
    search.gain(*best, commit=True)
    return [*gone, *best[1]]
