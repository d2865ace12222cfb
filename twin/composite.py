"""Laying a frame's layers together: the pieces over the table, the board wherever it is
nearer, and the labels (piece ids, kinds, parts, depth) that match the picture pixel for
pixel. Kept apart from :mod:`twin.renderer`, which decides what each layer shows."""

from __future__ import annotations

import cv2
import numpy as np

from twin import board as board_layer
from twin import polygons, raster
from twin.mesh import KIND_BACKGROUND, KIND_BOARD


def composite(
    image: np.ndarray,
    zb: raster.ZBuffer,
    board: board_layer.BoardLayer,
    polys: polygons.Prepared,
    lut: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pieces over the table, the board wherever it is nearer; labels to match.

    Works in place on ``image`` (the table) and returns piece ids, kinds, parts, depth.
    Labels and colours are looked up for the whole frame at once (slot 0 of each table
    is "no polygon"), and pasted with OpenCV's masked copy, which is much faster than
    scattering into the few covered pixels.
    """
    height, width = zb.invz.shape
    slot = zb.poly.astype(np.intp)
    slot += 1
    piece_ids = np.concatenate([[-1], polys.piece]).astype(np.int32)[slot]
    kinds = np.concatenate([[KIND_BACKGROUND], polys.kind]).astype(np.uint8)[slot]
    parts = np.concatenate([[0], polys.part]).astype(np.uint8)[slot]
    invz = zb.invz
    if len(lut):
        # Colours as one 32-bit word per polygon: one gather, then back to 3 channels.
        lut4 = np.zeros((len(lut) + 1, 4), np.uint8)
        lut4[1:, :3] = lut
        colors = lut4.view(np.uint32).reshape(-1)[slot]
        colors = cv2.cvtColor(colors.view(np.uint8).reshape(height, width, 4),
                              cv2.COLOR_BGRA2BGR)
        _paste(colors, zb.poly >= 0, image)
    x0, y0, x1, y1 = board.box
    if x1 > x0:
        wins = board.invz > invz[y0:y1, x0:x1]
        _paste(board.color, wins, image[y0:y1, x0:x1])
        np.copyto(piece_ids[y0:y1, x0:x1], -1, where=wins)
        np.copyto(kinds[y0:y1, x0:x1], KIND_BOARD, where=wins)
        np.copyto(parts[y0:y1, x0:x1], board.part, where=wins)
        invz = invz.copy()
        np.maximum(invz[y0:y1, x0:x1], board.invz, out=invz[y0:y1, x0:x1])
    with np.errstate(divide="ignore"):
        depth = np.float32(1.0) / invz
    return piece_ids, kinds, parts, depth


def _paste(source: np.ndarray, where: np.ndarray, target: np.ndarray) -> None:
    """``target[where] = source[where]`` for pictures, in place (``target`` may be a view)."""
    out = cv2.copyTo(source, where.view(np.uint8), target)
    if not np.shares_memory(out, target):
        target[...] = out
