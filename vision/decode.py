"""Decoding a turn: the physically possible set of new pieces that best explains the change.

The score of a set of new pieces is the change evidence summed over the pixels where the
set would show in front of the palace before the turn (evidence is centred, so pixels
that did not change count against it), less a small price per piece. The decoder grows
the set the way a player builds: each round it tries every piece that could stand now
(on an open knob of the ground or of the palace so far) on a cell that changed, an arch
also with the stack of bricks and columns its unsupported leg needs, and keeps the move
that gains most. Pieces that stop paying for themselves are dropped at the end. Every
set it can return passes :meth:`rules.Palace.place`, so the reading is always a palace
that can stand.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import project
from rules.moves import support_base
from rules.palace import Palace, PalaceError
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM, Axis, DecorationColor, Kind, Piece
from rules.staircase import analyse_added
from vision.silhouettes import View

PIECE_PRICE = 0.06
"""Share of what it would show (in evidence units) a piece must explain to be worth
reading."""
PIECE_FLOOR = 2.0
"""What every piece costs besides: it keeps hidden stacks out unless a visible piece
needs them, and breaks the tie between a column and three bricks of the same outline in
favour of fewer pieces."""
LEAF_GAIN = 0.5
"""What a changed pixel within a plant's leaves earns (leaves cover part of their disc,
so an unchanged pixel there costs nothing)."""
PLANT = "light_green"
"""The colour a plant decoration is decoded with; which green it is is read afterwards."""
HOT_LEVEL = 0.5
COST_LEVEL = 0.75
"""Evidence a pixel must show to pay for a piece covering it: a piece over unchanged
pixels costs three times what a changed one earns, because one view cannot tell a
nearer, lower piece from a farther, higher one by how much it covers alone."""
COST_OVER_OLD = 0.2
"""The same where the frame before showed a piece of the palace: a new piece in front of
an old one of its colour changes nothing, so an unchanged pixel there says little."""
UNIFORM_WITHIN = 35.0
"""Colour units (:func:`colour_features`) within which a column's three levels count as
one piece's colour. Each level is read by the median of its sides' inner pixels
(:meth:`~vision.silhouettes.View.side_pixels`): the lit top face and the outline's
pixels tinted by the board are left out. On the development turns (games 7000 on) that
put columns' spreads at 5-43 (one at 104, hidden behind this turn's other pieces) and
three-brick stacks' at 59-134; the whole voxel's mean had put both at 10-58."""
MIXED_RAMP = 20.0
MIXED_PRICE = 0.15
"""What each of a column's pixels costs when its levels differ in colour by
``UNIFORM_WITHIN`` + ``MIXED_RAMP`` or more: three bricks of the box's four colours
rarely match, a column is one colour, and the two have the same outline."""
MAX_STACK = 4
"""Most pieces in one stack under an arch's leg the decoder tries (columns counted
once)."""
STARTS = 3
"""First moves the decoder grows a reading from (:meth:`Decoder.run`)."""
MAX_ROUNDS = 40
SUPPORT_DEPTH = 1
"""Steps of a staircase the decoder may put under an arch it sees in one move."""
RESUPPORT_DEPTH = 2
"""Steps of a staircase :meth:`Decoder.resupport` tries under a finished reading's
arches."""
HEADROOM = 6
"""Levels above the palace's top that a new piece may reach in one turn."""
LEGAL_BONUS = 100.0
"""What a reading earns for being a legal staircase, in evidence units (a 1x1 brick
in full view shows 100 to 200). Players build legal staircases; where one view leaves a
step's lower half hidden, the reading that reaches the ground by the rules should beat
one that props the visible arch on a lone brick, and a whole piece's clear evidence
should still beat it. On the development turns (games 6000-6001) 15, 30, 60, 100 and
300 read 17, 18, 18, 19 and 19 of 30 turns exactly."""
CROWN_TOLERANCE = 0.3
"""How far below zero the mean evidence of a decoration's visible pixels may fall and
the rules' decoration still be put on: every staircase ends with one, and it stands on
the last arch's end knob, often behind that very arch."""


@dataclass
class Evidence:
    """One view and its centred change evidence (flat, region pixels), with the colour of
    each pixel after the turn (:func:`colour_features`)."""

    view: View
    weight: NDArray[np.float32]
    hot: NDArray[np.bool_]
    leaf: NDArray[np.float32]
    colour: NDArray[np.float32] | None = None


def colour_features(region: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per pixel (flat): chromaticity (r, g shares x 300) and log brightness (x 100), the
    units in which one LEGO colour differs from another by tens and a piece's own shading
    from face to face by less."""
    flat = region.reshape(-1, 3).astype(np.float32)
    total = flat.sum(axis=1) + 6.0
    out = np.empty((len(flat), 3), np.float32)
    out[:, 0] = flat[:, 2] / total * 300.0
    out[:, 1] = flat[:, 1] / total * 300.0
    out[:, 2] = np.log(total) * 100.0
    return out


def hot_cells(evidence: Sequence[Evidence], top: int) -> set[tuple[int, int, int]]:
    """Voxels whose centre falls on changed pixels in some view: where new pieces may be."""
    levels = np.arange(top + HEADROOM)
    xs, ys, ls = np.meshgrid(np.arange(BOARD_STUDS), np.arange(BOARD_STUDS), levels,
                             indexing="ij")
    pts = np.stack([(xs.ravel() + 0.5) * STUD_MM, (ys.ravel() + 0.5) * STUD_MM,
                    (ls.ravel() + 0.5) * BRICK_MM], axis=1)
    found: set[tuple[int, int, int]] = set()
    for ev in evidence:
        h, w = ev.view.shape
        px = np.round(ev.view.to_region(project(ev.view.camera, ev.view.pose, pts))).astype(int)
        ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        hit = np.zeros(len(pts), bool)
        hit[ok] = ev.hot.reshape(h, w)[px[ok, 1], px[ok, 0]]
        picked = [(int(xs.ravel()[i]), int(ys.ravel()[i]), int(ls.ravel()[i]))
                  for i in np.nonzero(hit)[0]]
        ev.view.prepare((x, y, z, 0) for x, y, z in picked)
        for x, y, z in picked:
            # Most of what the voxel would show must have changed, not just its centre.
            idx = ev.view.visible((x, y, z, 0))[0]
            if len(idx) >= 3 and ev.hot[idx].mean() >= 0.5:
                found.add((x, y, z))
    return found


def _shapes(x: int, y: int, z: int) -> Iterator[Piece]:
    """Every building piece with a voxel at (x, y, z), and a plant decoration there (a
    round decoration has a brick's outline; the rules tell the two apart later)."""
    yield Piece(Kind.BRICK, x, y, z)
    yield Piece(Kind.DECORATION, x, y, z, color=PLANT)
    for base in range(z - 2, z + 1):
        if base >= 0:
            yield Piece(Kind.COLUMN, x, y, base)
    for i in range(4):
        if x - i >= 0 and x - i + 3 < BOARD_STUDS:
            yield Piece(Kind.ARCH, x - i, y, z, axis=Axis.X)
        if y - i >= 0 and y - i + 3 < BOARD_STUDS:
            yield Piece(Kind.ARCH, x, y - i, z, axis=Axis.Y)


def _stacks_under(palace: Palace, x: int, y: int, z: int) -> list[list[Piece]]:
    """Stacks (bottom-up) giving stud (x, y) a knob at level ``z``: the fewest pieces
    (columns first) and, where that has a column, the same height in bricks alone. A
    column and three bricks have one outline; the picture tells them apart by colour
    (:meth:`Decoder.colour_steps`), so both are offered."""
    base = support_base(palace, x, y, z)
    if base is None or base == z:
        return []
    columns, bricks = divmod(z - base, 3)
    out = []
    if columns + bricks <= MAX_STACK:
        out.append([Piece(Kind.COLUMN, x, y, base + 3 * i) for i in range(columns)]
                   + [Piece(Kind.BRICK, x, y, base + 3 * columns + i) for i in range(bricks)])
    if columns and z - base <= MAX_STACK:
        out.append([Piece(Kind.BRICK, x, y, level) for level in range(base, z)])
    return out


def _supports(palace: Palace, x: int, y: int, z: int, depth: int) -> list[list[Piece]]:
    """Ways to give stud (x, y) a knob at level ``z``, pieces bottom-up: nothing (an open
    knob), a stack of bricks and columns, or the staircase's previous step ending there,
    straight under it or lifted by a brick on its end knob; that step's own legs are
    held up the same ways, ``depth`` steps down at most. Hidden under a staircase, these
    are what a player builds and a camera cannot see."""
    if palace.is_open_knob(x, y, z):
        return [[]]
    ways: list[list[Piece]] = _stacks_under(palace, x, y, z)
    if depth <= 0 or z < 1:
        return ways
    for lift in (0, 1):
        level = z - 1 - lift
        if level < 0:
            continue
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            sx, sy = x - 3 * dx, y - 3 * dy
            if not (min(sx, x) >= 0 and max(sx, x) < BOARD_STUDS and min(sy, y) >= 0
                    and max(sy, y) < BOARD_STUDS):
                continue
            axis = Axis.X if dx else Axis.Y
            lower = Piece(Kind.ARCH, min(sx, x), min(sy, y), level, axis=axis)
            if any(palace.occupant(cx, cy, level) for cx, cy in lower.footprint()):
                continue
            top = [Piece(Kind.BRICK, x, y, level + 1)] if lift else []
            if level == 0:
                if not palace.check(lower):
                    ways.append([lower, *top])
                continue
            first = _supports(palace, sx, sy, level, depth - 1)
            second = _supports(palace, x, y, level, depth - 1)
            for a in first[:3]:
                for b in second[:3]:
                    ways.append([*a, *b, lower, *top])
    return ways


def with_support(palace: Palace, piece: Piece) -> list[tuple[Piece, ...]]:
    """Ways to stand ``piece``: alone, or (an arch) with what its unsupported legs need.
    Only the piece alone is checked here; a move with supports may still fail to stand
    (:func:`stands`), which costs far more to find out than scoring it, so the decoder
    checks only the moves that would win."""
    if not palace.check(piece):
        return [(piece,)]
    if piece.kind is not Kind.ARCH or piece.z == 0:
        return []
    options = [_supports(palace, x, y, piece.z, SUPPORT_DEPTH) for x, y in piece.legs()]
    if not all(options):
        return []
    # Nothing under either leg leaves the piece alone, which the rules just refused.
    return [(*first, *second, piece) for first in options[0] for second in options[1]
            if first or second]


def stands(palace: Palace, move: Sequence[Piece]) -> bool:
    """Whether the pieces can all be placed, in order, on ``palace`` (left as it was)."""
    placed: list[str] = []
    try:
        for p in move:
            placed.append(palace.place(p).id)
    except PalaceError:
        return False
    finally:
        for pid in reversed(placed):
            palace.remove(pid)
    return True


def built_on(before: Palace, pieces: Sequence[Piece]) -> tuple[Palace, list[Piece]] | None:
    """A copy of ``before`` with ``pieces`` placed bottom-up (fresh ids), and the pieces as
    placed; None when they cannot all stand."""
    state = before.copy()
    placed: list[Piece] = []
    try:
        for p in sorted(pieces, key=lambda q: q.z):
            placed.append(state.place(p.moved(id="")))
    except PalaceError:
        return None
    return state, placed


def staircase_end(pieces: Sequence[Piece]) -> Piece | None:
    """The piece that can be the staircase's decoration: a 1x1 piece on an arch's end
    knob of the turn with nothing on it, a decoration first, then the highest. A
    decoration and a 1x1 brick have one outline; the rules tell which is which."""
    tops = {(x, y, p.top) for p in pieces if p.kind is Kind.ARCH for x, y in p.knobs()}
    covered = {(x, y, p.z) for p in pieces for x, y in p.legs()}
    ends = [p for p in pieces if p.kind in (Kind.BRICK, Kind.DECORATION)
            and (p.x, p.y, p.z) in tops and (p.x, p.y, p.top) not in covered]
    return max(ends, key=lambda p: (p.kind is Kind.DECORATION, p.z), default=None)


def is_legal_turn(before: Palace, pieces: Sequence[Piece]) -> bool:
    """Whether ``pieces`` make a legal staircase on ``before``, its end piece taken as
    the decoration (whose colour the rules then name)."""
    end = staircase_end(pieces)
    if end is None:
        return False
    probe = end.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    report = analyse_added(before, [probe if p is end else p for p in pieces])
    if report.legal or report.start_color in (None, probe.color):
        return report.legal
    probe = end.moved(kind=Kind.DECORATION, color=report.start_color)
    return analyse_added(before, [probe if p is end else p for p in pieces]).legal


_FACES = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def _key(piece: Piece) -> tuple[object, ...]:
    return (piece.kind, piece.x, piece.y, piece.z, piece.axis, piece.color == "gold")


class Decoder:
    """The greedy search over physically possible additions, with its running score."""

    def __init__(self, before: Palace, evidence: Sequence[Evidence]) -> None:
        self.before = before
        self.evidence = list(evidence)
        self.state = before.copy()
        self.added: list[Piece] = []
        self.masks = [np.zeros(ev.weight.shape, bool) for ev in self.evidence]
        self._pixels: dict[tuple[object, ...], list[NDArray[np.intp]]] = {}
        self._prices: dict[tuple[object, ...], float] = {}
        size = max(len(ev.weight) for ev in self.evidence) if self.evidence else 0
        self._stamp = np.zeros(size, np.int64)
        self.readings: list[tuple[float, tuple[Piece, ...]]] = []
        """Every reading :meth:`run` grew, with its judged score: how close the runners-up
        came says which pieces the evidence did not decide."""
        self._fresh: dict[tuple[object, ...], float] = {}
        """Each piece's gain alone against the masks as they are (cleared when they
        change): a round asks it of the same piece once as a move and again in every
        move that holds it up."""

    def pixels(self, piece: Piece) -> list[NDArray[np.intp]]:
        key = _key(piece)
        hit = self._pixels.get(key)
        if hit is None:
            hit = [ev.view.piece_pixels(piece) for ev in self.evidence]
            self._pixels[key] = hit
        return hit

    def _distinct(self, idx: NDArray[np.intp]) -> NDArray[np.intp]:
        """Each index once, in linear time (the last write of each index wins)."""
        order = np.arange(len(idx))
        self._stamp[idx] = order
        return idx[self._stamp[idx] == order]

    def leaves(self, piece: Piece) -> list[NDArray[np.intp]]:
        if piece.kind is not Kind.DECORATION or piece.color == "gold":
            return [np.zeros(0, np.intp) for _ in self.evidence]
        return [ev.view.leaf_pixels(piece) for ev in self.evidence]

    def price(self, piece: Piece) -> float:
        key = _key(piece)
        hit = self._prices.get(key)
        if hit is None:
            size = sum(len(px) for px in self.pixels(piece))
            hit = PIECE_PRICE * size + PIECE_FLOOR
            if piece.kind is Kind.COLUMN:
                hit += MIXED_PRICE * size * self.colour_steps(piece)
            self._prices[key] = hit
        return hit

    def colour_steps(self, piece: Piece) -> float:
        """0..1: how surely a column's three levels show different colours (so it is a
        stack of bricks), from the view that sees most of them."""
        best = 0.0
        for ev in self.evidence:
            if ev.colour is None:
                continue
            means = []
            for level in range(piece.z, piece.top):
                idx = ev.view.side_pixels((piece.x, piece.y, level, 0))
                if len(idx) < 6:
                    break
                means.append(np.median(ev.colour[idx], axis=0))
            if len(means) < 2:
                continue
            spread = max(float(np.linalg.norm(a - b)) for i, a in enumerate(means)
                         for b in means[i + 1:])
            best = max(best, min(max((spread - UNIFORM_WITHIN) / MIXED_RAMP, 0.0), 1.0))
        return best

    def gain(self, pieces: Sequence[Piece], masks: list[NDArray[np.bool_]] | None = None
             ) -> float:
        """Evidence the pieces would add to the pixels no new piece covers yet."""
        alone = masks is None and len(pieces) == 1
        if alone:
            hit = self._fresh.get(_key(pieces[0]))
            if hit is not None:
                return hit
        masks = self.masks if masks is None else masks
        total = 0.0
        for i, ev in enumerate(self.evidence):
            if len(pieces) == 1:
                idx = self.pixels(pieces[0])[i]
            else:
                idx = self._distinct(np.concatenate([self.pixels(p)[i] for p in pieces]))
            mask = masks[i]
            fresh = idx[~mask[idx]]
            total += float(ev.weight[fresh].sum())
            leaf = [self.leaves(p)[i] for p in pieces if p.kind is Kind.DECORATION]
            if leaf and len(leaf[0]):
                around = np.setdiff1d(np.concatenate(leaf), idx)
                total += float(ev.leaf[around[~mask[around]]].sum())
        total -= sum(self.price(p) for p in pieces)
        if alone:
            self._fresh[_key(pieces[0])] = total
        return total

    def view_area(self, piece: Piece) -> float:
        """The piece's whole outline in region pixels (nothing in front), over the views."""
        return float(sum(ev.view.piece_area(piece) for ev in self.evidence))

    def score_of(self, pieces: Sequence[Piece]) -> float:
        """The score of a whole set of new pieces, from nothing."""
        if not pieces:
            return 0.0
        return self.gain(pieces, [np.zeros_like(m) for m in self.masks])

    def moves(self, hot: set[tuple[int, int, int]]) -> Iterator[tuple[Piece, ...]]:
        """Every move on a changed voxel; after the first, only moves that join the pieces
        read so far (a turn builds one staircase, so a lone piece elsewhere is a shadow,
        a leaf or a hand, not part of it)."""
        seen: set[Piece] = set()
        ids = {p.id for p in self.added}
        halo = {(x + dx, y + dy, z + dz) for p in self.added for x, y, z in p.voxels()
                for dx, dy, dz in _FACES}
        joins: dict[tuple[object, ...], bool] = {}
        if self.added:
            xs = [c[0] for p in self.added for c in p.footprint()]
            ys = [c[1] for p in self.added for c in p.footprint()]
            reach = 4
            hot = {(x, y, z) for x, y, z in hot if min(xs) - reach <= x <= max(xs) + reach
                   and min(ys) - reach <= y <= max(ys) + reach}
        for x, y, z in sorted(hot):
            for shape in _shapes(x, y, z):
                if shape in seen:
                    continue
                seen.add(shape)
                # A piece none of whose own pixels pay for it is no start of a move.
                if self.gain([shape]) + self.price(shape) <= 0:
                    continue
                if shape.kind is Kind.DECORATION and not self._decoration_spot(shape, ids):
                    continue
                for move in with_support(self.state, shape):
                    if ids and not any(self._joins(p, halo, joins) for p in move):
                        continue
                    yield move

    def _decoration_spot(self, piece: Piece, ids: set[str]) -> bool:
        """A decoration goes on an end knob of an arch of this turn, once per turn."""
        if any(p.kind is Kind.DECORATION for p in self.added):
            return False
        owner = self.state.knob_owner(piece.x, piece.y, piece.z)
        return owner is not None and owner.kind is Kind.ARCH and owner.id in ids

    @staticmethod
    def _joins(piece: Piece, halo: set[tuple[int, int, int]],
               cache: dict[tuple[object, ...], bool]) -> bool:
        """Whether ``piece`` shares a face with a piece read so far (``halo``: the cells
        beside, under and over them), cached by shape for one round."""
        key = _key(piece)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = any(v in halo for v in piece.voxels())
        return hit

    def apply(self, move: Sequence[Piece]) -> None:
        self._fresh = {}
        for piece in move:
            placed = self.state.place(piece)
            self.added.append(placed)
            for i, px in enumerate(self.pixels(placed)):
                self.masks[i][px] = True
                self.masks[i][self.leaves(placed)[i]] = True

    def _upper(self, piece: Piece, bounds: dict[tuple[object, ...], float]) -> float:
        """The most ``piece`` can add this round (its fresh pixels that pay, and its
        leaves'), less its price: a move gains at most the sum of its pieces' bounds."""
        key = _key(piece)
        hit = bounds.get(key)
        if hit is None:
            hit = -self.price(piece)
            for i, ev in enumerate(self.evidence):
                idx = self.pixels(piece)[i]
                hit += float(np.maximum(ev.weight[idx[~self.masks[i][idx]]], 0).sum())
                leaf = self.leaves(piece)[i]
                hit += float(ev.leaf[leaf].sum())
            bounds[key] = hit
        return hit

    def _best_moves(self, hot: set[tuple[int, int, int]], n: int
                    ) -> list[tuple[float, tuple[Piece, ...]]]:
        """The ``n`` moves that gain most now (and stand), best first: every move is
        bounded by its pieces' bounds (:meth:`_upper`), and moves are scored from the
        highest bound down until no bound left can beat the ``n``-th best."""
        bounds: dict[tuple[object, ...], float] = {}
        ranked = []
        for move in self.moves(hot):
            bound = sum(self._upper(p, bounds) for p in move)
            if bound > 0:
                ranked.append((bound, move))
        ranked.sort(key=lambda t: -t[0])
        top: list[tuple[float, tuple[Piece, ...]]] = []
        for bound, move in ranked:
            floor = top[-1][0] if len(top) >= n else 0.0
            if bound <= floor:
                break
            g = self.gain(move)
            if g > floor and (len(move) == 1 or stands(self.state, move)):
                top.append((g, move))
                top.sort(key=lambda t: -t[0])
                del top[n:]
        return top

    def _fork(self) -> Decoder:
        """A decoder on the same evidence from nothing read, sharing the caches."""
        other = Decoder.__new__(Decoder)
        other.__dict__.update(self.__dict__)
        other.state = self.before.copy()
        other.added = []
        other.masks = [np.zeros_like(m) for m in self.masks]
        other._fresh = {}
        return other

    def run(self, hot: set[tuple[int, int, int]]) -> list[Piece]:
        """Grows a reading from each of the ``STARTS`` best first moves and keeps the
        one that scores best: the first move is where one view misleads most (a piece a
        level lower and nearer covers nearly what the true one does), and a greedy
        search never takes it back."""
        best: tuple[float, Decoder] | None = None
        self.readings = []
        for _, first in self._best_moves(hot, STARTS):
            trial = self._fork()
            trial.apply(first)
            trial.grow(hot)
            trial.crown()
            score = trial.resupport()
            self.readings.append((score, tuple(trial.added)))
            if best is None or score > best[0]:
                best = (score, trial)
        if best is not None:
            self.state, self.added, self.masks = best[1].state, best[1].added, best[1].masks
            self._fresh = {}
        return self.added

    def grow(self, hot: set[tuple[int, int, int]]) -> None:
        """Adds the move that gains most until none gains, then tidies the reading."""
        for _ in range(MAX_ROUNDS):
            moves = self._best_moves(hot, 1)
            if not moves:
                break
            self.apply(moves[0][1])
        self.prune()
        self.restack()

    def crown(self) -> None:
        """Puts the rules' decoration on the highest arch of the reading when none was
        read and its visible pixels do not speak against it: the decoration stands on
        the last arch's end knob, where that arch itself often hides it, and every
        staircase ends with one."""
        if staircase_end(self.added) is not None:
            return
        best: tuple[tuple[int, float], Piece] | None = None
        for arch in self.added:
            if arch.kind is not Kind.ARCH:
                continue
            for x, y in arch.knobs():
                if not self.state.is_open_knob(x, y, arch.top):
                    continue
                for colour in (PLANT, DecorationColor.GOLD.value):
                    piece = Piece(Kind.DECORATION, x, y, arch.top, color=colour)
                    if self.state.check(piece):
                        continue
                    fresh = sum(int((~self.masks[i][px]).sum())
                                for i, px in enumerate(self.pixels(piece)))
                    evidence = self.gain([piece]) + self.price(piece)
                    if fresh and evidence < -CROWN_TOLERANCE * fresh:
                        continue
                    rank = (arch.top, evidence)
                    if best is None or rank > best[0]:
                        best = (rank, piece)
        if best is not None:
            self.apply([best[1]])

    def judged(self, pieces: Sequence[Piece]) -> float:
        """A whole reading's score with the rules' word in it: the evidence, and
        ``LEGAL_BONUS`` if it is a legal staircase."""
        return self.score_of(pieces) + (LEGAL_BONUS if is_legal_turn(self.before, pieces)
                                        else 0.0)

    def resupport(self) -> float:
        """Tries, under each leg of each arch read (lowest first), every other way to
        hold it up (``RESUPPORT_DEPTH`` steps of staircase down), and keeps the reading
        that is judged best; returns its score. The greedy search props an arch whose
        lower steps it cannot see on the fewest pieces, a lone brick; the steps a player
        built there are mostly hidden behind it, and only the rules can ask for them."""
        current = list(self.added)
        best = self.judged(current)
        for arch in sorted((p for p in current if p.kind is Kind.ARCH), key=lambda p: p.z):
            if arch not in current:
                continue
            for x, y in arch.legs():
                under = [p for p in current if p is not arch and p.top <= arch.z
                         and (x, y) in p.footprint()]
                keep = [p for p in current if p not in under]
                below = built_on(self.before, [p for p in keep if p.top <= arch.z])
                if below is None:
                    continue
                for way in _supports(below[0], x, y, arch.z, RESUPPORT_DEPTH):
                    trial = keep + way
                    if sorted(map(_key, way)) == sorted(map(_key, under)):
                        continue
                    score = self.judged(trial)
                    if score > best and self._rebuild(trial):
                        best, current = score, list(self.added)
                        break
        return best

    def restack(self) -> None:
        """Swaps each column read for three bricks, and each run of three bricks for a
        column, where that scores better: the two have one outline, the moves above only
        ever build the fewer pieces, and only the colours of the levels tell them apart."""
        current = list(self.added)
        for piece in list(current):
            if piece.kind is Kind.COLUMN:
                swap = [Piece(Kind.BRICK, piece.x, piece.y, piece.z + i) for i in range(3)]
                olds = [piece]
            elif piece.kind is Kind.BRICK:
                run = [p for p in current if p.kind is Kind.BRICK and (p.x, p.y) == (
                    piece.x, piece.y) and piece.z <= p.z < piece.z + 3]
                if len(run) != 3:
                    continue
                swap, olds = [Piece(Kind.COLUMN, piece.x, piece.y, piece.z)], run
            else:
                continue
            if any(o not in current for o in olds):
                continue
            trial = [p for p in current if p not in olds] + swap
            if self.score_of(trial) > self.score_of(current) and self._rebuild(trial):
                current = list(self.added)

    def _rebuild(self, pieces: Sequence[Piece]) -> bool:
        """Makes ``pieces`` the reading (placed bottom-up on the palace before), if they
        stand; the reading is left as it was if not."""
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
        self._fresh = {}
        self.masks = [np.zeros_like(m) for m in self.masks]
        for piece in self.added:
            for i, px in enumerate(self.pixels(piece)):
                self.masks[i][px] = True
                self.masks[i][self.leaves(piece)[i]] = True
