"""The game log and the camera view: WAL on disk, frames bounded, a resumed game equal
to the one played, the overlay drawn where the board is."""

from __future__ import annotations

import sqlite3
import threading

import cv2
import numpy as np
from dashboard_helpers import FakePiece, FakeReading, legal_staircase, open_session

from calibration.camera import project
from calibration.evidence import BoardLocation
from palace.overlay import FRAME_MAX_BYTES, CameraFrame, draw_overlay, encode_jpeg, scaled
from twin.cameras import random_camera


def test_the_log_is_write_ahead_and_a_resumed_game_is_the_same(tmp_path):
    session = open_session(tmp_path)
    session.new_game(players=3, names=["A", "B", "C"], seed=5)
    noisy = np.random.default_rng(0).integers(0, 255, (1500, 2600, 3), dtype=np.uint8)
    for turn in range(3):
        pieces = legal_staircase(session, seed=turn)
        session.camera_turn(FakeReading(True, tuple(FakePiece(p) for p in pieces)),
                            [noisy] * 6)
        session.confirm(session.game.current, [])
    session.pass_turn(session.game.current)
    session.undo(3)
    state = session.state()
    session.close()
    mode = sqlite3.connect(tmp_path / "games.sqlite").execute("PRAGMA journal_mode").fetchone()
    assert mode[0] == "wal"
    again = open_session(tmp_path, resume=True)
    resumed = again.state()
    for key in ("players", "market", "palace", "tray", "trophies", "current", "round",
                "turns", "draft", "sync"):
        assert resumed[key] == state[key], key
    frames = again.frames(1)
    assert len(frames) == 4, "at most four frames per turn are kept"
    for jpeg in frames:
        assert len(jpeg) <= FRAME_MAX_BYTES
        assert max(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape) <= 1280
    again.close()


def test_encode_jpeg_keeps_to_its_bound():
    noise = np.random.default_rng(1).integers(0, 255, (900, 900, 3), dtype=np.uint8)
    assert len(encode_jpeg(noise, max_bytes=30_000)) <= 30_000
    assert len(encode_jpeg(noise, max_bytes=10**7)) > 30_000


def test_the_overlay_is_drawn_on_the_board(tmp_path):
    camera, pose = random_camera(np.random.default_rng(2), 1280, 720, elevation_deg=(60, 70))
    image = np.zeros((720, 1280, 3), np.uint8)
    session = open_session(tmp_path)
    view, scale = scaled(image)
    plain = draw_overlay(CameraFrame(view, scale))
    assert scale == 0.75 and plain.shape == (540, 960, 3) and not plain.any()
    pieces = legal_staircase(session)
    session.camera_turn(FakeReading(True, tuple(FakePiece(p, 0.2) for p in pieces)), [])
    session.show_frame(image, BoardLocation(found=True, pose=pose, camera=camera, rotation=0))
    frame, jpeg = session.feed.jpeg()
    assert frame == 1
    view = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert view.shape == (540, 960, 3)
    red = (view[:, :, 2] > 150) & (view[:, :, 0] < 100)
    assert red.sum() > 50, "the doubtful pieces are marked in red"
    corners = project(camera, pose, np.array([[0, 0, 0], [256, 0, 0], [256, 256, 0],
                                              [0, 256, 0]], float)) * 0.75
    mask = np.zeros(view.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    mask = cv2.dilate(mask, np.ones((9, 9), np.uint8))
    lit = view.max(axis=2) > 60
    assert lit[mask == 1].mean() > 0.1
    assert lit[mask == 0].mean() < 0.01, "nothing is drawn off the board"
    session.show_frame(image, BoardLocation(found=False, reason="no board"))
    _, jpeg = session.feed.jpeg()
    assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).max() < 40
    session.close()


def test_the_camera_thread_and_the_page_at_once(tmp_path):
    """The loop's thread sends frames and readings while the page corrects and reads the
    state: no call fails and the log ends up with every correction."""
    session = open_session(tmp_path)
    camera, pose = random_camera(np.random.default_rng(4), 640, 360)
    location = BoardLocation(found=True, pose=pose, camera=camera, rotation=0)
    image = np.zeros((360, 640, 3), np.uint8)
    pieces = legal_staircase(session)
    errors: list[BaseException] = []
    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.is_set():
                session.show_frame(image, location)
                session.camera_status("tracking")
                session.camera_turn(FakeReading(True, tuple(FakePiece(p) for p in pieces)), [])
        except BaseException as exc:  # pragma: no cover - the assertion below shows it
            errors.append(exc)

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        for i in range(20):
            session.correct({"action": "frog", "value": bool(i % 2)})
            session.state_bytes()
            session.feed.jpeg()
    finally:
        stop.set()
        thread.join(10)
    assert not errors
    assert len(session.log.corrections(session.row.id)) == 20
    assert session.draft.corrections >= 1, "a corrected draft is not overwritten by the camera"
    session.close()
