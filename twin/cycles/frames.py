"""Reading the validation frames back: picture, camera, true pose, scene and map.

The frames are written by :mod:`twin.cycles.driver` as ``NNN.jpg`` beside
``NNN.camera.json``, ``NNN.pose.json``, ``NNN.scene.json`` and ``NNN.map.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose
from rules.maps import GroundMap, map_from_json
from rules.scene import Scene, scene_from_json

DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "tests" / "data" / "cycles"


@dataclass(frozen=True)
class ValidationFrame:
    """One path-traced frame and what is true about it (the board frame is the map's)."""

    name: str
    image: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    scene: Scene
    ground: GroundMap


def frame_names(folder: Path = DEFAULT_FOLDER) -> list[str]:
    """The complete frames in ``folder`` (all five files present), in order."""
    if not folder.is_dir():
        return []
    names = []
    for picture in sorted(folder.glob("*.jpg")):
        stem = picture.stem
        if all((folder / f"{stem}.{part}.json").exists()
               for part in ("camera", "pose", "scene", "map")):
            names.append(stem)
    return names


def load_frame(folder: Path, name: str) -> ValidationFrame:
    def read(part: str) -> object:
        return json.loads((folder / f"{name}.{part}.json").read_text(encoding="utf-8"))

    image = cv2.imread(str(folder / f"{name}.jpg"), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{folder / name}.jpg: not a readable image")
    return ValidationFrame(
        name,
        image,
        Camera.from_json(read("camera"), f"{name}.camera.json"),
        Pose.from_json(read("pose"), f"{name}.pose.json"),
        scene_from_json(read("scene"), f"{name}.scene.json"),
        map_from_json(read("map"), f"{name}.map.json"),
    )


def load_frames(folder: Path = DEFAULT_FOLDER, limit: int | None = None) -> list[ValidationFrame]:
    names = frame_names(folder)[:limit]
    return [load_frame(folder, n) for n in names]
