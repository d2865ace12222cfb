"""Where frames come from: a webcam, a video file or a folder of pictures, all alike.

The camera loop only needs pictures in order with the time each was taken, so every
source is an iterator of :class:`TimedFrame`. Times are what the source says (the
video's own clock, the folder's nominal rate), not when the loop got round to a frame,
so that a recorded table replays the same way however fast the machine is.

A live webcam is the exception: a loop slower than the camera must see the newest
picture, not one that waited in the driver's queue, so a reader thread keeps only the
latest frame and stamps it with the moment it was grabbed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.image_file import IMAGE_SUFFIXES, load_image

MAX_PIXELS = 4096 * 4096
"""A frame larger than this is refused: no webcam makes one, and it would stall the loop."""


class CaptureError(ValueError):
    """A source that cannot give frames; the message names it and says why."""


class FrameLike(Protocol):
    """What the camera loop reads of a frame (the simulated table's frames have more)."""

    @property
    def image(self) -> NDArray[np.uint8]: ...

    @property
    def time(self) -> float: ...


@dataclass(frozen=True)
class TimedFrame:
    """One BGR picture, its place in the stream and when it was taken (seconds)."""

    image: NDArray[np.uint8]
    time: float
    index: int


class FrameSource:
    """Frames in order; ``close`` frees the device or file (also on leaving a ``with``)."""

    name: str = ""

    def __iter__(self) -> Iterator[TimedFrame]:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to free by default."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checked(image: NDArray[np.uint8] | None, where: str) -> NDArray[np.uint8]:
    """A three-channel 8-bit picture of a sane size, or a CaptureError saying what is wrong."""
    if image is None:
        raise CaptureError(f"{where}: not a readable picture")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise CaptureError(f"{where}: expected an 8-bit colour picture, found {image.shape}")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise CaptureError(f"{where}: picture of {image.shape[1]}x{image.shape[0]} is too large")
    return image


class FolderSource(FrameSource):
    """The pictures of a folder in name order, ``fps`` apart (a recording split in files)."""

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        root = Path(folder)
        if not root.is_dir():
            raise CaptureError(f"{folder}: no such folder")
        if not fps > 0:
            raise CaptureError(f"{folder}: fps must be positive, found {fps}")
        self.files = sorted(p for p in root.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CaptureError(f"{folder}: no pictures ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.name = str(root)

    def __iter__(self) -> Iterator[TimedFrame]:
        for index, path in enumerate(self.files):
            image = load_image(path)
            yield TimedFrame(image, index / self.fps, index)


class VideoSource(FrameSource):
    """A video file's frames on the video's own clock."""

    def __init__(self, path: str | Path) -> None:
        if not Path(path).is_file():
            raise CaptureError(f"{path}: no such file")
        # FFmpeg writes its own complaints ("moov atom not found") straight to stderr,
        # beside our one-line refusal; it reads this setting as each capture opens.
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
        self.capture = cv2.VideoCapture(str(path))
        if not self.capture.isOpened():
            raise CaptureError(f"{path}: not a video OpenCV can read")
        fps = float(self.capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps < 1000 else 30.0
        self.name = str(path)

    def __iter__(self) -> Iterator[TimedFrame]:
        index = 0
        while True:
            ok, image = self.capture.read()
            if not ok:
                if index == 0:
                    raise CaptureError(f"{self.name}: the video holds no frame OpenCV can read")
                return
            yield TimedFrame(_checked(image, f"{self.name} frame {index}"), index / self.fps,
                             index)
            index += 1

    def close(self) -> None:
        self.capture.release()


class CameraSource(FrameSource):
    """A live webcam; the loop always gets the newest picture, stamped when grabbed."""

    def __init__(self, index: int | str, width: int = 1280, height: int = 720,
                 open_timeout_s: float = 5.0) -> None:
        """``index`` is the webcam's number, or a device path or stream address."""
        self.name = f"camera {index}"
        # OpenCV logs its own warnings for a missing device; the one line below says it.
        logging = cv2.utils.logging
        level = logging.getLogLevel()
        logging.setLogLevel(logging.LOG_LEVEL_SILENT)
        try:
            self.capture = cv2.VideoCapture(index)
        finally:
            logging.setLogLevel(level)
        if not self.capture.isOpened():
            raise CaptureError(f"{self.name}: no such camera (is it plugged in and free?)")
        self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._lock = threading.Condition()
        self._latest: tuple[NDArray[np.uint8], float] | None = None
        self._failed = False
        self._stopped = threading.Event()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._read, name=self.name, daemon=True)
        self._thread.start()
        with self._lock:
            self._lock.wait_for(lambda: self._latest is not None or self._failed,
                                timeout=open_timeout_s)
            if self._latest is None:
                self.close()
                raise CaptureError(f"{self.name}: opened but gave no picture in "
                                   f"{open_timeout_s:.0f} s")

    def _read(self) -> None:
        while not self._stopped.is_set():
            ok, image = self.capture.read()
            with self._lock:
                if not ok:
                    self._failed = True
                    self._lock.notify_all()
                    return
                self._latest = (image, time.monotonic() - self._start)
                self._lock.notify_all()

    def _newer(self, since: float) -> bool:
        """A frame newer than ``since`` waits, or the camera failed (called under the lock)."""
        return self._failed or (self._latest is not None and self._latest[1] > since)

    def __iter__(self) -> Iterator[TimedFrame]:
        index = 0
        last_time = -1.0
        while True:
            with self._lock:
                self._lock.wait_for(lambda since=last_time: self._newer(since), timeout=2.0)
                latest = self._latest
                if latest is None or latest[1] <= last_time:
                    return  # the camera stopped giving pictures (unplugged)
            image, last_time = latest
            yield TimedFrame(_checked(image, f"{self.name} frame {index}"), last_time, index)
            index += 1

    def close(self) -> None:
        self._stopped.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=1.0)
        self.capture.release()


def open_source(*, camera: int | str | None = None, video: str | None = None,
                frames: str | None = None, fps: float = 10.0) -> FrameSource:
    """The one source named; exactly one of ``camera``, ``video`` and ``frames``."""
    given = [v for v in (camera, video, frames) if v is not None]
    if len(given) != 1:
        raise CaptureError("name exactly one source: a camera index, a video file or a folder")
    if camera is not None:
        return CameraSource(int(camera) if str(camera).isdigit() else camera)
    if video is not None:
        return VideoSource(video)
    assert frames is not None
    return FolderSource(frames, fps)
