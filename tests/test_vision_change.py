"""The change from the frame before: the brightness matched before pixels are compared."""

from __future__ import annotations

import numpy as np

from vision.change import _line_fit, evened_light, match_photometry


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


def test_a_soft_shadow_is_evened_out_and_a_new_piece_is_not() -> None:
    """The picture after has a player's soft shadow over its left side (40 % of the
    light, an edge 60 px soft) and a new piece (a 24 x 40 patch of another colour): the
    picture before, evened, takes the shadow but not the piece."""
    rng = np.random.default_rng(5)
    height, width = 240, 320
    card = np.empty((height, width, 3), np.float32)
    card[:] = (60.0, 150.0, 90.0)
    card += rng.normal(0, 6, card.shape).astype(np.float32)
    cols = np.arange(width, dtype=np.float32)
    shade = 1.0 - 0.4 / (1.0 + np.exp((cols - 140.0) / 15.0))
    after = card * shade[None, :, None]
    after[100:124, 200:240] = (40.0, 110.0, 190.0)
    evened = evened_light(card, after)
    plain = np.ones((height, width), bool)
    plain[92:132, 192:248] = False

    def spread(picture: np.ndarray) -> float:
        """How far the picture's brightness is from the picture after's, less one gain
        over the whole picture (the evidence's own exposure matching takes that)."""
        ratio = (np.log(picture.mean(axis=2) + 4) - np.log(after.mean(axis=2) + 4))[plain]
        return float(np.percentile(np.abs(ratio - np.median(ratio)), 90))

    assert spread(card) > 0.3
    assert spread(evened) < 0.05
    piece = (slice(100, 124), slice(200, 240))
    assert np.abs(evened[piece] - after[piece]).mean() > 40


def test_a_picture_lit_alike_is_left_as_it_was() -> None:
    """No change of light, only a new piece and the sensor's noise: evening changes the
    picture before by well under a grey level."""
    rng = np.random.default_rng(9)
    before = rng.uniform(40, 200, (200, 260, 3)).astype(np.float32)
    before = np.repeat(np.repeat(before[::8, ::8], 8, axis=0), 8, axis=1)[:200, :260]
    after = before + rng.normal(0, 2, before.shape).astype(np.float32)
    after[60:90, 100:130] = 220.0
    evened = evened_light(before, after)
    assert float(np.median(np.abs(evened - before))) < 1.0
