"""From the decoder's building pieces to a staircase: which piece is the decoration, and
its colour.

A decoration and a 1x1 brick have the same outline, so the outline cannot tell them
apart; the rules can: the decoration sits on the end knob of the staircase's last (and
highest) arch with nothing on it. Its colour is the ground colour where the staircase
starts (rule 6). The picture is asked too: a start the map does not know (a map read
by the camera) has no colour but the decoration's, and where the picture plainly names
another colour than the start's, either the start was misread or the player broke the
rule, and the players are asked (:func:`vision.confidence.colour_doubted`). The
decoration's pixels are compared with LEGO's colours under the light the decorations
already standing in the same frame show, or, with none in view, with the card's light
green, dark green and sand regions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
"""Pixels a standing decoration needs to give the light (:func:`standing_chroma`); the
new decoration is named from as few."""
TONE = 0.7
"""The camera's tone curve as a power of LEGO's published colours: under 1, since a
webcam's curve flattens the differences between colours. Chosen on the development
decorations (0.5 / 0.7 / 1 / 1.5: 415 / 416 / 411 / 403 of 440 named right), and again
for the pixels' votes (0.5 / 0.7 / 1: 230 / 231 / 220 of 239)."""
MIN_SHARE = 1e-3
"""A channel's share of a colour below which it is taken as this (a black channel has no
gain to read)."""
MIN_UNDER_PIXELS = 5
"""Pixels of the arch under the decoration, outside its outline, that make that arch's
colour a reference (:func:`decoration_colour_seen`)."""
UNDER = "under"
"""The reference key of the arch the decoration stands on."""
BUILDING_COLOURS = ("dark_orange", "tan", "dark_tan", "reddish_brown")
"""The building pieces' colours, references that name no decoration."""
DOUBT_PIXELS = 30
"""Pixels a decoration needs for its picture to doubt the colour the rules name
(:meth:`SeenColour.contradicts`)."""
DOUBT_SHARE = 0.5
"""The share of its pixels' votes by which the picture must name another colour to doubt
the rules' (:meth:`SeenColour.contradicts`). On the 240 development turns (games 9000 to
12000 on), the decoration at the end of the reading, gated at 30 pixels and 0.5: the
picture names another colour than the map's start in 8 of 29 readings whose report is
wrong, 3 of them the 4 that the confidence let through unasked, and in 1 of 191 readings
exactly right (asked already); at 20 pixels and 0.3, 9 of 29, and 2 of the 191."""
SELF_DEPTH_MM = 0.5
"""How much nearer than a voxel's own distance the old palace's depth may be where that
voxel is still the surface shown (the depth is kept in single precision)."""


@dataclass(frozen=True)
class SeenColour:
    """The colour a decoration's own pixels name, and how plainly."""

    colour: str
    """A :class:`rules.pieces.DecorationColor` value."""
    share: float
    """The winning colour's pixels less the runner-up's, over all the pixels that named a
    decoration colour: 1 where every one named the same."""
    pixels: int
    """The decoration's pixels in the view (its 1x1 outline in front of the old palace)."""
    plastic: bool
    """Whether the references were the plastic's (a decoration stands in view), not the
    card's print, which drifts too far from the plastic to doubt by."""

    def contradicts(self, colour: str) -> bool:
        """Whether the picture plainly names another colour than ``colour``."""
        return (self.plastic and self.colour != colour and self.pixels >= DOUBT_PIXELS
                and self.share >= DOUBT_SHARE)


def name_decoration(before: Palace, pieces: Sequence[Piece], frame: NDArray[np.uint8],
                    view: View, ground: GroundMap | None = None
                    ) -> tuple[list[Piece], SeenColour | None]:
    """``pieces`` with the staircase's decoration turned from a brick into a decoration,
    and the colour its own pixels name (``None`` where there is no decoration or the
    picture names none).

    ``ground`` is the map as the game has it where ``before`` reads on another (its
    unknown studs opened, :mod:`vision.unread_studs`): at a starting stud that map does
    not know, the picture names the decoration (and so, for the game, the stud)."""
    end = staircase_end(pieces)
    # Plants the decoder saw elsewhere are read as what stands there by the rules: bricks.
    pieces = [p.moved(kind=Kind.BRICK, color="") if p.kind is Kind.DECORATION
              and p is not end else p for p in pieces]
    if end is None:
        return pieces, None
    probe = end.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    trial = [probe if p is end else p for p in pieces]
    report = analyse_added(before, trial)
    start = report.start
    unread = (ground is not None and start is not None and start not in ground.start_area
              and ground.char(*start) == UNKNOWN_GROUND)
    under = next((p for p in pieces if p.kind is Kind.ARCH and p.top == end.z
                  and (end.x, end.y) in p.footprint()), None)
    seen = decoration_colour_seen(frame, view, end, before, under)
    # The picture names the colour only where the map's start does not; at an unread
    # start the opened map's guess comes after the picture.
    colour = ((None if unread else report.start_color)
              or (seen.colour if seen is not None else None)
              or report.start_color or DecorationColor.GOLD.value)
    named = [end.moved(kind=Kind.DECORATION, color=colour) if p is end else p for p in pieces]
    return named, seen


def decoration_colour_seen(frame: NDArray[np.uint8], view: View, piece: Piece,
                           palace: Palace, under: Piece | None = None) -> SeenColour | None:
    """The colour most of the decoration's pixels are nearest to, in chromaticity.

    The references are the decoration colours under this light
    (:func:`plastic_references`, from the decorations already standing), or, with no
    decoration in view, the card's region of each colour (:func:`region_chroma`). A
    plant's leaves are thin: much of its 1x1 outline shows what lies behind them, most
    often the arch it stands on (``under``), so the building colours under the same light
    and that arch's own colour (its pixels outside the outline) are references too, and
    the pixels nearest them name no decoration colour. Each pixel votes: a median over
    the outline took a dark green plant on a tan arch for gold."""
    px = view.piece_pixels(piece.moved(kind=Kind.BRICK))
    if len(px) < MIN_DECORATION_PIXELS:
        return None
    x0, y0, x1, y1 = view.box
    small = cv2.resize(frame[y0:y1, x0:x1], view.shape[::-1], interpolation=cv2.INTER_AREA)
    flat = small.reshape(-1, 3).astype(np.float32)
    refs = plastic_references(standing_chroma(flat, view, palace))
    plastic = bool(refs)
    refs = refs or region_chroma(frame, view, palace)
    if not refs:
        return None
    if under is not None:
        own = np.setdiff1d(view.piece_pixels(under), px)
        if len(own) >= MIN_UNDER_PIXELS:
            refs[UNDER] = _chroma(flat[own])
    names = list(refs)
    table = np.array([refs[n] for n in names])
    shares = _shares(flat[px])
    nearest = np.linalg.norm(shares[:, None, :] - table[None], axis=2).argmin(axis=1)
    votes = {char: int(np.count_nonzero(nearest == k)) for k, char in enumerate(names)
             if char in COLOUR_OF_CHAR}
    ranked = sorted(votes, key=lambda c: -votes[c])
    total = sum(votes.values())
    if total == 0:
        return None
    share = (votes[ranked[0]] - (votes[ranked[1]] if len(ranked) > 1 else 0)) / total
    return SeenColour(COLOUR_OF_CHAR[ranked[0]].value, share, len(px), plastic)


def standing_chroma(region: NDArray[np.float32], view: View, palace: Palace
                    ) -> list[tuple[str, NDArray[np.float64]]]:
    """Each standing decoration's median chromaticity over the pixels (of ``region``, the
    view's region as rows of BGR) where it shows itself, with its colour's letter: the
    same plastic under the same light as the new one. The card's print is not: its inks
    drift from table to table (sand towards orange, dark inks from near-black to grey),
    while a lime plant stays a lime plant; the set-up's gold decoration gives the light
    from the first turn, and each confirmed turn adds its own."""
    chars = {colour.value: char for char, colour in COLOUR_OF_CHAR.items()}
    out = []
    for piece in palace:
        char = chars.get(piece.color) if piece.kind is Kind.DECORATION else None
        if char is None:
            continue
        voxels = piece_voxels(piece)
        # The old palace's depth holds each voxel's own distance where it is the nearest
        # surface, a nearer one's elsewhere.
        parts = [fill(hull, dist - SELF_DEPTH_MM, view.old_depth)
                 for hull, dist in zip(view.hulls(voxels), view.distances(voxels), strict=True)
                 if hull is not None]
        px = np.concatenate(parts) if parts else np.zeros(0, np.intp)
        if len(px) >= MIN_DECORATION_PIXELS:
            out.append((char, _chroma(region[px])))
    return out


def plastic_references(seen: Sequence[tuple[str, NDArray[np.float64]]]
                       ) -> dict[str, NDArray[np.float64]]:
    """The chromaticity of each decoration colour (by its letter) and each building
    colour (by its name) under this light, from the standing decorations' own (``seen``):
    LEGO's published colours (:data:`rules.pieces.COLOR_RGB`) seen through the light's
    per-channel gains (a diagonal, von Kries model; one decoration fixes it up to
    brightness). Every standing decoration gives the gains, and their median is taken:
    a plant's leaves reach over its neighbours, so a gold decoration beside a lime plant
    can show more leaf than gold (taken alone as gold's reference, it named lime plants
    gold). With the pixels' votes (:func:`decoration_colour_seen`), the true decorations
    named right on the development turns chosen on (games 9000 to 12000 on) rose from
    225 to 231 of 240 (each standing colour's own median as its reference, the outline's
    median), and stayed at 116 of 120 on games 13000 and 14000."""
    if not seen:
        return {}
    names = {**{char: c.value for char, c in COLOUR_OF_CHAR.items()},
             **{name: name for name in BUILDING_COLOURS}}
    known = {key: TONE * np.log(np.array(COLOR_RGB[name][::-1], np.float64) + 1.0)
             for key, name in names.items()}
    # log gain per channel, less its mean (only the gains' ratios survive chromaticity).
    gains = [np.log(np.maximum(chroma, MIN_SHARE)) - known[char] for char, chroma in seen]
    gain = np.median([g - g.mean() for g in gains], axis=0)
    out = {}
    for key, logs in known.items():
        value = np.exp(gain + logs)
        out[key] = value / value.sum()
    return out


def _shares(bgr: NDArray[np.floating]) -> NDArray[np.float64]:
    """Each pixel's chromaticity (each channel's share of the sum)."""
    return (bgr / (bgr.sum(axis=1, keepdims=True) + 6.0)).astype(np.float64)


def _chroma(bgr: NDArray[np.floating]) -> NDArray[np.float64]:
    """Median chromaticity of pixels' colours."""
    return np.median(_shares(bgr), axis=0)


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
