"""Full mode's local search (vision.pick, weighed by vision.agreement): pieces the greedy
parse got wrong, picked again by what the four views would show."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rules import Axis, Kind, Piece, load_map
from rules.pieces import place_key
from tests.full_views import Scene, four_views
from vision import agreement
from vision.agreement import Search
from vision.carve import ViewData, carve
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


@pytest.fixture(scope="module")
def scene() -> Scene:
    return four_views((A, B, D, C), camera_seed=7)


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


def test_each_piece_is_drawn_once_a_view_whatever_its_id(scene: Scene) -> None:
    """The search weighs the same candidates move after move: a piece's boxes are kept
    by what draws it, so a copy with another id finds them, an arch turned does not."""
    _, views = scene
    palace = corners_only(load_map("1"))
    search = Search(views, palace, [palace.place(BRIDGE)])
    sheet = search.sheets[0]
    first = sheet.part(A)
    assert sheet.part(A.moved(id="other")) is first
    assert sheet.part(A.moved(axis=Axis.Y)) is not first


def test_a_move_weighs_the_same_with_the_drawings_kept_or_not(scene: Scene) -> None:
    _, views = scene
    gains = []
    for warm in (False, True):
        palace = corners_only(load_map("1"))
        slot_piece = palace.place(BRIDGE)
        search = Search(views, palace, [slot_piece])
        slot = next(s for s, p in search.slots.items() if p.id == slot_piece.id)
        if warm:
            search.gain([slot], [B])
            search.gain([slot], [TURNED])
        gains.append(search.gain([slot], [A]))
    assert gains[0] == gains[1]
