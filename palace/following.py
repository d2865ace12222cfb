"""Following a webcam's view of the board: where the board is in each frame, and, for a
second webcam on another side of the table, its pictures for the turn reader.

:class:`BoardFollower` finds the board by a full search at the start or when it has
been lost for a while, and tracks it from its last pose otherwise (a hand over the
board does not cost a full search a frame). The camera loop follows its webcam with
one; a :class:`SecondWebcam` follows its own with another.

A second webcam shows what the first cannot (a step behind the palace, a staircase's
far half): turn mode reads both views, each against its own picture before
(``vision.read_turn``). A turn is read when the first webcam's board settles changed,
or when only the second's does while the first's stays as it was (a staircase the
palace hides from the first). The second's view is read only where it can be trusted:
its board found in a still picture now, and a still picture of it from before the turn
(taken when the first webcam's picture before was, or since while the first's board lay
as it was), the board in the same place in both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from calibration.tracking import SEARCH_AFTER_S, BoardTracker
from rules.maps import GroundMap
from vision.settle import SettleDetector, SettleSettings, pictures_compare

SEARCH_EVERY_S = 0.5
"""While lost, a full search (up to a second) at most this often."""
SWEEP_EVERY_S = 5.0
"""With no intrinsics file, how often (frame time) a first search may run the whole
search under every webcam field of view (``calibration.locate_board``'s
``sweep_fields``): seconds where no board is in view, so between two the frames are
searched with the plate's outline's focal length only."""


class BoardFollower:
    """One webcam's board, frame by frame."""

    def __init__(self, camera: Camera | None) -> None:
        self.camera = camera
        """The webcam's lens: the intrinsics file's, else a guess made from the first
        frame's size and refined on the board (:attr:`refine_focal`)."""
        self.refine_focal = camera is None
        self.tracker: BoardTracker | None = None
        self.searches = 0
        """Full searches run so far."""
        self.last_found = -1e9
        self._last_search = -1e9
        self._last_sweep = -1e9

    def locate(self, image: NDArray[np.uint8], now: float, ground: GroundMap) -> BoardLocation:
        """The board in this frame; a full search only at the start or when long lost."""
        if self.camera is None:
            height, width = image.shape[:2]
            self.camera = Camera.default_for(width, height)
        location = self._locate(image, now, ground)
        if location.found:
            self.last_found = now
        return location

    def _locate(self, image: NDArray[np.uint8], now: float, ground: GroundMap) -> BoardLocation:
        assert self.camera is not None
        if self.tracker is None:
            self.searches += 1
            sweep = self.refine_focal and now - self._last_sweep >= SWEEP_EVERY_S
            if sweep:
                self._last_sweep = now
            location = locate_board(image, self.camera, ground, refine_focal=self.refine_focal,
                                    sweep_fields=sweep)
            if location.found:
                self.tracker = BoardTracker(location.camera or self.camera, ground, location)
            return location
        if self.tracker.ground.ground != ground.ground:
            # A new game on the page, on another map: the board's turn is read from it.
            self.tracker = BoardTracker(self.tracker.camera, ground, self.tracker.last)
        search = (now - self.last_found >= SEARCH_AFTER_S
                  and now - self._last_search >= SEARCH_EVERY_S)
        if self.tracker.last is None and not search:
            return BoardLocation(False, "the board was lost; looking for it")
        if search:
            self._last_search = now
            self.searches += 1
        return self.tracker.update(image, search=search)

    def lens(self, location: BoardLocation | None) -> Camera:
        """The lens a location was found under (its focal length refined on the board),
        else the webcam's."""
        assert self.camera is not None
        return location.camera if location is not None and location.camera else self.camera


@dataclass(frozen=True)
class Still:
    """A still picture of the board (nothing over it) and where the board lies in it,
    under the lens it was found with."""

    image: NDArray[np.uint8]
    location: BoardLocation
    time: float


@dataclass(frozen=True)
class SecondView:
    """What a second webcam brings to a turn's reading: its picture after the turn, the
    board's place in it, and its picture before."""

    image: NDArray[np.uint8]
    location: BoardLocation
    before: NDArray[np.uint8]
    before_location: BoardLocation | None = None
    """Where the board lay in the picture before."""


class SecondWebcam:
    """A second webcam's still pictures: the latest, and its picture before the turn."""

    def __init__(self, camera: Camera | None, settings: SettleSettings | None = None) -> None:
        self.follower = BoardFollower(camera)
        self.detector = SettleDetector(settings)
        self.frames = 0
        self.found = 0
        self.location: BoardLocation | None = None
        """Where the board was in the latest frame (for the page's picture)."""
        self._now: Still | None = None
        """This frame's picture, when it is still and its board found."""
        self._before: Still | None = None
        self.changed = False
        """This webcam's board settled changed since its picture before was taken: a turn
        to read even if the first webcam's picture stays as it was."""

    def step(self, image: NDArray[np.uint8], now: float, ground: GroundMap) -> None:
        """Follows the board in this webcam's frame taken at ``now`` (the first webcam's
        clock) and says whether the picture is still."""
        self.frames += 1
        location = self.follower.locate(image, now, ground)
        self.found += location.found
        lens = self.follower.lens(location)
        self.location = location
        observation = self.detector.update(image, lens,
                                           location.pose if location.found else None, now,
                                           found=location.found, location=location)
        still = location.found and location.pose is not None and observation.state == "tracking"
        # The location carries its lens: the reader takes each view's camera from it.
        self._now = Still(image, replace(location, camera=lens), now) if still else None
        if observation.event == "changed" and not observation.moved and (
                self._before is not None):
            self.changed = True

    @property
    def still(self) -> Still | None:
        """This frame's picture, when it is still and its board found; else None."""
        return self._now

    @property
    def settling(self) -> bool:
        """Its picture is not still now, but it has a picture before the turn: a view
        worth waiting for."""
        return self._now is None and self._before is not None

    @property
    def changed_in_place(self) -> bool:
        """Its board settled changed since its picture before, and lies where it lay
        then: a change its view can show (a turn only it may have seen)."""
        return self.changed and self.view() is not None

    def mark_before(self) -> None:
        """The first webcam's picture before the next turn was just taken: this webcam's
        picture now is its own (none while it is not still: :meth:`keep_before` takes its
        next still one)."""
        self._before = self._now
        self.changed = False

    def keep_before(self) -> None:
        """The first webcam's board lies settled as it was: this webcam's still picture
        now shows the same palace and becomes its picture before, unless it settled
        changed with its board in place (a turn only it sees, still to be read). A board
        slid a little, which the first webcam settles on as unchanged, so leaves no
        stale picture before, and a webcam not still when the last turn was read gets
        its picture before once it is."""
        if self._now is None or self.changed_in_place:
            return
        self._before = self._now
        self.changed = False

    def view(self) -> SecondView | None:
        """This webcam's view for the turn the first webcam settled on: its picture now
        and its picture before, when both are still and the board has moved no further
        than a push between them (a push, or the webcam turned on its mount, is brought
        into line by the reader)."""
        now, before = self._now, self._before
        if now is None or before is None or now.location.pose is None or (
                before.location.pose is None):
            return None
        if not pictures_compare(now.location.pose, before.location.pose,
                                self.detector.settings):
            return None  # the board moved: the pictures do not compare
        return SecondView(now.image, now.location, before.image, before.location)
