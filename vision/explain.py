"""Which read pieces the pictures need: the palace's silhouettes explained by the fewest.

Carving keeps every voxel that no view sees through, and a dense palace encloses such
space: a courtyard between walls, the ground behind a tall stack from every side. The
parse (:mod:`vision.parse`) stands pieces there, since nothing the carving says speaks
against them. What does speak against them is that they add nothing to any picture:
every pixel they would cover, the true pieces around them cover already. So the pieces
are weighed by the changed pixels that they alone cover, in all views (the union of the
pieces' silhouettes is what each view must show), and the piece that pays least is
taken away while it pays less than its price and nothing stands on it, one at a time,
since each removal leaves its pixels to its neighbours. Decorations stay: a plant's
pixels are green, which the weights leave out, and the parse read them from their own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from rules.pieces import Kind, Piece
from vision.carve import ViewData, pixel_pay
from vision.voxels import piece_voxels

PIECE_PRICE = 60.0
"""What a piece must explain on its own (changed pixels' change beyond
:data:`vision.carve.PAY_LEVEL`, summed over views) to stay: about a third of what a
brick in full view shows in one view. On the development palaces 6 / 30 / 60 / 100
read F1 0.479 / 0.479 / 0.489 / 0.499 (with the parse's other settings as now); the
gain is all in the largest palace's precision."""


def explained(views: Sequence[ViewData], pieces: Sequence[Piece]) -> list[Piece]:
    """``pieces`` less those whose own pixels pay less than :data:`PIECE_PRICE`."""
    boxes = [piece_voxels(p) for p in pieces]
    for vd in views:  # every voxel drawn in one batch a view, not one call each
        vd.view.prepare(b for bs in boxes for b in bs)
    per_view = [vd.view.pieces_pixels(boxes) for vd in views]
    pixels: list[list[NDArray[np.intp]]] = [[got[k] for got in per_view]
                                            for k in range(len(pieces))]
    counts = [np.zeros(vd.view.shape[0] * vd.view.shape[1], np.int32) for vd in views]
    weights = [pixel_pay(vd).ravel() for vd in views]
    for per in pixels:
        for v, px in enumerate(per):
            counts[v][px] += 1
    alive = [True] * len(pieces)
    cells = {v: k for k, p in enumerate(pieces) for v in p.voxels()}

    def burdened(k: int) -> bool:
        return any(cells.get((x, y, pieces[k].top)) is not None
                   and alive[cells[(x, y, pieces[k].top)]] for x, y in pieces[k].knobs())

    def gain(k: int) -> float:
        total = 0.0
        for v, px in enumerate(pixels[k]):
            alone = px[counts[v][px] == 1]
            total += float(weights[v][alone].sum())
        return total

    while True:
        free = [k for k in range(len(pieces)) if alive[k] and not burdened(k)
                and pieces[k].kind is not Kind.DECORATION]
        if not free:
            break
        gains = [gain(k) for k in free]
        worst = int(np.argmin(gains))
        if gains[worst] >= PIECE_PRICE:
            break
        k = free[worst]
        alive[k] = False
        for v, px in enumerate(pixels[k]):
            counts[v][px] -= 1
    return [p for p, a in zip(pieces, alive, strict=True) if a]
