"""A view of the board before a turn with the turn's pieces laid on top.

Judging a turn needs the board as it will be, but a move generator judges thousands of
candidate turns against the same board: copying a 300-piece palace each time would cost
more than the whole analysis. The view keeps the palace's own indexes underneath and
only this turn's entries in small dicts above them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rules.palace import Palace
from rules.pieces import Piece, Voxel
from rules.placement import placement_violations
from rules.report import Violation


class Layer(Mapping[Any, Any]):
    """A board index with this turn's entries on top; ``hidden`` ids read as absent.

    Hiding lets an animal that moved this turn (the Monkey leaving one arch for
    another) stop blocking its old stud without touching the palace before the turn.
    """

    __slots__ = ("base", "hidden", "top")

    def __init__(self, base: Mapping[Any, Any], hidden: frozenset[str]) -> None:
        self.base = base
        self.top: dict[Any, Any] = {}
        self.hidden = hidden

    def get(self, key: Any, default: Any = None) -> Any:
        value = self.top.get(key)
        if value is not None:
            return value
        value = self.base.get(key)
        if value is None or value in self.hidden:
            return default
        return value

    def __getitem__(self, key: Any) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __iter__(self) -> Iterator[Any]:
        yield from self.top
        yield from (k for k, v in self.base.items() if k not in self.top and v not in self.hidden)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class TurnBoard:
    """The palace before the turn plus this turn's pieces, as layered indexes."""

    def __init__(self, before: Palace, hidden: frozenset[str]) -> None:
        self.before = before
        self.ground = before.ground
        self.space = Layer(before._space, hidden)
        self.knobs = Layer(before._knobs, hidden)
        self.forbidden = Layer(before._forbidden, hidden)
        self.pieces = Layer(before._pieces, frozenset())

    def add(self, piece: Piece) -> list[Violation]:
        """Judges ``piece`` physically, then lays it on the board whatever the verdict."""
        problems = placement_violations(
            piece, self.ground, self.space, self.knobs, self.forbidden, self.pieces
        )
        self.pieces.top[piece.id] = piece
        for v in piece.voxels():
            self.space.top.setdefault(v, piece.id)
        for x, y in piece.knobs():
            self.knobs.top.setdefault((x, y, piece.top), piece.id)
        for x, y in piece.forbidden_top():
            self.forbidden.top.setdefault((x, y, piece.top), piece.id)
        return problems

    def piece_at(self, index: Layer, voxel: Voxel) -> Piece | None:
        pid = index.get(voxel)
        return self.pieces.get(pid) if pid is not None else None
