"""The map read's card samples: each the mean of a few pixels round its point, so that a
webcam's pixel noise moves a stud's colour less than the inks stand apart."""

from __future__ import annotations

import numpy as np

import calibration.map_read as map_read
from calibration.map_read import ViewRead, cell_in, read_view, signed_lab
from rules.palace import Palace
from rules.random_map import random_map
from twin import RenderOptions, random_camera, render
from twin.map_views import truth_cells


def _spread_within_inks(read: ViewRead, truth: np.ndarray, where: np.ndarray) -> float:
    """The median over inks of the studs' colour spread (Lab units) about their ink's median."""
    on = read.shown & (where >= 0)
    lab = signed_lab(read.colours[on])
    inks = truth[where[on]]
    return float(np.median([np.median(np.linalg.norm(lab[inks == ink] - np.median(
        lab[inks == ink], axis=0), axis=1)) for ink in "LDG" if (inks == ink).sum() > 20]))


def test_card_samples_average_out_pixel_noise(monkeypatch) -> None:
    """A frame with pixel noise (12 levels a channel): the studs of one ink spread far
    less about its colour when each sample is the mean of ``CARD_BLUR`` pixels square
    than when it is one pixel."""
    rng = np.random.default_rng(1)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng)
    frame = render(Palace(ground, ground.setup), camera, pose, RenderOptions(clean=True), seed=1)
    noisy = np.clip(frame.image + np.random.default_rng(2).normal(0, 12, frame.image.shape),
                    0, 255).astype(np.uint8)
    truth = truth_cells(ground)
    spreads = []
    for blur in (map_read.CARD_BLUR, 1):
        monkeypatch.setattr(map_read, "CARD_BLUR", blur)
        read = read_view(noisy, camera)
        assert isinstance(read, ViewRead)
        spreads.append(_spread_within_inks(read, truth, cell_in(read.pose, pose)))
    assert spreads[0] < 0.7 * spreads[1], spreads
