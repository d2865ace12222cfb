"""A patch of too few studs of one name, two colour groups scattered through each other,
and a small group scattered in lone cells are no regions of the map: they are left
unknown, the last left out of the naming too."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import calibration.map_regions as map_regions
from calibration.camera import Pose
from calibration.map_inks import name_groups
from calibration.map_read import ViewRead, read_cells
from calibration.map_regions import interleaved, named_regions, scattered_groups, small_patches
from rules.maps import UNKNOWN_GROUND

INKS_BGR = {"L": (70.0, 170.0, 120.0), "D": (45.0, 90.0, 40.0)}


def test_patches_under_three_studs_are_found_eight_connected() -> None:
    cells = np.full((32, 32), "L")
    cells[:, 16:] = "D"  # two regions: kept
    cells[5, 20:22] = "L"  # two studs of light green inside dark green
    cells[10, 20], cells[11, 21] = "L", "L"  # two touching at a corner
    cells[15, 20], cells[16, 21], cells[17, 22] = "L", "L", "L"  # a diagonal three: kept
    cells[20:22, 20:22] = "X"  # a blocked area of four studs: a region
    cells[25, 25] = UNKNOWN_GROUND  # unknown is no patch
    small = small_patches(cells)
    assert small[5, 20:22].all() and small[10, 20] and small[11, 21]
    assert not small[15:18, 20:23].any() and not small[20:22, 20:22].any()
    assert small.sum() == 4
    assert not small_patches(cells, 2)[5, 20:22].any()
    assert small_patches(cells, 4)[15, 20]


def _speckled_board(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A light and a dark green half, with pairs of dark green studs lifted to light
    green's colour (a glossy card's sheen, cell by cell), and the studs so lifted."""
    rng = np.random.default_rng(seed)
    truth = np.full((32, 32), "L")
    truth[:, 16:] = "D"
    printed = truth.copy()
    for y in range(3, 29, 4):  # apart: no two touch
        x = int(rng.integers(19, 27))
        printed[y, x:x + 2] = "L"
    bgr = np.array([INKS_BGR[c] for c in printed.reshape(-1)])
    bgr += rng.normal(0, 2.0, bgr.shape)
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2LAB)[0]
    return lab.astype(np.float64), (printed != truth).reshape(-1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_speckles_of_another_ink_read_unknown_not_wrong(monkeypatch: pytest.MonkeyPatch,
                                                         seed: int) -> None:
    """Two studs together vouch for each other, so the lone-stud checks pass them:
    without the patch size they are read as the wrong ink."""
    lab, speckled = _speckled_board(seed)
    view = ViewRead(Pose(np.zeros(3), np.array([0.0, 0.0, 500.0])), lab, np.ones(1024, bool))
    got = read_cells([view])[0].reshape(-1)
    assert (got[speckled] == UNKNOWN_GROUND).all()
    truth = np.where(np.arange(1024) % 32 < 16, "L", "D")
    known = got != UNKNOWN_GROUND
    assert (got[known] == truth[known]).all() and known.sum() > 800
    monkeypatch.setattr(map_regions, "MIN_PATCH", 1)
    unpatched = read_cells([view])[0].reshape(-1)
    assert (unpatched[speckled] == "L").mean() > 0.5  # read wrong without the check


def _grid_labels(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cells = np.flatnonzero(grid.reshape(-1) >= 0)
    return grid.reshape(-1)[cells].astype(np.int32), cells


def test_groups_scattered_through_each_other_are_interleaved() -> None:
    """Groups of regions meet along their borders, even a strip two studs wide; two
    groups drawn cell by cell at random over one region meet as often as chance."""
    rng = np.random.default_rng(3)
    grid = np.zeros((32, 32), int)
    grid[:, 20:] = 1
    grid[10:12, :20] = 2  # a strip two studs wide
    grid[25:28, 3:6] = 3  # nine cells: too few to count
    labels, cells = _grid_labels(grid)
    assert not interleaved(labels, cells).any()
    mixed = grid.copy()
    region = mixed == 1
    mixed[region] = np.where(rng.random(region.sum()) < 0.4, 4, 1)  # one ink cut in two
    mixed[0:4, :] = -1  # unread cells count for nothing
    labels, cells = _grid_labels(mixed)
    out = interleaved(labels, cells)
    assert out[np.isin(labels, (1, 4))].all()
    assert not out[np.isin(labels, (0, 2, 3))].any()


def _regions_and_specks() -> tuple[np.ndarray, np.ndarray]:
    """Board cells and colour groups: two regions side by side (groups 0 and 1) and
    group 2 in lone cells strewn over them (about 6 % of the cells, none touching)."""
    cells, labels = [], []
    for y in range(32):
        for x in range(20):
            speck = (y * 7 + x * 3) % 23 == 0 and x > 4
            cells.append(y * 32 + x)
            labels.append(2 if speck else 0 if x < 12 else 1)
    return np.array(cells), np.array(labels, np.int32)


def test_a_small_group_in_lone_cells_is_scattered_a_small_region_is_not() -> None:
    cells, labels = _regions_and_specks()
    assert scattered_groups(labels, cells).tolist() == [False, False, True]
    compact = labels.copy()
    compact[labels == 2] = 0
    compact[(cells // 32 < 4) & (cells % 32 < 8)] = 2  # a region of 32 cells, 5 %
    assert scattered_groups(compact, cells).tolist() == [False, False, False]
    one = np.zeros(len(cells), np.int32)
    assert not scattered_groups(one, cells).any()


def test_a_scattered_group_does_not_pull_the_naming_of_the_regions() -> None:
    """51172's palace views: light green beside gold and 20 lone cells more colourful
    than either; named with the lone cells, light green took dark green's name and the
    lone cells light green's."""
    cells, labels = _regions_and_specks()
    centres = np.array([[39.4, -30.5, 28.0], [49.2, -4.5, 43.0], [50.0, -35.8, 47.0]])
    lab = centres[labels] + np.random.default_rng(1).normal(0, 1.0, (len(labels), 3))
    top = np.array([49.4, -39.0, 18.0])
    pulled = name_groups(lab, labels, top)
    assert pulled[labels == 0][0] == "D" and pulled[labels == 2][0] == "L"
    named = named_regions(lab, labels, cells, top)
    assert (named[labels == 0] == "L").all() and (named[labels == 1] == "G").all()
    assert (named[labels == 2] == UNKNOWN_GROUND).all()
