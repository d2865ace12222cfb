"""A profile file: the camera a player uses and the last board pose at each table.

A webcam stays the same camera from game to game while tables change, so the profile
keeps one camera and one last pose per table name; the last pose is where tracking
starts looking, which makes the first frame of the next game as fast as any other. A
table may also keep the ground map read off its board (``palace map read``): real maps
are not published, so the camera's reading is what tells which way round the board lies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.camera import Camera, CameraFileError, Pose
from rules.jsonfile import read_json
from rules.maps import GroundMap, MapError, map_from_json

PROFILE_FORMAT = "palace-profile/1"
DEFAULT_TABLE = "default"


@dataclass
class TablePose:
    """The last pose seen at one table, which way round the board lay, and the ground map
    read off that board (``palace map read``), which then says which way round it lies."""

    pose: Pose
    rotation: int
    map: GroundMap | None = None


@dataclass
class Profile:
    """Camera (None until known) and last pose per table name."""

    camera: Camera | None = None
    tables: dict[str, TablePose] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """The profile at ``path``; a missing file is an empty profile, a broken one an error."""
        path = Path(path)
        if not path.exists():
            return cls()
        data = read_json(path, "profile", CameraFileError)
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise CameraFileError(
                f"{path}: not a profile file ('format' must be {PROFILE_FORMAT!r})"
            )
        camera = None
        if data.get("camera") is not None:
            camera = Camera.from_json(data["camera"], f"{path}: camera")
        tables: dict[str, TablePose] = {}
        raw_tables = data.get("tables", {})
        if not isinstance(raw_tables, dict):
            raise CameraFileError(f"{path}: 'tables' must be an object of table names")
        for name, entry in raw_tables.items():
            where = f"{path}: tables.{name}"
            if not isinstance(entry, dict):
                raise CameraFileError(f"{where}: must be an object with 'pose' and 'rotation'")
            rotation = entry.get("rotation", 0)
            if not isinstance(rotation, int) or not 0 <= rotation <= 3:
                raise CameraFileError(f"{where}: 'rotation' must be 0, 1, 2 or 3")
            ground = None
            if entry.get("map") is not None:
                try:
                    ground = map_from_json(entry["map"], f"{where}.map")
                except MapError as exc:
                    raise CameraFileError(f"{where}.map: {exc}") from None
            tables[str(name)] = TablePose(
                Pose.from_json(entry.get("pose"), where), rotation, ground
            )
        return cls(camera, tables)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PROFILE_FORMAT,
            "camera": self.camera.to_json() if self.camera else None,
            "tables": {
                name: {"pose": entry.pose.to_json(), "rotation": entry.rotation}
                | ({"map": entry.map.to_json()} if entry.map is not None else {})
                for name, entry in sorted(self.tables.items())
            },
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
