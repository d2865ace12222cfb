"""The card's colours evened against the light on the stud tops round each stud: a lamp's
fall-off across the board no longer darkens a stretch of light green into dark green."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import calibration.map_light as map_light
from calibration.map_light import evened
from calibration.map_naming import name_cells
from rules.maps import UNKNOWN_GROUND

INKS_BGR = {"L": (70.0, 170.0, 120.0), "D": (45.0, 90.0, 40.0), "G": (90.0, 185.0, 215.0)}
TOP_BGR = (65.0, 120.0, 35.0)  # the plate's own green, as its stud tops show it


def _lab(bgr: np.ndarray) -> np.ndarray:
    """OpenCV 8-bit Lab of BGR rows, as the camera's samples are."""
    pixels = np.clip(bgr, 0, 255).astype(np.uint8)[None]
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2LAB)[0].astype(np.float32)


def _inks() -> np.ndarray:
    """A map like development map 51198's: a light green region on the side the lamp
    leaves dim, dark green there and on the lit side, a second light green region lit,
    gold between (row-major, 32 x 32)."""
    grid = np.full((32, 32), "G")
    grid[:16, :16] = "L"
    grid[:16, 24:] = "D"
    grid[16:, :8] = "D"
    grid[16:, 24:] = "L"
    return grid.reshape(-1)


def _board(fall: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The true inks, the card's colours and the stud tops' (OpenCV Lab per cell), every
    cell lit by ``fall`` (a factor per cell on the light, as a lamp's)."""
    rng = np.random.default_rng(seed)
    truth = _inks()
    card = np.zeros((len(truth), 3))
    for ink, colour in INKS_BGR.items():
        card[truth == ink] = colour
    card = card * fall[:, None] + rng.normal(0, 2.0, card.shape)
    tops = np.array(TOP_BGR) * fall[:, None] + rng.normal(0, 2.0, card.shape)
    return truth, _lab(card), _lab(tops)


def _wrong(truth: np.ndarray, names: np.ndarray) -> int:
    read = names != UNKNOWN_GROUND
    return int((read & (names != truth)).sum())


@pytest.mark.parametrize("seed", [3, 7])
def test_a_stretch_of_light_green_the_lamp_leaves_dim_is_read_light_green(seed: int) -> None:
    """The light falls off to well under half across the board (development map 51198:
    light green L* 33-37 on the dim side, 44-47 on the lit one): the dim light green is
    as dark as the lit dark green and is named dark green. Evened against the stud
    tops round each stud, the inks read as under an even light."""
    fall = np.linspace(0.45, 1.15, 32)[np.arange(1024) % 32]
    truth, card, tops = _board(fall, seed)
    top = np.median(tops, axis=0)
    lit = np.ones(len(card), bool)
    plain = name_cells(card, top)
    even = name_cells(evened(card, tops, lit), top)
    assert _wrong(truth, plain) > 40  # the dim light green read as dark green
    assert _wrong(truth, even) == 0
    assert (even != UNKNOWN_GROUND).sum() > 0.9 * (plain != UNKNOWN_GROUND).sum()


def test_an_evenly_lit_board_keeps_its_colours() -> None:
    """Where the light varies less than ``LIGHT_FALL_OFF`` across the board, scaling
    would only add the tops' own noise to the card's colours."""
    fall = np.linspace(1.05, 0.95, 32)[np.arange(1024) % 32]
    _, card, tops = _board(fall, 5)
    assert np.array_equal(evened(card, tops, np.ones(len(card), bool)), card)


def test_a_dimmed_stretch_is_brought_to_the_typical_light(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dimming scales L* + 16 and a*, b* by the same factor: a stretch lit at 0.6 comes
    most of the way back to the colour it shows in the typical light (not all of it:
    the camera's values are gamma-encoded, and the tops' and the ink's fall-off differ a
    little there)."""
    monkeypatch.setattr(map_light, "LIGHT_FALL_OFF", 1.0)
    fall = np.where(np.arange(1024) % 32 < 12, 0.6, 1.0)
    rng = np.random.default_rng(1)
    colour = np.array(INKS_BGR["L"])
    card = _lab(colour * fall[:, None] + rng.normal(0, 1.0, (1024, 3)))
    tops = _lab(np.array(TOP_BGR) * fall[:, None] + rng.normal(0, 1.0, (1024, 3)))
    out = evened(card, tops, np.ones(1024, bool))
    lit_colour = _lab(colour[None])[0]
    deep = np.arange(1024) % 32 < 6  # far enough from the stretch's edge
    dimmed = np.linalg.norm(np.median(card[deep], axis=0) - lit_colour)
    assert dimmed > 30
    assert np.linalg.norm(np.median(out[deep], axis=0) - lit_colour) < 0.5 * dimmed
