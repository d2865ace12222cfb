"""Confidence: a piece the frame cuts off is weighed against its whole outline
(docs/vision.md, "9. Confidence"; docs/vision-log.md, "A piece out of the frame")."""

from __future__ import annotations

import numpy as np

from rules import Kind, Palace, Piece
from tests.turn_fixtures import BARE, SHOWN, turns_with
from twin.cameras import random_camera
from vision.confidence import rate_pieces
from vision.decode import Decoder
from vision.evidence import Evidence
from vision.reading import UNCERTAIN_BELOW
from vision.silhouettes import View
from vision.views import board_box, working_scale


def _views(before: Palace, piece: Piece) -> tuple[View, View]:
    """The whole region over ``before`` and the same region with its top cut off just
    below ``piece``, as a frame whose top edge cuts a tall staircase's last step."""
    camera, pose = random_camera(np.random.default_rng(7), 1280, 720,
                                 elevation_deg=(50.0, 55.0), fill=(0.8, 0.9))
    top = max((p.top for p in before), default=0)
    box = board_box(camera, pose, top + 6)
    assert box is not None
    scale = working_scale(camera, pose)
    full = View(camera, pose, box, scale)
    rows = full.piece_pixels(piece) // full.shape[1]
    x0, y0, x1, y1 = box
    return full, View(camera, pose, (x0, y0 + int(rows.max() / scale) + 2, x1, y1), scale)


def test_a_piece_the_frame_cuts_off_keeps_its_whole_outline() -> None:
    """The region's edge takes a piece's pixels, not its size: a decoration wholly above
    the cut region has the outline it has in the whole region (to the rounding of the
    shifted quarter pixels)."""
    before, added = turns_with(2)[0]
    crown = next(p for p in added if p.kind is Kind.DECORATION)
    full, cut = _views(before, crown)
    assert len(cut.piece_pixels(crown)) == 0
    assert abs(cut.piece_area(crown) - full.piece_area(crown)) <= 0.05 * full.piece_area(crown)


def test_a_decoration_out_of_the_frame_is_doubted() -> None:
    """A staircase whose decoration the frame's top edge cuts off, the rest of it in
    view and shown in full: the decoration shows no pixel, so its margin over its rivals
    is their prices and their own pixels, a small share of its outline. Measured against
    the pixels left in the frame (none: one unit) that margin made it sure (0.99);
    measured against its whole outline it is asked about (0.05). The brick in view stays
    trusted."""
    before, added = turns_with(2)[0]
    crown = next(p for p in added if p.kind is Kind.DECORATION)
    _, view = _views(before, crown)
    view.paint_old(before.pieces)
    weight = np.full(view.shape[0] * view.shape[1], BARE, np.float32)
    for piece in added:
        weight[view.piece_pixels(piece)] = SHOWN
    decoder = Decoder(before, [Evidence(view, weight, weight > 0, np.zeros_like(weight))])
    rated = {r.piece.kind: r.confidence for r in rate_pieces(decoder, added, legal=True)}
    assert rated[Kind.DECORATION] < UNCERTAIN_BELOW
    assert rated[Kind.BRICK] >= UNCERTAIN_BELOW
