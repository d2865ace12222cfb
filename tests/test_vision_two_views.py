"""Turn mode from two webcams on opposite sides of the table: a step one view hides behind
a wall of columns, the other shows; each view is compared with its own frame before."""

from __future__ import annotations

import json
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from palace.cli import main
from rules import Axis, Kind, Palace, Piece, load_map
from rules.pieces import ANIMAL_KINDS, built_keys
from rules.scene import Scene, piece_from_json
from training.pairs import redevelop
from twin import RenderOptions, orbit_pose, render
from twin.cameras import random_camera
from vision import read_turn

ADDED = (Piece(Kind.BRICK, 5, 9, 0), Piece(Kind.BRICK, 8, 9, 0),
         Piece(Kind.ARCH, 5, 9, 1, axis=Axis.X))


@dataclass
class Views:
    camera: Camera
    before: Palace
    after_frames: list[np.ndarray]
    before_frames: list[np.ndarray]
    locations: list[BoardLocation]


@pytest.fixture(scope="module")
def views() -> Views:
    """The set-up with a wall of columns two levels over the step at y 6, and the step
    (two bricks, an arch on them) behind it at y 9: the first webcam looks across the
    wall, the second from the far side."""
    before = Palace.setup(load_map("1"))
    for x in range(4, 12):
        before.place(Piece(Kind.COLUMN, x, 6, 0))
        before.place(Piece(Kind.COLUMN, x, 6, 3))
    after = before.copy()
    for piece in ADDED:
        after.place(piece)
    rng = np.random.default_rng(5)
    camera, _ = random_camera(rng)
    options = RenderOptions(clutter=False, color_jitter=0.0)
    out = Views(camera, before, [], [], [])
    for azimuth, elevation in ((270.0, 35.0), (90.0, 40.0)):
        pose = orbit_pose(elevation, azimuth, 520.0, target=np.array([64.0, 80.0, 0.0]))
        out.before_frames.append(render(before, camera, pose, options, seed=3).image)
        out.after_frames.append(redevelop(render(after, camera, pose, options, seed=3).image,
                                          rng))
        out.locations.append(BoardLocation(True, pose=pose, rotation=0, camera=camera))
    return out


def keys(pieces: tuple[Piece, ...]) -> list[tuple[object, ...]]:
    return sorted(built_keys(pieces), key=repr)


def test_a_step_one_view_hides_is_read_from_the_other_view(views: Views) -> None:
    hidden = read_turn(views.after_frames[:1], views.camera, views.before,
                       before_frame=views.before_frames[0], locations=views.locations[:1])
    assert hidden.found and not hidden.added and hidden.uncertain
    both = read_turn(views.after_frames, views.camera, views.before,
                     before_frame=views.before_frames, locations=views.locations)
    assert both.found
    assert keys(tuple(r.piece for r in both.added)) == keys(ADDED)


def test_each_view_is_compared_with_its_own_frame_before(views: Views) -> None:
    """The first view's board is not found: the second is still read, against the
    second frame before (compared with the first one's, its change would be nonsense)."""
    blank = np.full_like(views.after_frames[0], 90)
    reading = read_turn([blank, views.after_frames[1]], views.camera, views.before,
                        before_frame=views.before_frames,
                        locations=[None, views.locations[1]])
    assert reading.found
    assert keys(tuple(r.piece for r in reading.added)) == keys(ADDED)
    # One frame before is of the first view the board is found in (the camera loop's
    # views are one webcam's): here the second's.
    one = read_turn([blank, views.after_frames[1]], views.camera, views.before,
                    before_frame=views.before_frames[1], locations=[None, views.locations[1]])
    assert keys(tuple(r.piece for r in one.added)) == keys(ADDED)


def test_frames_before_must_be_one_per_view(views: Views) -> None:
    with pytest.raises(ValueError, match="1 frames before the turn for 2 views"):
        read_turn(views.after_frames, views.camera, views.before,
                  before_frame=views.before_frames[:1], locations=views.locations)


def test_reconstruct_takes_a_photo_before_for_each_view(views: Views, tmp_path,
                                                         capsys) -> None:
    views.camera.save(tmp_path / "camera.json")
    Scene.of(views.before.pieces, "1").save(tmp_path / "before.json")
    args = []
    for i, (after, before) in enumerate(zip(views.after_frames, views.before_frames,
                                            strict=True)):
        cv2.imwrite(str(tmp_path / f"after{i}.png"), after)
        cv2.imwrite(str(tmp_path / f"before{i}.png"), before)
        args += ["--before-image", str(tmp_path / f"before{i}.png")]
    common = ["reconstruct", str(tmp_path / "after0.png"), str(tmp_path / "after1.png"),
              "--camera", str(tmp_path / "camera.json"), "--before",
              str(tmp_path / "before.json"), "--out", str(tmp_path / "after.json")]
    code = main([*common, *args, "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    read = tuple(piece_from_json(p, "reading") for p in printed["reading"]["added"])
    assert keys(read) == keys(ADDED)
    scene = json.loads((tmp_path / "after.json").read_text())
    assert len([p for p in scene["pieces"] if str(p["id"]).startswith("r")]) == len(ADDED)
    # Three photos before for two images: one line naming the option.
    code = main([*common, *args, "--before-image", str(tmp_path / "before0.png")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "--before-image" in err and "2 images, 3 given" in err
    # A lens file per image (two webcams): each board found under its own.
    views.camera.save(tmp_path / "camera2.json")
    code = main([*common, *args, "--camera", str(tmp_path / "camera2.json"), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert keys(tuple(piece_from_json(p, "reading") for p in printed["reading"]["added"])
                ) == keys(ADDED)
    code = main([*common, *args, "--camera", str(tmp_path / "camera2.json"), "--camera",
                 str(tmp_path / "camera2.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "--camera" in err and "2 images, 3 given" in err


def test_the_bench_reads_a_turn_from_one_webcam_and_from_two() -> None:
    """The two-webcam set's first view is the twin set's very turn (its frames drawn as
    without the second), and each tally counts its own reading of it."""
    from bench.vision import measure, measure_views
    from training.pairs import twin_turns

    plain = next(twin_turns(1, seed=100))
    pair = next(twin_turns(1, seed=100, second_view=180.0))
    assert pair.second is not None and plain.second is None
    assert np.array_equal(pair.after_frame, plain.after_frame)
    assert not np.array_equal(pair.second.after_frame, pair.after_frame)
    views = measure_views([pair])
    alone = measure([plain], (True,), False)[True]
    assert views["one view"].turns == views["two views"].turns == 1
    assert (views["one view"].tp, views["one view"].fp, views["one view"].fn) == (
        alone.tp, alone.fp, alone.fn)
    # Every piece the truth holds is counted once, read or missed, in both tallies.
    truth = len([p for p in pair.added if p.kind not in ANIMAL_KINDS])
    for tally in views.values():
        assert tally.tp + tally.fn == truth
