"""Deep shadows: the card darkens under arches and in a tower's cast shadow, labels and
the rest of the frame's draws stay, and with the switch off nothing changes."""

from __future__ import annotations

import numpy as np

from rules.pieces import Axis, Kind, Piece
from rules.scene import Scene
from twin import RenderOptions, orbit_pose, random_camera, render, renderer
from twin.board import SHADOW_MARGIN_MM, SHADOW_PX_PER_MM
from twin.deep_shadows import DeepShadows, ground_occlusion
from twin.mesh import PART_CARD
from twin.renderer import _piece_geometry
from twin.shading import Light

LOOK = DeepShadows(hardness=1.0, room=0.5, softness_mm=0.3, occlusion=0.4, blur_mm=5.0,
                   under=0.7)


def _at(lost: np.ndarray, x_mm: float, y_mm: float) -> float:
    return float(lost[int((y_mm + SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM),
                      int((x_mm + SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM)])


def test_the_card_under_an_arch_loses_the_room_and_the_open_card_keeps_it():
    arch = Piece(Kind.ARCH, 10, 10, 0, axis=Axis.X, color="tan", id="a")
    lost = ground_occlusion([_piece_geometry(arch).verts], LOOK, SHADOW_MARGIN_MM,
                            SHADOW_PX_PER_MM)
    x0, y0, x1, y1 = (v * 8.0 for v in (10, 10, 14, 11))  # the arch's 4 x 1 outline
    middle = _at(lost, (x0 + x1) / 2, (y0 + y1) / 2)
    assert middle >= LOOK.under - 0.02
    assert _at(lost, x1 + 4.0, (y0 + y1) / 2) < middle  # beside it: less
    assert _at(lost, 200.0, 200.0) == 0.0  # far away: the whole room
    assert lost.shape == (int((256 + 2 * SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM),) * 2


def test_deepened_light_keeps_less_of_the_lamp_and_the_room_in_shadow():
    light = Light(shadow=0.6, ambient=0.4, softness_mm=2.0)
    deep = LOOK.deepen(light)
    assert deep.shadow > light.shadow and deep.ambient < light.ambient
    assert deep.softness_mm == LOOK.softness_mm
    soft = DeepShadows(0.0, 1.0, 2.0, 0.0, 5.0, 0.1).deepen(light)
    assert soft.shadow == light.shadow and soft.ambient == light.ambient  # as drawn
    draws = [DeepShadows.random(np.random.default_rng(s)) for s in range(200)]
    hard = [d.hardness for d in draws]
    assert min(hard) < 0.1 and max(hard) > 0.9  # from as drawn to very hard


def _tower_frames(deep: bool, seed: int) -> tuple:
    tower = Scene.of([Piece(Kind.BRICK, 14, 14, z, axis=Axis.X, color="white", id=f"b{z}")
                      for z in range(4)])
    camera, _ = random_camera(np.random.default_rng(3), 640, 360)
    pose = orbit_pose(60.0, 30.0, 300.0)
    options = {"wide": True, "noise": 0.0, "blur": 0.0, "jpeg_quality": 0, "clutter": False,
               "color_jitter": 0.0,
               "deep_shadows": deep}
    empty = render(Scene.of([]), camera, pose, RenderOptions(**options), seed=seed)
    built = render(tower, camera, pose, RenderOptions(**options), seed=seed)
    return empty, built


def test_a_towers_shadow_on_the_card_is_darker_with_deep_shadows():
    # The darkest of the card against the card without the tower, over a few frames'
    # draws (a frame may draw a soft light either way).
    darkest = {False: [], True: []}
    for seed in range(11, 17):
        for deep in (False, True):
            empty, built = _tower_frames(deep, seed)
            card = (empty.parts == PART_CARD) & (built.parts == PART_CARD)
            ratio = ((built.image.astype(float).mean(2) + 1)
                     / (empty.image.astype(float).mean(2) + 1))
            darkest[deep].append(float(np.sort(ratio[card])[10]))
    assert np.mean(darkest[True]) < np.mean(darkest[False]) - 0.05
    assert all(d <= p + 0.01 for d, p in zip(darkest[True], darkest[False], strict=True))


def test_the_switch_moves_pictures_not_labels_and_off_is_as_before():
    scene = Scene.of([Piece(Kind.ARCH, 12, 12, 0, axis=Axis.Y, color="tan", id="a"),
                      Piece(Kind.BRICK, 12, 12, 1, axis=Axis.X, color="white", id="b",
                            )])
    camera, pose = random_camera(np.random.default_rng(8), 640, 360)
    plain = render(scene, camera, pose, RenderOptions(wide=True), seed=4)
    deep = render(scene, camera, pose, RenderOptions(wide=True, deep_shadows=True), seed=4)
    assert np.array_equal(plain.piece_ids, deep.piece_ids)
    assert np.array_equal(plain.parts, deep.parts)
    assert not np.array_equal(plain.image, deep.image)
    assert deep.settings["deep_shadows"] and not plain.settings["deep_shadows"]


def test_with_the_switch_off_nothing_of_it_runs(monkeypatch):
    """Off, no deep-shadow draw nor map is made, and the frame's own random streams are
    the ones they were: the benches' frames stay bit for bit what they were."""
    scene = Scene.of([Piece(Kind.ARCH, 12, 12, 0, axis=Axis.Y, color="tan", id="a")])
    camera, pose = random_camera(np.random.default_rng(8), 640, 360)
    before = render(scene, camera, pose, RenderOptions(wide=True, room_light=True), seed=4)

    def refuse(*_args, **_kwargs):
        raise AssertionError("deep shadows ran with the switch off")

    monkeypatch.setattr(renderer.DeepShadows, "random", staticmethod(refuse))
    monkeypatch.setattr(renderer, "ground_occlusion", refuse)
    monkeypatch.setattr(renderer, "deepen_contact", refuse)
    off = render(scene, camera, pose, RenderOptions(wide=True, room_light=True), seed=4)
    assert np.array_equal(before.image, off.image)
