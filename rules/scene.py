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

from rules.jsonfile import read_json
from rules.maps import piece_to_json
from rules.pieces import Axis, DecorationColor, Kind, Piece

SCENE_FORMAT = "palace-scene/1"
_PIECE_KEYS = {"id", "kind", "x", "y", "z", "axis", "turn", "color"}


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
        Path(path).write_text(self.dumps() + "\n", encoding="utf-8")

    @classmethod
    def of(cls, pieces: Iterable[Piece], map_name: str = "1") -> Scene:
        return cls(map=map_name, pieces=tuple(pieces))


def _int(item: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = item.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise SceneError(f"{where}: '{key}' must be a whole number, found {value!r}")
    return value


def piece_from_json(item: Any, where: str) -> Piece:
    """One piece of a scene file; ``where`` says where it was found for messages."""
    if not isinstance(item, dict):
        raise SceneError(f"{where}: a piece must be a JSON object, found {type(item).__name__}")
    if "id" in item and item["id"] is not None:
        where = f"{where} (id {item['id']!r})"
    kind_text = item.get("kind")
    try:
        kind = Kind(kind_text)
    except ValueError:
        kinds = ", ".join(k.value for k in Kind)
        raise SceneError(f"{where}: unknown kind {kind_text!r} (one of {kinds})") from None
    for key in ("x", "y"):
        if key not in item:
            raise SceneError(f"{where}: missing '{key}'")
    x, y, z = _int(item, "x", where), _int(item, "y", where), _int(item, "z", where, 0)
    axis = Axis.X
    if kind is Kind.ARCH:
        try:
            axis = Axis(item.get("axis", "x"))
        except ValueError:
            found = item.get("axis")
            raise SceneError(
                f"{where}: arch 'axis' must be \"x\" or \"y\", found {found!r}"
            ) from None
    turn = 0
    if kind is Kind.CORNER:
        turn = _int(item, "turn", where, 0)
        if turn not in (0, 1, 2, 3):
            raise SceneError(f"{where}: corner 'turn' must be 0..3, found {turn}")
    color = item.get("color", "")
    if not isinstance(color, str):
        raise SceneError(f"{where}: 'color' must be a string, found {color!r}")
    if kind is Kind.DECORATION:
        try:
            color = DecorationColor(color).value
        except ValueError:
            raise SceneError(
                f"{where}: decoration 'color' must be light_green, dark_green or gold, "
                f"found {color!r}"
            ) from None
    piece_id = item.get("id") or ""
    return Piece(
        kind=kind, x=x, y=y, z=z, axis=axis, turn=turn, color=color, id=str(piece_id),
        extra={k: v for k, v in item.items() if k not in _PIECE_KEYS},
    )


def scene_from_json(data: Any, where: str = "scene") -> Scene:
    if not isinstance(data, dict):
        raise SceneError(f"{where}: a scene must be a JSON object")
    if data.get("format") != SCENE_FORMAT:
        found = data.get("format")
        raise SceneError(f"{where}: 'format' must be {SCENE_FORMAT!r}, found {found!r}")
    raw = data.get("pieces", [])
    if not isinstance(raw, list):
        raise SceneError(f"{where}: 'pieces' must be a list")
    pieces = tuple(piece_from_json(item, f"{where}: pieces[{i}]") for i, item in enumerate(raw))
    seen: set[str] = set()
    for p in pieces:
        if p.id and p.id in seen:
            raise SceneError(f"{where}: piece id {p.id!r} is used twice")
        seen.add(p.id)
    map_name = data.get("map", "1")
    return Scene(
        map=str(map_name),
        pieces=pieces,
        extra={k: v for k, v in data.items() if k not in {"format", "map", "pieces"}},
    )


def load_scene(path: str | Path) -> Scene:
    """Reads a scene file; every problem is a :class:`SceneError` naming the file."""
    return scene_from_json(read_json(path, "scene file", SceneError), str(path))
