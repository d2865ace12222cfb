"""Full mode's local search (vision.pick, weighed by vision.agreement): pieces the greedy
parse got wrong, picked again by what the four views would show."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from calibration.board_model import turned_pose
from rules import Axis, Kind, Palace, Piece, load_map
from rules.pieces import place_key
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision import agreement
from vision.agreement import Search
from vision.carve import ViewData, balanced, carve, view_data
from vision.full import corners_only
from vision.pick import picked

A = Piece(Kind.ARCH, 10, 12, 0, axis=Axis.X, color="tan")
B = Piece(Kind.ARCH, 14, 12, 0, axis=Axis.X, color="reddish_brown")
D = Piece(Kind.ARCH, 20, 18, 0, axis=Axis.Y, color="tan")
C = Piece(Kind.BRICK, 20, 18, 1, color="dark_orange")
BRIDGE = Piece(Kind.ARCH, 12, 12, 0, axis=Axis.X)
"""An arch over A's and B's touching ends: the carving holds it as surely as them."""
TURNED = Piece(Kind.ARCH, 17, 18, 0, axis=Axis.X)
"""An arch a quarter turn off D, sharing D's leg that C stands on."""


Scene = tuple[Palace, list[ViewData]]


@pytest.fixture(scope="module")
def scene() -> Scene:
    ground = load_map("1")
    palace = corners_only(ground)
    for p in (A, B, D, C):
        palace.place(p)
    cam, pose = random_camera(np.random.default_rng(7), elevation_deg=(45.0, 55.0))
    poses = [turned_pose(pose, k) for k in range(4)]
    views = []
    for k, p in enumerate(poses):
        frame = render(palace, cam, p, RenderOptions(clutter=False), seed=k).image
        vd = view_data(frame, cam, p, ground)
        assert vd is not None
        views.append(vd)
    return palace, balanced(views)


def _pick(views: list[ViewData], reading: Sequence[Piece]) -> set[tuple[object, ...]]:
    """The search's reading from ``reading`` with D and C read right."""
    palace = corners_only(load_map("1"))
    placed = [palace.place(p.moved(color="")) for p in (D, C, *reading)]
    return {place_key(p) for p in picked(views, carve(views), palace, placed, time_limit=60.0)}


def test_an_arch_bridging_two_arches_ends_gives_way_to_both(scene: Scene) -> None:
    """The bridge leaves A's and B's outer halves bare; one move puts a true arch in its
    place and the other in the space it leaves."""
    _, views = scene
    assert _pick(views, [BRIDGE]) == {place_key(A), place_key(B), place_key(D), place_key(C)}


def test_the_bridge_shows_two_colours_and_a_true_arch_one(scene: Scene) -> None:
    _, views = scene
    spread: dict[Piece, float] = {}
    for piece in (BRIDGE, B):
        palace = corners_only(load_map("1"))
        placed = palace.place(piece.moved(color=""))
        search = Search(views, palace, [placed])
        spread[piece] = search.spread()[placed.id]
    assert spread[BRIDGE] > 2 * spread[B]


def test_the_colours_weigh_against_the_bridge(scene: Scene,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Swapping the bridge for a true arch gains more with the colours weighed."""
    _, views = scene
    gains = []
    for weight in (0.0, agreement.COLOUR_WEIGHT):
        monkeypatch.setattr(agreement, "COLOUR_WEIGHT", weight)
        palace = corners_only(load_map("1"))
        placed = palace.place(BRIDGE)
        search = Search(views, palace, [placed])
        slot = next(s for s, p in search.slots.items() if p.id == placed.id)
        gains.append(search.gain([slot], [B]))
    assert gains[1] > gains[0] + 20


def test_a_piece_resting_on_a_misread_arch_is_put_back_on_the_right_one(scene: Scene) -> None:
    """The arch a quarter turn off shares the leg that the brick stands on: swapping it
    for the true arch takes the brick off and puts it back on the same knob."""
    _, views = scene
    palace = corners_only(load_map("1"))
    placed = [palace.place(p.moved(color="")) for p in (A, B, TURNED, C)]
    got = {place_key(p) for p in picked(views, carve(views), palace, placed, time_limit=60.0)}
    assert got == {place_key(A), place_key(B), place_key(D), place_key(C)}


def test_the_true_palace_is_left_as_it_is(scene: Scene) -> None:
    _, views = scene
    assert _pick(views, [A, B]) == {place_key(A), place_key(B), place_key(D), place_key(C)}
