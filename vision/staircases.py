"""Whole staircases for the decoder to weigh: the rules' shape, hung from the arches read.

The greedy search (:mod:`vision.decode`) grows a reading piece by piece from what shows
most, and never weighs legality until the reading is whole; where one view leaves a
staircase's lower steps hidden it props the arches it sees on whatever pays most (a
lowered arch, a line of bricks, a stray piece), and the legal staircase a player built
is more than one edit away. Yet the arches it reads are mostly right: the highest steps
and the decoration show best. So each arch of the greedy readings (and each arch one
step up from one) is taken as the staircase's final arch, the decoration on either of
its end knobs, and the staircase is built down from it the way the rules read one: the
final arch's other leg on the end knob of a step one level lower (or two, lifted by a
brick), that step's own start leg held the same way, down to a piece standing on the
ground; every far leg on an open knob or on a stack of bricks and columns. Only the
palace before the turn is asked: the proposals are whole staircases, judged by the
decoder's own objective against its readings (:meth:`vision.decode.Decoder.judged`),
so a proposal wins only where it judges better, and a reading only the greedy search
finds still wins where it judges best.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from rules.moves import DIRECTIONS, arch_from
from rules.palace import Palace
from rules.pieces import DecorationColor, Kind, Piece
from vision.candidates import PLANT, built_on
from vision.moves import Moves
from vision.refine import refine
from vision.rulings import off_rim
from vision.scored_piece import Candidate, PieceKey, piece_key
from vision.scoring import Scorer, array_sum
from vision.stair_bounds import CloserBound, Signs
from vision.stair_ways import LegWays, SearchMemo, far_ways, pieces_bound, span_free, start_ways

STEPS_DOWN = 3
"""Steps below the final arch a proposal builds at most: most development staircases
have one to four arches; four steps down read fewer pieces right."""
ALIKE_SHARE = 0.6
"""Share of two arches' outlines (of their union, over the views) that both cover, from
which an arch a level above or below a read arch is taken as a final arch too: one view
cannot tell a low near arch from a high far one (:func:`look_alikes`). 0.5 and 0.7
read the same turns on games 8000."""
RIVALS = 3
"""Runners-up kept as rival readings: a piece one of them leaves out while judging
close to the winner is doubted (:func:`vision.confidence.rate_pieces`)."""
MAX_PROPOSALS = 60000
"""Proposals made at most per turn: bounds the time of a turn that many arches were read
on. A first step on the ground below the steps down multiplies the ways under a final
arch (one turn's first 80 tops made the 20 000 once allowed, and its true final arch came
later); most are never scored, being bounded below the best."""

SHOWN_ARCHES = 10
"""Arches on the changed voxels, those whose own evidence less their price is best,
taken as final arches besides the read ones (:meth:`vision.moves.Moves.shown_arches`): where the
greedy readings put no arch near the true final one (game 21000 turn 59: read three
levels low and three studs near, the true arch 7th of 391 by its own evidence), no
proposal hangs from it."""

S = TypeVar("S", bound="Searcher")


def _decorations(x: int, y: int, z: int) -> tuple[Piece, Piece]:
    return (Piece(Kind.DECORATION, x, y, z, color=PLANT),
            Piece(Kind.DECORATION, x, y, z, color=DecorationColor.GOLD.value))


def finals(readings: Iterable[Sequence[Piece]], alike: Sequence[Piece] = ()) -> list[Piece]:
    """The arches a proposal may end on: each arch of the readings and each of
    ``alike`` (:func:`look_alikes`), each arch one step up from one's end knob (the
    highest step is often the one read as something else), each read arch a level
    up (a final arch on a first step the palace hides is often read on the ground under
    its own cells, the step's pixels passing for other pieces'; no step up is hung from
    it, which would double the proposals for a rare case)."""
    seen: dict[tuple[object, ...], Piece] = {}
    read: list[Piece] = []
    for reading in readings:
        for piece in reading:
            if piece.kind is not Kind.ARCH:
                continue
            arch = Piece(Kind.ARCH, piece.x, piece.y, piece.z, axis=piece.axis)
            seen.setdefault((arch.x, arch.y, arch.z, arch.axis), arch)
            read.append(arch)
    for arch in alike:
        seen.setdefault((arch.x, arch.y, arch.z, arch.axis), arch)
    out = list(seen.values())
    for arch in list(out):
        for kx, ky in arch.knobs():
            for lift in (0, 1):
                for d in DIRECTIONS:
                    up = arch_from(kx, ky, arch.top + lift, d)
                    if up is None or set(up.footprint()) == set(arch.footprint()):
                        continue
                    key = (up.x, up.y, up.z, up.axis)
                    if key not in seen:
                        seen[key] = up
                        out.append(up)
    for arch in read:
        key = (arch.x, arch.y, arch.z + 1, arch.axis)
        if key not in seen:
            seen[key] = arch.moved(z=arch.z + 1)
            out.append(seen[key])
    return out


def proposals(palace: Palace, readings: Iterable[Sequence[Piece]], alike: Sequence[Piece] = (),
              order: Callable[[list[Piece]], list[Piece]] | None = None,
              shown: Sequence[Piece] = ()) -> Iterator[tuple[list[Piece], LegWays]]:
    """Whole staircases ending on the readings' arches or one step above them, as their
    tops (the far leg's stack, the final arch and its decoration, in both colours'
    outlines) with the ways to hold the final arch's start leg up to the ground; each
    piece physically plausible on the palace before the turn (whether they all stand
    together is asked of the winner). ``order`` puts the final arches in the order their
    proposals are made, up to :data:`MAX_PROPOSALS`; the arches ``shown`` best
    (:data:`SHOWN_ARCHES`) end proposals too, after all the others (no step up is hung
    from them)."""
    made = 0
    known = SearchMemo(palace)
    tops = finals(readings, alike)
    # The arches shown best come after all the others, so that where the others reach
    # the cap they make the same proposals as without them.
    listed = {(a.x, a.y, a.z, a.axis) for a in tops}
    more = [Piece(Kind.ARCH, a.x, a.y, a.z, axis=a.axis) for a in shown
            if (a.x, a.y, a.z, a.axis) not in listed]
    if order is not None:
        tops, more = order(tops), order(more)
    for final in [*tops, *more]:
        if not span_free(palace, final):
            continue
        knobs, legs = final.knobs(), final.legs()
        for end in range(2):
            (ex, ey), (fx, fy), (sx, sy) = knobs[end], legs[end], legs[1 - end]
            fars = far_ways(palace, fx, fy, final.z)
            if not fars:
                continue
            starts = start_ways(palace, sx, sy, final.z, STEPS_DOWN, known)
            if not starts:
                continue
            for far in fars:
                for deco in _decorations(ex, ey, final.top):
                    yield [*far, final, deco], starts
                    made += len(starts)
            if made >= MAX_PROPOSALS:
                return


class Judge(Protocol):
    """What the search needs of the decoder: the palace before, the scorer, its judge."""

    before: Palace
    scorer: Scorer

    def judged(self, pieces: Sequence[Piece], floor: float = ...) -> float: ...


class Searcher(Judge, Protocol):
    """What weighing proposals needs of the decoder besides a judge: its readings, its
    moves (for the arches shown best), a fresh decoder on the same evidence, and its one
    way to change a reading."""

    readings: list[tuple[float, tuple[Piece, ...]]]
    added: list[Piece]
    moves: Moves

    def fork(self) -> Searcher: ...

    def take(self, pieces: Sequence[Piece]) -> bool: ...


def weigh_staircases(decoder: S, best: tuple[float, S], bonus: float, tolerance: float
                     ) -> tuple[float, S]:
    """The best reading so far (its score and decoder), or the best proposal instead
    where that judges better (taken, then edited by :func:`vision.refine.refine`); the
    proposals that beat the readings join them, the winner and ``RIVALS`` runners-up."""
    found = best_staircases(decoder, [r for _, r in decoder.readings], best[0], bonus,
                            tolerance, decoder.moves.shown_arches(SHOWN_ARCHES))
    trial = decoder.fork()
    if not found or not trial.take(found[0][1]):
        return best
    score = refine(trial, found[0][0])
    decoder.readings.append((score, tuple(trial.added)))
    decoder.readings += [(s, tuple(p)) for s, p in found[1:RIVALS + 1]]
    return score, trial


def best_staircases(judge: Judge, readings: Iterable[Sequence[Piece]], floor: float,
                    bonus: float, tolerance: float, shown: Sequence[Piece] = ()
                    ) -> list[tuple[float, list[Piece]]]:
    """The proposals that judge better than ``floor`` and stand, best first: the first
    is the best of all, those after it the ones it beat, each best when it was found
    (rivals whose closeness says which pieces the evidence did not decide). A proposal
    whose decoration's pixels deny it (their mean evidence below -``tolerance``, as
    :func:`vision.rulings.crown` asks) is not made. A proposal is bounded by its
    top's own score, its lower pieces' positive evidence and ``bonus``; proposals are
    scored from the highest bound down until no bound left can beat the best, each
    first against a closer bound (:class:`vision.stair_bounds.CloserBound`), which rules
    out only what its score would. ``shown``: more final arches (:func:`finals`)."""
    scorer = judge.scorer
    readings = [list(r) for r in readings]
    alike = look_alikes(scorer, readings)
    # The weights' parts, split once: the same numbers, piece by piece, as splitting
    # each piece's own.
    signs = [(np.maximum(ev.weight, 0), np.minimum(ev.weight, 0)) for ev in scorer.evidence]
    by_key: dict[PieceKey, tuple[float, float]] = {}
    """Each piece's positive and negative evidence (:func:`_signed`), by its key."""
    found = list(proposals(judge.before, readings, alike,
                           _shown_first(scorer, signs, by_key), shown))
    if not found:
        return []
    lists = {id(starts): starts for _, starts in found}
    distinct: dict[int, Piece] = {}
    seen: set[int] = set()
    for starts in lists.values():
        starts.pieces(distinct, seen)
    distinct.update((id(p), p) for top, _ in found for p in top)
    scorer.prepare(list(distinct.values()))
    signed = {key: _signed_kept(scorer, scorer.candidate(p), signs, by_key)
              for key, p in distinct.items()}
    # Each way up to the ground, with the most its pieces can add, best first.
    ranked: dict[int, tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]] = {}
    for key, starts in lists.items():
        gains, worsts = (np.array(b) for b in starts.bounds(signed))
        order = np.argsort(-gains, kind="stable")
        ranked[key] = (order, gains[order], worsts[order])
    heads: dict[tuple[int, PieceKey, ...], tuple[float, float, float, list[Piece]]] = {}
    for top, starts in found:
        if _denied(scorer, top, tolerance):
            continue
        # The decoration's two outlines (a plant's leaves or not): the better one only.
        head = scorer.whole(top) + bonus
        key = (id(starts), *(piece_key(p) for p in top[:-1]))
        if key not in heads or head > heads[key][0]:
            heads[key] = (head, *pieces_bound(signed, top), top)
    # Per head, its ways from the highest bound down to the first that cannot beat the
    # floor; then all, from the highest bound down (a head's in the order above first).
    bounds: list[NDArray[np.float64]] = []
    picks: list[tuple[int, NDArray[np.intp], float, list[Piece]]] = []
    for (starts_id, *_), (head, top_gain, top_loss, top) in heads.items():
        order, gains, worsts = ranked[starts_id]
        reach = head + gains
        n = int(np.count_nonzero(reach > floor))
        # The whole set's pixels hold each piece's, so its evidence is at most the
        # pieces' positive evidence and the most negative piece's negative.
        bound = np.minimum(reach[:n], bonus + top_gain + gains[:n]
                           + np.minimum(top_loss, worsts[:n]))
        kept = np.flatnonzero(bound > floor)
        bounds.append(bound[kept])
        picks += [(starts_id, order[kept], head, top)]
    if not bounds:
        return []
    every = np.concatenate(bounds)
    which = np.repeat(np.arange(len(picks)), [len(b) for b in bounds])
    at = np.concatenate([np.arange(len(b)) for b in bounds])
    best: list[tuple[float, list[Piece]]] = []
    beyond = CloserBound(scorer, signs, signed)
    for k in np.argsort(-every, kind="stable").tolist():
        if every[k] <= floor:
            break
        starts_id, ways, head, top = picks[which[k]]
        starts, i = lists[starts_id], int(ways[at[k]])
        if beyond.bound(top, starts, i, head) <= floor:
            continue
        way = starts.way(i)
        prop = [*way, *top]
        if scorer.whole(prop) + bonus <= floor:
            continue
        judged = judge.judged(prop, floor)
        if judged > floor and built_on(judge.before, prop) is not None:
            floor = judged
            best.insert(0, (judged, prop))
    return best


def look_alikes(scorer: Scorer, readings: Iterable[Sequence[Piece]]) -> list[Piece]:
    """Arches a level above or below a read arch, up to two studs along, whose outline
    is mostly the read arch's (:data:`ALIKE_SHARE` of the two outlines' union): the
    final arch a greedy reading put a level low and a stud near (on the ground, where
    the true one stands on a first step the palace hides) is then still a final arch
    of the proposals, and the staircase under it is weighed whole."""
    read: dict[PieceKey, Piece] = {}
    for reading in readings:
        for p in reading:
            if p.kind is Kind.ARCH:
                read.setdefault(piece_key(p), Piece(Kind.ARCH, p.x, p.y, p.z, axis=p.axis))
    near: dict[PieceKey, tuple[Piece, list[Piece]]] = {}
    for arch in read.values():
        for dz in (-1, 1):
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    p = Piece(Kind.ARCH, arch.x + dx, arch.y + dy, arch.z + dz, axis=arch.axis)
                    if not p.on_plate():
                        continue
                    if piece_key(p) not in read:
                        near.setdefault(piece_key(p), (p, []))[1].append(arch)
    if not near:
        return []
    scorer.prepare([p for p, _ in near.values()] + list(read.values()))
    mark = np.zeros(max((len(ev.weight) for ev in scorer.evidence), default=0), bool)
    return [p for p, arches in near.values() if any(_alike(scorer, p, a, mark) for a in arches)]


def _alike(scorer: Scorer, one: Piece, other: Piece, mark: NDArray[np.bool_]) -> bool:
    """Whether both pieces cover :data:`ALIKE_SHARE` of their outlines' union. A piece's
    pixels are distinct: the shared ones are counted on ``mark`` (all False, and left
    so), which ``np.intersect1d`` would count by sorting both."""
    a, b = scorer.candidate(one), scorer.candidate(other)
    inter = 0
    for x, y in zip(a.pixels, b.pixels, strict=True):
        mark[y] = True
        inter += int(np.count_nonzero(mark[x]))
        mark[y] = False
    union = sum(len(x) + len(y) for x, y in zip(a.pixels, b.pixels, strict=True)) - inter
    return union > 0 and inter >= ALIKE_SHARE * union


def _denied(scorer: Scorer, top: Sequence[Piece], tolerance: float) -> bool:
    """Whether the decoration ending ``top`` is denied by its pixels that the rest of
    ``top`` does not cover, off its rim (:func:`vision.rulings.off_rim`; as
    :func:`vision.rulings.crown` asks): a legal
    staircase's bonus would otherwise put one on where the picture shows nothing new."""
    cand = scorer.candidate(top[-1])
    others = [scorer.candidate(p) for p in top[:-1]]
    size, evidence = 0, 0.0
    for i, ev in enumerate(scorer.evidence):
        px = cand.pixels[i]
        if others:
            px = scorer.outside(px, [c.pixels[i] for c in others])
        px = off_rim(cand.pixels[i], px, ev.view.shape[1])
        size += len(px)
        evidence += float(ev.weight[px].sum())
    return size > 0 and evidence < -tolerance * size


def _shown_first(scorer: Scorer, signs: Signs, by_key: dict[PieceKey, tuple[float, float]]
                 ) -> Callable[[list[Piece]], list[Piece]]:
    """Final arches in the order of their own evidence less their price, best first
    (ties as listed): where the readings' arches and their look-alikes make more
    proposals than :data:`MAX_PROPOSALS`, those under the arches the picture shows best
    are made (game 21000 turn 86: 74 final arches, the true one 27th, and the cap
    reached before it). The arches' evidence is kept in ``by_key`` for the proposals'
    bounds."""
    def order(arches: list[Piece]) -> list[Piece]:
        scorer.prepare(arches)
        shown = [sum(_signed_kept(scorer, scorer.candidate(a), signs, by_key))
                 for a in arches]
        ranked = sorted(range(len(arches)), key=lambda k: -shown[k])
        return [arches[k] for k in ranked]
    return order


def _signed_kept(scorer: Scorer, cand: Candidate, signs: Signs,
                 by_key: dict[PieceKey, tuple[float, float]]) -> tuple[float, float]:
    """:func:`_signed`, worked out once a piece key and kept in ``by_key``."""
    hit = by_key.get(cand.key)
    if hit is None:
        hit = by_key[cand.key] = _signed(scorer, cand, signs)
    return hit


def _signed(scorer: Scorer, cand: Candidate, signs: Signs) -> tuple[float, float]:
    """A piece's positive evidence (pixels and leaves) less its price, and its pixels'
    negative evidence; ``signs``: each view's weights' positive and negative parts."""
    gain, loss = -cand.price, 0.0
    for i, ev in enumerate(scorer.evidence):
        px, leaves = cand.pixels[i], cand.leaves[i]
        positive, negative = signs[i]
        # No leaves add nothing (0.0, which leaves the sum as it is).
        gain += (float(array_sum(positive[px], None))
                 + (float(array_sum(np.maximum(ev.leaf[leaves], 0), None)) if len(leaves) else 0.0))
        loss += float(array_sum(negative[px], None))
    return gain, loss
