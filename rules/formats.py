"""The rules' file formats as typed models, and the one way any project file is read.

Scenes (``palace-scene/1``) and maps (``palace-map/1``) are the project's public
interface: other tools write them and the JSON Schemas published from these models
(``palace schemas``) let them check a file before sending it. Every bound a file must
meet lives here once: known kinds, whole-number coordinates within reach of the board,
ids as strings, at most as many pieces of a kind as the box holds. Keys a model does not
know are kept (``extra="allow"``), so a round trip never loses another tool's data.

Reading is bounded before parsing: a file larger than :data:`MAX_FILE_BYTES` or nested
deeper than :data:`MAX_NESTING` is refused from a linear scan, so Python's recursive JSON
parser can never raise ``RecursionError``. A :class:`pydantic.ValidationError` becomes
one line naming the file, the path to the field (with the piece's id where it has one)
and what would be right.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from itertools import accumulate
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from rules.pieces import BOARD_STUDS, Axis, DecorationColor, Kind

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Far above any real scene, map, camera or profile (a full palace is under 50 KB); the
scan and parse of a file this size take about a second at worst."""
MAX_NESTING = 64
"""The formats nest five deep; the rest is room for other tools' extra keys."""
SCENE_FORMAT = "palace-scene/1"
MAP_FORMAT = "palace-map/1"
GROUND_CHARACTERS = "LDGX?"
"""Ground map studs: light green, dark green, gold, blocked, and ``?`` for a stud whose
colour is unknown (a map read by the camera where it could not see the stud)."""
BOX_COUNTS = {
    Kind.BRICK: 80, Kind.ARCH: 80, Kind.COLUMN: 16, Kind.DECORATION: 48, Kind.CORNER: 4,
    Kind.MONKEY: 1, Kind.BUTTERFLY: 1, Kind.FROG: 1,
}
"""How many pieces of each kind the game's box holds: no palace has more."""
DECORATIONS_PER_COLOR = 16
COORDINATE_REACH = 3 * BOARD_STUDS
"""Coordinates beyond this are typing errors, not pieces just off the plate (which the
physics check reports as off the plate)."""
MAX_LEVEL = 200
"""Far above any palace the box's pieces could build (80 bricks + 16 columns of 3)."""

Model = TypeVar("Model", bound=BaseModel)
# A string, or an unterminated one up to the end: the pattern never fails once it has
# seen a quote, so scanning stays linear (a closing quote required made it quadratic
# on '"\\"\\"\\"...').
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


# -- reading ----------------------------------------------------------------------------


def nesting_depth(text: str) -> int:
    """How deep brackets nest in JSON text, strings skipped; linear, never recursive."""
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; write a finite number")


def read_json(
    path: str | Path, what: str, error: type[Exception], *, max_bytes: int = MAX_FILE_BYTES
) -> Any:
    """The parsed contents of ``path``; ``what`` names the file in messages ("scene file").

    Every failure is ``error`` with one line naming the file: missing, unreadable, too
    large, too deeply nested, not JSON (with line and column), or holding NaN/Infinity.
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise error(f"{path}: is a folder, not a {what}")
        size = path.stat().st_size
        if size > max_bytes:
            raise error(f"{path}: {size} bytes is too large for a {what} (at most {max_bytes})")
        with path.open("rb") as handle:  # stat() says 0 for /dev/zero and pipes
            raw = handle.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise error(f"{path}: too large for a {what} (at most {max_bytes} bytes)")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(f"{path}: cannot read the {what} ({reason})") from None
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise error(f"{path}: JSON nested {depth} deep; a {what} needs at most {MAX_NESTING}")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except (ValueError, RecursionError) as exc:  # NaN, Infinity, numbers of 4300+ digits
        raise error(f"{path}: not valid JSON ({exc})") from None


def write_json(path: str | Path, data: Any) -> None:
    """Writes ``data`` as indented JSON; a failed write (a full disk) is an ``OSError`` that
    names the file, which the CLI reports in one line."""
    path = Path(path)
    try:
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def _where(loc: tuple[int | str, ...], data: Any) -> str:
    """``pieces[3] (id 'a7').x`` from pydantic's location, naming pieces by their id."""
    text = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(node, dict) and isinstance(node.get("id"), str) and node["id"]:
            text += f" (id {node['id'][:40]!r})"
    return text


def _found(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_PLAIN = {
    "missing": "missing",
    "model_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
}
_WORDS = (
    ("Input should be", "must be"),
    ("less than or equal to", "at most"),
    ("greater than or equal to", "at least"),
    ("less than", "under"),
    ("greater than", "over"),
    ("List should have", "must have"),
    ("String should have", "must have"),
    ("Tuple should have", "must have"),
    (" after validation", ""),
)


def one_line(exc: ValidationError, data: Any) -> str:
    """The first problem pydantic found as ``field: what is wrong``, plus how many more."""
    problems = exc.errors(include_url=False)
    first = problems[0]
    message = _PLAIN.get(first["type"]) or str(first["msg"]).removeprefix("Value error, ")
    for theirs, ours in _WORDS:
        message = message.replace(theirs, ours)
    where = _where(tuple(first["loc"]), data)
    text = f"{where}: {message}" if where else message
    if first["type"] not in ("missing", "value_error", "too_long", "too_short"):
        text += f", found {_found(first.get('input'))}"
    if len(problems) > 1:
        text += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
    return text


def validate(model: type[Model], data: Any, where: str, error: type[Exception]) -> Model:
    """``data`` as ``model``, or ``error`` with one line naming ``where`` and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(f"{where}: {one_line(exc, data)}") from None


# -- field types ------------------------------------------------------------------------


def _whole_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a whole number, found {_found(value)}")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"must be a whole number, found {value!r}")
        return int(value)
    return value


def _finite_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, found {_found(value)}")
    if not math.isfinite(value):
        raise ValueError(f"must be a finite number, found {value!r}")
    return float(value)


def whole_number(low: int, high: int) -> Any:
    """The type of an int from ``low`` to ``high`` that a file may write as ``3`` or ``3.0``,
    never ``"3"`` or ``true`` (the bounds stay visible to the JSON Schema)."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_whole_number)]


def finite_number(low: float, high: float) -> Any:
    """The type of a float from ``low`` to ``high``, written as a number, never NaN."""
    return Annotated[float, Field(ge=low, le=high), BeforeValidator(_finite_number)]


Coordinate = whole_number(-COORDINATE_REACH, COORDINATE_REACH)
Level = whole_number(0, MAX_LEVEL)
QuarterTurns = whole_number(0, 3)
Stud = whole_number(0, BOARD_STUDS - 1)
Name = Annotated[str, Field(strict=True, min_length=1, max_length=200)]


# -- scene and map ----------------------------------------------------------------------


class PieceModel(BaseModel):
    """One piece: kind, stud position and level, and what only some kinds have."""

    model_config = ConfigDict(extra="allow", title="piece")

    id: Annotated[str, Field(strict=True, max_length=64)] | None = Field(
        None, description="a name unique within the scene; a string"
    )
    kind: Kind
    x: Coordinate = Field(
        description="stud column, 0..31 on the board"
    )
    y: Coordinate = Field(
        description="stud row, 0..31 on the board"
    )
    z: Level = Field(
        0, description="level in bricks above the plate"
    )
    axis: Axis = Field(Axis.X, description="an arch's direction")
    turn: QuarterTurns = Field(
        0, description="a corner brick's quarter turns"
    )
    color: Annotated[str, Field(strict=True, max_length=40)] = Field(
        "", description="light_green, dark_green or gold for a decoration; free otherwise"
    )

    @model_validator(mode="after")
    def _decoration_has_a_colour(self) -> PieceModel:
        if self.kind is Kind.DECORATION and self.color not in set(DecorationColor):
            raise ValueError(
                f"a decoration's 'color' must be light_green, dark_green or gold, "
                f"found {self.color!r}"
            )
        return self


def _counts_in_the_box(pieces: list[PieceModel]) -> list[PieceModel]:
    kinds = Counter(p.kind for p in pieces)
    for kind, count in kinds.items():
        if count > BOX_COUNTS[kind]:
            raise ValueError(
                f"{count} pieces of kind {kind.value!r}; the game has {BOX_COUNTS[kind]}"
            )
    colors = Counter(p.color for p in pieces if p.kind is Kind.DECORATION)
    for color, count in colors.items():
        if count > DECORATIONS_PER_COLOR:
            raise ValueError(
                f"{count} {color} decorations; the game has {DECORATIONS_PER_COLOR}"
            )
    seen: set[str] = set()
    for p in pieces:
        if p.id:
            if p.id in seen:
                raise ValueError(f"piece id {p.id!r} is used twice")
            seen.add(p.id)
    return pieces


Pieces = Annotated[
    list[PieceModel], Field(max_length=sum(BOX_COUNTS.values())), AfterValidator(_counts_in_the_box)
]


class SceneModel(BaseModel):
    """``palace-scene/1``: a palace as JSON, the map it stands on and its pieces."""

    model_config = ConfigDict(extra="allow", title=SCENE_FORMAT)

    format: Literal["palace-scene/1"]
    map: Annotated[str, Field(strict=True, min_length=1, max_length=4096)] = Field(
        "1", description="a shipped map 1..4 or a map file's path"
    )
    pieces: Pieces = Field(description="every piece, corner bricks optional")


def ground_rows(rows: list[str]) -> list[str]:
    """The rows unchanged, or ValueError naming the first stud that is wrong by row and column.

    Rows and columns count from 0, as a stud's ``y`` and ``x`` do everywhere else in the
    formats, so "row 3, column 7" is the stud ``[7, 3]`` of ``start_area`` and of a scene.
    """
    for y, row in enumerate(rows):
        for x, char in enumerate(row[:BOARD_STUDS]):
            if char not in GROUND_CHARACTERS:
                raise ValueError(
                    f"ground row {y}, column {x}: {char!r} is not a ground character; "
                    "use L, D, G, X or ?"
                )
        if len(row) < BOARD_STUDS:
            raise ValueError(
                f"ground row {y}, column {len(row)}: the row ends there after {len(row)} "
                f"characters, needs {BOARD_STUDS}"
            )
        if len(row) > BOARD_STUDS:
            raise ValueError(
                f"ground row {y}, column {BOARD_STUDS}: the row goes on to {len(row)} "
                f"characters, needs {BOARD_STUDS}"
            )
    return rows


def _thirty_two_rows(rows: Any) -> Any:
    """A list of the wrong length named by the first row missing or too many (the length
    bounds stay on the field for the JSON Schema; this only says it first, and better)."""
    if isinstance(rows, list) and len(rows) != BOARD_STUDS:
        row = min(len(rows), BOARD_STUDS)
        what = "missing" if len(rows) < BOARD_STUDS else "one past the last"
        raise ValueError(
            f"ground row {row}: {what}; the map has {len(rows)} rows, needs {BOARD_STUDS}"
        )
    return rows


Cell = Annotated[tuple[Stud, Stud], Field(description="a stud [x, y]")]


class MapModel(BaseModel):
    """``palace-map/1``: every stud's ground colour, the start area and the set-up."""

    model_config = ConfigDict(extra="allow", title=MAP_FORMAT)

    format: Literal["palace-map/1"]
    name: Name | None = None
    standin: bool = False
    ground: Annotated[
        list[Annotated[str, Field(strict=True)]],
        Field(min_length=BOARD_STUDS, max_length=BOARD_STUDS),
        BeforeValidator(_thirty_two_rows),
        AfterValidator(ground_rows),
    ] = Field(description="32 rows (y = 0 first) of 32 of L, D, G, X (blocked), ? (unknown)")
    start_area: Annotated[list[Cell], Field(max_length=BOARD_STUDS**2)] = []
    setup: Annotated[
        list[PieceModel], Field(max_length=16), AfterValidator(_counts_in_the_box)
    ] = []
