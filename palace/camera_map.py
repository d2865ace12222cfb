"""The ground map read by the table's camera, for the set-up dialog.

Real Ground Maps are not published, so at a real table the camera is the only thing
that knows the map. The camera loop hands over the settled pictures it sees (board
found, nothing over it); when the players ask, the last few are read with
calibration's map read (views fused, a stud hidden in all of them unknown) and the
reading is kept until the set-up takes it. Only settled pictures are kept because a
hand over the board would hide studs or, worse, be read as card colour. A second
webcam's settled pictures are read with them: from another side of the table it shows
studs the palace hides from the first, and the reading names them where the two views'
quarter turn is clear (:func:`calibration.map_read.read_cells`); the map stays in the
first webcam's board frame, whose pose the profile keeps.

A table started with a profile file keeps the map it played on there (the table's
entry), so that locating the board at the next game can tell which way round it lies.
"""

from __future__ import annotations

import base64
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_model import turned_pose
from calibration.camera import Camera, Pose, project
from calibration.map_read import (
    START,
    MapReadError,
    MapReading,
    cell_in,
    map_cells,
    map_picture,
    read_map,
)
from calibration.profile import DEFAULT_TABLE, Profile, TablePose
from rules.maps import (
    SETUP_PIECES,
    UNKNOWN_GROUND,
    GroundMap,
    MapError,
    map_from_json,
    piece_to_json,
)
from rules.pieces import BOARD_STUDS, STUD_MM, Piece
from vision.setup_staircase import (
    HIDDEN_SHARE,
    LEAST_WEIGHT,
    SetupView,
    find_setup,
    setup_placements,
)

SETTLED_KEPT = 3
"""Settled pictures fused into one reading: studs hidden by a shadow or a glare in one
show in another, and three reads stay within a few seconds on a laptop."""
SETTLED_EVERY_S = 1.0
"""Frame time between two kept pictures: a still board gives nothing new at 10 a second,
and each copy of a full-size picture costs the loop a millisecond."""
UNDO_KEPT = 50
"""Corrections of one reading that can be taken back, the last first."""
CAMERA_MAP = "camera"
"""The set-up's name for the map the camera read."""


@dataclass(frozen=True)
class CameraMap:
    """One reading of the map, with what the set-up dialog shows of it."""

    ground: GroundMap
    pose: Pose
    camera: Camera
    views: int
    """Pictures the board was found in."""
    offered: int
    """Settled pictures read (both webcams')."""
    fused: int
    """Of the ``views``, those whose reading was fused (a picture no quarter turn clearly
    aligns with the first one's is left out)."""
    png: bytes
    turn: int = 0
    """Quarter turns (``np.rot90``'s) the picture, the card seen from above, is turned so
    that it shows the card as the camera sees it (:func:`picture_turn`)."""

    @property
    def unknown(self) -> int:
        return sum(row.count(UNKNOWN_GROUND) for row in self.ground.ground)

    @property
    def known(self) -> int:
        return BOARD_STUDS * BOARD_STUDS - self.unknown

    def png_base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")


class NoFrames(Exception):
    """No settled picture to read; the message says why (no camera, or none settled)."""


class NoMap(Exception):
    """No map read yet to correct."""


class CameraMaps:
    """Settled pictures from the camera loop, the latest map read from them, and the
    profile the map is kept in. Thread-safe: the loop keeps, the page reads."""

    def __init__(self, profile: Path | None = None, table: str = DEFAULT_TABLE) -> None:
        self.profile, self.table = profile, table
        self._lock = threading.Lock()
        self._frames: dict[int, deque[tuple[NDArray[np.uint8], Camera | None]]] = {
            webcam: deque(maxlen=SETTLED_KEPT) for webcam in (1, 2)}
        self._last_kept = {1: -np.inf, 2: -np.inf}
        self.latest: CameraMap | None = None
        self._painted: deque[GroundMap] = deque(maxlen=UNDO_KEPT)
        """The latest reading's maps before each correction, the last one last."""

    def keep(self, image: NDArray[np.uint8], camera: Camera | None, time_s: float,
             webcam: int = 1) -> None:
        """A settled picture (board found, nothing over it) from webcam 1 or 2; kept at
        most every ``SETTLED_EVERY_S`` of frame time, the oldest dropped. A clock that
        went back (a new source) starts afresh, the first webcam's for both: a second
        webcam's pictures of another board must not be read with the new one's."""
        with self._lock:
            frames = self._frames[webcam]
            if time_s < self._last_kept[webcam]:
                for webcam_now in (1, 2) if webcam == 1 else (webcam,):
                    self._frames[webcam_now].clear()
                    self._last_kept[webcam_now] = -np.inf
            elif time_s - self._last_kept[webcam] < SETTLED_EVERY_S:
                return
            self._last_kept[webcam] = time_s
            frames.append((image.copy(), camera))

    def read(self, camera_on: bool) -> CameraMap:
        """The map read from the kept pictures; :class:`NoFrames` when there are none,
        ``calibration.map_read.MapReadError`` when the board is in none of them."""
        with self._lock:
            frames, seconds = list(self._frames[1]), list(self._frames[2])
        if not frames:
            if not camera_on:
                raise NoFrames("this table has no camera: `palace serve` runs without one; "
                               "start `palace watch --camera 0` (or `palace demo`) to read "
                               "the map, or choose a shipped map or upload one")
            raise NoFrames("the camera has not seen the board settled with nothing over it "
                           "yet: clear the board of hands and try again in a second")
        pictures = [(f"settled picture {i + 1}", image, camera)
                    for i, (image, camera) in enumerate(frames)]
        pictures += [(f"the second webcam's settled picture {i + 1}", image, camera)
                     for i, (image, camera) in enumerate(seconds)]
        reading = read_map(pictures, frames[-1][1], name=CAMERA_MAP)
        if reading.picture >= len(frames):
            # The map's frame and the pose the profile keeps are the first webcam's.
            raise MapReadError("the first webcam's settled pictures do not show the board")
        ground, pose = with_setup(reading, frames[reading.picture][0])
        turn = picture_turn(reading.camera, pose)
        result = CameraMap(ground, pose, reading.camera, reading.views, len(pictures),
                           reading.fused, _png(ground, turn), turn)
        with self._lock:
            self.latest = result
            self._painted.clear()
        return result

    def paint(self, x: int, y: int, ink: str, reach: str) -> CameraMap:
        """The latest reading with the players' correction painted on
        (:func:`painted`); :class:`NoMap` before any reading, ``rules.maps.MapError``
        for a correction the map cannot take."""
        with self._lock:
            latest = self.latest
            if latest is None:
                raise NoMap("no map has been read by the camera yet: read it first")
            ground = painted(latest.ground, x, y, ink, reach)
            self._painted.append(latest.ground)
            self.latest = replace(latest, ground=ground, png=_png(ground, latest.turn))
            return self.latest

    def undo(self) -> CameraMap:
        """The latest reading as it was before its last correction (a click on the wrong
        stud or ink); :class:`NoMap` when there is no correction to take back."""
        with self._lock:
            latest = self.latest
            if latest is None or not self._painted:
                raise NoMap("no correction of the map to take back")
            ground = self._painted.pop()
            self.latest = replace(latest, ground=ground, png=_png(ground, latest.turn))
            return self.latest

    def remember(self, ground: GroundMap) -> None:
        """The game is played on ``ground`` (the camera's map): the profile's table
        keeps it, with the pose it was read under, as ``palace map read`` would."""
        latest = self.latest
        if self.profile is None or latest is None:
            return
        profile = Profile.load(self.profile)
        old = profile.tables.get(self.table)
        profile.tables[self.table] = TablePose(
            latest.pose, old.rotation if old is not None else 0, ground,
            old.extra if old is not None else {})
        if profile.camera is None:
            profile.camera = latest.camera
        profile.save(self.profile)


PAINT_INKS = ("L", "D", "G", "X", UNKNOWN_GROUND)
"""What a stud may be painted: light green, dark green, gold, blocked, or unknown again."""
PAINT_REACHES = ("stud", "region", "ink")
"""How far a correction reaches from the stud clicked: that stud, the region of studs
read alike round it (joined side by side), or every stud read as its ink."""


def painted(ground: GroundMap, x: int, y: int, ink: str, reach: str) -> GroundMap:
    """``ground`` with the players' correction: the studs ``reach`` names from stud
    (``x``, ``y``) read as ``ink``.

    The camera's commonest mistakes are whole: an ink named as another over the whole
    card, two inks read as one region, a shadow's patch. A player who compares the
    picture with the card mends each with one click, whole ink or whole region at once,
    rather than stud by stud. The starting staircase's studs stay the starting area (the
    set-up stands there: a correction there would unseat it, so it is refused);
    other white studs painted leave the area. ``rules.maps.MapError`` names the stud for
    a correction the map cannot take (an unknown ink or reach, a stud off the board).
    """
    if ink not in PAINT_INKS:
        raise MapError(f"ink {ink!r}: paint a stud L, D, G, X or ? (unknown)")
    if reach not in PAINT_REACHES:
        raise MapError(f"reach {reach!r}: one of {', '.join(PAINT_REACHES)}")
    if not (0 <= x < BOARD_STUDS and 0 <= y < BOARD_STUDS):
        raise MapError(f"stud [{x}, {y}] is off the board (0..{BOARD_STUDS - 1})")
    feet = {cell for piece in ground.setup for cell in piece.footprint()}
    if (x, y) in feet:
        raise MapError(f"stud [{x}, {y}]: the starting staircase stands there, on the "
                       "starting area")
    cells = map_cells(ground)
    chosen = cells == cells[y, x] if reach == "ink" else np.zeros(cells.shape, bool)
    if reach == "stud":
        chosen[y, x] = True
    elif reach == "region":
        chosen = _region(cells, x, y)
    for fx, fy in feet:
        chosen[fy, fx] = False
    rows = np.array([list(row) for row in ground.ground])
    rows[chosen] = ink
    start = {cell for cell in ground.start_area if not chosen[cell[1], cell[0]]}
    data = {**ground.to_json(), "ground": ["".join(row) for row in rows],
            "start_area": sorted([cx, cy] for cx, cy in start)}
    return map_from_json(data, "the corrected map")


def _region(cells: NDArray[np.str_], x: int, y: int) -> NDArray[np.bool_]:
    """The studs read as stud (x, y) is, joined to it side by side."""
    mask = (cells == cells[y, x]).astype(np.uint8)
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    return np.asarray(labels == labels[y, x], bool)


def picture_turn(camera: Camera, pose: Pose) -> int:
    """The quarter turn (``np.rot90``'s ``k``) under which the map's picture shows the
    card as the camera sees it, the board's side furthest up the camera's picture at the
    top: the players compare the picture with the card and with the camera's view beside
    it, and a map drawn in the board's own frame may lie any way round to them.

    The picture is of the card seen from above: the board's frame is right-handed with
    z up, so from above its y runs up the picture where its x runs right, the other way
    from a map file's rows (row y is string y, the first on top); the rows are
    reversed before the turn (:func:`card_picture`)."""
    middle = BOARD_STUDS * STUD_MM / 2
    points = np.array([[middle, middle, 0.0], [middle + STUD_MM, middle, 0.0],
                       [middle, middle + STUD_MM, 0.0]])
    seen = project(camera, pose, points)
    along_x, along_y = seen[1] - seen[0], seen[2] - seen[0]
    # Under each turn of the rows reversed, the board directions the picture's right
    # and down show.
    right = (along_x, -along_y, -along_x, along_y)
    down = (-along_y, -along_x, along_y, along_x)

    def agreement(k: int) -> float:
        return float(right[k][0] / (np.linalg.norm(right[k]) + 1e-9)
                     + down[k][1] / (np.linalg.norm(down[k]) + 1e-9))

    return max(range(4), key=agreement)


def card_picture(ground: GroundMap, turn: int = 0, cell_px: int = 6) -> NDArray[np.uint8]:
    """A map as the players see its card: its starting area white, unknown studs
    magenta, ``cell_px`` a stud; seen from above (the rows reversed), turned ``turn``
    quarter turns (:func:`picture_turn`)."""
    return map_picture(np.rot90(map_cells(ground)[::-1], turn), cell_px=cell_px)


def _png(ground: GroundMap, turn: int = 0) -> bytes:
    """The map the game would play on, as the set-up dialog shows it (PNG)."""
    return cv2.imencode(".png", card_picture(ground, turn))[1].tobytes()


def with_setup(reading: MapReading, picture: NDArray[np.uint8]) -> tuple[GroundMap, Pose]:
    """The read map with the starting staircase standing in ``picture`` (the picture
    the reading's pose is of) as the game's set-up, and the pose of the map's frame.

    The camera reads the card, not the pieces: without the staircase in the map, the
    game would start on an empty board and read the staircase as the first turn. A real
    map's starting area may lie anywhere, so the staircase is looked for at every place
    (:func:`vision.setup_staircase.find_setup`). Where no place is clearly it, the
    shipped maps' place is taken under the quarter turn that hides its studs, if pieces
    stand there (a map read mid-game, the palace grown round the staircase); otherwise
    the map has no set-up, and the players choose one.
    """
    seen = SetupView(picture, reading)
    found = find_setup(seen)
    if found is not None:
        try:
            return _set_up(reading.ground, reading.cells(), found.pieces), reading.pose
        except MapError:  # a stud under it read as blocked: not where it stands
            pass
    return _at_standin_place(seen)


def _set_up(ground: GroundMap, grid: NDArray[np.str_], pieces: Sequence[Piece]
            ) -> GroundMap:
    """``ground`` (read, its cells ``grid`` with the white studs as ``S``) with
    ``pieces`` as its set-up, the starting area their studs and the white ones read."""
    feet = {c for piece in pieces for c in piece.footprint()}
    start = {(int(x), int(y)) for y, x in zip(*np.nonzero(grid == START), strict=True)}
    rows = ["".join(row).replace(START, "L") for row in grid]
    data = {**ground.to_json(), "ground": rows,
            "start_area": sorted([x, y] for x, y in start | feet),
            "setup": [piece_to_json(p) for p in pieces]}
    return map_from_json(data, "camera map")


def _at_standin_place(seen: SetupView) -> tuple[GroundMap, Pose]:
    """The map turned so that the staircase stands where the shipped maps have it, with
    that staircase as the set-up: the quarter turn under which its studs are hidden or
    white in the reading and pieces stand on them in the picture."""
    reading = seen.reading
    grid = reading.cells()
    feet = [cell for piece in SETUP_PIECES for cell in piece.footprint()]
    xs, ys = np.array([c[0] for c in feet]), np.array([c[1] for c in feet])
    hidden = [float(np.isin(np.rot90(grid, k)[ys, xs], (UNKNOWN_GROUND, START)).mean())
              for k in range(4)]
    k = int(np.argmax(hidden))
    if hidden[k] < HIDDEN_SHARE:
        return reading.ground, reading.pose
    # Each cell of the turned grid, as a cell of the reading's frame.
    moved_from = np.rot90(np.arange(BOARD_STUDS * BOARD_STUDS).reshape(grid.shape), k)
    standing = {(p.kind, int(moved_from[y, x])) for p in SETUP_PIECES for x, y in p.footprint()}
    placed = next((pieces for pieces in setup_placements()
                   if {(p.kind, y * BOARD_STUDS + x) for p in pieces
                       for x, y in p.footprint()} == standing), None)
    if placed is None or seen.weights([placed])[0] < LEAST_WEIGHT:
        return reading.ground, reading.pose
    turned = np.rot90(grid, k)
    # Which turn of the pose sees the turned frame: the one that maps every cell of the
    # reading's frame to where the turned grid put it.
    cells = np.arange(moved_from.size)
    pose = reading.pose
    for kk in range(4):
        candidate = turned_pose(reading.pose, kk)
        where = cell_in(reading.pose, candidate)
        if np.array_equal(moved_from.reshape(-1)[where], cells):
            pose = candidate
            break
    try:
        return _set_up(reading.ground, turned, SETUP_PIECES), pose
    except MapError:  # a staircase stud read as blocked: not where the staircase stands
        return reading.ground, reading.pose
