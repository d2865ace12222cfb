"""The camera's side of the page: the newest picture, its overlay, and what the loop is doing.

The camera loop hands over a picture many times a second and pages ask for one far
less often, so the picture is kept scaled for the page and the overlay is drawn and
encoded only when a page asks, once per picture however many pages do. The feed has a
lock of its own: a page fetching a picture never waits for a turn being judged.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from palace.broadcast import Broadcast
from palace.overlay import CameraFrame, OverlayScene, draw_overlay, encode_jpeg, scaled


class CameraFeed:
    """The newest camera picture for the pages, and the loop's state in words."""

    def __init__(self, hub: Broadcast, topic: str = "frame") -> None:
        """``topic``: what the pages are told a new picture is (``frame``, or
        ``second_frame`` for a second webcam's)."""
        self._hub = hub
        self._topic = topic
        self._lock = threading.Lock()
        self._frame: CameraFrame | None = None
        self._jpeg: tuple[int, bytes] | None = None
        self._status: dict[str, Any] = {"state": "off", "detail": "", "frame": 0,
                                        "board": False}

    def status(self) -> dict[str, Any]:
        """A copy of the loop's state: ``state``, ``detail``, the newest picture's number
        (``frame``) and whether the board was found in it (``board``)."""
        with self._lock:
            return dict(self._status)

    @property
    def running(self) -> bool:
        with self._lock:
            return self._status["state"] != "off"

    def set_status(self, state: str, detail: str = "") -> bool:
        """Whether the words changed (only then are pages told)."""
        with self._lock:
            changed = (state, detail) != (self._status["state"], self._status["detail"])
            self._status.update(state=state, detail=detail)
        return changed

    def show(self, image: NDArray[np.uint8], location: Any,
             scene: OverlayScene | None) -> None:
        """Keeps ``image`` scaled for the page, with the board's pose from ``location``
        and ``scene`` to draw when the board was found, and tells the pages."""
        view, scale = scaled(image)
        found = bool(location is not None and location.found and location.pose is not None)
        frame = CameraFrame(view, scale, location.camera if found else None,
                            location.pose if found else None, scene if found else None)
        with self._lock:
            self._frame = frame
            self._status["frame"] = int(self._status["frame"]) + 1
            self._status["board"] = found
        self._hub.publish(self._topic)

    def jpeg(self) -> tuple[int, bytes] | None:
        """The newest picture with its overlay, as JPEG, and its number."""
        with self._lock:
            frame, number, cached = self._frame, int(self._status["frame"]), self._jpeg
        if frame is None:
            return None
        if cached is None or cached[0] != number:
            cached = (number, encode_jpeg(draw_overlay(frame)))
            with self._lock:
                self._jpeg = cached
        return cached
