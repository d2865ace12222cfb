"""The pose without a known map: the map only says which way round, and only when right."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from calibration.board_model import stud_centres, turned_pose, view_rotation
from calibration.camera import project
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from calibration.tracking import BoardTracker
from calibration.turn import agreements, map_explains, map_labels, null_labelings
from rules.maps import load_map
from rules.palace import Palace
from rules.random_map import random_map
from twin import RenderOptions, random_camera, render

WRONG_PX = 2.0


@functools.lru_cache(maxsize=4)
def frame_of(seed: int):
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng)
    return render(Palace(ground, ground.setup), camera, pose, RenderOptions(), seed=seed), ground


def errors(frame, result: BoardLocation) -> list[float]:
    studs = stud_centres()
    want = project(frame.camera, frame.pose, studs)
    return [float(np.median(np.linalg.norm(
        project(frame.camera, turned_pose(result.pose, k), studs) - want, axis=1)))
        for k in range(4)]


@pytest.mark.parametrize("seed", [1, 2])
def test_right_map_resolves_the_turn(seed: int) -> None:
    frame, ground = frame_of(seed)
    result = locate_board(frame.image, frame.camera, ground)
    assert result.found and result.turn_resolved
    assert errors(frame, result)[0] < WRONG_PX
    assert result.to_json()["turn_resolved"] is True


@pytest.mark.parametrize("seed", [1, 2])
def test_wrong_map_or_none_gives_the_pose_with_the_turn_unresolved(seed: int) -> None:
    frame, _ = frame_of(seed)
    for given in (load_map("1"), random_map(np.random.default_rng(seed + 500)), None):
        result = locate_board(frame.image, frame.camera, given)
        assert result.found, result.reason
        assert not result.turn_resolved
        # Right up to a quarter turn: never whole studs off.
        assert min(errors(frame, result)) < WRONG_PX
        # The unresolved turn is a fixed choice: row y = 0 faces the camera.
        assert result.rotation == 0 == view_rotation(frame.camera, result.pose)


def test_tracker_without_a_map_keeps_the_board_and_its_turn() -> None:
    frame, _ = frame_of(1)
    first = locate_board(frame.image, frame.camera)
    tracker = BoardTracker(frame.camera, None, first)
    result = tracker.update(frame.image)
    assert result.found and not result.turn_resolved and not tracker.turned
    assert errors(frame, result) == pytest.approx(errors(frame, first), abs=0.5)


def test_unrelated_layouts_do_not_explain_a_card() -> None:
    """The null the map must beat: on a card's true labels the right map explains nearly
    every cell, unrelated layouts far fewer."""
    ground = random_map(np.random.default_rng(3), start_area=False)
    labels = map_labels(ground)
    palette = np.array([[150, 100, 160], [90, 110, 150], [180, 135, 175], [120, 128, 128]])
    rng = np.random.default_rng(0)
    colours = palette[labels] + rng.normal(0, 3, (len(labels), 3))
    right = float(agreements(colours, labels[None])[0])
    null = float(agreements(colours, null_labelings()).max())
    assert right > 0.98
    assert map_explains(right, null)
    assert not map_explains(null, null)
