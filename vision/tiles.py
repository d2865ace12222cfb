"""Which kept answers a changed pixel spoils: the region cut in tiles of 8x8 pixels, and
each tile's holders.

The scorer (:mod:`vision.scoring`) keeps each piece's gain and bound until one of the
pixels they were read from is covered or uncovered. Looking that up pixel by pixel
would cost more than the answers save, so the region is cut in tiles: a piece's pixels
are its boxes' (a plant's also its leaves'), each box is listed once in the tiles its
pixels fall in, and the box keeps the list of pieces drawn with it. A covered pixel then
spoils the pieces listed under its tile's boxes: a few more than the pixel touches,
never fewer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from vision.silhouettes import LEAVES, View
from vision.voxels import Box

TILE_SHIFT = 3
"""Tiles of 8x8 region pixels."""

Holder = TypeVar("Holder")


def tile_map(shape: tuple[int, int]) -> NDArray[np.intp]:
    """Each region pixel's tile (pixels numbered row by row), looked up, not worked out,
    per piece."""
    h, w = shape
    rows = np.arange(h * w, dtype=np.intp) // w
    cols = np.arange(h * w, dtype=np.intp) - rows * w
    return (rows >> TILE_SHIFT) * ((w >> TILE_SHIFT) + 1) + (cols >> TILE_SHIFT)


class Tiles(Generic[Holder]):
    """Per view: each box's list of holders (the pieces drawn with it, or with a plant's
    leaves keyed like its leaf pixels), numbered, and which tiles each box's pixels fall
    in, as two arrays (box number, tile): a changed pixel's boxes are found with numpy,
    not a Python loop over every (box, tile) pair listed."""

    def __init__(self, views: Sequence[View]) -> None:
        self._views = list(views)
        self._tile_of = [tile_map(v.shape) for v in self._views]
        self._count = [int(t[-1]) + 1 if len(t) else 1 for t in self._tile_of]
        self._boxes: list[dict[Box, list[Holder]]] = [{} for _ in self._views]
        self._lists: list[list[list[Holder]]] = [[] for _ in self._views]
        """Each box's list of holders, by box number."""
        self._pairs: list[list[NDArray[np.intp]]] = [[] for _ in self._views]
        """(box number * tiles + tile) of every box and tile its pixels fall in, a chunk
        per :meth:`hold`, joined when next asked."""

    def by_box(self, view: int) -> dict[Box, list[Holder]]:
        """The view's lists of pieces by box, for the caller to add its pieces to (a
        box must have been :meth:`hold`-en first)."""
        return self._boxes[view]

    def hold(self, view: int, boxes: Sequence[Box]) -> None:
        """Starts the list of pieces drawn with each new box in a view, and lists it in
        the tiles of the box's pixels: the boxes' tiles are found together (a box's
        pixels are ascending, so its tiles come in runs; each run's first, then each
        box's tile once)."""
        by_box = self._boxes[view]
        new = [b for b in dict.fromkeys(boxes) if b not in by_box]
        if not new:
            return
        v = self._views[view]
        parts = [v.leaf_pixels_at(b) if b[3] == LEAVES else v.visible(b)[0] for b in new]
        lists = self._lists[view]
        first = len(lists)
        for b in new:
            lists.append(by_box.setdefault(b, []))
        tile_of = self._tile_of[view]
        count = self._count[view]
        tagged = (np.repeat(np.arange(first, first + len(new), dtype=np.intp) * count,
                            [len(p) for p in parts])
                  + tile_of[np.concatenate(parts)])
        if len(tagged) > 1:
            # np.unique's array, sorted and each value kept once, without its hashing.
            tagged = _run_heads(np.sort(_run_heads(tagged)))
        self._pairs[view].append(tagged)

    def spoiled(self, view: int, changed: NDArray[np.intp]) -> Iterator[list[Holder]]:
        """The lists of pieces drawn with a box in a tile of the ``changed`` pixels, each
        once."""
        pairs = self._pairs[view]
        if not pairs:
            return
        if len(pairs) > 1:
            pairs[:] = [np.concatenate(pairs)]
        count = self._count[view]
        hit = np.zeros(count, bool)
        hit[self._tile_of[view][changed]] = True
        tagged = pairs[0]
        # The pairs ascend (each chunk is sorted, and a later chunk's boxes are numbered
        # after an earlier one's), so each box's pairs are a run: its first is kept.
        owners = tagged[hit[tagged % count]] // count
        if len(owners) > 1:
            owners = _run_heads(owners)
        lists = self._lists[view]
        for o in owners.tolist():
            yield lists[o]


def _run_heads(values: NDArray[np.intp]) -> NDArray[np.intp]:
    """The first of each run of equal values (a sorted array's values, each once)."""
    return values[np.concatenate(([True], values[1:] != values[:-1]))]
