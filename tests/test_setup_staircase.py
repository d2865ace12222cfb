"""The starting staircase found standing on a map the camera read, wherever it stands."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.map_read import cell_in, read_map
from calibration.profile import Profile
from palace.camera_map import with_setup
from palace.cli import main
from rules.maps import SETUP_PIECES, load_map
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, Kind, Piece
from rules.random_map import random_map
from twin import RenderOptions, random_camera, render
from vision.setup_staircase import EDGE_ROWS, SetupView, find_setup, setup_placements


def _studs(pieces: tuple[Piece, ...] | list[Piece], where: np.ndarray) -> set[tuple[Kind, int]]:
    return {(p.kind, int(where[y * BOARD_STUDS + x])) for p in pieces for x, y in p.footprint()}


def test_every_placement_is_the_starting_staircase_standing_on_the_plate() -> None:
    placements = setup_placements()
    ground = random_map(np.random.default_rng(3), start_area=False, blocked=False)
    shapes = set()
    for pieces in placements[:: max(1, len(placements) // 200)]:
        # Each stands on an empty board as the rules place pieces, the decoration on top.
        assert Palace(ground, pieces).pieces
        assert [p.id for p in pieces] == [p.id for p in SETUP_PIECES]
        assert [p.color for p in pieces] == [p.color for p in SETUP_PIECES]
        feet = [c for p in pieces for c in p.footprint()]
        assert len(set(feet)) == 7 and all(
            EDGE_ROWS <= v < BOARD_STUDS - EDGE_ROWS for c in feet for v in c)
        ox, oy = min(c[0] for c in feet), min(c[1] for c in feet)
        shapes.add(frozenset((p.kind, p.z, x - ox, y - oy) for p in pieces
                             for x, y in p.footprint()))
    # The four directions, one of them the shipped maps' own.
    assert len(shapes) == 4
    feet = [c for p in SETUP_PIECES for c in p.footprint()]
    ox, oy = min(c[0] for c in feet), min(c[1] for c in feet)
    assert frozenset((p.kind, p.z, x - ox, y - oy) for p in SETUP_PIECES
                     for x, y in p.footprint()) in shapes
    # Every place along the plate's inner rows, each way round: a 7-stud line.
    inner = BOARD_STUDS - 2 * EDGE_ROWS
    assert len(placements) == 4 * inner * (inner - 6)


def _picture(seed: int, standing: bool) -> tuple[np.ndarray, object, object, object]:
    """A wide-twin set-up of a random map whose starting area lies away from the shipped
    maps' place, with its staircase or with the board bare."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng, 1280, 720, elevation_deg=(40.0, 60.0), fill=(0.6, 0.8))
    board = Palace.setup(ground) if standing else Palace(
        ground, [p for p in Palace.setup(ground) if p.kind is Kind.CORNER])
    image = render(board, camera, pose, RenderOptions(wide=True, settled=True), seed=seed).image
    return image, camera, pose, ground


@pytest.mark.parametrize("seed", [61_005, 61_006])
def test_the_staircase_is_found_where_the_map_puts_it(seed: int) -> None:
    image, camera, pose, ground = _picture(seed, standing=True)
    assert {c for p in ground.setup for c in p.footprint()} != {
        c for p in SETUP_PIECES for c in p.footprint()}
    reading = read_map([("set-up", image)], camera)
    found = find_setup(SetupView(image, reading))
    assert found is not None and found.weight > found.rival
    truth = {(p.kind, y * BOARD_STUDS + x) for p in ground.setup for x, y in p.footprint()}
    assert _studs(found.pieces, cell_in(reading.pose, pose)) == truth
    # The dashboard's map carries it as the set-up, its studs the starting area.
    read, read_pose = with_setup(reading, image)
    assert _studs(read.setup, cell_in(read_pose, pose)) == truth
    assert {c for p in read.setup for c in p.footprint()} <= read.start_area


def test_a_bare_board_has_no_staircase() -> None:
    image, camera, _, _ = _picture(61_002, standing=False)
    reading = read_map([("bare", image)], camera)
    assert find_setup(SetupView(image, reading)) is None
    read, _ = with_setup(reading, image)
    assert read.setup == ()


def test_palace_map_read_writes_the_staircase_as_the_set_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, camera, pose, ground = _picture(61_005, standing=True)
    cv2.imwrite(str(tmp_path / "set-up.png"), image)
    camera.save(tmp_path / "camera.json")
    out, profile = tmp_path / "map.json", tmp_path / "profile.json"
    assert main(["map", "read", str(tmp_path / "set-up.png"), "--camera",
                 str(tmp_path / "camera.json"), "--out", str(out), "--profile", str(profile)]) == 0
    assert "starting staircase: found standing" in capsys.readouterr().out
    written = load_map(out)
    # The profile keeps the map with the pose of its frame: there the set-up stands on
    # the studs the truth has it.
    kept = Profile.load(profile).tables["default"]
    assert kept.map is not None and kept.map.setup == written.setup
    truth = {(p.kind, y * BOARD_STUDS + x) for p in ground.setup for x, y in p.footprint()}
    assert _studs(written.setup, cell_in(kept.pose, pose)) == truth


@pytest.mark.parametrize("standing", [True, False])
def test_where_no_place_is_clear_the_stand_in_place_is_kept_only_with_pieces_on_it(
        monkeypatch: pytest.MonkeyPatch, standing: bool) -> None:
    ground = load_map("1")
    rng = np.random.default_rng(61_007)
    camera, pose = random_camera(rng, 1280, 720, elevation_deg=(40.0, 60.0), fill=(0.6, 0.8))
    board = Palace.setup(ground) if standing else Palace(
        ground, [p for p in Palace.setup(ground) if p.kind is Kind.CORNER])
    image = render(board, camera, pose, RenderOptions(wide=True, settled=True), seed=7).image
    reading = read_map([("set-up", image)], camera)
    # The search taking no place (a palace grown round the staircase, mid-game):
    monkeypatch.setattr("palace.camera_map.find_setup", lambda seen: None)
    read, read_pose = with_setup(reading, image)
    if standing:
        truth = {(p.kind, y * BOARD_STUDS + x) for p in SETUP_PIECES for x, y in p.footprint()}
        assert _studs(read.setup, cell_in(read_pose, pose)) == truth
    else:
        assert read.setup == ()
