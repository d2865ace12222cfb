"""Writing rendered frames with their ground truth, one by one or as a training set.

Per frame: the picture, ``<stem>.labels.png`` (16-bit: blue = kind, green = part,
red = piece index + 1, 0 = none), ``<stem>.depth.png`` (16-bit camera depth in tenths
of a millimetre, 0 = nothing) and ``<stem>.json`` (camera, pose, scene, legends and
render settings). PNG keeps labels exact; 16 bits leave room for any palace.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from calibration.image_file import IMAGE_SUFFIXES
from rules.scene import Scene
from twin.cameras import random_camera
from twin.frame import Frame, RenderOptions
from twin.renderer import render

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_MAX = 32 << 20  # glibc's ceiling on 64-bit systems


def keep_freed_memory() -> bool:
    """Asks glibc's allocator to keep freed memory for reuse rather than give it back.

    A frame allocates and frees some hundred megabytes of arrays. By default glibc
    hands large blocks straight back to the system, so every frame pays for fresh
    pages again (about 8,000 page faults, 15 % of the time of a frame); bulk rendering
    switches that off once for the process, whose memory then stays at its peak.
    Returns False (and changes nothing) where the C library is not glibc.
    """
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)) and bool(
        mallopt(_M_TRIM_THRESHOLD, 1 << 30))


class FrameWriteError(ValueError):
    """A frame that cannot be written where asked; the message names the path."""


def frame_paths(picture: Path) -> tuple[Path, Path, Path, Path]:
    stem = picture.with_suffix("")
    return (picture, Path(f"{stem}.labels.png"), Path(f"{stem}.depth.png"),
            Path(f"{stem}.json"))


def save_frame(frame: Frame, picture: Path, extra: dict[str, Any] | None = None) -> list[Path]:
    """Writes the picture and its truth files; returns the paths written."""
    if picture.suffix.lower() not in IMAGE_SUFFIXES:
        raise FrameWriteError(f"{picture}: the picture must be .png or .jpg")
    if not picture.parent.is_dir():
        raise FrameWriteError(f"{picture.parent}: no such folder")
    paths = frame_paths(picture)
    labels = np.dstack([
        frame.kinds.astype(np.uint16),
        frame.parts.astype(np.uint16),
        (frame.piece_ids + 1).astype(np.uint16),
    ])
    depth = np.where(np.isfinite(frame.depth), np.round(frame.depth * 10), 0)
    depth = np.clip(depth, 0, 65535).astype(np.uint16)
    truth = frame.truth()
    truth["files"] = {
        "image": paths[0].name,
        "labels": paths[1].name,
        "labels_channels": ["kind", "part", "piece index + 1"],
        "depth": paths[2].name,
        "depth_unit_mm": 0.1,
    }
    if frame.occluded is not None:
        truth["occluded_pixels"] = int(frame.occluded.sum())
    truth.update(extra or {})
    for path, image in zip(paths[:3], (frame.image, labels, depth), strict=True):
        try:
            ok = cv2.imwrite(str(path), image)
        except cv2.error:
            ok = False
        if not ok:
            raise FrameWriteError(f"{path}: cannot write the file")
    try:
        paths[3].write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise FrameWriteError(f"{paths[3]}: cannot write the file ({exc})") from None
    return list(paths)


@dataclass(frozen=True)
class DatasetSpec:
    games: int
    views: int
    seed: int
    width: int = 1280
    height: int = 720
    players: int = 4
    map_name: str = "1"


def view_seed(*parts: int) -> int:
    """A seed for one view that does not depend on how many views came before it."""
    return int(np.random.SeedSequence([abs(p) for p in parts]).generate_state(1)[0])


class Progress:
    """A one-line progress bar on stderr (quiet when stderr is not a terminal)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.total, self.done, self.stream, self.width = max(total, 1), 0, stream, width

    def step(self, note: str = "") -> None:
        self.done += 1
        filled = self.width * self.done // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if self.done >= self.total else ""
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {note}{end}")
        self.stream.flush()


def render_views(
    scenes: Iterable[tuple[int, int, Scene]], spec: DatasetSpec
) -> Iterator[tuple[str, Frame]]:
    """Every scene (game, turn, scene) from ``spec.views`` random cameras, named frames."""
    for game, turn, scene in scenes:
        for view in range(spec.views):
            seed = view_seed(spec.seed, game, turn, view)
            camera, pose = random_camera(np.random.default_rng(seed), spec.width, spec.height)
            frame = render(scene, camera, pose, RenderOptions(), seed=seed)
            yield f"g{game:03d}_t{turn:03d}_v{view:02d}", frame


def write_dataset(
    out: Path, scenes: list[tuple[int, int, Scene]], spec: DatasetSpec,
    progress: Progress | None = None,
) -> int:
    """Renders and writes every view; returns the number of frames written."""
    out.mkdir(parents=True, exist_ok=True)
    keep_freed_memory()
    names = []
    for name, frame in render_views(scenes, spec):
        save_frame(frame, out / f"{name}.png")
        names.append(name)
        if progress is not None:
            progress.step(name)
    index = {
        "format": "palace-twin-dataset/1",
        "games": spec.games,
        "views": spec.views,
        "seed": spec.seed,
        "width": spec.width,
        "height": spec.height,
        "players": spec.players,
        "map": spec.map_name,
        "frames": names,
    }
    (out / "dataset.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return len(names)
