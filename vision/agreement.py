"""How well a reading agrees with the frames: the reading rendered with occlusion in each
view and weighed, changed one move at a time (the measure :mod:`vision.pick` searches by).

Each pixel shows the nearest piece's face (the pieces' boxes painted far to near), and
the picture is weighed by

- its silhouette: every pixel it covers earns the change there less
  :data:`vision.carve.PAY_LEVEL` (the measure :mod:`vision.explain` uses), so covering
  unchanged board costs and leaving changed pixels bare forgoes their pay;
- its colours: every piece is one plastic, so the pixels where a piece's face is seen
  (and the frame shows a change there, off the plants and the edges) should share one
  colour; each piece pays :data:`COLOUR_WEIGHT` per unit of its seen pixels' squared
  spread about their mean in a shading-free colour space. A false arch over two true
  arches' ends shows both their colours;
- and :data:`PIECE_COST` a piece.

A move is weighed on the pixels it changes alone (within the boxes of the pieces it
takes and puts), each piece's colour sums kept per piece, so each move costs a few small
paintings rather than whole pictures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.palace import Palace
from rules.pieces import Kind, Piece
from vision.carve import PAY_LEVEL, ViewData, pixel_pay, unweighed
from vision.voxels import Box, piece_voxels

COLOUR_WEIGHT = 0.5
"""What a unit of squared colour spread (:func:`shading_free_colours`) costs against a pixel's
change beyond :data:`PAY_LEVEL`. Chosen with :data:`PIECE_COST` on the ten development
palaces and three more of 120 pieces (docs/vision-log.md, "Picked again by the
pictures": F1 0.566 and 0.337; 1 and 60 read 0.609 and 0.258)."""
EDGE_SHARE = 0.25
"""Share of each view's changed pixels, the strongest edges, whose colour says nothing
(a pixel on an outline mixes two pieces' colours, or a piece's and the board's)."""
PIECE_COST = 20.0
"""What each piece costs, against its pixels' pay, so that a move that adds a piece
must pay for it and one that takes a piece away gains it: a third of the price
:mod:`vision.explain` asks (:data:`vision.explain.PIECE_PRICE`), since the search's
removals also gain the colour spread a piece brings, and at the explained step's price
the large palaces lost more true pieces than false (docs/vision-log.md, "Picked
again by the pictures")."""

MOVE_PRICE = 2.0
"""Least gain (summed over views) for any change of the reading to be kept, a swap
(:mod:`vision.pick`) or a tower rebuilt (:mod:`vision.towers`): the search should not
wander over ties."""

Rect = tuple[int, int, int, int]
Near = dict[tuple[int, int, int], list[Piece]]
"""The carving's candidates by each voxel they fill: what a piece may be swapped for."""


def shading_free_colours(image: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per pixel, a colour with the shading taken out: the logs of red and blue over
    green (a face's light scales all three alike), and a third of the log brightness
    (the building colours tan and dark tan differ mostly in brightness). Not turn mode's
    :func:`vision.evidence.colour_features`, which keeps the shading: there a pixel is
    compared with the same pixel before, here a piece's faces under different light
    with each other."""
    bgr = np.log(image.astype(np.float32) + 8.0)
    out = np.empty_like(bgr)
    out[..., 0] = bgr[..., 2] - bgr[..., 1]
    out[..., 1] = bgr[..., 0] - bgr[..., 1]
    out[..., 2] = bgr.mean(axis=2) / 3.0
    return out


Scene = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64], list[NDArray[np.int32]]]
"""Boxes to paint: their pixel rectangles (n, 4), distances, owners' slots and outlines."""


@dataclass
class _Sheet:
    """One view as the search weighs it: per pixel the silhouette's pay and colour sums
    (``table``), and the reading's label (which piece each pixel shows)."""

    vd: ViewData
    label: NDArray[np.int32]
    scene: Scene | None
    boxes: dict[Box, tuple[NDArray[np.int32], float, Rect] | None]
    parts: dict[tuple[Box, ...], tuple[Scene, Rect | None]]
    """Each piece's boxes as a scene and the rectangle around them, keyed by the boxes
    themselves (:func:`vision.voxels.piece_voxels`): the search weighs the same
    candidates again and again."""
    table: NDArray[np.float64]
    """Per pixel (flat): the pay, then the colour sums it adds to the piece it shows
    (1, its three colour features, their squares' sum; all 0 where its colour does
    not count), made once so that a move's sums are a few weighted counts."""

    def shapes(self, boxes: Sequence[Box]) -> list[tuple[NDArray[np.int32], float, Rect] | None]:
        """Each box's outline (quarter pixels), distance and pixel rectangle, cached."""
        todo = [b for b in dict.fromkeys(boxes) if b not in self.boxes]
        if todo:
            view = self.vd.view
            hulls = view.hulls(todo)
            dists = view.distances(todo)
            h, w = view.shape
            for b, hull, d in zip(todo, hulls, dists, strict=True):
                if hull is None:
                    self.boxes[b] = None
                    continue
                x, y, bw, bh = cv2.boundingRect(hull)
                rect = (max(x >> 2, 0), max(y >> 2, 0), min(((x + bw) >> 2) + 2, w),
                        min(((y + bh) >> 2) + 2, h))
                self.boxes[b] = (hull, d, rect)
        return [self.boxes[b] for b in boxes]

    def part(self, piece: Piece) -> tuple[Scene, Rect | None]:
        """The piece's boxes that show, as a scene (:data:`Scene`, owner slots 0), and the
        rectangle around them (None when none shows), made once a piece."""
        boxes = piece_voxels(piece)
        got = self.parts.get(boxes)
        if got is None:
            shapes = [sh for sh in self.shapes(boxes) if sh is not None]
            scene = (np.array([sh[2] for sh in shapes], np.int64).reshape(-1, 4),
                     np.array([sh[1] for sh in shapes], np.float64),
                     np.zeros(len(shapes), np.int64), [sh[0] for sh in shapes])
            got = (scene, _union([sh[2] for sh in shapes]))
            self.parts[boxes] = got
        return got


def _sheet(vd: ViewData) -> _Sheet:
    """One view made ready: the pay per pixel (:func:`vision.carve.pixel_pay`, as
    :mod:`vision.explain` weighs them), and which pixels' colours count."""
    pay = pixel_pay(vd).astype(np.float32)
    gray = vd.image.mean(axis=2)
    edge = np.hypot(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    changed = (vd.change > PAY_LEVEL) & ~unweighed(vd)
    cut = np.quantile(edge[changed], 1 - EDGE_SHARE) if changed.any() else np.inf
    f = shading_free_colours(vd.image).reshape(-1, 3).astype(np.float64)
    table = np.zeros((len(f), 6))
    table[:, 0] = pay.ravel()
    ok = (changed & (edge < cut)).ravel()
    table[ok, 1] = 1.0
    table[ok, 2:5] = f[ok]
    table[ok, 5] = (f[ok] * f[ok]).sum(axis=1)
    return _Sheet(vd, np.full(vd.view.shape, -1, np.int32), None, {}, {}, table)


def _scene(sheet: _Sheet, pieces: dict[int, Piece]) -> Scene:
    """Every box of ``pieces`` that shows in the sheet's region, as arrays."""
    parts = [(slot, sheet.part(piece)[0]) for slot, piece in pieces.items()]
    if not parts:
        return (np.zeros((0, 4), np.int64), np.zeros(0, np.float64), np.zeros(0, np.int64), [])
    return (np.concatenate([p[0] for _, p in parts]), np.concatenate([p[1] for _, p in parts]),
            np.concatenate([np.full(len(p[1]), slot, np.int64) for slot, p in parts]),
            [hull for _, p in parts for hull in p[3]])


def _paint(sheet: _Sheet, scene: Scene, rect: Rect | None = None,
           out_slots: Sequence[int] = (), extra: Scene | None = None) -> NDArray[np.int32]:
    """The label picture (slot per pixel, -1 none) over ``rect`` (the whole region when
    None) of ``scene`` less the slots ``out_slots``, with ``extra``, painted far to
    near."""
    h, w = sheet.vd.view.shape
    x0, y0, x1, y1 = rect if rect is not None else (0, 0, w, h)
    out = np.full((y1 - y0, x1 - x0), -1, np.int32)
    shift = np.array([[x0 * 4, y0 * 4]], np.int32)
    parts = (scene, extra) if extra is not None else (scene,)
    rects = np.concatenate([part[0] for part in parts])
    if not len(rects):
        return out
    dists = np.concatenate([part[1] for part in parts])
    slots = np.concatenate([part[2] for part in parts])
    hulls = scene[3] + extra[3] if extra is not None else scene[3]
    hit = ((rects[:, 0] < x1) & (rects[:, 2] > x0) & (rects[:, 1] < y1) & (rects[:, 3] > y0))
    if len(out_slots) and len(scene[0]):
        gone = np.zeros(int(max(scene[2].max(), max(out_slots))) + 1, bool)
        gone[list(out_slots)] = True
        hit[:len(scene[0])] &= ~gone[scene[2]]
    keep = np.flatnonzero(hit)
    # Far to near; among equal distances in the order given (a stable sort).
    order = keep[np.argsort(-dists[keep], kind="stable")]
    for slot, k in zip(slots[order].tolist(), order.tolist(), strict=True):
        cv2.fillConvexPoly(out, hulls[k] - shift, slot, shift=2)
    return out


def _stats(sheet: _Sheet, lab: NDArray[np.int32], idx: NDArray[np.intp],
           sign: NDArray[np.float64] | float, size: int) -> tuple[float, NDArray[np.float64]]:
    """Over the region's pixels ``idx`` (flat), labelled ``lab`` and counted ``sign``
    (+1 or -1 each): the silhouette's pay and every slot's colour sums (count, three
    sums, sum of squares; ``size`` rows), at once for all slots."""
    covered = lab >= 0
    rows = sheet.table[idx[covered]]
    who = lab[covered]
    w = np.broadcast_to(np.asarray(sign, np.float64), lab.shape)[covered]
    sums = np.empty((size, 5))
    for k in range(5):
        sums[:, k] = np.bincount(who, w * rows[:, 1 + k], minlength=size)
    return float((rows[:, 0] * w).sum()), sums


def _spread(s: NDArray[np.float64]) -> NDArray[np.float64]:
    """Squared spread about the mean from colour sums (rows: count, sums, squares)."""
    n = np.maximum(s[..., 0], 1.0)
    return np.maximum(s[..., 4] - (s[..., 1:4] ** 2).sum(axis=-1) / n, 0.0)


class Search:
    """The reading, its pictures and its colour sums, changed one move at a time."""

    def __init__(self, views: Sequence[ViewData], palace: Palace, movable: Sequence[Piece]
                 ) -> None:
        self.sheets = [_sheet(vd) for vd in views]
        self.palace = palace
        self.slots: dict[int, Piece] = dict(enumerate(palace.pieces))
        self.movable = {p.id for p in movable}
        self.next = len(self.slots)
        self.size = 4 * self.next + 64
        self.colour = np.zeros((self.size, 5))
        for sheet in self.sheets:
            h, w = sheet.vd.view.shape
            sheet.scene = _scene(sheet, self.slots)
            sheet.label = _paint(sheet, sheet.scene)
            self.colour += _stats(sheet, sheet.label.ravel(), np.arange(h * w), 1.0,
                                  self.size)[1]

    def _grow(self, count: int) -> None:
        """Room in the colour sums for ``count`` more slots."""
        while self.next + count >= self.size:
            self.colour = np.vstack([self.colour, np.zeros((self.size, 5))])
            self.size *= 2

    def gain(self, out: Sequence[int], put: Sequence[Piece], commit: bool = False) -> float:
        """What taking the slots ``out`` away and putting ``put`` gains: the silhouettes'
        pay and less colour spread, over every view; made so when ``commit``."""
        self._grow(len(put))
        new = list(range(self.next, self.next + len(put)))
        added = dict(zip(new, put, strict=True))
        moved = [self.slots[s] for s in out] + list(put)
        delta_pay = 0.0
        delta = np.zeros((self.size, 5))
        paints = []
        for sheet in self.sheets:
            rect = _union([r for p in moved if (r := sheet.part(p)[1]) is not None])
            if rect is None:
                paints.append(None)
                continue
            x0, y0, x1, y1 = rect
            old = sheet.label[y0:y1, x0:x1]
            new_label = _paint(sheet, sheet.scene, rect, out, _scene(sheet, added))
            differ = old != new_label
            if differ.any():
                ys, xs = np.nonzero(differ)
                idx = (ys + y0) * sheet.label.shape[1] + (xs + x0)
                n = len(idx)
                sign = np.concatenate([np.full(n, -1.0), np.ones(n)])
                pay, sums = _stats(sheet, np.concatenate([old[differ], new_label[differ]]),
                                   np.concatenate([idx, idx]), sign, self.size)
                delta_pay += pay
                delta += sums
            paints.append((rect, new_label))
        touched = np.flatnonzero(np.abs(delta).sum(axis=1) > 0)
        before = _spread(self.colour[touched]).sum()
        later = _spread(self.colour[touched] + delta[touched]).sum()
        total = delta_pay - COLOUR_WEIGHT * (later - before) - PIECE_COST * (len(put) - len(out))
        if commit:
            for sheet, got in zip(self.sheets, paints, strict=True):
                if got is not None:
                    (x0, y0, x1, y1), lab = got
                    sheet.label[y0:y1, x0:x1] = lab
            self.colour += delta
            for s in sorted(out, key=lambda s: -self.slots[s].z):
                self.palace.remove(self.slots.pop(s).id)
            for s, p in zip(new, put, strict=True):
                placed = self.palace.place(p)
                self.slots[s] = placed
                self.movable.add(placed.id)
            self.next += len(put)
            for sheet in self.sheets:
                sheet.scene = _scene(sheet, self.slots)
        return float(total)

    def rebuilt(self, out: Sequence[int], put: Sequence[Piece]
                ) -> tuple[list[int], list[Piece]] | None:
        """The move taking ``out`` away and putting ``put``, with every piece resting on
        what goes (and on those, and so on) taken off and put back where it still stands;
        None when ``put`` cannot stand or a decoration would not be put back (a plant's
        pixels are not weighed, so dropping it would gain its price for nothing)."""
        slot_of = {p.id: s for s, p in self.slots.items()}
        gone = set(out)
        todo = [self.slots[s] for s in out]
        while todo:
            for above in self.palace.resting_on(todo.pop()):
                s = slot_of[above.id]
                if s not in gone:
                    gone.add(s)
                    todo.append(above)
        trial = self.palace.copy()
        for s in sorted(gone, key=lambda s: -self.slots[s].z):
            trial.remove(self.slots[s].id)
        for p in put:
            if not trial.fits(p):
                return None
            trial.place(p)
        back: list[Piece] = []
        for s in sorted(gone - set(out), key=lambda s: self.slots[s].z):
            p = self.slots[s].moved(id="")
            if trial.fits(p):
                trial.place(p)
                back.append(p)
            elif self.fixed(s):
                return None
        return sorted(gone), [*put, *back]

    def fixed(self, slot: int) -> bool:
        """Whether the search may not take ``slot`` away: a piece it was not given (the
        corner bricks), or a decoration (a plant's pixels are not weighed, so taking one
        would gain its price for nothing)."""
        piece = self.slots[slot]
        return piece.id not in self.movable or piece.kind is Kind.DECORATION

    def spread(self) -> dict[str, float]:
        """Each piece's colour spread (:func:`shading_free_colours`) a pixel where it is seen,
        by id: what the search weighs, shown for the tests."""
        return {p.id: float(_spread(self.colour[s]) / max(self.colour[s, 0], 1.0))
                for s, p in self.slots.items()}

    def pieces(self) -> list[Piece]:
        """The reading as it now stands, the corner bricks left out."""
        return [p for p in self.slots.values() if p.id in self.movable]


def _union(rects: Sequence[Rect]) -> Rect | None:
    """The rectangle around ``rects``, None for none."""
    if not rects:
        return None
    a = np.array(rects)
    return (int(a[:, 0].min()), int(a[:, 1].min()), int(a[:, 2].max()), int(a[:, 3].max()))
