"""A webcam knocked between the picture before and the picture after a turn: the frame
before brought to where the frame after sees the board (`vision.views.aligned_before`),
turns read right through it, and the simulated table knocking its webcam."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation
from rules import Axis, Kind, Palace, Piece, load_map
from rules.pieces import built_keys
from twin import RenderOptions, orbit_pose, render
from twin.cameras import random_camera, turned_picture, turned_webcam
from twin.table import SimulatedTable
from twin.table_settings import TableSettings
from vision import read_turn
from vision.views import aligned_before, board_box


@pytest.fixture(scope="module")
def scene() -> tuple[Camera, Pose, Palace, list[Piece]]:
    camera, _ = random_camera(np.random.default_rng(8))
    pose = orbit_pose(50.0, 200.0, 560.0)
    before = Palace.setup(load_map("1"))
    # An arch beside the starting staircase's brick, a brick, an arch up onto both, and
    # the decoration of the starting stud's ground (map 1's dark green there).
    ground = load_map("1")
    assert ground.ground[15][19] == "D"
    added = [Piece(Kind.ARCH, 19, 15, 0, axis=Axis.X), Piece(Kind.BRICK, 25, 15, 0),
             Piece(Kind.ARCH, 22, 15, 1, axis=Axis.X),
             Piece(Kind.DECORATION, 25, 15, 2, color="dark_green")]
    return camera, pose, before, added


def located(camera: Camera, pose: Pose) -> BoardLocation:
    return BoardLocation(True, pose=pose, rotation=0, camera=camera)


def test_the_frame_before_is_brought_to_where_the_frame_after_sees_the_board(scene) -> None:
    camera, pose, palace, _ = scene
    options = RenderOptions(clutter=False, color_jitter=0.0, noise=0.0)
    then = render(palace, camera, pose, options, seed=2).image
    moved = turned_webcam(pose, 0.3, -0.2)
    now = render(palace, camera, moved, options, seed=2).image
    box = board_box(camera, moved, 4)
    assert box is not None
    x0, y0, x1, y1 = box

    def differs(image: np.ndarray) -> float:
        return float(np.abs(image[y0:y1, x0:x1].astype(np.float32)
                            - now[y0:y1, x0:x1].astype(np.float32)).mean())

    aligned = aligned_before(then, camera, pose, camera, moved, box)
    print(f"mean difference: as taken {differs(then):.2f}, aligned {differs(aligned):.2f}")
    assert differs(aligned) < 0.35 * differs(then)
    # Outside the box the picture is left as it was; two poses within their own noise
    # leave the whole picture untouched.
    assert np.array_equal(aligned[:y0], then[:y0])
    same = aligned_before(then, camera, pose, camera, turned_webcam(pose, 0.001, 0.0), box)
    assert same is then


def test_a_turn_is_read_right_through_a_knocked_webcam(scene) -> None:
    camera, pose, before, added = scene
    after = before.copy()
    for piece in added:
        after.place(piece)
    options = RenderOptions(clutter=False, color_jitter=0.0)
    moved = turned_webcam(pose, 0.25, 0.15)
    then = render(before, camera, pose, options, seed=4).image
    now = render(after, camera, moved, options, seed=4).image
    aligned = read_turn([now], camera, before, before_frame=then,
                        before_locations=located(camera, pose),
                        locations=[located(camera, moved)])
    assert aligned.found
    assert built_keys(aligned.pieces) == built_keys(tuple(added))
    # Compared as taken, the knock's edges read as something else.
    as_taken = read_turn([now], camera, before, before_frame=then,
                         locations=[located(camera, moved)])
    assert built_keys(as_taken.pieces) != built_keys(tuple(added))


def test_the_simulated_table_knocks_its_first_webcam_while_a_turn_is_built() -> None:
    def poses(settings: TableSettings) -> list[tuple[int, Pose, str]]:
        table = SimulatedTable(seed=3, turns=2, settings=settings)
        return [(f.turns_done, f.pose, f.phase) for f in table]

    plain = poses(TableSettings(move_chance=0.0))
    knocks = poses(TableSettings(move_chance=0.0, webcam_bump_deg=0.4))
    assert len(plain) == len(knocks)
    angles = []
    for (done, a, _), (_, b, phase) in zip(plain, knocks, strict=True):
        relative = b.rotation @ a.rotation.T
        angle = math.degrees(float(np.arccos(np.clip((np.trace(relative) - 1) / 2, -1, 1))))
        angles.append((done, phase, angle))
        assert angle <= 0.4 + 1e-6
    # Still at the set-up, knocked once a player builds, and still knocked afterwards.
    assert all(angle < 1e-9 for done, phase, angle in angles if done == 0 and phase == "still")
    assert any(angle > 0.01 for done, phase, angle in angles if phase == "hands")
    # A table that is not knocked is the table it always was.
    assert all(np.allclose(a.tvec, b.tvec) for (_, a, _), (_, b, _) in zip(
        plain, poses(TableSettings(move_chance=0.0)), strict=True))


def test_the_simulated_table_pushes_its_board_while_a_turn_is_built() -> None:
    def frames(settings: TableSettings) -> list[tuple[int, str, Pose]]:
        return [(f.turns_done, f.phase, f.pose)
                for f in SimulatedTable(seed=3, turns=2, settings=settings)]

    plain = frames(TableSettings(move_chance=0.0))
    pushed = frames(TableSettings(move_chance=0.0, board_push_mm=8.0))
    middle = np.array([[128.0, 128.0, 0.0]])
    shifts = [(done, phase, float(np.linalg.norm(b.to_camera(middle) - a.to_camera(middle))))
              for (done, phase, a), (_, _, b) in zip(plain, pushed, strict=True)]
    assert all(shift < 1e-6 for done, phase, shift in shifts if done == 0 and phase == "still")
    assert any(shift > 1.0 for _, phase, shift in shifts if phase == "hands")
    # Pushed twice at most 8 mm each (and turned a little about the middle).
    assert max(shift for _, _, shift in shifts) <= 16.0 + 1e-6


def test_a_turned_webcams_picture_is_the_picture_resampled(scene) -> None:
    """What `bench.vision`'s knocked set stands on: a webcam's turn about its centre
    moves every point alike, so the picture it takes is the old one resampled through
    the lens (but for the strip that comes into view at the border)."""
    camera, pose, palace, _ = scene
    options = RenderOptions(clutter=False, color_jitter=0.0, noise=0.0)
    moved = turned_webcam(pose, 0.4, 0.3)
    rendered = render(palace, camera, moved, options, seed=2).image.astype(np.float32)
    resampled = turned_picture(render(palace, camera, pose, options, seed=2).image, camera,
                               0.4, 0.3).astype(np.float32)
    box = board_box(camera, moved, 4)
    assert box is not None
    x0, y0, x1, y1 = box
    inside = np.abs(rendered - resampled)[y0:y1, x0:x1].mean()
    as_taken = np.abs(rendered - render(palace, camera, pose, options, seed=2).image
                      .astype(np.float32))[y0:y1, x0:x1].mean()
    print(f"mean difference: resampled {inside:.2f}, the picture as taken {as_taken:.2f}")
    assert inside < 0.3 * as_taken
