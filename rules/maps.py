"""Ground maps: which colour each stud of the board has, and where building is blocked.

The four real Ground Maps are not published, so the project ships stand-in layouts as
data (``rules/data/maps/map*.json``, each marked ``"standin": true``). A user describes
the real map in the same format and passes the file wherever a map is asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from rules.formats import (
    MAP_FORMAT,
    MapModel,
    ground_rows,
    read_json,
    validate,
    write_json,
)
from rules.pieces import BOARD_STUDS, Axis, Cell, DecorationColor, Kind, Piece, corner_setup

GROUND_CHARS: dict[str, DecorationColor | None] = {
    "L": DecorationColor.LIGHT_GREEN,
    "D": DecorationColor.DARK_GREEN,
    "G": DecorationColor.GOLD,
    "X": None,
    "?": None,  # a stud the camera could not read (hidden in every view): no starting point
}
UNKNOWN_GROUND = "?"
SHIPPED_MAPS = ("1", "2", "3", "4")


class MapError(ValueError):
    """A map file or name that cannot be used; the message says what and where."""


@dataclass(frozen=True)
class GroundMap:
    """A 32x32 grid of ground colours; row ``y`` is ``ground[y]``, column ``x`` its char.

    ``start_area`` is the white area that holds the starting staircase; its studs have
    no colour, so no staircase can start there. ``setup`` is the starting staircase
    (one brick, two arches and a gold decoration) placed on it at the start of a game.
    """

    name: str
    ground: tuple[str, ...]
    start_area: frozenset[Cell] = frozenset()
    setup: tuple[Piece, ...] = ()
    standin: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Files are checked by MapModel with their path in the message; this guards the
        # maps code builds (rotations, stand-ins, the camera's reading of a board).
        if len(self.ground) != BOARD_STUDS:
            raise MapError(f"map {self.name}: 'ground' has {len(self.ground)} rows, needs 32")
        try:
            ground_rows(list(self.ground))
        except ValueError as exc:
            raise MapError(f"map {self.name}: {exc}") from None

    def char(self, x: int, y: int) -> str:
        return self.ground[y][x]

    def color(self, x: int, y: int) -> DecorationColor | None:
        """The colour of stud (x, y); None where it is blocked, in the start area or off the map."""
        if (x, y) in self.start_area or not (0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS):
            return None
        return GROUND_CHARS[self.ground[y][x]]

    def buildable(self, x: int, y: int) -> bool:
        """Whether a piece may stand on stud (x, y) of the map itself."""
        return 0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS and self.ground[y][x] != "X"

    def naming(self, cell: Cell, color: DecorationColor) -> GroundMap:
        """The same map with the unknown stud ``cell`` (``?``) taken as ``color``: what a
        game learns of a map read by the camera when a staircase starts there."""
        x, y = cell
        if self.char(x, y) != UNKNOWN_GROUND:
            raise MapError(f"map {self.name}: stud {x},{y} is {self.char(x, y)!r}, not unknown")
        row = self.ground[y]
        char = next(c for c, named in GROUND_CHARS.items() if named is color)
        rows = (*self.ground[:y], row[:x] + char + row[x + 1:], *self.ground[y + 1:])
        return replace(self, ground=rows)

    def rotated(self, quarter_turns: int) -> GroundMap:
        """The same map turned by 90-degree steps counter-clockwise in board x/y.

        Calibration uses this to tell which way round the board lies.
        """
        grid = [list(row) for row in self.ground]
        n = BOARD_STUDS
        for _ in range(quarter_turns % 4):
            grid = [[grid[x][n - 1 - y] for x in range(n)] for y in range(n)]
        return GroundMap(
            name=f"{self.name}@{quarter_turns % 4}",
            ground=tuple("".join(r) for r in grid),
            standin=self.standin,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        out.update(
            {
                "format": MAP_FORMAT,
                "name": self.name,
                "standin": self.standin,
                "ground": list(self.ground),
                "start_area": [list(c) for c in sorted(self.start_area)],
                "setup": [piece_to_json(p) for p in self.setup],
            }
        )
        return out


def piece_to_json(piece: Piece) -> dict[str, Any]:
    """A piece as a scene file writes it (only the keys its kind uses, extras kept)."""
    out: dict[str, Any] = dict(piece.extra)
    if piece.id:
        out["id"] = piece.id
    out.update({"kind": piece.kind.value, "x": piece.x, "y": piece.y, "z": piece.z})
    if piece.kind is Kind.ARCH:
        out["axis"] = piece.axis.value
    if piece.kind is Kind.CORNER:
        out["turn"] = piece.turn
    if piece.color:
        out["color"] = piece.color
    return out


def start_area_problem(ground: tuple[str, ...] | list[str], start_area: frozenset[Cell],
                       setup: tuple[Piece, ...]) -> str:
    """What is wrong with a map's starting area, as ``field: problem`` naming the stud by
    ground row and column, or "" when nothing is.

    The starting area is the white patch the starting staircase stands on at the start
    of a game. A map may have none (a map read by the camera before any game, or one
    with no set-up), but a set-up whose pieces stand on the ground outside it, or a
    starting area on blocked ground, describes no board that can exist: the first would
    let a staircase start under the set-up's own legs on a coloured stud.
    """
    for x, y in sorted(start_area, key=lambda c: (c[1], c[0])):
        if ground[y][x] == "X":
            return (f"start_area: stud [{x}, {y}] (ground row {y}, column {x}) is blocked "
                    "('X'); the starting area is ground the set-up stands on")
    for index, piece in enumerate(setup):
        if piece.z != 0:
            continue
        for x, y in piece.legs():
            if (x, y) not in start_area:
                what = ("start_area is missing: the set-up" if not start_area
                        else f"setup[{index}] ({piece.label}) is outside start_area: it")
                return (f"{what} stands on ground row {y}, column {x}; list every stud the "
                        "starting staircase stands on in start_area")
    return ""


def map_from_model(model: MapModel, where: str) -> GroundMap:
    """The rules' map for a validated one; ``where`` names it when the file does not."""
    from rules.scene import piece_from_model  # the scene module reads pieces the same way

    start_area = frozenset((x, y) for x, y in model.start_area)
    setup = tuple(piece_from_model(p) for p in model.setup)
    problem = start_area_problem(model.ground, start_area, setup)
    if problem:
        raise MapError(f"{where}: {problem}")
    return GroundMap(
        name=model.name if model.name is not None else where,
        ground=tuple(model.ground),
        start_area=start_area,
        setup=setup,
        standin=model.standin,
        extra=dict(model.model_extra or {}),
    )


def map_from_json(data: Any, where: str) -> GroundMap:
    """A map from parsed JSON; every problem is one :class:`MapError` line naming ``where``."""
    return map_from_model(validate(MapModel, data, where, MapError), where)


def load_map(name_or_path: str | Path) -> GroundMap:
    """A shipped map by number ("1".."4") or a map file by path."""
    text = str(name_or_path)
    if not text.strip():
        raise MapError(f"an empty map name: give a shipped map ({', '.join(SHIPPED_MAPS)}) "
                       "or a map file")
    if text in SHIPPED_MAPS:
        ref = resources.files("rules") / "data" / "maps" / f"map{text}.json"
        return map_from_json(json.loads(ref.read_text(encoding="utf-8")), f"map {text}")
    path = Path(text)
    if not path.exists():
        raise MapError(f"{path}: no such map file (shipped maps are {', '.join(SHIPPED_MAPS)})")
    return map_from_json(read_json(path, "map file", MapError), str(path))


# -- stand-in layouts -----------------------------------------------------------------

SETUP_PIECES = (
    Piece(Kind.ARCH, 12, 15, 0, axis=Axis.X, color="tan", id="s1"),
    Piece(Kind.BRICK, 18, 15, 0, color="dark_tan", id="s2"),
    Piece(Kind.ARCH, 15, 15, 1, axis=Axis.X, color="reddish_brown", id="s3"),
    Piece(Kind.DECORATION, 18, 15, 2, color=DecorationColor.GOLD.value, id="s4"),
)
"""The starting staircase: arch on the ground, arch up onto its end knob and a brick."""


def standin_map(number: int) -> GroundMap:
    """A deterministic stand-in layout: coloured regions, not four-fold symmetric.

    Regions come from a seeded Voronoi partition so that the layout has the blobby
    areas of a printed map, and so the board's rotation can be read from it. Maps 3 and
    4 get blocked areas as the real ones do.
    """
    import random

    rng = random.Random(7919 * number)
    n = BOARD_STUDS
    colors = "LLLDDDG" if number % 2 else "LLDDDGG"
    sites = [(rng.uniform(0, n), rng.uniform(0, n), rng.choice(colors)) for _ in range(22)]
    grid = [["L"] * n for _ in range(n)]
    for y in range(n):
        for x in range(n):
            best = min(sites, key=lambda s: (s[0] - x) ** 2 + (s[1] - y) ** 2)
            grid[y][x] = best[2]
    if number >= 3:
        for _ in range(3 if number == 3 else 5):
            cx, cy = rng.randrange(4, n - 6), rng.randrange(4, n - 6)
            w, h = rng.randrange(2, 4), rng.randrange(2, 4)
            for y in range(cy, cy + h):
                for x in range(cx, cx + w):
                    if not 10 <= y <= 20 or not 10 <= x <= 21:
                        grid[y][x] = "X"
    for corner in corner_setup():
        for x, y in corner.footprint():
            grid[y][x] = "X"
    start_area = frozenset(c for p in SETUP_PIECES for c in p.footprint())
    return GroundMap(
        name=str(number),
        ground=tuple("".join(r) for r in grid),
        start_area=start_area,
        setup=SETUP_PIECES,
        standin=True,
        extra={
            "note": "Stand-in layout: the real Ground Map is not published. Replace "
            "'ground' with the real map's colours (L, D, G, X) to play on it."
        },
    )


def write_standin_maps(folder: Path, numbers: Iterable[int] = (1, 2, 3, 4)) -> None:
    """Regenerates the shipped stand-in map files (``python -m rules.maps``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in numbers:
        data = standin_map(number).to_json()
        write_json(folder / f"map{number}.json", data)


if __name__ == "__main__":
    write_standin_maps(Path(__file__).parent / "data" / "maps")
