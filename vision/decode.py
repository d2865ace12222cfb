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
from rules.moves import support_plan
from rules.palace import Palace, PalaceError
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM, Axis, Kind, Piece
from vision.silhouettes import View

PIECE_PRICE = 3.0
"""Evidence (pixel units) a piece must explain to be worth reading; it breaks the tie
between a column and three bricks of the same outline in favour of fewer pieces."""
HOT_LEVEL = 0.5
MAX_ROUNDS = 40
HEADROOM = 6
"""Levels above the palace's top that a new piece may reach in one turn."""


@dataclass
class Evidence:
    """One view and its centred change evidence (flat, region pixels)."""

    view: View
    weight: NDArray[np.float32]
    hot: NDArray[np.bool_]


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
        for i in np.nonzero(hit)[0]:
            found.add((int(xs.ravel()[i]), int(ys.ravel()[i]), int(ls.ravel()[i])))
    return found


def _shapes(x: int, y: int, z: int) -> Iterator[Piece]:
    """Every building piece with a voxel at (x, y, z)."""
    yield Piece(Kind.BRICK, x, y, z)
    for base in range(z - 2, z + 1):
        if base >= 0:
            yield Piece(Kind.COLUMN, x, y, base)
    for i in range(4):
        if 0 <= x - i and x - i + 3 < BOARD_STUDS:
            yield Piece(Kind.ARCH, x - i, y, z, axis=Axis.X)
        if 0 <= y - i and y - i + 3 < BOARD_STUDS:
            yield Piece(Kind.ARCH, x, y - i, z, axis=Axis.Y)


def with_support(palace: Palace, piece: Piece) -> tuple[Piece, ...] | None:
    """``piece`` with the stacks its unsupported legs need (columns first), or None."""
    if not palace.check(piece):
        return (piece,)
    if piece.kind is not Kind.ARCH or piece.z == 0:
        return None
    stacks: list[Piece] = []
    for x, y in piece.legs():
        if palace.is_open_knob(x, y, piece.z):
            continue
        plan = support_plan(palace, x, y, piece.z, 4, 2)
        if plan is None:
            return None
        level, columns, bricks = plan
        for kind, count, height in ((Kind.COLUMN, columns, 3), (Kind.BRICK, bricks, 1)):
            for _ in range(count):
                stacks.append(Piece(kind, x, y, level))
                level += height
    scratch = palace.copy()
    try:
        for p in (*stacks, piece):
            scratch.place(p)
    except PalaceError:
        return None
    return (*stacks, piece)


class Decoder:
    """The greedy search over physically possible additions, with its running score."""

    def __init__(self, before: Palace, evidence: Sequence[Evidence]) -> None:
        self.before = before
        self.evidence = list(evidence)
        self.state = before.copy()
        self.added: list[Piece] = []
        self.masks = [np.zeros(ev.weight.shape, bool) for ev in self.evidence]
        self._pixels: dict[Piece, list[NDArray[np.intp]]] = {}

    def pixels(self, piece: Piece) -> list[NDArray[np.intp]]:
        key = piece.moved(id="")
        hit = self._pixels.get(key)
        if hit is None:
            hit = [ev.view.piece_pixels(key) for ev in self.evidence]
            self._pixels[key] = hit
        return hit

    def gain(self, pieces: Sequence[Piece], masks: list[NDArray[np.bool_]] | None = None
             ) -> float:
        """Evidence the pieces would add to the pixels no new piece covers yet."""
        masks = self.masks if masks is None else masks
        total = 0.0
        for i, ev in enumerate(self.evidence):
            idx = np.unique(np.concatenate([self.pixels(p)[i] for p in pieces]))
            fresh = idx[~masks[i][idx]]
            total += float(ev.weight[fresh].sum())
        return total - PIECE_PRICE * len(pieces)

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
        for x, y, z in sorted(hot):
            for shape in _shapes(x, y, z):
                if shape in seen:
                    continue
                seen.add(shape)
                move = with_support(self.state, shape)
                if move is None:
                    continue
                if ids and not any(self._joins(p, ids) for p in move):
                    continue
                yield move

    def _joins(self, piece: Piece, ids: set[str]) -> bool:
        return any(t.id in ids for t in self.state.touching(piece))

    def apply(self, move: Sequence[Piece]) -> None:
        for piece in move:
            placed = self.state.place(piece)
            self.added.append(placed)
            for i, px in enumerate(self.pixels(placed)):
                self.masks[i][px] = True

    def run(self, hot: set[tuple[int, int, int]]) -> list[Piece]:
        for _ in range(MAX_ROUNDS):
            best: tuple[float, tuple[Piece, ...]] | None = None
            for move in self.moves(hot):
                g = self.gain(move)
                if g > 0 and (best is None or g > best[0]):
                    best = (g, move)
            if best is None:
                break
            self.apply(best[1])
        self.prune()
        return self.added

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
            for i, px in enumerate(self.pixels(piece)):
                self.masks[i][px] = True
