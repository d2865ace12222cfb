"""The Blender validation renderer: its frames line up with the truth they come with."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import project
from rules.pieces import BOARD_MM
from twin.cycles.driver import make_job
from twin.cycles.frames import DEFAULT_FOLDER, frame_names, load_frame
from twin.cycles.jobs import SCRIPT, develop

PLATE = np.array([[0, 0, 0], [BOARD_MM, 0, 0], [BOARD_MM, BOARD_MM, 0], [0, BOARD_MM, 0.0]])


def board_contrast(image: np.ndarray, polygon: np.ndarray) -> float:
    """How far the board's mean colour lies from the table's around it."""
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.rint(polygon).astype(np.int32), 255)
    inner = cv2.erode(mask, np.ones((5, 5), np.uint8))
    outer = cv2.dilate(mask, np.ones((15, 15), np.uint8)) & ~cv2.dilate(mask, np.ones((5, 5)))
    return float(np.linalg.norm(cv2.mean(image, inner)[:3] - np.array(cv2.mean(image, outer)[:3])))


@pytest.mark.skipif(shutil.which("blender") is None, reason="Blender is not installed")
def test_a_tiny_cycles_frame_shows_the_board_where_the_truth_puts_it(tmp_path: Path) -> None:
    job, truth = make_job(5, tmp_path, samples=2, width=192, height=108)
    (tmp_path / "job.json").write_text(json.dumps(job))
    subprocess.run(["blender", "-b", "-noaudio", "-P", str(SCRIPT), "--",
                    str(tmp_path / "job.json"), str(tmp_path / "f.png")],
                   check=True, capture_output=True, timeout=300)
    image = develop(tmp_path / "f.png", truth["camera"], truth["develop"])
    assert image.shape == (108, 192, 3)
    right = board_contrast(image, project(truth["camera"], truth["pose"], PLATE))
    # The same outline moved by a quarter of the board is a worse fit: the truth is the board.
    moved = PLATE + np.array([BOARD_MM / 4, BOARD_MM / 4, 0])
    shifted = project(truth["camera"], truth["pose"], moved)
    assert right > board_contrast(image, shifted)


@pytest.mark.skipif(not frame_names(), reason="no Cycles validation frames rendered")
def test_the_committed_validation_frames_read_back() -> None:
    for name in frame_names()[:3]:
        frame = load_frame(DEFAULT_FOLDER, name)
        assert frame.image.shape == (frame.camera.height, frame.camera.width, 3)
        centre = project(frame.camera, frame.pose, np.array([[BOARD_MM / 2] * 2 + [0.0]]))[0]
        assert 0 <= centre[0] < frame.camera.width and 0 <= centre[1] < frame.camera.height
        assert len(frame.ground.ground) == 32 and frame.scene.pieces
