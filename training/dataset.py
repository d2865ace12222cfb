"""Turn pairs cut to what turn mode compares: the board's region before and after a turn.

Each pair is cropped and scaled exactly as :func:`vision.turn.read_turn` does (the box of
the board up to the palace's top plus the same headroom, the working scale, the same
softening), so the model is trained on the very inputs it is later given. The pixels of
the pieces the turn added are brought to the same grid by area, so a mask pixel is the
fraction of that region pixel the new pieces cover.

Looks are mixed on purpose (the widened twin with random maps, the old twin on map 1,
several webcam resolutions, elevations 30 to 70 degrees) so the model is not tuned to one
renderer's style. ``blur`` and ``tint`` make sets outside the training range: optical
blur and a coloured light over the whole table, in both frames alike.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from training.pairs import TurnPair, turn_pairs
from twin import RenderOptions
from vision.change import region
from vision.turn import HEADROOM_LEVELS
from vision.views import board_box, working_scale

RESOLUTIONS = ((1280, 720), (1920, 1080), (1024, 768), (1600, 900))
"""Webcam sizes the training set draws from (640x480 is kept out to test beyond them)."""
OLD_LOOK_EVERY = 4
"""One game in this many is drawn in the old twin's look (map 1, no wide look)."""
ROOM_LIGHTS = ("off", "mix", "on")
"""The room's light (``RenderOptions.room_light``: pieces shading pieces, a fill light of
its own colour) in no game, in two wide-look games of three, or in every game."""
DEEP_SHADOWS = ("off", "mix", "on")
"""Deep shadows (``RenderOptions.deep_shadows``: darker, sharper cast shadows, the card
hidden from the room under arches and beside towers) in no game, in two wide-look games
of three (not the same two as the room's light), or in every game."""
SEAMS = ("off", "on")
"""Seams (``RenderOptions.seams``: dark lines where pieces stand on pieces) in no game,
or in every wide-look game (the twin's own default). Off keeps the sets the committed
new-piece model was trained on as they were."""
CARDS = ("off", "mix", "on")
"""A player's card laid over a side of the board between the pictures, or picked up: in
no turn; each with :data:`CARD_CHANCE` in the wide-look games' turns; or one or the
other in every wide-look turn (a held-out set's). Its pixels are no new piece: the model
learns that a flat thing come or gone over the board's edge is none."""
CARD_CHANCE = 0.15
LAID = ("cards", "things")
"""What ``cards`` lays or picks up: a card always, or a card or half the time a slab of
any size, thickness and colour (:class:`twin.clutter.Slab`)."""


@dataclass(frozen=True)
class RegionPair:
    """The board's region before and after one turn, and where the new pieces are."""

    before: NDArray[np.uint8]
    after: NDArray[np.uint8]
    mask: NDArray[np.float32]
    """0..1 per region pixel: the fraction covered by pieces this turn added."""
    height: NDArray[np.float32] | None = None
    """Per region pixel, the mean height (brick levels above the plate) of the new pieces'
    surface it shows, NaN where no new piece shows (None: a set made without heights)."""
    geometry: NDArray[np.float32] | None = None
    """Per region pixel, ``(h, w, k)``: where its ray runs (full mode's pairs,
    :func:`vision.surface.geometry_channels`); None in a set made without it."""


def region_pair(pair: TurnPair, *, blur: float = 0.0,
                tint: tuple[float, float, float] | None = None) -> RegionPair | None:
    """``pair`` as read_turn sees it (None when the board's box is not in the frame)."""
    top = max((p.top for p in pair.before), default=0)
    box = board_box(pair.camera, pair.pose, top + HEADROOM_LEVELS)
    if box is None:
        return None
    scale = working_scale(pair.camera, pair.pose)
    before, after = pair.before_frame, pair.after_frame
    if blur > 0 or tint is not None:
        before, after = (_relight(f, blur, tint) for f in (before, after))
    b = region(before, box, scale)
    a = region(after, box, scale)
    mask, height = region_labels(pair.new_mask, pair.new_height, box, (a.shape[1], a.shape[0]))
    return RegionPair(as_uint8(b), as_uint8(a), mask, height)


def region_labels(mask: NDArray[np.bool_], heights: NDArray[np.float32] | None,
                  box: tuple[int, int, int, int], size: tuple[int, int]
                  ) -> tuple[NDArray[np.float32], NDArray[np.float32] | None]:
    """A frame's pixels to learn (and their heights, in levels) as the region sees them:
    the share of each region pixel (``size``, width by height, from ``box``) they cover,
    and their mean height there, area-weighted (NaN where they cover none)."""
    x0, y0, x1, y1 = box
    crop = mask[y0:y1, x0:x1].astype(np.float32)
    shrunk = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    if heights is None:
        return shrunk, None
    known = np.nan_to_num(heights[y0:y1, x0:x1], nan=0.0).astype(np.float32)
    total = cv2.resize(known * crop, size, interpolation=cv2.INTER_AREA)
    height = np.where(shrunk > 1e-3, total / np.maximum(shrunk, 1e-3), np.nan)
    return shrunk, height.astype(np.float32)


def as_uint8(image: NDArray[np.float32]) -> NDArray[np.uint8]:
    """A float picture stored as the frames are: rounded, not truncated, so the model
    sees the colours as read."""
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


def _relight(frame: NDArray[np.uint8], blur: float,
             tint: tuple[float, float, float] | None) -> NDArray[np.uint8]:
    out = frame.astype(np.float32)
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    if tint is not None:
        out *= np.asarray(tint, np.float32)[None, None, :]
    return as_uint8(out)


def region_pairs(count: int, seed: int, *, look: str = "mix",
                 size: tuple[int, int] | None = None, blur: float = 0.0,
                 tint: tuple[float, float, float] | None = None,
                 room_light: str = "off", deep_shadows: str = "off",
                 seams: str = "off", cards: str = "off", laid: str = "cards"
                 ) -> Iterator[RegionPair]:
    """``count`` region pairs from bot games seeded from ``seed`` on, game after game.

    ``look`` is "wide", "old" or "mix" (one game in :data:`OLD_LOOK_EVERY` old); ``size``
    fixes the webcam's resolution, else each game draws one of :data:`RESOLUTIONS`;
    ``room_light`` is one of :data:`ROOM_LIGHTS`, ``deep_shadows`` of :data:`DEEP_SHADOWS`,
    ``seams`` of :data:`SEAMS`, ``cards`` of :data:`CARDS`, ``laid`` of :data:`LAID`.
    """
    if room_light not in ROOM_LIGHTS:
        raise ValueError(f"room_light {room_light!r}: not one of {ROOM_LIGHTS}")
    if deep_shadows not in DEEP_SHADOWS:
        raise ValueError(f"deep_shadows {deep_shadows!r}: not one of {DEEP_SHADOWS}")
    if seams not in SEAMS:
        raise ValueError(f"seams {seams!r}: not one of {SEAMS}")
    if cards not in CARDS:
        raise ValueError(f"cards {cards!r}: not one of {CARDS}")
    if laid not in LAID:
        raise ValueError(f"laid {laid!r}: not one of {LAID}")
    made = 0
    game = 0
    while made < count:
        wide = look == "wide" or (look == "mix" and game % OLD_LOOK_EVERY != 1)
        width, height = size or RESOLUTIONS[game % len(RESOLUTIONS)]
        shaded = room_light == "on" or (room_light == "mix" and wide and game % 3 != 2)
        deep = deep_shadows == "on" or (deep_shadows == "mix" and wide and game % 3 != 1)
        options = RenderOptions(room_light=shaded, deep_shadows=deep,
                                seams=wide and seams == "on")
        chance = 0.0 if not wide else {"off": 0.0, "mix": CARD_CHANCE, "on": 0.5}[cards]
        for pair in turn_pairs(1, seed + game, width=width, height=height, wide=wide,
                               options=options, card_chance=chance,
                               laid_things=laid == "things"):
            out = region_pair(pair, blur=blur, tint=tint)
            if out is None:
                continue
            yield out
            made += 1
            if made >= count:
                return
        game += 1


def save(pair: RegionPair, path: Path) -> None:
    """Written under a temporary name and then renamed, so that a maker stopped midway
    (the GPU recipe stops its parts by time) never leaves a half-written pair."""
    extra = {} if pair.height is None else {"height": pair.height.astype(np.float16)}
    if pair.geometry is not None:
        extra["geometry"] = pair.geometry.astype(np.float16)
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:
        np.savez_compressed(f, before=pair.before, after=pair.after,
                            mask=np.rint(pair.mask * 255).astype(np.uint8), **extra)
    os.replace(part, path)


def load(path: Path) -> RegionPair:
    """One saved pair; a file that is not one is a ValueError naming it."""
    try:
        with np.load(path, allow_pickle=False) as data:
            height = data["height"].astype(np.float32) if "height" in data else None
            geometry = (data["geometry"].astype(np.float32) if "geometry" in data
                        else None)
            pair = RegionPair(data["before"], data["after"],
                              data["mask"].astype(np.float32) / 255.0, height, geometry)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a region pair ({' '.join(str(exc).split())[:120]})"
                         ) from None
    if (pair.before.shape != pair.after.shape or pair.before.ndim != 3
            or pair.before.shape[:2] != pair.mask.shape or pair.before.dtype != np.uint8
            or (pair.height is not None and pair.height.shape != pair.mask.shape)
            or (pair.geometry is not None
                and (pair.geometry.ndim != 3 or pair.geometry.shape[:2] != pair.mask.shape))):
        raise ValueError(f"{path}: before, after, mask, height and geometry do not agree in "
                         "shape or type")
    return pair


def create_dataset(out: Path, count: int, seed: int, *, look: str = "mix",
                   size: tuple[int, int] | None = None, blur: float = 0.0,
                   tint: tuple[float, float, float] | None = None,
                   room_light: str = "off", deep_shadows: str = "off",
                   seams: str = "off", cards: str = "off", laid: str = "cards") -> int:
    """Write ``count`` region pairs as ``pair_NNNNN.npz`` under ``out`` (and what made
    them as ``dataset.json``); returns how many."""
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for n, pair in enumerate(region_pairs(count, seed, look=look, size=size, blur=blur,
                                          tint=tint, room_light=room_light,
                                          deep_shadows=deep_shadows, seams=seams,
                                          cards=cards, laid=laid), 1):
        save(pair, out / f"pair_{n - 1:05d}.npz")
    made = {"pairs": n, "seed": seed, "look": look, "size": size, "blur": blur, "tint": tint,
            "room_light": room_light, "deep_shadows": deep_shadows, "seams": seams,
            "cards": cards, "laid": laid}
    (out / "dataset.json").write_text(json.dumps(made) + "\n")
    return n


def load_dataset(directory: Path) -> list[RegionPair]:
    """Every pair under ``directory`` in name order."""
    return [load(p) for p in sorted(directory.glob("pair_*.npz"))]
