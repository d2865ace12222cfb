"""The camera loop: frames in, turns out, the session told at every step.

Per frame: the board is tracked from its last pose (found afresh only at the start or
after it was lost for a while, so a hand over the board does not cost a full search a
frame); the settle detector says whether something is over the board or whether the
board has settled into a new picture; on a settled change the turn is read against the
session's palace, with the previous settled picture as the "before", and handed to the
session, which judges it by the rules and goes out of sync when it is doubtful. With a
second webcam (``palace.following``), its view is read with the first's, and a change
that settles in its picture alone, the first's staying as it was (a staircase the palace
hides from the first webcam), is read as a turn too.

Nothing here decides what a turn is worth: the session does. The loop only decides
when to look. A board that settles after being slid or turned is not read (the picture
before was taken from elsewhere): its new picture becomes the reference, with no new
set-up. A reading that is sure nothing new was built is not a turn either; turn mode
never is (:data:`vision.turn.NOTHING_READ_DOUBTED`: a turn adds a staircase, so a
settled change read as nothing, a staircase hidden behind the palace or a shadow that
came and stayed, is put to the players, who discard it if nothing was built).

``palace watch`` and ``palace demo`` both run this loop; they differ only in where the
frames come from.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from palace.following import BoardFollower, SecondView, SecondWebcam
from palace.turn_reading import Look, LoopStats, Reader, Session, Settled, TurnReader
from vision import TableLook, read_turn
from vision.capture import FrameLike
from vision.settle import (
    Observation,
    SettleDetector,
    SettleSettings,
    board_moved,
    pictures_compare,
)

PREVIEW_EVERY_S = 0.1
"""The page's camera view gets a frame at most this often (wall time)."""
SECOND_WAIT_S = 2.0
"""How long (frame time) a turn the first webcam settled on waits for a second webcam
whose board is in view but whose picture is not still yet (a hand leaving its side of
the table later): its view is worth a short wait."""


class CameraLoop:
    """One table's camera: call :meth:`step` per frame, or :meth:`run` over a source."""

    def __init__(self, session: Session, *, camera: Camera | None = None,
                 reader: Reader | None = None, look: Look | None = None,
                 settings: SettleSettings | None = None,
                 on_turn: Callable[[Any, Any], None] | None = None,
                 background: bool = False, second: SecondWebcam | None = None) -> None:
        """``background`` reads turns in a thread of their own while the page's camera
        view goes on (a live webcam, whose frames wait for nobody); a recording or the
        simulated table is read in step, so that no frame of it goes unseen. ``second``:
        a second webcam on another side of the table, whose frames come with this one's
        (:meth:`step`); its view is read with this one's where it can be trusted."""
        self.session = session
        self._last_location: BoardLocation | None = None
        self.follower = BoardFollower(camera)
        self.second = second
        self.detector = SettleDetector(settings)
        self.stats = LoopStats()
        self.reader = TurnReader(session, reader or read_turn, look or TableLook(), self.stats,
                                 background=background, on_turn=on_turn, status=self._status)
        self._state = ""
        self._last_preview = -1e9
        self._before_turn: tuple[NDArray[np.uint8], Any] | None = None
        """With a second webcam, this one's picture from before the turn to come and the
        board's place in it: the settled one at the set-up, a move or the turn last read
        (a settle unchanged shows the same palace and leaves it)."""
        self._waiting: tuple[Settled, float, float] | None = None
        """A turn settled in this webcam's picture, held (with the frame time it settled
        and when its frame arrived) until the second webcam's picture settles too."""

    # -- one frame ---------------------------------------------------------------------
    @property
    def camera(self) -> Camera | None:
        """The first webcam's lens (None until its first frame where none was given)."""
        return self.follower.camera

    def step(self, frame: FrameLike, second_frame: FrameLike | None = None) -> Observation:
        """Track, watch for hands, and read the turn when the board settles changed.
        ``second_frame``: the second webcam's frame taken with this one."""
        started = time.perf_counter()
        image, now = frame.image, float(frame.time)
        if self.reader.busy:
            # The reader has the board; the page still sees the table live.
            self._preview(image, self._last_location, second_frame)
            return Observation("reading", "reading the turn")
        self.reader.collect()
        if self.second is not None and second_frame is not None:
            self.second.step(second_frame.image, now, self.session.ground)
            still = self.second.still
            if still is not None:  # for the set-up's map read, as this webcam's below
                self.session.keep_settled(still.image, still.location.camera, now, webcam=2)
        location = self.follower.locate(image, now, self.session.ground)
        self.stats.frames += 1
        self.stats.searches = self.follower.searches
        camera = self.follower.lens(location)
        if location.found:
            self.stats.found += 1
        tracker = self.follower.tracker
        last = tracker.last if tracker is not None else None
        pose = location.pose if location.found else (last.pose if last is not None else None)
        observation = self.detector.update(image, camera, pose, now, found=location.found,
                                           location=location)
        if not location.found and pose is None:
            observation.detail = location.reason or observation.detail
        self._status(observation.state, observation.detail)
        if observation.state == "tracking" and location.found:
            # Settled with nothing over it: what the set-up's map read wants.
            self.session.keep_settled(image, camera, now)
        self._last_location = location
        self._preview(image, location, second_frame)
        if observation.event == "changed" and self._comparable(observation):
            assert observation.before is not None
            snaps = observation.frames
            self._before_turn = (snaps[-1].image, snaps[-1].location)
            settled = Settled([s.image for s in snaps], [s.location for s in snaps],
                              observation.before.image,
                              f"{observation.changed_cells} cells changed",
                              observation.before.location)
            if self.second is not None and self.second.settling:
                self._waiting = (settled, now, started)
                self._status("reading", "waiting for the second webcam's picture to settle")
            else:
                self._start_read(settled, started, self._second_view())
            return observation
        if self.second is not None and self._second_step(observation, image, location, now,
                                                         started):
            return observation
        if observation.event and observation.moved:
            # The board was slid or turned further than a push: the picture before was
            # taken from elsewhere and cannot be compared with, and a board that settles
            # after a move is almost always the same palace. The new picture is the
            # reference from now on (and the look learns the board's new place); a turn
            # built in the same breath shows in the next reading, which then has more
            # pieces than a turn and goes out of sync for the players to settle.
            self.stats.moves += 1
            self.reader.forget_learned()
            self._status("tracking", "the board was moved; carrying on", news=True)
        elif observation.event == "relit":
            # Every shadow on the palace moved at once, and no hand was over the board
            # long enough to build; or a player's shadow that rested over the board's
            # edge left it, and nothing else changed: the light changed. The new
            # picture is the reference (the detector's) and the look learns the board
            # under the new light.
            self.stats.relit += 1
            self.reader.forget_learned()
            self._status("tracking", "the light changed; carrying on", news=True)
        if observation.event == "baseline" or observation.state == "tracking":
            self.reader.learn_when_confirmed(self.detector.reference)
        self.stats.idle_frame_s.append(time.perf_counter() - started)
        self.stats.busy_s += time.perf_counter() - started
        return observation

    def _comparable(self, observation: Observation) -> bool:
        """The settled board can be compared with its picture before: not moved, or moved
        no further than pressing pieces onto it pushes it, when its turn is read all the
        same against the picture before brought into line. (Its cells are compared in
        the board's frame, so a push alone settles unchanged and is a move; one that
        settles changed with nothing read is put to the players as any reading of
        nothing is.)"""
        assert observation.before is not None
        return pictures_compare(observation.frames[-1].pose, observation.before.pose,
                                self.detector.settings)

    def _start_read(self, settled: Settled, started: float, second: SecondView | None
                    ) -> None:
        assert self.camera is not None
        self.reader.start(settled, started, self.camera, second)

    def _second_step(self, observation: Observation, image: NDArray[np.uint8],
                     location: BoardLocation, now: float, started: float) -> bool:
        """The second webcam's part in this frame; whether the frame went to a turn (its
        reading started, or still waiting for the second webcam: the settled picture then
        shows a turn the session does not have, which the table's look must not learn
        as the session's palace)."""
        assert self.second is not None
        if self._waiting is not None:
            _, since, _ = self._waiting
            if (self.second.settling and observation.state == "tracking"
                    and now - since < SECOND_WAIT_S):
                return True
            self._read_waiting()
            return True
        if observation.state != "tracking":
            return False
        if self._second_alone(observation, location):
            # This webcam's picture changed too little to settle as a change: read
            # against its picture from before the turn all the same, where the board
            # still lies as it lay then.
            before, then = self._first_before(location)
            self._before_turn = (image, location)
            self.stats.second_alone += 1
            self._start_read(Settled([image], [location], before,
                                     "the second webcam's board changed", then),
                             started, self._second_view())
            return True
        if observation.event and (observation.event != "unchanged" or observation.moved):
            # A new picture before the next turn (the set-up's, or after a move).
            reference = self.detector.reference
            assert reference is not None
            self._before_turn = (reference.image, reference.location)
            self.second.mark_before()
        else:
            # An unchanged settle shows the same palace: the first webcam's picture
            # before stays (a change too small to settle on is still evidence).
            self.second.keep_before()
        return False

    def _first_before(self, location: BoardLocation) -> tuple[NDArray[np.uint8], Any]:
        """This webcam's picture from before the turn, where the board has not moved
        since; else its latest settled picture (the same palace, the board since slid a
        little); with where the board lay in it."""
        assert self._before_turn is not None and self.detector.reference is not None
        image, then = self._before_turn
        if isinstance(then, BoardLocation) and then.pose is not None and (
                location.pose is not None
                and not board_moved(location.pose, then.pose, self.detector.settings)):
            return image, then
        return self.detector.reference.image, self.detector.reference.location

    def _second_alone(self, observation: Observation, location: BoardLocation) -> bool:
        """The second webcam's board settled changed while the first's has stayed as it
        was, settled and found (a staircase the palace hides from the first webcam): a
        turn to read, once no reading waits for the players (the second's picture before
        shows the session's palace only then) and the second's view can be trusted."""
        assert self.second is not None
        return (self._before_turn is not None and observation.state == "tracking"
                and location.found and not observation.moved
                and self.session.sync == "ready" and self.second.changed_in_place)

    def _second_view(self) -> SecondView | None:
        """The second webcam's view for the turn just settled, and its picture now kept as
        its picture before the next turn (this one's picture now is too)."""
        if self.second is None:
            return None
        view = self.second.view()
        self.second.mark_before()
        return view

    def _preview(self, image: NDArray[np.uint8], location: BoardLocation | None,
                 second_frame: FrameLike | None = None) -> None:
        """The page's camera views, at most every PREVIEW_EVERY_S."""
        if time.perf_counter() - self._last_preview >= PREVIEW_EVERY_S:
            self._last_preview = time.perf_counter()
            self.session.show_frame(image, location)
            if self.second is not None and second_frame is not None:
                self.session.show_frame(second_frame.image, self.second.location, webcam=2)

    def finish(self) -> None:
        """Reads a turn still held for the second webcam and waits for a reading still
        under way (at the end of a source)."""
        if self._waiting is not None:
            self._read_waiting()
        self.reader.collect()

    def _read_waiting(self) -> None:
        """Reads the turn held for the second webcam, with its view as it is now."""
        assert self._waiting is not None
        settled, _, started = self._waiting
        self._waiting = None
        self._start_read(settled, started, self._second_view())

    def _status(self, state: str, detail: str, *, news: bool = False) -> None:
        """Tells the session when the state changes; ``news`` also when only the detail
        does (the detector's details change every frame: pages would redraw each time)."""
        if state != self._state or news:
            self._state = state
            self.session.camera_status(state, detail)

    # -- a whole source ----------------------------------------------------------------
    def run(self, source: Iterable[FrameLike], *, stop: threading.Event | None = None,
            pace: bool = False, until: Callable[[], bool] | None = None,
            second_source: Iterable[FrameLike] | None = None) -> LoopStats:
        """Every frame of ``source`` until it ends, ``stop`` is set or ``until()`` holds.

        ``pace`` plays a recorded or simulated source no faster than its own clock, so
        that people watching the page see the game at the speed it was played.
        ``second_source``: the second webcam's frames, one taken with each of
        ``source``'s (the loop ends with the shorter).
        """
        wall0: float | None = None
        time0 = 0.0
        frames: Iterable[tuple[FrameLike, FrameLike | None]] = (
            zip(source, second_source, strict=False) if second_source is not None
            else ((frame, None) for frame in source))
        for frame, second_frame in frames:
            if stop is not None and stop.is_set():
                break
            if pace:
                if wall0 is None:
                    wall0, time0 = time.monotonic(), float(frame.time)
                ahead = (float(frame.time) - time0) - (time.monotonic() - wall0)
                if ahead > 0:
                    if stop is not None:
                        stop.wait(ahead)
                    else:
                        time.sleep(ahead)
            self.step(frame, second_frame)
            if until is not None and until():
                break
        self.finish()
        return self.stats

