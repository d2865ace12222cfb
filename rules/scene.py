"""The scene file (``palace-scene/1``): the one format every part reads and writes.

A scene is the palace as JSON: the map it stands on and its pieces. Reading is strict
about what it understands (kinds, coordinates, axes, colours) and keeps every key it
does not, so tools can add their own data without the next tool dropping it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.formats import (
    SCENE_FORMAT,
    PieceModel,
    SceneModel,
    read_json,
    validate,
    write_json,
)
from rules.maps import piece_to_json
from rules.pieces import Axis, Kind, Piece


class SceneError(ValueError):
    """A scene that cannot be read; the message names the file, the piece and the problem."""


@dataclass(frozen=True)
class Scene:
    """A palace as a file holds it: map name, pieces in file order, unknown keys kept."""

    map: str = "1"
    pieces: tuple[Piece, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(
            {
                "format": SCENE_FORMAT,
                "map": self.map,
                "pieces": [piece_to_json(p) for p in self.pieces],
            }
        )
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_json())

    @classmethod
    def of(cls, pieces: Iterable[Piece], map_name: str = "1") -> Scene:
        return cls(map=map_name, pieces=tuple(pieces))


def piece_from_model(model: PieceModel) -> Piece:
    """The rules' piece for a validated one; the keys its kind does not use are dropped."""
    return Piece(
        kind=model.kind,
        x=model.x,
        y=model.y,
        z=model.z,
        axis=model.axis if model.kind is Kind.ARCH else Axis.X,
        turn=model.turn if model.kind is Kind.CORNER else 0,
        color=model.color,
        id=model.id or "",
        extra=dict(model.model_extra or {}),
    )


def piece_from_json(item: Any, where: str) -> Piece:
    """One piece of a scene file; ``where`` says where it was found for messages."""
    return piece_from_model(validate(PieceModel, item, where, SceneError))


def scene_from_model(model: SceneModel) -> Scene:
    return Scene(
        map=model.map,
        pieces=tuple(piece_from_model(p) for p in model.pieces),
        extra=dict(model.model_extra or {}),
    )


def scene_from_json(data: Any, where: str = "scene") -> Scene:
    """A scene from parsed JSON; every problem is one :class:`SceneError` line."""
    return scene_from_model(validate(SceneModel, data, where, SceneError))


def load_scene(path: str | Path) -> Scene:
    """Reads a scene file; every problem is a :class:`SceneError` naming the file."""
    return scene_from_json(read_json(path, "scene file", SceneError), str(path))
