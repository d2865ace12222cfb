"""Monkey Palace's rules as pure Python: pieces, the stud grid, staircases, turns, games.

Nothing here knows about cameras or files beyond the scene and map formats; every
other package builds on these names.
"""

from rules.maps import GroundMap, MapError, load_map
from rules.palace import Palace, PalaceError, physics_violations
from rules.pieces import Axis, DecorationColor, Kind, Piece
from rules.report import TurnReport, Violation
from rules.scene import Scene, SceneError, load_scene

__all__ = [
    "Axis",
    "DecorationColor",
    "GroundMap",
    "Kind",
    "MapError",
    "Palace",
    "PalaceError",
    "Piece",
    "Scene",
    "SceneError",
    "TurnReport",
    "Violation",
    "load_map",
    "load_scene",
    "physics_violations",
]
