"""From the decoder's building pieces to a staircase: which piece is the decoration, and
its colour.

A decoration and a 1x1 brick have the same outline, so the outline cannot tell them
apart; the rules can: the decoration sits on the end knob of the staircase's last (and
highest) arch with nothing on it. Its colour is the ground colour where the staircase
starts (rule 6); the picture is asked too, since a turn that breaks the rules is still
to be reported as seen, and a start the map does not know (a map read by the camera)
has no colour but the decoration's: the decoration's pixels are compared with the
decorations already standing in the same frame, under the same light (LEGO's own colours
through that light for a colour none of them shows), or, with none in view, with the
card's light green, dark green and sand regions.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import project
from rules.maps import UNKNOWN_GROUND, GroundMap
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, COLOR_RGB, STUD_MM, DecorationColor, Kind, Piece
from rules.staircase import analyse_added
from vision.candidates import staircase_end
from vision.raster import fill
from vision.silhouettes import View
from vision.voxels import piece_voxels

COLOUR_OF_CHAR = {"L": DecorationColor.LIGHT_GREEN, "D": DecorationColor.DARK_GREEN,
                  "G": DecorationColor.GOLD}
MIN_DECORATION_PIXELS = 3
"""Pixels of the standing decorations of a colour that make that colour's reference (the
new decoration is named from as few)."""
TONE = 0.7
"""The camera's tone curve as a power of LEGO's published colours: under 1, since a
webcam's curve flattens the differences between colours. Chosen on the development
decorations (0.5 / 0.7 / 1 / 1.5: 415 / 416 / 411 / 403 of 440 named right)."""
MIN_SHARE = 1e-3
"""A channel's share of a colour below which it is taken as this (a black channel has no
gain to read)."""
SELF_DEPTH_MM = 0.5
"""How much nearer than a voxel's own distance the old palace's depth may be where that
voxel is still the surface shown (the depth is kept in single precision)."""


def name_decoration(before: Palace, pieces: Sequence[Piece], frame: NDArray[np.uint8],
                    view: View, ground: GroundMap | None = None) -> list[Piece]:
    """``pieces`` with the staircase's decoration turned from a brick into a decoration.

    ``ground`` is the map as the game has it where ``before`` reads on another (its
    unknown studs opened, :mod:`vision.unread_studs`): at a starting stud that map does
    not know, the picture names the decoration (and so, for the game, the stud)."""
    end = staircase_end(pieces)
    # Plants the decoder saw elsewhere are read as what stands there by the rules: bricks.
    pieces = [p.moved(kind=Kind.BRICK, color="") if p.kind is Kind.DECORATION
              and p is not end else p for p in pieces]
    if end is None:
        return pieces
    probe = end.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    trial = [probe if p is end else p for p in pieces]
    report = analyse_added(before, trial)
    start = report.start
    unread = (ground is not None and start is not None and start not in ground.start_area
              and ground.char(*start) == UNKNOWN_GROUND)
    # The picture is asked only where the map's start does not name the colour; at an
    # unread start the opened map's guess comes after the picture.
    colour = ((None if unread else report.start_color)
              or decoration_colour_seen(frame, view, end, before)
              or report.start_color or DecorationColor.GOLD.value)
    return [end.moved(kind=Kind.DECORATION, color=colour) if p is end else p for p in pieces]


def decoration_colour_seen(frame: NDArray[np.uint8], view: View, piece: Piece,
                           palace: Palace) -> str | None:
    """The colour the decoration's pixels are nearest to, in chromaticity: that of the
    decorations already standing (:func:`decoration_chroma`, the colours none shows
    worked out from them, :func:`plastic_references`), else, with no decoration in view,
    that of the card's region of each colour (:func:`region_chroma`)."""
    px = view.piece_pixels(piece.moved(kind=Kind.BRICK))
    if len(px) < 3:
        return None
    x0, y0, x1, y1 = view.box
    small = cv2.resize(frame[y0:y1, x0:x1], view.shape[::-1], interpolation=cv2.INTER_AREA)
    flat = small.reshape(-1, 3).astype(np.float32)
    refs = plastic_references(decoration_chroma(flat, view, palace)) or region_chroma(
        frame, view, palace)
    if not refs:
        return None
    chroma = _chroma(flat[px])
    best = min(refs, key=lambda c: float(np.linalg.norm(refs[c] - chroma)))
    return COLOUR_OF_CHAR[best].value


def decoration_chroma(region: NDArray[np.float32], view: View, palace: Palace
                      ) -> dict[str, NDArray[np.float64]]:
    """Median chromaticity of the decorations already standing, per colour, over the
    pixels (of ``region``, the view's region as rows of BGR) where each shows itself: the
    same plastic under the same light as the new one. The card's print is not: its inks
    drift from table to table (sand towards orange, dark inks from near-black to grey),
    while a lime plant stays a lime plant; the set-up's gold decoration gives gold from
    the first turn, and each confirmed turn adds its own."""
    pixels: dict[str, list[NDArray[np.intp]]] = {}
    chars = {colour.value: char for char, colour in COLOUR_OF_CHAR.items()}
    for piece in palace:
        char = chars.get(piece.color) if piece.kind is Kind.DECORATION else None
        if char is None:
            continue
        voxels = piece_voxels(piece)
        for hull, dist in zip(view.hulls(voxels), view.distances(voxels), strict=True):
            if hull is not None:
                # The old palace's depth holds each voxel's own distance where it is the
                # nearest surface, a nearer one's elsewhere.
                pixels.setdefault(char, []).append(
                    fill(hull, dist - SELF_DEPTH_MM, view.old_depth))
    out = {}
    for char, parts in pixels.items():
        px = np.concatenate(parts)
        if len(px) >= MIN_DECORATION_PIXELS:
            out[char] = _chroma(region[px])
    return out


def plastic_references(seen: dict[str, NDArray[np.float64]]) -> dict[str, NDArray[np.float64]]:
    """The chromaticity of each decoration colour under this light: the standing
    decorations' own (``seen``), and for a colour none of them shows, LEGO's published
    colour (:data:`rules.pieces.COLOR_RGB`) seen through the light's per-channel gains as
    the seen colours give them (a diagonal, von Kries model; one colour seen fixes it up
    to brightness). At the set-up only the starting staircase's gold decoration stands,
    and a lime plant is nearer that gold than the card's printed light green in many
    lights; predicted, the colours named right rose from 396 to 416 of 440 development
    decorations (91 with one colour standing: 82 to 88)."""
    if not seen:
        return {}
    known = {char: np.log(np.array(COLOR_RGB[c.value][::-1], np.float64) + 1.0)
             for char, c in COLOUR_OF_CHAR.items()}
    # log gain per channel, less its mean (only the gains' ratios survive chromaticity).
    gains = [np.log(np.maximum(chroma, MIN_SHARE)) - TONE * known[char]
             for char, chroma in seen.items()]
    gain = np.mean([g - g.mean() for g in gains], axis=0)
    out = dict(seen)
    for char in COLOUR_OF_CHAR:
        if char not in out:
            value = np.exp(gain + TONE * known[char])
            out[char] = value / value.sum()
    return out


def _chroma(bgr: NDArray[np.floating]) -> NDArray[np.float64]:
    """Median chromaticity (each channel's share of the sum) of pixels' colours."""
    return np.median(bgr / (bgr.sum(axis=1, keepdims=True) + 6.0), axis=0).astype(np.float64)


def region_chroma(frame: NDArray[np.uint8], view: View, palace: Palace
                  ) -> dict[str, NDArray[np.float64]]:
    """Median chromaticity of each ground colour's card, where no piece stands."""
    covered = {c for p in palace for c in p.footprint()}
    pts, chars = [], []
    for y in range(BOARD_STUDS):
        for x in range(BOARD_STUDS):
            char = palace.ground.char(x, y)
            if (x, y) not in covered and char in COLOUR_OF_CHAR:
                pts.append([(x + 0.15) * STUD_MM, (y + 0.15) * STUD_MM, 0.0])
                chars.append(char)
    if not pts:
        return {}
    px = np.round(project(view.camera, view.pose, np.array(pts))).astype(int)
    h, w = frame.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    colours = frame[px[ok, 1], px[ok, 0]].astype(np.float64)
    names = np.array(chars)[ok]
    return {c: _chroma(colours[names == c]) for c in set(names.tolist())
            if (names == c).sum() >= 5}
