"""Where the starting staircase stands, found in one picture of the board at the set-up.

A map read by the camera (:func:`calibration.map_read.read_map`) names the card's colours
but not the pieces on it; a game needs its set-up staircase as well, or it reads that
staircase as the first turn. On the shipped stand-in maps it stands at one place; on a
real map its starting area may lie anywhere, so every place is tried: the staircase's
shape (an arch on the ground, an arch up onto its end knob and a brick, the gold
decoration on top: :data:`rules.maps.SETUP_PIECES`; the rulebook lets its pieces be of
any colour, so only the shape is sought) at every cell of the plate's inner rows, along
each of the four directions, wherever the map read could not see most of its studs.

Each placement is drawn into the picture (:class:`vision.silhouettes.View`) and weighed
by how unlike the bare card its pixels are, less what unlike the card shows in a thin
ring round them (the staircase is the only thing on a set-up board). The bare card is
learned from the picture itself (:mod:`vision.bare`), in chromaticity rather than
colour: a lamp's shadow darkens the card but hardly moves its hue, and on the
development set-ups most wrong places were shadows' edges. A pixel is taken as card if
it looks like its read region or like any ink at its place in the stud cell: the map
read leaves a third of the studs unknown and names a few wrongly, and a region learned
under a wrong name would read as a piece everywhere.

The place is taken only when it is clearly the best: its weight well above the best
placement that shares no stud with it. A picture with no staircase standing, or whose
shadows and clutter leave several places alike, gives none: the map then has no set-up
unless pieces stand at the stand-in maps' place (``palace.camera_map.with_setup``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.map_read import START, MapReading
from rules.maps import GROUND_CHARS, SETUP_PIECES, UNKNOWN_GROUND
from rules.pieces import BOARD_STUDS, Axis, Kind, Piece, corner_setup
from vision.bare import (
    PHASE_BINS,
    cells_and_phases,
    group_medians,
    learned_bare_board,
    plate_points,
)
from vision.change import region
from vision.silhouettes import View
from vision.unread_studs import opened_ground
from vision.views import board_box, working_scale
from vision.voxels import piece_voxels

HIDDEN_SHARE = 0.75
"""Share of a placement's studs the map read must have left unknown or read as the white
starting area: the pieces hide their own studs, so a place whose card the camera read is
no place of theirs."""
CARD_SPREAD = 2.5
"""A pixel counts fully as a piece at twice this many times the plate's median distance
from the bare card, fully as card at none (evidence -1 .. 1). 2 to 3.5 found 20 or 21
of the 22 staircases of the development turn sets, 2.5 the 21."""
CLEAR_MARGIN = 0.15
"""How far the best placement's weight must stand above the best one sharing no stud
with it, as a share of its own: on 97 development set-up pictures (before the ring was
weighed) every place taken wrongly, and all but one picture without a staircase, lay
within 0.12 of its rival; 11 of 68 right places did too."""
LEAST_WEIGHT = 300.0
"""The least weight a placement taken may have: the staircase covers 600 to 2,000
working pixels, most of them unlike the card."""
EDGE_ROWS = 2
"""Rows along the plate's edge no placement is tried on: the corner bricks take them at
each corner, so no starting area is printed there, and a player's card or a sleeve over
the rim hides those studs from the map read the way the staircase would (two development
pictures without a staircase were claimed there, each under a card)."""
RING_PX = 3
"""Width (working pixels, about half a stud) of the ring round a placement's outline
where a change counts against it: 1, 2, 4 and 5 found 63, 66, 68 and 67 of the 74
development staircases, 3 found 69."""
_RING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * RING_PX + 1, 2 * RING_PX + 1))
LEVELS = 4
"""Brick levels the picture's region holds: the decoration's top is the third."""
CARD_INKS = tuple(char for char in GROUND_CHARS if char != UNKNOWN_GROUND)
"""The card's prints a pixel may be taken for: the three ground colours and the blocked
areas' grey (the white starting area lies under the staircase)."""
MIN_INK_PIXELS = 200
"""Fewer pixels of an ink than this and its look is not learned."""
_CHROMA_FLOOR = 30.0
"""Added to a pixel's channel sum before its chromaticity is taken: the darkest pixels'
hue is mostly noise."""


@dataclass(frozen=True)
class SetupFound:
    """The starting staircase as it stands, in the map read's board frame."""

    pieces: tuple[Piece, ...]
    weight: float
    rival: float
    """The best weight of a placement sharing no stud with it."""


@cache
def setup_placements() -> tuple[tuple[Piece, ...], ...]:
    """The starting staircase at every place on the plate's inner rows and along each of
    the four directions (its pieces' ids and colours as in
    :data:`rules.maps.SETUP_PIECES`); made once, as every map read asks the same."""
    cells = [c for p in SETUP_PIECES for c in p.footprint()]
    x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
    out = []
    for turn in range(4):
        shape = tuple(_turned(p, x0, y0, turn) for p in SETUP_PIECES)
        feet = [c for p in shape for c in p.footprint()]
        lo_x, lo_y = min(c[0] for c in feet), min(c[1] for c in feet)
        hi_x, hi_y = max(c[0] for c in feet), max(c[1] for c in feet)
        for dy in range(EDGE_ROWS - lo_y, BOARD_STUDS - EDGE_ROWS - hi_y):
            for dx in range(EDGE_ROWS - lo_x, BOARD_STUDS - EDGE_ROWS - hi_x):
                out.append(tuple(p.moved(x=p.x + dx, y=p.y + dy) for p in shape))
    return tuple(out)


def _turned(piece: Piece, x0: int, y0: int, turn: int) -> Piece:
    """``piece`` turned ``turn`` quarter turns about (x0, y0), in board x/y."""
    feet = []
    for x, y in piece.footprint():
        dx, dy = x - x0, y - y0
        for _ in range(turn):
            dx, dy = -dy, dx
        feet.append((dx, dy))
    axis = piece.axis
    if piece.kind is Kind.ARCH and turn % 2:
        axis = Axis.Y if piece.axis is Axis.X else Axis.X
    return piece.moved(x=min(c[0] for c in feet), y=min(c[1] for c in feet), axis=axis)


@dataclass
class SetupView:
    """One picture of the board (``image``, the one whose pose ``reading`` holds) with
    its evidence of pieces, worked out when a placement is first weighed and kept for
    every other: the search and the dashboard's check of the stand-in maps' place
    (``palace.camera_map.with_setup``) weigh in the same picture."""

    image: NDArray[np.uint8]
    reading: MapReading

    def weights(self, placements: Sequence[tuple[Piece, ...]]) -> list[float]:
        """Each placement's weight: the evidence of a piece over its pixels, less what
        of a piece shows just around them (:func:`_weight`); all ``-inf`` where the
        board is not in the picture."""
        if not placements:
            return []
        if self._seen is None:
            return [-np.inf] * len(placements)
        view, evidence = self._seen
        return [_weight(evidence, np.concatenate(view.pieces_pixels([piece_voxels(p)
                                                                      for p in pieces])))
                for pieces in placements]

    @cached_property
    def _seen(self) -> tuple[View, NDArray[np.float32]] | None:
        """The picture's working region, the corner bricks painted in front, and each of
        its pixels' evidence (:func:`_unlike_card`); None where the board is not in it."""
        image, reading = self.image, self.reading
        camera = reading.camera
        if (image.shape[1], image.shape[0]) != (camera.width, camera.height):
            camera = camera.scaled_to(image.shape[1], image.shape[0])
        box = board_box(camera, reading.pose, LEVELS)
        if box is None:
            return None
        view = View(camera, reading.pose, box, working_scale(camera, reading.pose))
        view.paint_old(corner_setup())
        return view, _unlike_card(region(image, box, view.scale), view, reading)


def find_setup(picture: SetupView) -> SetupFound | None:
    """The starting staircase standing in the picture, or None where no place is
    clearly it."""
    hidden = np.isin(picture.reading.cells(), (UNKNOWN_GROUND, START))
    placements = [pieces for pieces in setup_placements()
                  if _hidden_share(pieces, hidden) >= HIDDEN_SHARE]
    weights = np.array(picture.weights(placements))
    if not len(weights):
        return None
    order = np.argsort(-weights, kind="stable")
    best = placements[order[0]]
    studs = {c for p in best for c in p.footprint()}
    rival = next((float(weights[k]) for k in order[1:]
                  if not studs & {c for p in placements[k] for c in p.footprint()}),
                 -np.inf)
    found = SetupFound(best, float(weights[order[0]]), rival)
    if found.weight < LEAST_WEIGHT or found.weight - rival < CLEAR_MARGIN * found.weight:
        return None
    return found


def _weight(evidence: NDArray[np.float32], pixels: NDArray[np.intp]) -> float:
    """The evidence over a placement's pixels, less what of a piece shows in a ring
    around them: the staircase is the only thing on the board at the set-up, so a
    change that goes on past its outline (a card or a sleeve over the plate's edge, a
    shadow's edge) is something else."""
    if not len(pixels):
        return -np.inf
    h, w = evidence.shape
    ys, xs = np.divmod(pixels, w)
    y0, x0 = max(int(ys.min()) - RING_PX, 0), max(int(xs.min()) - RING_PX, 0)
    y1, x1 = min(int(ys.max()) + RING_PX + 1, h), min(int(xs.max()) + RING_PX + 1, w)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    mask[ys - y0, xs - x0] = 1
    ring = cv2.dilate(mask, _RING) > mask
    crop = evidence[y0:y1, x0:x1]
    return float(crop[mask.astype(bool)].sum() - np.clip(crop[ring], 0.0, None).sum())


def _hidden_share(pieces: tuple[Piece, ...], hidden: NDArray[np.bool_]) -> float:
    feet = [c for p in pieces for c in p.footprint()]
    return sum(bool(hidden[y, x]) for x, y in feet) / len(feet)


def _unlike_card(image: NDArray[np.float32], view: View, reading: MapReading
                 ) -> NDArray[np.float32]:
    """Each region pixel's evidence of a piece, from -1 (bare card) to 1 (unlike any
    card); off the plate -1, since no piece of the set-up stands there."""
    total = image.sum(axis=2, keepdims=True) + _CHROMA_FLOOR
    chroma = np.concatenate([image[..., :2] / total * 300.0, np.zeros_like(total)],
                            axis=2).astype(np.float32)
    pts, on = plate_points(view)
    bare = learned_bare_board(chroma, opened_ground(reading.ground), pts, on)
    by_region = np.abs(chroma - bare).sum(axis=2)
    distance = np.minimum(by_region, _nearest_ink(chroma, pts, on, reading))
    scale = CARD_SPREAD * float(np.median(distance[on])) if on.any() else 1.0
    evidence = np.clip(distance / max(scale, 1e-6) - 1.0, -1.0, 1.0)
    return np.where(on, evidence, -1.0).astype(np.float32)


def _nearest_ink(chroma: NDArray[np.float32], pts: NDArray[np.float64],
                 on: NDArray[np.bool_], reading: MapReading) -> NDArray[np.float32]:
    """Each pixel's distance to the nearest ink's look at its place in the stud cell,
    the inks learned from the studs the map read named (a ``1e9`` where none is)."""
    cell, phase_key = cells_and_phases(pts)
    chars = reading.cells()[cell[..., 1], cell[..., 0]]
    out = np.full(on.shape, 1e9, np.float32)
    for ink in CARD_INKS:
        chosen = on & (chars == ink)
        if chosen.sum() < MIN_INK_PIXELS:
            continue
        keys, medians = group_medians(chroma[chosen], phase_key[chosen])
        look = np.full((PHASE_BINS * PHASE_BINS, chroma.shape[2]), np.nan)
        look[keys] = medians
        far = np.abs(chroma - look[phase_key]).sum(axis=2)
        out = np.minimum(out, np.where(np.isfinite(far), far, 1e9).astype(np.float32))
    return cv2.GaussianBlur(np.where(on, out, 0.0).astype(np.float32), (0, 0), 0.8)

