"""The palace: everything standing on the 32x32 stud grid, with exact placement checks.

A :class:`Palace` is mutable in the way a chess board is: ``place`` a piece (checked)
and ``remove`` it again, so that a move generator can try things cheaply. Space is
kept as a dict of filled voxels and a dict of knobs, so every question the rules ask
(is this free? what does this leg stand on? is this knob open?) is a lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from rules.maps import GroundMap
from rules.pieces import (
    BOARD_STUDS,
    Kind,
    Piece,
    Voxel,
    missing_corners,
)
from rules.placement import physics_violations, piece_fits, placement_violations
from rules.report import Violation


class PalaceError(ValueError):
    """A piece that cannot stand where it was put; carries every violation found."""

    def __init__(self, violations: Iterable[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__("; ".join(v.message for v in self.violations))


class Palace:
    """Pieces on the board, indexed by the space they fill and the knobs they offer."""

    def __init__(
        self, ground: GroundMap, pieces: Iterable[Piece] = (), *, corners: bool = True
    ) -> None:
        """Builds a palace from pieces listed bottom-up or in any order.

        With ``corners`` the default corner bricks are added when ``pieces`` holds
        none. Raises :class:`PalaceError` listing every physical problem.
        """
        self.ground = ground
        self._pieces: dict[str, Piece] = {}
        self._space: dict[Voxel, str] = {}
        self._knobs: dict[Voxel, str] = {}
        self._forbidden: dict[Voxel, str] = {}
        self._next_id = 1
        listed = list(pieces)
        if corners:
            listed = [*missing_corners(listed), *listed]
        problems = physics_violations(listed, ground)
        if problems:
            raise PalaceError(problems)
        for piece in sorted(listed, key=lambda p: p.z):
            placed = self._with_id(piece)
            self._index(placed.id, placed)

    @classmethod
    def setup(cls, ground: GroundMap) -> Palace:
        """The board at the start of a game: corner bricks and the starting staircase."""
        return cls(ground, ground.setup)

    # -- container ---------------------------------------------------------------------
    def __iter__(self) -> Iterator[Piece]:
        return iter(self._pieces.values())

    def __len__(self) -> int:
        return len(self._pieces)

    def __contains__(self, piece_id: object) -> bool:
        return piece_id in self._pieces

    def __getitem__(self, piece_id: str) -> Piece:
        return self._pieces[piece_id]

    def copy(self) -> Palace:
        other = Palace.__new__(Palace)
        other.ground = self.ground
        other._pieces = dict(self._pieces)
        other._space = dict(self._space)
        other._knobs = dict(self._knobs)
        other._forbidden = dict(self._forbidden)
        other._next_id = self._next_id
        return other

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return tuple(self._pieces.values())

    # -- placing -----------------------------------------------------------------------
    def check(self, piece: Piece) -> list[Violation]:
        """Everything that stops ``piece`` from standing here now (empty if it can)."""
        return placement_violations(piece, self.ground, self._space, self._knobs,
                                     self._forbidden, self._pieces)

    def fits(self, piece: Piece) -> bool:
        """Whether ``piece`` can stand here now: what an empty :meth:`check` says,
        answered at the first problem and without naming it. A vision decoder asks this
        of tens of thousands of pieces a turn, most of which cannot stand."""
        return piece_fits(piece, self.ground, self._space, self._knobs, self._pieces)

    def place(self, piece: Piece) -> Piece:
        """Puts a piece on the board after checking it; returns it with its id."""
        problems = self.check(piece)
        if problems:
            raise PalaceError(problems)
        placed = self._with_id(piece)
        if placed.id in self._pieces:
            raise PalaceError(
                [Violation("overlap", (placed.id,), f"id {placed.id} is already used")]
            )
        self._index(placed.id, placed)
        return placed

    def remove(self, piece_id: str) -> Piece:
        """Takes a piece off; refuses while something rests on it."""
        piece = self._pieces[piece_id]
        above = self.resting_on(piece)
        if above:
            names = ", ".join(p.label for p in above)
            raise PalaceError([Violation("F", (piece_id, *(p.id for p in above)),
                                         f"cannot take {piece.label} away: {names} rests on it")])
        self._unindex(piece_id, piece)
        return piece

    def _with_id(self, piece: Piece) -> Piece:
        if piece.id:
            return piece
        return piece.moved(id=self._new_id())

    def _new_id(self) -> str:
        while f"p{self._next_id}" in self._pieces:
            self._next_id += 1
        self._next_id += 1
        return f"p{self._next_id - 1}"

    def stands(self, pieces: Sequence[Piece]) -> bool:
        """Whether the pieces can all be placed, in order, the palace left as it was:
        what placing them one by one and taking them off again answers (the ids they
        would be given are used up alike), without making each placed copy. A vision
        decoder asks this of thousands of moves a turn."""
        placed: list[tuple[str, Piece]] = []
        try:
            for piece in pieces:
                if not self.fits(piece):
                    return False
                pid = piece.id or self._new_id()
                if pid in self._pieces:
                    return False
                self._index(pid, piece)
                placed.append((pid, piece))
            return True
        finally:
            for pid, piece in reversed(placed):
                self._unindex(pid, piece)

    def _index(self, pid: str, piece: Piece) -> None:
        self._pieces[pid] = piece
        for v in piece.voxels():
            self._space[v] = pid
        for x, y in piece.knobs():
            self._knobs[(x, y, piece.top)] = pid
        for x, y in piece.forbidden_top():
            self._forbidden[(x, y, piece.top)] = pid

    def _unindex(self, pid: str, piece: Piece) -> None:
        del self._pieces[pid]
        for v in piece.voxels():
            del self._space[v]
        for x, y in piece.knobs():
            self._knobs.pop((x, y, piece.top), None)
        for x, y in piece.forbidden_top():
            self._forbidden.pop((x, y, piece.top), None)

    # -- queries -----------------------------------------------------------------------
    def occupant(self, x: int, y: int, level: int) -> Piece | None:
        """The piece filling voxel (x, y, level), if any."""
        pid = self._space.get((x, y, level))
        return self._pieces[pid] if pid else None

    def knob_owner(self, x: int, y: int, level: int) -> Piece | None:
        """The piece whose stud sits at (x, y) with its top at ``level``."""
        pid = self._knobs.get((x, y, level))
        return self._pieces[pid] if pid else None

    def is_open_knob(self, x: int, y: int, level: int) -> bool:
        """Whether a new piece's leg could stand at (x, y, level) as far as support goes.

        An open knob is a free stud of the ground map (level 0) or of a piece that is
        neither a corner brick nor an animal, with nothing standing on it.
        """
        if (x, y, level) in self._space or (x, y, level) in self._forbidden:
            return False
        if level == 0:
            return self.ground.buildable(x, y)
        owner = self._knobs.get((x, y, level))
        return owner is not None and self._pieces[owner].kind is not Kind.CORNER

    def open_knobs(self) -> set[Voxel]:
        """Every open knob of the board (ground studs and piece studs)."""
        found = {
            (x, y, 0)
            for y in range(BOARD_STUDS)
            for x in range(BOARD_STUDS)
            if self.is_open_knob(x, y, 0)
        }
        found.update(v for v in self._knobs if self.is_open_knob(*v))
        return found

    def stack_height(self, x: int, y: int) -> int:
        """The level of the highest filled voxel above stud (x, y), plus one (0 if empty)."""
        tops = [lvl + 1 for (vx, vy, lvl) in self._space if vx == x and vy == y]
        return max(tops, default=0)

    def supporters(self, piece: Piece) -> tuple[Piece, ...]:
        """The pieces whose knobs the legs of ``piece`` stand on (none on the ground)."""
        found: dict[str, Piece] = {}
        if piece.z == 0:
            return ()
        for x, y in piece.legs():
            pid = self._knobs.get((x, y, piece.z))
            if pid and pid != piece.id:
                found[pid] = self._pieces[pid]
        return tuple(found.values())

    def resting_on(self, piece: Piece) -> tuple[Piece, ...]:
        """The pieces that stand on a knob of ``piece``."""
        found: dict[str, Piece] = {}
        for x, y in piece.knobs():
            pid = self._space.get((x, y, piece.top))
            # An arch's opening may pass over a knob without resting on it.
            if pid and pid != piece.id and (x, y) in self._pieces[pid].legs():
                found[pid] = self._pieces[pid]
        return tuple(found.values())

    def touching(self, piece: Piece) -> tuple[Piece, ...]:
        """Pieces sharing a face with ``piece``: beside it, under it or on it."""
        mine = set(piece.voxels())
        found: dict[str, Piece] = {}
        for x, y, z in mine:
            for n in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z),
                      (x, y, z + 1), (x, y, z - 1)):
                pid = self._space.get(n)
                if pid and pid != piece.id and n not in mine:
                    found[pid] = self._pieces[pid]
        return tuple(found.values())

    def decorations(self, color: str | None = None) -> tuple[Piece, ...]:
        return tuple(
            p for p in self._pieces.values()
            if p.kind is Kind.DECORATION and (color is None or p.color == color)
        )

    def highest_decoration_level(self, color: str | None = None) -> int | None:
        """The top level of the highest decoration (of a colour, or of any colour)."""
        return max((d.top for d in self.decorations(color)), default=None)

    def highest_decorations(self, color: str | None = None) -> tuple[Piece, ...]:
        """All decorations sharing the highest top level (several means a tie)."""
        level = self.highest_decoration_level(color)
        return tuple(d for d in self.decorations(color) if d.top == level)
