"""Full mode's search weighing the surface model's heights (vision.heights): a reading's
rendered surface against the model's, per sure pixel."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rules import Axis, Kind, Piece, load_map
from rules.pieces import BRICK_MM, STUD_MM
from tests.full_views import four_views
from vision import agreement
from vision.agreement import Search
from vision.bare import pixel_rays
from vision.carve import ViewData
from vision.full import corners_only
from vision.heights import disagreement, entry_heights, piece_extents
from vision.silhouettes import STUD_SHARE, STUD_TOP_MM

D = Piece(Kind.ARCH, 20, 18, 0, axis=Axis.Y, color="tan")
C = Piece(Kind.BRICK, 20, 18, 1, color="dark_orange")
PHANTOM = Piece(Kind.BRICK, 20, 18, 2)
"""A brick over the true top: the carving keeps such space, every view sees C behind it."""


def test_a_ray_enters_a_piece_at_the_face_it_meets() -> None:
    brick = piece_extents(Piece(Kind.BRICK, 5, 5, 2))[None]
    down = entry_heights(np.array([44.0, 44.0, 500.0]), np.array([[0.0, 0.0, -1.0]]), brick)
    assert down[0] == pytest.approx((3 * BRICK_MM + STUD_TOP_MM * STUD_SHARE) / BRICK_MM)
    side = entry_heights(np.array([0.0, 44.0, 25.0]), np.array([[1.0, 0.0, 0.0]]), brick)
    assert side[0] == pytest.approx(25.0 / BRICK_MM)
    arch = piece_extents(Piece(Kind.ARCH, 5, 5, 0, axis=Axis.X))[None]
    over_opening = np.array([[(6.5 * STUD_MM), 44.0, 500.0]])
    roof = entry_heights(over_opening[0], np.array([[0.0, 0.0, -1.0]]), arch)
    assert roof[0] == pytest.approx(1.0)


def test_disagreement_is_dead_near_the_model_and_clipped_far_from_it() -> None:
    got = disagreement(np.array([1.0, 1.4, 3.0, 20.0]), np.array([1.0, 1.0, 1.0, 1.0]))
    assert got[0] == got[1] == 0.0
    assert 0.0 < got[2] < got[3]
    assert got[3] == disagreement(np.array([9.0]), np.array([1.0]))[0]


@pytest.fixture(scope="module")
def scene() -> list[ViewData]:
    """The four views, each with a surface as a sharp model would read it: the true
    palace's rendered heights where it shows."""
    _, views = four_views((D, C), camera_seed=7)
    truth = corners_only(load_map("1"))
    placed = [truth.place(p.moved(color="")) for p in (D, C)]
    search = Search(views, truth, placed)
    out = []
    for sheet, vd in zip(search.sheets, views, strict=True):
        label = sheet.label.ravel()
        shown = np.flatnonzero(label >= 0)
        eye, dirs = pixel_rays(vd.view)
        surface = np.full(label.shape, np.nan, np.float32)
        boxes = np.stack([piece_extents(search.slots[int(s)]) for s in label[shown]])
        surface[shown] = entry_heights(eye, dirs[shown], boxes)
        out.append(replace(vd, surface=surface.reshape(sheet.label.shape)))
    return out


def _gain(views: list[ViewData], pieces: list[Piece], away: Piece) -> float:
    """What taking ``away`` (with nothing on it) out of the reading ``pieces`` gains."""
    palace = corners_only(load_map("1"))
    placed = [palace.place(p.moved(color="")) for p in pieces]
    search = Search(views, palace, placed)
    slot = next(s for s, p in search.slots.items() if p.kind is away.kind and p.z == away.z
                and (p.x, p.y) == (away.x, away.y))
    return search.gain([slot], [])


def test_a_phantom_over_the_true_top_costs_its_height(
        scene: list[ViewData], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every view sees C behind the phantom, so its silhouettes pay; the model's surface
    says C's top is the surface there, so the heights weigh it away."""
    with_heights = _gain(scene, [D, C, PHANTOM], PHANTOM)
    monkeypatch.setattr(agreement, "HEIGHT_WEIGHT", 0.0)
    without = _gain(scene, [D, C, PHANTOM], PHANTOM)
    assert with_heights > without + 20
    assert with_heights > agreement.MOVE_PRICE


def test_a_missing_upper_piece_costs_its_height(
        scene: list[ViewData], monkeypatch: pytest.MonkeyPatch) -> None:
    """Taking the true top away leaves D's top where the model sees C's."""
    with_heights = _gain(scene, [D, C], C)
    monkeypatch.setattr(agreement, "HEIGHT_WEIGHT", 0.0)
    without = _gain(scene, [D, C], C)
    assert with_heights < without - 20
