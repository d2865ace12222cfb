"""Turn pairs from the Blender validation renderer: one table, two moments, the truth."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import project
from calibration.evidence import BoardLocation
from rules.pieces import (
    ANIMAL_KINDS,
    BOARD_MM,
    BRICK_MM,
    Kind,
    missing_corners,
    pieces_built,
    place_key,
)
from twin.cameras import around_board
from twin.cycles.driver import TURN_ADDED, main, make_turn_jobs
from twin.cycles.frames import TURNS_FOLDER, load_turn, turn_names
from twin.cycles.jobs import develop, run_blender
from vision import read_turn
from vision.views import board_box


def test_a_pairs_two_jobs_share_the_table_and_differ_in_the_pieces(tmp_path: Path) -> None:
    jobs, truth = make_turn_jobs(3, tmp_path, samples=2, width=192, height=108)
    before, after = jobs
    same = {"pieces", "seed"}
    assert {k: v for k, v in before.items() if k not in same} == {
        k: v for k, v in after.items() if k not in same}
    assert before["seed"] != after["seed"]  # the path tracer's noise is not the same twice
    # A piece standing before and after keeps its colour and finish.
    looks = {}
    for part, job in zip(("before", "after"), jobs, strict=True):
        pieces = truth[part].pieces
        for piece, rendered in zip((*pieces, *missing_corners(pieces)), job["pieces"],
                                   strict=True):
            look = (rendered["rgb"], rendered["roughness"])
            assert looks.setdefault(place_key(piece), look) == look
    old = {place_key(p) for p in truth["before"].pieces}
    built = [p for p in truth["after"].pieces
             if place_key(p) not in old and p.kind not in ANIMAL_KINDS]
    assert TURN_ADDED[0] <= len(built) <= TURN_ADDED[1]
    # The frame after is developed by the same webcam a moment later.
    dev_before, dev_after = truth["develop"]
    assert dev_after["margin"] == dev_before["margin"] and dev_after["blur"] == dev_before["blur"]
    assert dev_after["seed"] != dev_before["seed"]
    assert dev_after["white_balance"] != dev_before["white_balance"]


@pytest.mark.skipif(shutil.which("blender") is None, reason="Blender is not installed")
def test_a_tiny_pair_changes_where_the_added_pieces_stand(tmp_path: Path) -> None:
    jobs, truth = make_turn_jobs(3, tmp_path, samples=2, width=320, height=180)
    images = [develop(run_blender("blender", job, tmp_path, part), truth["camera"], settings)
              for job, part, settings in zip(jobs, ("before", "after"), truth["develop"],
                                             strict=True)]
    change = cv2.absdiff(*images).astype(np.float32).sum(axis=2)
    camera, pose = truth["camera"], truth["pose"]
    old = {place_key(p) for p in truth["before"].pieces}
    mask = np.zeros(change.shape, np.uint8)
    for piece in truth["after"].pieces:
        if place_key(piece) in old or piece.kind in ANIMAL_KINDS:
            continue
        for x, y, z in piece.voxels():
            centre = np.array([[(x + 0.5) * 8.0, (y + 0.5) * 8.0, (z + 0.5) * BRICK_MM]])
            u, v = project(camera, pose, centre)[0]
            cv2.circle(mask, (round(u), round(v)), 4, 255, -1)
    inside = float(change[mask > 0].mean())
    outside = float(np.median(change[mask == 0]))
    # Light, table and camera are the same: what changes is where the new pieces stand.
    assert inside > 3 * outside + 10


@pytest.mark.skipif(not turn_names(), reason="no Cycles turn pairs rendered")
def test_the_committed_turn_pairs_read_back_with_their_added_pieces() -> None:
    for name in turn_names()[:2]:
        pair = load_turn(TURNS_FOLDER, name)
        shape = (pair.camera.height, pair.camera.width, 3)
        assert pair.before_frame.shape == shape and pair.after_frame.shape == shape
        old = {place_key(p) for p in pair.before_scene.pieces}
        new = {place_key(p) for p in pair.after_scene.pieces
               if p.kind not in ANIMAL_KINDS} - old
        assert {place_key(p) for p in pair.added} == new
        assert TURN_ADDED[0] <= len(pair.added) <= TURN_ADDED[1]
        assert len(pair.before) >= len(pair.before_scene.pieces)


def test_a_pairs_truth_records_a_hand_that_built_its_turn(tmp_path: Path) -> None:
    _, truth = make_turn_jobs(3, tmp_path, samples=2, width=192, height=108)
    hand, added = truth["hand"], pieces_built(truth["before"].pieces, truth["after"].pieces)
    kinds = [p.kind for p in added]
    assert kinds.count(Kind.ARCH) <= hand.arches and kinds.count(Kind.BRICK) <= hand.bricks
    assert kinds.count(Kind.COLUMN) <= hand.columns


@pytest.mark.skipif(not turn_names(), reason="no Cycles turn pairs rendered")
def test_a_pairs_hand_reads_back_and_a_bad_one_is_one_line_naming_the_field(
        tmp_path: Path) -> None:
    name = turn_names()[0]
    assert load_turn(TURNS_FOLDER, name).hand is not None
    for part in ("before.jpg", "after.jpg", "camera.json", "before.json", "after.json",
                 "map.json"):
        shutil.copy(TURNS_FOLDER / f"{name}.{part}", tmp_path)
    pose = json.loads((TURNS_FOLDER / f"{name}.pose.json").read_text())
    pose["hand"]["bricks"] = -1
    (tmp_path / f"{name}.pose.json").write_text(json.dumps(pose))
    with pytest.raises(ValueError, match=rf"^{name}\.pose\.json: hand: bricks: must be at "
                                         "least 0, found -1$"):
        load_turn(tmp_path, name)
    del pose["hand"]  # a pair rendered before hands were recorded
    (tmp_path / f"{name}.pose.json").write_text(json.dumps(pose))
    assert load_turn(tmp_path, name).hand is None


@pytest.mark.skipif(not turn_names(), reason="no Cycles turn pairs rendered")
def test_a_turn_is_read_on_two_cycles_pairs() -> None:
    """What must hold whatever the reading's accuracy (bench.vision measures that, `--only cycles`):
    the board at its true pose is in view, the reading is made there, and what it reads
    can stand on the palace before the turn."""
    for name in turn_names()[:2]:
        pair = load_turn(TURNS_FOLDER, name)
        box = board_box(pair.camera, pair.pose, max(p.top for p in pair.before) + 2)
        assert box is not None
        x0, y0, x1, y1 = box
        u, v = project(pair.camera, pair.pose, np.array([[BOARD_MM / 2, BOARD_MM / 2, 0.0]]))[0]
        assert x0 < u < x1 and y0 < v < y1  # the board's middle is in the picture
        truth = BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)
        reading = read_turn([pair.after_frame], pair.camera, pair.before,
                            before_frame=pair.before_frame, locations=[truth])
        assert reading.found, f"{name}: {reading.reason}"
        assert reading.location is not None and reading.location.pose is pair.pose
        assert pair.added
        board = pair.before
        for piece in reading.pieces:
            board.place(piece)


@pytest.mark.skipif(not any(load_turn(TURNS_FOLDER, n).second for n in turn_names()[:1]),
                    reason="no second webcam's frames rendered")
def test_a_pairs_second_webcam_sees_the_board_from_across_the_table() -> None:
    """Where ``--second-view 180`` rendered it: the second webcam stands where
    ``around_board`` puts it, the board's middle is in its pictures, and a reading from
    both webcams stands on the palace before the turn."""
    pair = load_turn(TURNS_FOLDER, turn_names()[0])
    second = pair.second
    assert second is not None
    moved = around_board(pair.pose, 180.0)
    assert np.allclose(second.pose.rvec, moved.rvec) and np.allclose(second.pose.tvec,
                                                                     moved.tvec)
    u, v = project(pair.camera, second.pose, np.array([[BOARD_MM / 2, BOARD_MM / 2, 0.0]]))[0]
    height, width = second.after_frame.shape[:2]
    assert 0 < u < width and 0 < v < height
    assert not np.array_equal(second.after_frame, pair.after_frame)
    locations = [BoardLocation(True, pose=p, rotation=0, camera=pair.camera)
                 for p in (pair.pose, second.pose)]
    reading = read_turn([pair.after_frame, second.after_frame], pair.camera, pair.before,
                        before_frame=[pair.before_frame, second.before_frame],
                        locations=locations)
    assert reading.found and reading.added
    board = pair.before
    for piece in reading.pieces:
        board.place(piece)


def test_a_second_view_is_refused_without_turn_pairs(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path), "--second-view", "180"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "--second-view: only with --turns (turn pairs)"
    assert not any(tmp_path.iterdir())
