"""From the decoder's building pieces to a staircase: which piece is the decoration, and
its colour.

A decoration and a 1x1 brick have the same outline, so the outline cannot tell them
apart; the rules can: the decoration sits on the end knob of the staircase's last (and
highest) arch with nothing on it. Its colour is the ground colour where the staircase
starts (rule 6); the picture is asked too, since a turn that breaks the rules is still
to be reported as seen: the decoration's pixels are compared with the card's own light
green, dark green and sand regions in the same frame, which the decorations match by
design and which the same light falls on.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import project
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, STUD_MM, DecorationColor, Kind, Piece
from rules.staircase import analyse_added
from vision.candidates import staircase_end
from vision.silhouettes import View

COLOUR_OF_CHAR = {"L": DecorationColor.LIGHT_GREEN, "D": DecorationColor.DARK_GREEN,
                  "G": DecorationColor.GOLD}


def name_decoration(before: Palace, pieces: Sequence[Piece], frame: NDArray[np.uint8],
                    view: View) -> list[Piece]:
    """``pieces`` with the staircase's decoration turned from a brick into a decoration."""
    end = staircase_end(pieces)
    # Plants the decoder saw elsewhere are read as what stands there by the rules: bricks.
    pieces = [p.moved(kind=Kind.BRICK, color="") if p.kind is Kind.DECORATION
              and p is not end else p for p in pieces]
    if end is None:
        return pieces
    probe = end.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    trial = [probe if p is end else p for p in pieces]
    report = analyse_added(before, trial)
    seen = decoration_colour_seen(frame, view, end, before)
    colour = report.start_color or seen or DecorationColor.GOLD.value
    return [end.moved(kind=Kind.DECORATION, color=colour) if p is end else p for p in pieces]


def decoration_colour_seen(frame: NDArray[np.uint8], view: View, piece: Piece,
                           palace: Palace) -> str | None:
    """The ground region colour the decoration's pixels are nearest to, in chromaticity."""
    refs = region_chroma(frame, view, palace)
    px = view.piece_pixels(piece.moved(kind=Kind.BRICK))
    if len(px) < 3 or not refs:
        return None
    x0, y0, x1, y1 = view.box
    small = cv2.resize(frame[y0:y1, x0:x1], view.shape[::-1], interpolation=cv2.INTER_AREA)
    flat = small.reshape(-1, 3).astype(np.float32)[px]
    chroma = np.median(flat / (flat.sum(axis=1, keepdims=True) + 6.0), axis=0)
    best = min(refs, key=lambda c: float(np.linalg.norm(refs[c] - chroma)))
    return COLOUR_OF_CHAR[best].value


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
    chroma = colours / (colours.sum(axis=1, keepdims=True) + 6.0)
    names = np.array(chars)[ok]
    return {c: np.median(chroma[names == c], axis=0) for c in set(names.tolist())
            if (names == c).sum() >= 5}
