"""The change from the frame before: the brightness matched before pixels are compared."""

from __future__ import annotations

import numpy as np

from vision.change import _line_fit, match_photometry


def test_the_line_fitted_from_sums_is_the_least_squares_line() -> None:
    """The closed form must give what ``np.polyfit`` gives on a view's worth of pixels,
    offsets far from zero included (sums of squares lose digits in float32)."""
    rng = np.random.default_rng(7)
    x = rng.uniform(40, 220, 200_000).astype(np.float32)
    y = (0.83 * x + 17.5 + rng.normal(0, 6, x.shape)).astype(np.float32)
    gain, offset = _line_fit(x, y)
    want_gain, want_offset = np.polyfit(x.astype(np.float64), y.astype(np.float64), 1)
    assert abs(gain - want_gain) < 1e-9 and abs(offset - want_offset) < 1e-6


def test_a_dimmer_frame_is_matched_where_the_two_agree() -> None:
    """A frame before taken 20 % brighter, with a patch that changed: the match takes
    the light back out everywhere but leaves the patch's change standing."""
    rng = np.random.default_rng(3)
    after = rng.uniform(30, 200, (60, 80, 3)).astype(np.float32)
    before = after * 1.2 + 5.0
    before[10:20, 10:20] = 250.0
    matched = match_photometry(before, after)
    outside = np.ones(after.shape[:2], bool)
    outside[10:20, 10:20] = False
    assert np.abs(matched[outside] - after[outside]).max() < 0.05
    assert np.abs(matched[10:20, 10:20] - after[10:20, 10:20]).mean() > 20
