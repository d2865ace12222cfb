"""The decoration's colour under the table's light: the colours no standing decoration
shows are worked out from the ones that do (``vision.finish.plastic_references``)."""

from __future__ import annotations

import numpy as np
import pytest

from rules.pieces import COLOR_RGB
from vision.finish import COLOUR_OF_CHAR, TONE, plastic_references


def seen_under(gains: tuple[float, float, float]) -> dict[str, np.ndarray]:
    """Each decoration colour's chromaticity (BGR shares) under a light of per-channel
    ``gains``, by the camera model the references assume."""
    out = {}
    for char, colour in COLOUR_OF_CHAR.items():
        bgr = np.array(gains) * (np.array(COLOR_RGB[colour.value][::-1], float) + 1.0) ** TONE
        out[char] = bgr / bgr.sum()
    return out


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (1.4, 1.0, 0.6), (0.7, 1.1, 1.3)])
@pytest.mark.parametrize("standing", ["G", "L", "DG"])
def test_the_colours_no_decoration_shows_follow_the_light_of_those_that_do(gains, standing):
    truth = seen_under(gains)
    refs = plastic_references({c: truth[c] for c in standing})
    assert set(refs) == set(COLOUR_OF_CHAR)
    for char in COLOUR_OF_CHAR:
        assert np.allclose(refs[char], truth[char], atol=1e-9), char
    # The nearest reference names each colour as the light shows it, none another.
    for char in COLOUR_OF_CHAR:
        nearest = min(refs, key=lambda c: float(np.linalg.norm(refs[c] - truth[char])))
        assert nearest == char


def test_with_no_decoration_standing_there_are_no_plastic_references():
    assert plastic_references({}) == {}
    seen = {"G": np.array([0.2, 0.35, 0.45])}
    assert plastic_references(seen)["G"] is seen["G"]
