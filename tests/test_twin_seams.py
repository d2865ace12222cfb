"""Seams: a dark line at the joints of stacked pieces, none inside a column, and with
the switch off the frames are what they were."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import twin.renderer as renderer
from rules.pieces import BRICK_MM, Kind, Piece
from rules.scene import Scene
from twin import RenderOptions, render
from twin.cameras import random_camera
from twin.lens import lens_for
from twin.piece_light import board_points
from twin.seams import CELL_KEY, SeamLook, joint_cells

STACK = [Piece(Kind.BRICK, 12, 12, z, color="tan", id=f"b{z}") for z in range(3)]
COLUMN = Piece(Kind.COLUMN, 15, 12, 0, color="tan", id="c")


@pytest.fixture
def plain_look(monkeypatch: pytest.MonkeyPatch) -> SeamLook:
    look = SeamLook(darkness=0.5, width_mm=0.5)
    monkeypatch.setattr(SeamLook, "random", classmethod(lambda cls, rng: look))
    return look


def test_joints_are_where_a_piece_stands_on_another() -> None:
    below, above = joint_cells((*STACK, COLUMN))
    # The two upper bricks stand on the one under them; the column stands on the board.
    assert sorted((below // CELL_KEY**2).tolist()) == [1, 2]
    assert sorted((above // CELL_KEY**2).tolist()) == [0, 1]


def test_a_stack_gets_dark_joints_and_a_column_none(plain_look: SeamLook) -> None:
    scene = Scene.of([*STACK, COLUMN])
    camera, pose = random_camera(np.random.default_rng(3), elevation_deg=(30.0, 40.0),
                                 fill=(1.5, 2.0))
    # No noise, blur or JPEG: the pixels the seams change are the ones they darken.
    sharp = RenderOptions(wide=True, noise=0.0, blur=0.0, jpeg_quality=0)
    off = render(scene, camera, pose, replace(sharp, seams=False), seed=5)
    on = render(scene, camera, pose, replace(sharp, seams=True), seed=5)
    assert np.array_equal(off.piece_ids, on.piece_ids)
    assert np.array_equal(off.parts, on.parts)
    changed = (off.image != on.image).any(axis=2)
    bricks = [i for i, p in enumerate(on.pieces) if p.id in {"b0", "b1", "b2"}]
    column = next(i for i, p in enumerate(on.pieces) if p.id == "c")
    assert changed.sum() > 20
    assert np.isin(on.piece_ids[changed], bricks).all()
    assert not changed[on.piece_ids == column].any()
    # The changed pixels lie at the joints, one and two bricks up, and are darker.
    ys, xs = np.nonzero(changed)
    points = board_points(lens_for(camera, True), pose, ys, xs, on.depth[ys, xs])
    to_joint = np.abs(points[:, 2, None] - BRICK_MM * np.array([1.0, 2.0])[None, :])
    assert to_joint.min(axis=1).max() < 2.5
    assert (on.image[changed].astype(int).sum(1) < off.image[changed].astype(int).sum(1)
            ).mean() > 0.9


def test_seams_come_with_the_wide_look_and_off_nothing_of_them_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    scene = Scene.of(STACK)
    camera, pose = random_camera(np.random.default_rng(8), 640, 360)
    wide = render(scene, camera, pose, RenderOptions(wide=True), seed=4)
    assert wide.settings["seams"] is not None
    assert render(scene, camera, pose, RenderOptions(), seed=4).settings["seams"] is None
    before = render(scene, camera, pose, RenderOptions(wide=True, seams=False), seed=4)

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("seams ran with the switch off")

    monkeypatch.setattr(renderer, "draw_seams", refuse)
    monkeypatch.setattr(renderer.SeamLook, "random", staticmethod(refuse))
    off = render(scene, camera, pose, RenderOptions(wide=True, seams=False), seed=4)
    assert np.array_equal(before.image, off.image)
    assert not np.array_equal(wide.image, off.image)
