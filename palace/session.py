"""The table session: one game at the table, driven by the camera loop and by the page.

Contract (the camera loop and the server code against exactly this; all of it is
thread-safe, the loop calling from its own thread):

- ``TableSession.open(db_path, *, resume)``: the game log at ``db_path``; with
  ``resume`` the latest game is rebuilt from it, otherwise a new default game (two
  players, map 1) is started until the page sets one up.
- ``show_frame(image, location, webcam=1)``: the newest BGR camera picture and where the
  board is in it (``calibration.evidence.BoardLocation`` or None); the overlay is drawn
  here and pages are told a new frame is there. ``webcam=2``: a second webcam's.
- ``camera_status(state, detail="")``: searching, tracking, hands, settling, reading.
- ``camera_turn(reading, frames)``: a settled board was read (vision's ``TurnReading``,
  duck-typed: ``found``, ``reason``, ``uncertain``, ``added`` of readings with
  ``piece``, ``confidence``, ``alternatives``). Found, certain and legal: it is the
  active player's turn, pending card picks. Found with nothing added: an uncorrected
  camera reading still waiting is cleared (its pieces were taken away); a sure reading
  of nothing is no turn; a doubted one (turn mode doubts every one,
  ``vision.turn.NOTHING_READ_DOUBTED``) is put to the players. Otherwise the game is
  "out of sync" and the page asks the players, showing what is doubtful, until they
  correct or confirm.
- ``palace()`` the palace as the game has it (corrections and undo included), which
  the loop reads the next turn against; ``ground`` the map in use.
- ``keep_settled(image, camera, time_s, webcam)``: a settled picture (board found, nothing over
  it), kept for reading the ground map when the set-up asks (``read_map``).

Everything the page does goes through the methods below the camera's (the players'
actions on a turn are :mod:`palace.turn_actions`'s, mixed in); a refused action raises
:class:`~palace.turn_actions.SessionError` with an HTTP status, a short code and a
sentence.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraFileError
from calibration.map_read import MapReadError
from palace import views
from palace.broadcast import Broadcast
from palace.camera_feed import CameraFeed
from palace.camera_map import CAMERA_MAP, CameraMap, CameraMaps, NoFrames, NoMap
from palace.draft import Draft, from_reading
from palace.gamelog import GameLog, GameRow
from palace.ldraw import palace_ldr
from palace.overlay import OverlayScene, encode_jpeg
from palace.replay import game_export, palace_at, replay
from palace.turn_actions import SessionError, TurnActions
from rules.game import Game, GameError
from rules.maps import GroundMap, MapError, load_map, map_from_json
from rules.moves import Hand
from rules.palace import Palace
from rules.report import TurnReport
from rules.settings import RuleSettings

MAX_TURN_FRAMES = 4
"""Frames kept per turn: the settled frame before, the one read, and a few between."""


class TableSession(TurnActions):
    """See the module's contract. Every change is logged before it is shown."""

    def __init__(self, log: GameLog) -> None:
        self.log = log
        self.hub = Broadcast()
        self._lock = threading.RLock()
        self.feed = CameraFeed(self.hub)
        """The newest camera picture and the loop's state, which pages read directly
        (``feed.jpeg()``, ``feed.status()``): they need no lock on the game."""
        self.second_feed = CameraFeed(self.hub, topic="second_frame")
        """A second webcam's newest picture, if the table has one."""
        self._state: tuple[int, bytes] | None = None
        self.row: GameRow
        self.game: Game
        self.draft: Draft | None = None
        self._report: TurnReport | None = None
        self._placed_in: dict[str, int] = {}
        self._numbers: list[int] = []
        self.maps = CameraMaps()
        """Settled camera pictures and the map read from them; ``maps.profile`` (set by
        ``palace watch --profile``) is where a game on the camera's map keeps it."""

    # -- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, db_path: Path, *, resume: bool) -> TableSession:
        session = cls(GameLog.open(db_path))
        row = session.log.latest_game() if resume else None
        if row is None:
            session.new_game(players=2)
        else:
            session._load(row)
        return session

    def close(self) -> None:
        self.log.close()

    def new_game(self, players: int, names: Sequence[str] | None = None, map_name: str = "1",
                 map_data: dict[str, Any] | None = None, settings: RuleSettings | None = None,
                 seed: int = 0) -> None:
        """Sets up a new game (the old one stays in the log); ``map_name`` "camera" is
        the map last read by ``read_map``."""
        names = list(names or [])
        if not 2 <= players <= 4:
            raise SessionError(422, "players", f"Monkey Palace is played by 2 to 4 players, "
                               f"not {players}")
        names = [n.strip() or f"Player {i + 1}" for i, n in enumerate(names[:players])]
        names += [f"Player {i + 1}" for i in range(len(names), players)]
        camera_map = map_name == CAMERA_MAP and not map_data
        if camera_map:
            if self.maps.latest is None:
                raise SessionError(409, "no_camera_map", "no map has been read by the camera "
                                   "yet: read it first (POST /api/map/read)")
            map_data = self.maps.latest.ground.to_json()
        try:
            ground = map_from_json(map_data, "uploaded map") if map_data else load_map(map_name)
        except MapError as exc:
            raise SessionError(422, "map", str(exc)) from None
        if camera_map:
            # Kept first: a profile that cannot be written refuses the set-up cleanly.
            try:
                self.maps.remember(ground)
            except (OSError, CameraFileError) as exc:
                raise SessionError(409, "profile", f"the map read by the camera cannot be "
                                   f"kept in the profile: {exc}") from None
        settings = settings or RuleSettings()
        with self._lock:
            game_id = self.log.new_game(names, CAMERA_MAP if camera_map else
                                        ground.name if map_data else map_name,
                                        ground.to_json() if map_data else None,
                                        asdict(settings), seed)
            self._load(self.log.game(game_id))

    def _load(self, row: GameRow) -> None:
        """Rebuilds the game from the log: set-up, then every turn not undone."""
        game, placed_in, numbers = replay(self.log, row)
        with self._lock:
            self.row, self.game, self._placed_in, self._numbers = row, game, placed_in, numbers
            data = self.log.draft(row.id)
            self._set_draft(Draft.from_json(data) if data else None, log=False)

    # -- the camera loop's side -------------------------------------------------------
    def palace(self) -> Palace:
        with self._lock:
            return self.game.palace.copy()

    @property
    def ground(self) -> GroundMap:
        with self._lock:
            return self.game.palace.ground

    def hand(self) -> Hand | None:
        """What the player to move may build with, for the turn reading to weigh its
        readings against (None once the game is over)."""
        with self._lock:
            return None if self.game.is_over else self.game.hand()

    def show_frame(self, image: NDArray[np.uint8], location: Any, webcam: int = 1) -> None:
        """Keeps the picture with what to draw on it: the palace, this turn's pieces, the
        staircase's path and the doubtful pieces (``webcam`` 2: a second webcam's)."""
        scene = None
        if location is not None and location.found:
            with self._lock:
                draft, report = self.draft, self._report
                scene = OverlayScene(self.game.palace.pieces, draft.added if draft else (),
                                     report.path if report else (),
                                     draft.doubtful if draft else ())
        self.webcam_feed(webcam).show(image, location, scene)

    def webcam_feed(self, webcam: int) -> CameraFeed:
        """The first webcam's feed (1), or a second webcam's (2)."""
        return self.feed if webcam == 1 else self.second_feed

    def keep_settled(self, image: NDArray[np.uint8], camera: Any, time_s: float,
                     webcam: int = 1) -> None:
        self.maps.keep(image, camera, time_s, webcam)

    def read_map(self) -> CameraMap:
        """The ground map read from the camera's latest settled pictures (409 when
        there are none, or the board is in none of them)."""
        camera_on = self.feed.running
        try:
            return self.maps.read(camera_on)
        except NoFrames as exc:
            raise SessionError(409, "no_camera" if not camera_on else "no_settled_frame",
                               str(exc)) from None
        except MapReadError as exc:
            raise SessionError(409, "map_not_read", f"the map was not read: {exc}") from None

    def paint_map(self, x: int, y: int, ink: str, reach: str) -> CameraMap:
        """The map last read, corrected by the players where the camera misread the card
        (:func:`palace.camera_map.painted`): 409 before any reading, 422 for a correction
        the map cannot take."""
        try:
            return self.maps.paint(x, y, ink, reach)
        except NoMap as exc:
            raise SessionError(409, "no_camera_map", f"{exc} (POST /api/map/read)") from None
        except MapError as exc:
            raise SessionError(422, "map", str(exc)) from None

    def unpaint_map(self) -> CameraMap:
        """The map last read as it was before its last correction (409 with none)."""
        try:
            return self.maps.undo()
        except NoMap as exc:
            raise SessionError(409, "no_correction", str(exc)) from None

    def camera_status(self, state: str, detail: str = "") -> None:
        if self.feed.set_status(state, detail):
            self._changed()

    def camera_turn(self, reading: Any, frames: Sequence[NDArray[np.uint8]]) -> None:
        jpegs = [encode_jpeg(f) for f in list(frames)[-MAX_TURN_FRAMES:]]
        with self._lock:
            if self.over:
                return
            kept = self.draft
            if reading.found and not reading.added:
                # With a camera draft waiting, the reading is against the palace before
                # it: nothing read means what the camera had read was taken away, even
                # though turn mode doubts every reading of nothing (a staircase hidden?).
                if kept is not None and kept.source == "camera" and not kept.corrections:
                    self.camera_status("tracking", "what the camera had read was taken away")
                    self._set_draft(None)
                    return
                if not reading.uncertain:
                    self.camera_status("tracking", "the board settled with nothing new on it")
                    return
            new = from_reading(reading, [p.id for p in self.game.palace])
            if kept is not None and (kept.source != "camera" or kept.corrections):
                new = replace(self.draft, notice=f"The camera read the board again "
                              f"({len(new.pieces)} new pieces); your corrections are kept.")
            self._set_draft(new, frames=jpegs)

    # -- reading the game -----------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.is_over or self.row.ended is not None

    @property
    def sync(self) -> str:
        """over, ready (waiting for a turn), pending (a sound turn awaiting its cards)
        or out_of_sync (a doubtful or illegal reading the players must settle)."""
        if self.over:
            return "over"
        if self.draft is None:
            return "ready"
        doubtful = self.draft.uncertain or self.draft.doubtful
        legal = self._report is not None and self._report.legal
        return "pending" if legal and not doubtful else "out_of_sync"

    def state(self) -> dict[str, Any]:
        camera = self.feed.status()
        with self._lock:
            game, draft, report = self.game, self.draft, self._report
            out = views.game_json(game, self.row.names)
            color = report.start_color if report is not None and report.legal else None
            out.update(
                game_id=self.row.id, map=self.row.map_name, seed=self.row.seed,
                ended=self.row.ended is not None, end_reason=self.row.end_reason,
                sync=self.sync, version=self.hub.versions["state"], camera=camera,
                market=views.market_json(game, color),
                palace=views.palace_json(game, self._placed_in),
                turns=views.turns_json(self.log.turns(self.row.id, undone=True)),
                draft=views.draft_json(draft, report))
            return out

    def state_bytes(self) -> bytes:
        """The state as JSON, built once per change however many pages ask."""
        with self._lock:
            version = self.hub.versions["state"]
            if self._state is None or self._state[0] != version:
                self._state = (version, json.dumps(self.state()).encode())
            return self._state[1]

    # -- export -------------------------------------------------------------------------
    def export(self) -> dict[str, Any]:
        with self._lock:
            return game_export(self.log, self.row, self.game, self.draft)

    def ldraw(self, number: int) -> str:
        """The palace after turn ``number`` (0: the set-up) as an LDraw model."""
        with self._lock:
            pieces = palace_at(self.log, self.row, self.game.palace.ground, number)
            if pieces is None:
                known = ", ".join(map(str, self._numbers)) or "none"
                raise SessionError(404, "no_such_turn",
                                   f"there is no turn {number} in play (turns: {known})")
            return palace_ldr(pieces, f"Monkey Palace, game {self.row.id}, after turn {number}")

    def frames(self, number: int) -> list[bytes]:
        with self._lock:
            turn = next((t for t in self.log.turns(self.row.id) if t.number == number), None)
            if turn is None:
                raise SessionError(404, "no_such_turn", f"there is no turn {number} in play")
            return self.log.frames(self.row.id, turn.id)

    # -- inside -------------------------------------------------------------------------
    def _set_draft(self, draft: Draft | None, *, correction: dict[str, Any] | None = None,
                   frames: list[bytes] | None = None, log: bool = True) -> None:
        report = None
        if draft is not None and draft.pieces and not self.game.is_over:
            try:
                report = self.game.check_turn(draft.added, frog=draft.frog)
            except GameError as exc:
                draft = replace(draft, reason=str(exc))
        if log:
            self.log.save_draft(self.row.id, draft.to_json() if draft else None,
                                correction=correction, frames=frames,
                                turn_number=(self._numbers[-1] + 1) if self._numbers else 1)
        self.draft, self._report = draft, report
        self._changed()

    def _changed(self) -> None:
        self.hub.publish("state")

