"""A patch of too few studs of one name is no region of the map: it is left unknown."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import calibration.map_regions as map_regions
from calibration.camera import Pose
from calibration.map_read import ViewRead, read_cells
from calibration.map_regions import small_patches
from rules.maps import UNKNOWN_GROUND

INKS_BGR = {"L": (70.0, 170.0, 120.0), "D": (45.0, 90.0, 40.0)}


def test_patches_under_four_studs_are_found_eight_connected() -> None:
    cells = np.full((32, 32), "L")
    cells[:, 16:] = "D"  # two regions: kept
    cells[5, 20:22] = "L"  # two studs of light green inside dark green
    cells[10, 20], cells[11, 21], cells[12, 22] = "L", "L", "L"  # a diagonal three
    cells[20:22, 20:22] = "X"  # a blocked area of four studs: a region
    cells[25, 25] = UNKNOWN_GROUND  # unknown is no patch
    small = small_patches(cells)
    assert small[5, 20:22].all() and small[10, 20] and small[11, 21] and small[12, 22]
    assert not small[20:22, 20:22].any() and not small[25, 25]
    assert small.sum() == 5
    assert not small_patches(cells, 2)[5, 20:22].any()


def _speckled_board(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A light and a dark green half, with pairs and triples of dark green studs lifted to
    light green's colour (a glossy card's sheen, cell by cell), and the truth."""
    rng = np.random.default_rng(seed)
    truth = np.full((32, 32), "L")
    truth[:, 16:] = "D"
    printed = truth.copy()
    for y in range(3, 29, 4):  # apart: no two touch
        x = int(rng.integers(19, 27))
        printed[y, x:x + int(rng.integers(2, 4))] = "L"
    bgr = np.array([INKS_BGR[c] for c in printed.reshape(-1)])
    bgr += rng.normal(0, 2.0, bgr.shape)
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2LAB)[0]
    return lab.astype(np.float64), (printed != truth).reshape(-1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_speckles_of_another_ink_read_unknown_not_wrong(monkeypatch: pytest.MonkeyPatch,
                                                         seed: int) -> None:
    """Two or three studs together vouch for each other, so the lone-stud checks pass
    them: without the patch size they are read as the wrong ink."""
    lab, speckled = _speckled_board(seed)
    view = ViewRead(Pose(np.zeros(3), np.array([0.0, 0.0, 500.0])), lab, np.ones(1024, bool))
    got = read_cells([view]).reshape(-1)
    assert (got[speckled] == UNKNOWN_GROUND).all()
    truth = np.where(np.arange(1024) % 32 < 16, "L", "D")
    known = got != UNKNOWN_GROUND
    assert (got[known] == truth[known]).all() and known.sum() > 800
    monkeypatch.setattr(map_regions, "MIN_PATCH", 1)
    unpatched = read_cells([view]).reshape(-1)
    assert (unpatched[speckled] == "L").mean() > 0.5  # read wrong without the check
