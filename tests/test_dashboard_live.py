"""The server as a process: live updates over server-sent events, and a SIGKILL in the
middle of a turn that loses nothing once the server is started again with --resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from dashboard_helpers import (
    FakePiece,
    FakeReading,
    free_port,
    legal_staircase,
    open_session,
    served_in_thread,
)

from rules.maps import piece_to_json

ROOT = Path(__file__).resolve().parents[1]


def _start(db: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "palace.cli", "serve", "--port", str(port),
                             "--db", str(db), *extra], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=1)
            return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"server did not start: {proc.stderr.read().decode()[-500:]}")


def test_sigkill_mid_turn_loses_nothing(tmp_path):
    oracle = open_session(tmp_path / "oracle")  # the same game in-process, to find turns
    oracle.new_game(players=2)
    db, port = tmp_path / "table.sqlite", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(db, port)
    try:
        httpx.post(f"{url}/api/game", json={"players": 2}).raise_for_status()
        first = legal_staircase(oracle)
        for piece in first:
            httpx.post(f"{url}/api/turn/corrections",
                       json={"action": "add", "piece": piece_to_json(piece)}).raise_for_status()
        httpx.post(f"{url}/api/turn/confirm", json={"seat": 0}).raise_for_status()
        for piece in first:
            oracle.correct({"action": "add", "piece": piece_to_json(piece)})
        oracle.confirm(0, [])
        second = legal_staircase(oracle)
        for piece in second[:-1]:  # mid-turn: the decoration is not entered yet
            httpx.post(f"{url}/api/turn/corrections",
                       json={"action": "add", "piece": piece_to_json(piece)}).raise_for_status()
        before = httpx.get(f"{url}/api/state").json()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    proc = _start(db, port, "--resume")
    try:
        after = httpx.get(f"{url}/api/state").json()
        for key in ("game_id", "players", "market", "palace", "tray", "trophies", "current"):
            assert after[key] == before[key], key
        assert after["draft"]["pieces"] == before["draft"]["pieces"]
        assert len(after["draft"]["pieces"]) == len(second) - 1
        assert [t["number"] for t in after["turns"]] == [1]
        # The turn carries on where it stopped.
        httpx.post(f"{url}/api/turn/corrections", json={
            "action": "add", "piece": piece_to_json(second[-1])}).raise_for_status()
        state = httpx.post(f"{url}/api/turn/confirm", json={"seat": 1}).json()
        assert [t["number"] for t in state["turns"]] == [1, 2]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        oracle.close()


def test_server_sent_events_bring_the_report(tmp_path):
    session = open_session(tmp_path)
    try:
        with served_in_thread(session) as url, \
                httpx.stream("GET", f"{url}/api/events", timeout=10) as stream:
            lines = stream.iter_lines()
            first = _next_state(lines)
            assert first["draft"] is None
            pieces = legal_staircase(session)
            session.camera_turn(FakeReading(True, tuple(FakePiece(p) for p in pieces)), [])
            state = _next_state(lines)
            while state["draft"] is None:
                state = _next_state(lines)
            assert state["sync"] == "pending" and state["draft"]["report"]["legal"]
            assert len(state["draft"]["pieces"]) == len(pieces)
    finally:
        session.close()


def _next_state(lines):
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "state":
            return json.loads(line[6:])
    pytest.fail("the stream ended")


def test_a_second_webcams_picture_is_announced_and_served_apart(tmp_path):
    """Each webcam's newest picture has its own event and its own address: a second
    webcam's picture never stands in for the first's."""
    import cv2
    import numpy as np

    session = open_session(tmp_path)
    first = np.full((360, 640, 3), 30, np.uint8)
    second = np.full((360, 640, 3), 220, np.uint8)
    try:
        with served_in_thread(session) as url:
            assert httpx.get(f"{url}/api/camera.jpg?webcam=2").status_code == 404
            assert httpx.get(f"{url}/api/camera.jpg?webcam=3").status_code == 422
            with httpx.stream("GET", f"{url}/api/events", timeout=10) as stream:
                lines = stream.iter_lines()
                session.show_frame(first, None)
                session.show_frame(second, None, webcam=2)
                seen: dict[str, str] = {}
                event = None
                deadline = time.monotonic() + 10
                for line in lines:
                    if time.monotonic() > deadline:  # keep-alives would go on for ever
                        pytest.fail(f"no picture announced in 10 s: {seen}")
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event in ("frame", "second_frame"):
                        seen[event] = line[6:]  # "0" on connecting: no picture yet
                        if seen == {"frame": "1", "second_frame": "1"}:
                            break
                else:
                    pytest.fail(f"the stream ended with {seen}")
            shades = []
            for webcam in (1, 2):
                reply = httpx.get(f"{url}/api/camera.jpg?webcam={webcam}")
                assert reply.status_code == 200 and reply.headers["x-frame"] == "1"
                picture = cv2.imdecode(np.frombuffer(reply.content, np.uint8), cv2.IMREAD_COLOR)
                shades.append(int(np.median(picture)))
            assert abs(shades[0] - 30) < 5 and abs(shades[1] - 220) < 5
    finally:
        session.close()
