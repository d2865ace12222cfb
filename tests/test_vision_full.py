"""Full mode: the bare board painted from the map, the reconstruct command without a
scene before it, and whole palaces read from four twin views (a larger set is measured
by ``python3 -m bench.vision --only full``)."""

from __future__ import annotations

import json

import cv2
import numpy as np

from calibration.board_model import turned_pose
from calibration.camera import Camera
from calibration.evidence import BoardLocation
from palace.cli import main
from rules import Kind, Palace, Piece, load_map
from rules.bot import simulate_game
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision.full import corners_only, read_palace


def test_reconstruct_without_before_needs_a_map_and_no_before_image(tmp_path, capsys) -> None:
    Camera.default_for(320, 240, 60.0).save(tmp_path / "camera.json")
    base = ["reconstruct", "a.png", "--camera", str(tmp_path / "camera.json"),
            "--out", str(tmp_path / "o.json")]
    assert main(base) == 2
    assert "--map" in capsys.readouterr().err
    assert main([*base, "--map", "1", "--before-image", "b.png"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--before-image" in err
    assert main([*base, "--map", "1"]) == 2
    assert "a.png" in capsys.readouterr().err


def test_reconstruct_full_mode_on_a_frame_without_board_exits_1_and_writes_the_corners(
        tmp_path, capsys) -> None:
    Camera.default_for(320, 240, 60.0).save(tmp_path / "camera.json")
    cv2.imwrite(str(tmp_path / "table.png"), np.full((240, 320, 3), 90, np.uint8))
    out = tmp_path / "o.json"
    code = main(["reconstruct", str(tmp_path / "table.png"), "--camera",
                 str(tmp_path / "camera.json"), "--map", "1", "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 1
    assert not printed["reading"]["found"]
    scene = json.loads(out.read_text())
    assert len(scene["pieces"]) == len(corners_only(load_map("1")))
    assert all(p["kind"] == "corner" for p in scene["pieces"])


def test_the_set_up_palace_is_read_whole_from_four_views_a_quarter_turn_apart() -> None:
    ground = load_map("1")
    palace = Palace.setup(ground)
    cam, pose = random_camera(np.random.default_rng(5), elevation_deg=(45.0, 60.0))
    poses = [turned_pose(pose, k) for k in range(4)]
    frames = [render(palace, cam, p, RenderOptions(clutter=False), seed=k).image
              for k, p in enumerate(poses)]
    located = [BoardLocation(True, pose=p, rotation=0, camera=cam) for p in poses]
    reading = read_palace(frames, cam, ground=ground, locations=located)
    assert reading.found, reading.reason
    want = {place(p) for p in palace if p.kind is not Kind.CORNER}
    got = {place(p) for p in reading.pieces}
    assert len(got & want) >= len(want) - 1
    assert len(got - want) <= 1
    whole = corners_only(ground)
    for piece in reading.pieces:
        whole.place(piece)


READ = (Kind.BRICK, Kind.ARCH, Kind.COLUMN, Kind.DECORATION)


def place(p: Piece) -> tuple[object, ...]:
    return (p.kind, p.x, p.y, p.z, p.axis if p.kind is Kind.ARCH else None,
            p.color if p.kind is Kind.DECORATION else None)


def test_a_bot_game_palace_is_read_piece_by_piece_from_four_views() -> None:
    """A palace of a seeded bot game (two staircases and their decorations, arches on
    arches and on bricks) seen from four views a quarter turn apart: the carving, the
    parse and the rules put back what stands there, each piece's kind, place, height,
    axis and decoration colour."""
    rng = np.random.default_rng(2005)
    ground = load_map(str(int(rng.integers(1, 5))))
    game = simulate_game(4, seed=2005, map_name=ground)
    scene = next(s for s in game.scenes if len(s.pieces) >= 10)
    cam, pose = random_camera(rng, elevation_deg=(35.0, 65.0))
    poses = [turned_pose(pose, k) for k in range(4)]
    frames = [render(scene, cam, p, RenderOptions(clutter=False), seed=20050 + k).image
              for k, p in enumerate(poses)]
    located = [BoardLocation(True, pose=p, rotation=0, camera=cam) for p in poses]
    reading = read_palace(frames, cam, ground=ground, locations=located)
    assert reading.found, reading.reason
    want = {place(p) for p in scene.pieces if p.kind in READ}
    got = {place(p) for p in reading.pieces}
    assert len(want) >= 6
    assert len(got & want) >= len(want) - 1, (sorted(map(str, want - got)),
                                             sorted(map(str, got - want)))
    assert len(got - want) <= 1
    whole = corners_only(ground)
    for piece in reading.pieces:
        whole.place(piece)
