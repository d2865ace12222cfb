"""What turn mode's pixels say before the decoder weighs them: an old piece's soft edge
(:func:`vision.turn._spare_old_edges`)."""

from __future__ import annotations

import numpy as np
import pytest

from twin.cameras import random_camera
from vision.silhouettes import View
from vision.turn import NEW_WITHIN_PX, OLD_EDGE_PX, _spare_old_edges
from vision.views import board_box, working_scale

BARE, NEW = -0.75, 0.5
"""Model weights: a pixel the model finds unchanged, one it finds new."""


@pytest.fixture()
def view() -> View:
    """A view whose left half is an old surface 500 mm away, the right half the board."""
    camera, pose = random_camera(np.random.default_rng(7), 1280, 720,
                                 elevation_deg=(50.0, 55.0), fill=(0.8, 0.9))
    box = board_box(camera, pose, 6)
    assert box is not None
    out = View(camera, pose, box, working_scale(camera, pose))
    out.old_depth[:, : out.shape[1] // 2] = 500.0
    return out


def test_an_old_piece_s_soft_edge_does_not_deny_a_new_piece_shown_beside_it(view: View
                                                                            ) -> None:
    h, w = view.shape
    edge = w // 2
    weight = np.full((h, w), BARE, np.float32)
    weight[10:30, edge + OLD_EDGE_PX + 1: edge + 12] = NEW  # a new piece's pixels
    spared = _spare_old_edges(view, weight.ravel()).reshape(h, w)
    # The board's pixels at the old edge beside the new ones neither pay nor cost...
    assert (spared[10:30, edge: edge + OLD_EDGE_PX] == 0).all()
    # ...the new pixels still pay, and the old surface's own pixels still deny.
    assert (spared[10:30, edge + OLD_EDGE_PX + 1: edge + 12] == NEW).all()
    assert (spared[10:30, edge - 1] == BARE).all()


def test_an_old_edge_with_nothing_new_beside_it_still_denies(view: View) -> None:
    h, w = view.shape
    edge = w // 2
    weight = np.full((h, w), BARE, np.float32)
    weight[10:30, edge + OLD_EDGE_PX + 1: edge + 12] = NEW
    spared = _spare_old_edges(view, weight.ravel()).reshape(h, w)
    far_rows = slice(30 + NEW_WITHIN_PX + 1, 60)
    assert (spared[far_rows, edge: edge + OLD_EDGE_PX] == BARE).all()
    # Nor does a new pixel spare an edge farther than it reaches (one pixel farther).
    weight = np.full((h, w), BARE, np.float32)
    weight[10:30, edge + OLD_EDGE_PX + NEW_WITHIN_PX:] = NEW
    spared = _spare_old_edges(view, weight.ravel()).reshape(h, w)
    assert (spared[10:30, edge: edge + OLD_EDGE_PX] == BARE).all()
