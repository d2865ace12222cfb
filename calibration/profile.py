"""A profile file: the camera a player uses and the last board pose at each table.

A webcam stays the same camera from game to game while tables change, so the profile
keeps one camera and one last pose per table name; the last pose is where tracking
starts looking, which makes the first frame of the next game as fast as any other. A
table may also keep the ground map read off its board (``palace map read``): real maps
are not published, so the camera's reading is what tells which way round the board lies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.camera import Camera, CameraFileError, Pose
from calibration.formats import PROFILE_FORMAT, ProfileModel
from rules.formats import MapModel, read_json, validate, write_json
from rules.maps import GroundMap, MapError, map_from_model

DEFAULT_TABLE = "default"


@dataclass
class TablePose:
    """The last pose seen at one table, which way round the board lay, and the ground map
    the camera read there (None until it has)."""

    pose: Pose
    rotation: int
    map: GroundMap | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys of the profile's table entry this model does not know, kept for the round trip."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.extra, "pose": self.pose.to_json(),
                               "rotation": self.rotation}
        if self.map is not None:
            out["map"] = self.map.to_json()
        return out


@dataclass
class Profile:
    """Camera (None until known) and last pose per table name, unknown keys kept."""

    camera: Camera | None = None
    tables: dict[str, TablePose] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """The profile at ``path``; a missing file is an empty profile, a broken one an error."""
        path = Path(path)
        if not path.exists():
            return cls()
        data = read_json(path, "profile", CameraFileError)
        model = validate(ProfileModel, data, str(path), CameraFileError)
        tables = {
            name: TablePose(
                Pose.from_model(entry.pose),
                entry.rotation,
                None if entry.map is None else _table_map(entry.map, name, path),
                dict(entry.model_extra or {}),
            )
            for name, entry in model.tables.items()
        }
        camera = None if model.camera is None else Camera.from_model(model.camera)
        return cls(camera, tables, dict(model.model_extra or {}))

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "format": PROFILE_FORMAT,
            "camera": self.camera.to_json() if self.camera else None,
            "tables": {name: entry.to_json() for name, entry in sorted(self.tables.items())},
        }

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_json())


def _table_map(model: MapModel, table: str, path: Path) -> GroundMap:
    """A table's stored map; a starting area that contradicts it is the profile's error."""
    try:
        return map_from_model(model, f"table {table}")
    except MapError as exc:
        problem = str(exc).removeprefix(f"table {table}: ")
        raise CameraFileError(f"{path}: tables.{table}.map: {problem}") from None
