"""The stud lattice's first look high-passed: windows a map region's edge or a shadow
crosses read their repeats short unless the broad hump round zero lag is taken off."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from bench.calibration import twin_frame
from calibration import lattice_patches as patches_module
from calibration.camera import rays_through
from calibration.evidence import gray_float
from calibration.lattice_patches import DENSE_STRIDE_PX, lattice_patches
from calibration.lattice_plane import misfit, steps_of
from calibration.lattice_pose import lattice_poses
from calibration.pose import locate_board
from tests.calibration_frames import found_right

READ_RIGHT = 0.08
"""A window reads the lattice right when its steps lie within this share of the truth's
(the plane fit's own inlier tolerance, ``lattice_plane.INLIER_MISFIT``)."""


def _read_right(seed: int, high_pass: bool) -> tuple[int, int]:
    """How many windows of the first look read the true steps, of how many."""
    frame = twin_frame(seed).frame
    gray = gray_float(frame.image)
    found = lattice_patches(gray, high_pass=high_pass)
    centres = np.array([p.centre for p in found])
    steps = np.array([p.steps for p in found])
    rays = rays_through(frame.camera, centres)
    off = misfit(steps, steps_of(frame.camera, [frame.pose], rays))[0]
    return int((off < READ_RIGHT).sum()), len(found)


def test_high_passed_windows_read_a_shaded_boards_steps() -> None:
    # Dev 3000, 17 px a stud, light regions of the map across most windows: plain, 4 of
    # 14 windows read the steps (a plane needs 6), high-passed 7.
    plain, _ = _read_right(3000, high_pass=False)
    high, _ = _read_right(3000, high_pass=True)
    assert plain < 6 <= high
    frame = twin_frame(3000).frame
    gray = gray_float(frame.image)
    assert list(lattice_poses(gray, frame.camera))


def test_the_dense_look_stays_plain() -> None:
    """High-passed, the dense look of a small board (dev 3073) fitted no plane; the
    first look's default is high-passed, the dense look's plain."""
    frame = twin_frame(3073).frame
    gray = gray_float(frame.image)
    dense = lattice_patches(gray, DENSE_STRIDE_PX)
    plain = lattice_patches(gray, DENSE_STRIDE_PX, high_pass=False)
    assert len(dense) == len(plain)
    assert all(np.array_equal(a.steps, b.steps) for a, b in zip(dense, plain, strict=True))
    found_right(frame)


@pytest.mark.parametrize("seed", [20092])
def test_a_board_the_plain_first_look_missed_is_found(seed: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    frame = twin_frame(seed).frame
    found_right(frame)
    plain = patches_module.lattice_patches

    def unfiltered(*args: Any, **kwargs: Any) -> Any:
        kwargs["high_pass"] = False
        return plain(*args, **kwargs)

    monkeypatch.setattr("calibration.lattice_pose.lattice_patches", unfiltered)
    monkeypatch.setattr("calibration.pose.lattice_patches", unfiltered)
    assert not locate_board(frame.image, frame.camera, None).found
