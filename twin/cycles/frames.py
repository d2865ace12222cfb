"""Reading the validation frames back: picture, camera, true pose, scene and map.

The frames are written by :mod:`twin.cycles.driver` as ``NNN.jpg`` beside
``NNN.camera.json``, ``NNN.pose.json``, ``NNN.scene.json`` and ``NNN.map.json``; the
turn pairs as ``NNN.before.jpg`` and ``NNN.after.jpg`` beside ``NNN.camera.json``,
``NNN.pose.json``, ``NNN.before.json``, ``NNN.after.json`` and ``NNN.map.json``, and,
where a second webcam filmed them too, ``NNN.before2.jpg``, ``NNN.after2.jpg`` and
``NNN.pose2.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict

from calibration.camera import Camera, Pose
from rules.formats import read_json, validate, whole_number
from rules.maps import GroundMap, map_from_json
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import Piece, pieces_built
from rules.scene import Scene, scene_from_json
from twin.cameras import SecondWebcamFrames

DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "tests" / "data" / "cycles"
TURNS_FOLDER = DEFAULT_FOLDER.with_name("cycles_turns")
PALACES_FOLDER = DEFAULT_FOLDER.with_name("cycles_full")


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


def _read_json(folder: Path, name: str, part: str) -> object:
    return read_json(folder / f"{name}.{part}.json", f"{part} file", ValueError)


def _read_image(path: Path) -> NDArray[np.uint8]:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not a readable image")
    return image


def load_frame(folder: Path, name: str) -> ValidationFrame:
    def read(part: str) -> object:
        return _read_json(folder, name, part)

    image = _read_image(folder / f"{name}.jpg")
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


@dataclass(frozen=True)
class ValidationTurn:
    """One turn on a path-traced table: the settled frame before it and after it, seen
    by the same camera under the same light, and what is true about both."""

    name: str
    before_frame: NDArray[np.uint8]
    after_frame: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    before_scene: Scene
    after_scene: Scene
    ground: GroundMap
    second: SecondWebcamFrames | None = None
    """The same turn from a second webcam across the table, where it was rendered."""
    hand: Hand | None = None
    """What the player who built could build with (the bot game's
    :meth:`rules.game.Game.hand`), where the pair's pose file records it."""

    @property
    def before(self) -> Palace:
        """The palace before the turn, as a reading of the turn starts from it."""
        return Palace(self.ground, self.before_scene.pieces)

    @property
    def added(self) -> tuple[Piece, ...]:
        """The pieces the turn built (matched by place; animals, which only move, aside)."""
        return pieces_built(self.before_scene.pieces, self.after_scene.pieces)


TURN_PARTS = ("camera", "pose", "before", "after", "map")


def turn_names(folder: Path = TURNS_FOLDER) -> list[str]:
    """The complete pairs in ``folder`` (both pictures and all five files), in order."""
    if not folder.is_dir():
        return []
    names = []
    for picture in sorted(folder.glob("*.after.jpg")):
        stem = picture.name.removesuffix(".after.jpg")
        if (folder / f"{stem}.before.jpg").exists() and all(
                (folder / f"{stem}.{part}.json").exists() for part in TURN_PARTS):
            names.append(stem)
    return names


def load_turn(folder: Path, name: str) -> ValidationTurn:
    def read(part: str) -> object:
        return _read_json(folder, name, part)

    pose = read("pose")
    return ValidationTurn(
        name,
        _read_image(folder / f"{name}.before.jpg"),
        _read_image(folder / f"{name}.after.jpg"),
        Camera.from_json(read("camera"), f"{name}.camera.json"),
        Pose.from_json(pose, f"{name}.pose.json"),
        scene_from_json(read("before"), f"{name}.before.json"),
        scene_from_json(read("after"), f"{name}.after.json"),
        map_from_json(read("map"), f"{name}.map.json"),
        _second_view(folder, name),
        _hand(pose, f"{name}.pose.json"),
    )


HandCount = whole_number(0, 99)


class HandModel(BaseModel):
    """The builder's hand as a pair's pose file records it (``"hand"``): their arches,
    bricks and columns, the Frog's column counted where it was free."""

    model_config = ConfigDict(extra="forbid", title="hand")

    arches: HandCount
    bricks: HandCount
    columns: HandCount


def _hand(pose: object, source: str) -> Hand | None:
    """The builder's hand a pair's pose file records; None where it records none (pairs
    rendered before it was written)."""
    if not isinstance(pose, dict) or pose.get("hand") is None:
        return None
    found = validate(HandModel, pose["hand"], f"{source}: hand", ValueError)
    return Hand(found.arches, found.bricks, found.columns)


def _second_view(folder: Path, name: str) -> SecondWebcamFrames | None:
    """The pair's second webcam's frames, where ``--second-view`` rendered them (the
    after picture is written last)."""
    if not (folder / f"{name}.after2.jpg").exists():
        return None
    return SecondWebcamFrames(_read_image(folder / f"{name}.before2.jpg"),
                              _read_image(folder / f"{name}.after2.jpg"),
                              Pose.from_json(_read_json(folder, name, "pose2"),
                                             f"{name}.pose2.json"))


def load_turns(folder: Path = TURNS_FOLDER, limit: int | None = None) -> list[ValidationTurn]:
    return [load_turn(folder, n) for n in turn_names(folder)[:limit]]


@dataclass(frozen=True)
class ValidationPalace:
    """One path-traced palace seen from several places round the table, one webcam."""

    name: str
    frames: tuple[NDArray[np.uint8], ...]
    camera: Camera
    poses: tuple[Pose, ...]
    scene: Scene
    ground: GroundMap

    @property
    def palace(self) -> Palace:
        """The scene stood on its map: what a reading of the views is scored against."""
        return Palace(self.ground, self.scene.pieces)


def _views_promised(folder: Path, stem: str) -> int | None:
    """How many views palace ``stem`` has (its first view's pose says), None if that pose
    is missing or unreadable: one corrupt file skips its palace rather than stopping every
    reader of the set (the tests' collection, the bench)."""
    pose = folder / f"{stem}.view0.pose.json"
    if not pose.exists():
        return None
    try:
        data = _read_json(folder, stem, "view0.pose")
    except ValueError:
        return None
    views = data.get("views") if isinstance(data, dict) else None
    return views if isinstance(views, int) and views > 0 else None


def palace_names(folder: Path = PALACES_FOLDER) -> list[str]:
    """The complete palaces in ``folder`` (every view's picture, camera and pose, the scene
    and the map), in order."""
    if not folder.is_dir():
        return []
    names = []
    for picture in sorted(folder.glob("*.view0.jpg")):
        stem = picture.name.removesuffix(".view0.jpg")
        views = _views_promised(folder, stem)
        if views is None or not all((folder / f"{stem}.{part}.json").exists()
                                    for part in ("scene", "map")):
            continue
        if all((folder / f"{stem}.view{k}.jpg").exists()
               and (folder / f"{stem}.view{k}.camera.json").exists()
               and (folder / f"{stem}.view{k}.pose.json").exists() for k in range(views)):
            names.append(stem)
    return names


def load_palace(folder: Path, name: str) -> ValidationPalace:
    """Palace ``name``'s views and truth; every view must be of the same webcam."""
    def read(part: str) -> object:
        return _read_json(folder, name, part)

    views = _views_promised(folder, name)
    if views is None:
        read("view0.pose")  # a missing or unreadable pose: its own message
        raise ValueError(f"{folder / name}.view0.pose.json: no number of views")
    cameras = [Camera.from_json(read(f"view{k}.camera"), f"{name}.view{k}.camera.json")
               for k in range(views)]
    if any(c.to_json() != cameras[0].to_json() for c in cameras[1:]):
        raise ValueError(f"{folder / name}: the views are not of one webcam")
    return ValidationPalace(
        name,
        tuple(_read_image(folder / f"{name}.view{k}.jpg") for k in range(views)),
        cameras[0],
        tuple(Pose.from_json(read(f"view{k}.pose"), f"{name}.view{k}.pose.json")
              for k in range(views)),
        scene_from_json(read("scene"), f"{name}.scene.json"),
        map_from_json(read("map"), f"{name}.map.json"),
    )


def load_palaces(folder: Path = PALACES_FOLDER,
                 limit: int | None = None) -> list[ValidationPalace]:
    """The first ``limit`` complete palaces of ``folder`` (all when None), loaded; a palace
    with a file missing, or whose first pose is unreadable, is left out
    (:func:`palace_names`)."""
    return [load_palace(folder, n) for n in palace_names(folder)[:limit]]
