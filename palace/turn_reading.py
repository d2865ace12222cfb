"""The camera loop's turns: a settled board read against the session's palace and
handed to the session, in step or in a thread of its own, and the table's look taught
once the session vouches for the palace in a settled picture.

:mod:`palace.watch` decides when to look; this module does the looking. Which pictures
go with a turn (the picture before, a second webcam's view) is the loop's choice; what
the session holds when the reading comes back decides what the reading means: while a
reading still waits for the players, the picture before shows a palace the session does
not have yet, and a reading of nothing means that reading's pieces were taken away.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from palace.following import SecondView
from rules.maps import GroundMap
from rules.moves import Hand
from rules.palace import Palace
from vision.views import usable_views

IDLE_KEPT = 10_000
"""Idle frame times kept for the summary: a long evening at the table stays bounded."""
LEARN_CHECK_S = 0.5
"""How often (wall time) an idle loop asks whether the session confirmed a turn."""


class Session(Protocol):
    """What the loop needs of the table session (:class:`palace.session.TableSession`)."""

    ground: GroundMap
    sync: str
    """ready (no turn waiting), pending, out_of_sync or over."""

    def show_frame(self, image: NDArray[np.uint8], location: BoardLocation | None,
                   webcam: int = 1) -> None: ...

    def camera_status(self, state: str, detail: str = "") -> None: ...

    def keep_settled(self, image: NDArray[np.uint8], camera: Camera, time_s: float,
                     webcam: int = 1) -> None: ...

    def camera_turn(self, reading: Any, frames: list[NDArray[np.uint8]]) -> Any: ...

    def palace(self) -> Palace: ...

    def hand(self) -> Hand | None: ...


class Look(Protocol):
    """What the board and pieces look like at this table (``vision.TableLook``)."""

    def learn(self, frame: NDArray[np.uint8], location: BoardLocation, palace: Palace
              ) -> Any: ...


Reader = Callable[..., Any]
"""``vision.read_turn``'s signature: (frames, camera, before, *, before_frame,
before_locations, ground, look, locations, hand) -> TurnReading."""


@dataclass
class LoopStats:
    """What the loop did, for the summary line and the bench."""

    frames: int = 0
    found: int = 0
    searches: int = 0
    reads: int = 0
    second_views: int = 0
    """Turns read with the second webcam's view too."""
    second_alone: int = 0
    """Of which read because only the second webcam's board changed."""
    turns: int = 0
    nothing_new: int = 0
    moves: int = 0
    """Settled after the board was moved or turned: taken as the new reference, unread."""
    relit: int = 0
    """Settled changed after a moment's motion (the room's light changed): taken as the
    new reference, unread."""
    busy_s: float = 0.0
    """Wall time spent on frames, reads included."""
    read_s: list[float] = field(default_factory=list)
    """From the settled frame's arrival to ``camera_turn`` being called."""
    reader_s: list[float] = field(default_factory=list)
    """Of which in the reader (reconstruction), per turn."""
    idle_frame_s: deque[float] = field(default_factory=lambda: deque(maxlen=IDLE_KEPT))
    """Per-frame time while nothing was being read (the latest IDLE_KEPT frames)."""


@dataclass(frozen=True)
class Settled:
    """The first webcam's side of a turn to read: its still frames after the turn and
    where the board lies in each, its picture before, and what started the reading (for
    the page's status line)."""

    frames: list[NDArray[np.uint8]]
    locations: list[Any]
    before: NDArray[np.uint8]
    detail: str
    before_location: Any = None
    """Where the board lay in the picture before (the tracker's location): a webcam
    turned on its mount since, or a board pushed, is undone before the two are
    compared."""


def reading_is_empty(reading: Any) -> bool:
    """A reading that found the palace as it was: nothing added, nothing in doubt."""
    return bool(getattr(reading, "found", False)) and not getattr(reading, "added", ()) and (
        not getattr(reading, "uncertain", ()))


class TurnReader:
    """Reads the turns the loop settles on and hands them to the session."""

    def __init__(self, session: Session, read: Reader, look: Look, stats: LoopStats, *,
                 background: bool, on_turn: Callable[[Any, Any], None] | None,
                 status: Callable[..., None]) -> None:
        """``background`` reads in a thread of its own (a live webcam, whose frames wait
        for nobody); ``status(state, detail, news=...)`` tells the page what the loop
        does."""
        self.session, self.read, self.look, self.stats = session, read, look, stats
        self.background, self.on_turn, self._status = background, on_turn, status
        self._reading: threading.Thread | None = None
        self._read_error: BaseException | None = None
        self._last_learn_check = -1e9
        self._learned: frozenset[object] | None = None

    @property
    def busy(self) -> bool:
        """A reading is under way in its thread (the loop then only shows the table)."""
        return self._reading is not None and self._reading.is_alive()

    def collect(self) -> None:
        """Ends a reading whose thread is done, raising what it raised, in the loop's
        thread; waits for one still under way."""
        if self._reading is not None:
            self._reading.join()
            self._reading = None
        if self._read_error is not None:
            error, self._read_error = self._read_error, None
            raise error

    def start(self, settled: Settled, started: float, camera: Camera,
              second: SecondView | None) -> None:
        """Reads the turn (in its thread when ``background``); ``started``: when the
        frame that settled it arrived, for the turn's time."""
        if self.background:
            self._reading = threading.Thread(target=self._read_in_background,
                                             args=(settled, started, camera, second),
                                             daemon=True, name="read turn")
            self._reading.start()
        else:
            self.read_now(settled, started, camera, second)

    def _read_in_background(self, settled: Settled, started: float, camera: Camera,
                            second: SecondView | None) -> None:
        try:
            self.read_now(settled, started, camera, second)
        except BaseException as exc:  # handed to the loop's thread by collect()
            self._read_error = exc

    def read_now(self, settled: Settled, started: float, camera: Camera,
                 second: SecondView | None = None) -> None:
        """Read the settled board against the session's palace and hand the turn over.

        The picture before is the previous settled one while the session waits for no
        turn (it then shows the session's palace). While a reading still waits for the
        players, that picture shows a palace the session does not have yet; the reader
        is then left to the picture the table's look learned of the session's palace
        (and the second webcam's view, whose picture before is of that same unknown
        palace, is left out). The second webcam's view comes last, with its own picture
        before.
        """
        self._status("reading", settled.detail)
        frames, locations = list(settled.frames), list(settled.locations)
        camera = _camera_of(locations[-1]) or camera
        palace = self.session.palace()
        waiting = self.session.sync != "ready"
        before_frame: Any = None if waiting else settled.before
        before_location: Any = None if waiting else settled.before_location
        if second is not None and not waiting:
            # One picture before per view: this webcam's goes with the first of its
            # frames whose board was found (as a single picture before would), the
            # second webcam's with its own.
            found = usable_views(locations)
            first = found[0] if found else 0
            before_frame = [before_frame if i == first else None for i in range(len(frames))]
            before_frame.append(second.before)
            before_location = [before_location if i == first else None
                               for i in range(len(frames))]
            before_location.append(second.before_location)
            frames.append(second.image)
            locations.append(second.location)
            self.stats.second_views += 1
        reader_started = time.perf_counter()
        reading = self.read(frames, camera, palace, before_frame=before_frame,
                            before_locations=before_location, ground=self.session.ground,
                            look=self.look, locations=locations, hand=self.session.hand())
        reader_s = time.perf_counter() - reader_started
        self.stats.reads += 1
        # Nothing new is news too: pieces read before and taken away since.
        result = self.session.camera_turn(reading, frames)
        # While a reading waits, nothing read means its pieces were taken away (the
        # session drops it), not a turn, although turn mode doubts a reading of nothing.
        taken_away = waiting and bool(getattr(reading, "found", False)) and not getattr(
            reading, "added", ())
        if reading_is_empty(reading) or taken_away:
            self.stats.nothing_new += 1
            self._status("tracking", "nothing new on the board", news=True)
        else:
            self.stats.read_s.append(time.perf_counter() - started)
            self.stats.reader_s.append(reader_s)
            self.stats.turns += 1
            if self.on_turn is not None:
                self.on_turn(reading, result)
            self._status("tracking", "turn read", news=True)
        self.stats.busy_s += time.perf_counter() - started

    def learn_when_confirmed(self, reference: Any) -> None:
        """Teach the table's look from the settled picture once the session vouches for
        the palace in it: at the set-up, and after each turn the players confirmed (the
        session then waits for no turn and its palace is not the one last learned)."""
        now = time.perf_counter()
        if self._learned is not None and now - self._last_learn_check < LEARN_CHECK_S:
            return
        self._last_learn_check = now
        if reference is None or self.session.sync != "ready":
            return
        palace = self.session.palace()
        signature = frozenset(palace.pieces)
        location = reference.location
        if signature == self._learned or not isinstance(location, BoardLocation):
            return
        if not location.found:
            return
        self._learned = signature
        self.look.learn(reference.image, location, palace)

    def forget_learned(self) -> None:
        """The board moved or the light changed: the look learns the board anew at the
        next settled picture."""
        self._learned = None


def _camera_of(location: object) -> Camera | None:
    return location.camera if isinstance(location, BoardLocation) else None
