"""Turns read on the map the table's camera read, as a real table plays them.

Real Ground Maps are not published, so every real game is played on the map
``calibration.map_read`` reads from the camera's pictures of the set-up: a third of its
studs unknown (``?``) where the card's colour was in doubt, hidden or in a shadow. The
turn benches give the reader the true map; this set gives it the camera's. Each game's
map is read once, from the first frame the bench has of it (the set-up's settled frame,
before the game's first turn; a later turn's where the game passed its first; each
Cycles turn, a table of its own, from its own frame before, mid-game), and turned to
the truth's frame by the quarter turn that matches it best (which way round the board
lies is the pose's question, measured by ``bench.calibration``). The truth's report is
the true map's; the reading's is the game's on the camera's map, where a staircase from
an unknown stud is named by its decoration
(``RuleSettings.name_unknown_start``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose
from calibration.map_read import START, MapReadError, read_map
from rules.maps import UNKNOWN_GROUND, GroundMap
from rules.moves import Hand
from rules.palace import Palace, PalaceError
from rules.pieces import ANIMAL_KINDS, Piece
from rules.staircase import analyse_added
from training.pairs import TurnPair
from twin.cycles.frames import ValidationTurn


@dataclass
class MapCounts:
    """What the camera's maps knew: for the bench's summary line."""

    games: int = 0
    unread: int = 0
    """Games whose map the camera could not read (their turns are left out)."""
    known: int = 0
    """Studs named, over the games' maps."""
    wrong: int = 0
    """Studs named a colour the true map does not have there."""
    turns: int = 0
    unknown_starts: int = 0
    """Turns whose true staircase starts on a stud the camera's map left unknown."""

    def line(self) -> str:
        studs = max(self.games - self.unread, 1) * 1024
        return (f"camera's maps: {self.games - self.unread} of {self.games} games read, "
                f"{self.known / studs:.1%} of the studs named, {self.wrong} named wrongly; "
                f"{self.unknown_starts} of {self.turns} turns start on an unknown stud")


@dataclass(frozen=True)
class CameraMapTurn:
    """A turn with its palace before on the camera's map; the rest is the turn's own."""

    turn: TurnPair | ValidationTurn
    before: Palace

    @property
    def added(self) -> tuple[Piece, ...]:
        return tuple(self.turn.added)

    @property
    def before_frame(self) -> NDArray[np.uint8]:
        return self.turn.before_frame

    @property
    def after_frame(self) -> NDArray[np.uint8]:
        return self.turn.after_frame

    @property
    def camera(self) -> Camera:
        return self.turn.camera

    @property
    def pose(self) -> Pose:
        return self.turn.pose

    @property
    def ground(self) -> GroundMap:
        """The true map (the truth's report is judged on it)."""
        return self.turn.ground

    @property
    def hand(self) -> Hand | None:
        return self.turn.hand


def on_camera_map(turns: Iterable[TurnPair | ValidationTurn],
                  counts: MapCounts) -> Iterator[CameraMapTurn]:
    """``turns`` with the palace before on the map the camera read of each game: a twin
    game's from its first frame, each Cycles turn's (a table of its own) from its own
    frame before, mid-game. A game whose map is not read is passed over."""
    maps: dict[object, GroundMap | None] = {}
    for turn in turns:
        game = turn.game if isinstance(turn, TurnPair) else turn.name
        if game not in maps:
            maps[game] = _read(turn, counts)
        ground = maps[game]
        if ground is None:
            continue
        truth = turn.before
        try:
            before = Palace(ground, truth.pieces)
        except PalaceError:
            continue  # a piece on a stud read as blocked: the session would refuse it too
        counts.turns += 1
        built = [p for p in turn.added if p.kind not in ANIMAL_KINDS]
        start = analyse_added(truth, built).start
        counts.unknown_starts += start is not None and ground.char(*start) == UNKNOWN_GROUND
        yield CameraMapTurn(turn, before)


def _read(turn: TurnPair | ValidationTurn, counts: MapCounts) -> GroundMap | None:
    counts.games += 1
    try:
        reading = read_map([("set-up", turn.before_frame)], turn.camera)
    except MapReadError:
        counts.unread += 1
        return None
    truth = _cells(turn.ground)
    read = reading.cells()
    grid = max((np.rot90(read, k) for k in range(4)),
               key=lambda g: int(((g == truth) & (g != UNKNOWN_GROUND)).sum()))
    named = grid != UNKNOWN_GROUND
    counts.known += int(named.sum())
    counts.wrong += int((named & (grid != truth)).sum())
    start = frozenset((int(x), int(y)) for y, x in zip(*np.nonzero(grid == START), strict=True))
    rows = tuple("".join(row).replace(START, "L") for row in grid)
    return GroundMap(reading.ground.name, rows, start)


def _cells(ground: GroundMap) -> np.ndarray:
    """32 x 32 characters, the starting area as ``S`` (as the map read writes it)."""
    grid = np.array([list(row) for row in ground.ground])
    for x, y in ground.start_area:
        grid[y, x] = START
    return grid
