"""New-piece evidence: the learned chance that each pixel of the region shows a piece added.

The classical change evidence (:mod:`vision.change`) reads any colour change that a
shadow cannot explain as new; the shadow of a new arch on the plate, a stud top's
highlight that moved with the light, a plant's leaves over old pieces all pass that test.
A small fully-convolutional network (``models/new_pieces.onnx``, made by ``python3 -m
training``) sees both frames whole and has learned from rendered turns what a new piece
looks like beside what only its shadow or the light did.

Both frames are taken to a log scale and centred on their own per-channel median, so a
re-exposure or a white-balance drift between them (or a coloured lamp over both) is a
constant the network never sees. The input is padded to a multiple of the network's
coarsest step and the output cut back, so any region size works.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

import models

MODEL = "new_pieces"
STEP = 8
"""The network halves the picture three times: sizes are padded to a multiple of this."""
CHANNELS = 9
"""Before and after (log, median-centred), and their difference."""
LOG_EPS = 4.0
"""Added before the log so that the sensor's black (noise around 0) stays finite and flat."""
CLIP = 3.0
ODDS_SCALE = 0.25
"""Decoder units per natural log of the odds: a pixel surely new (odds 20:1, clipped)
pays about 0.75 towards a piece covering it, one surely not costs as much, in the units
the pieces' prices are set in (:mod:`vision.scoring`). Chosen over 0.15, 0.2 and 0.4 on
30 wide-twin turns of games 6000 and 6001 (14, 12, 10 and 10 turns read exactly; the
bench's games start at 5000 and stop before 6000)."""
ODDS_CLIP = 3.0


def normalise(image: NDArray[np.floating] | NDArray[np.uint8]) -> NDArray[np.float32]:
    """Channels first, log brightness per channel less its median over the image,
    clipped: exposure and white balance, being gains, drop out. (The median is taken
    before the log, which keeps its order, as it is three times cheaper.)"""
    chw = np.ascontiguousarray(np.moveaxis(image.astype(np.float32, copy=False), 2, 0))
    flat = chw.reshape(chw.shape[0], -1)
    centre = np.log(np.median(flat, axis=1) + LOG_EPS).astype(np.float32)
    logs = cv2.log(flat + np.float32(LOG_EPS))
    return np.clip(logs - centre[:, None], -CLIP, CLIP).reshape(chw.shape)


def model_input(after: NDArray[np.floating] | NDArray[np.uint8],
                before: NDArray[np.floating] | NDArray[np.uint8]) -> NDArray[np.float32]:
    """The network's input for one region pair, channels first (C, H, W), unpadded."""
    a, b = normalise(after), normalise(before)
    return np.concatenate([b, a, a - b], axis=0)


def new_piece_evidence(after_region: NDArray[np.floating] | NDArray[np.uint8],
                       before_region: NDArray[np.floating] | NDArray[np.uint8],
                       *, model: str = MODEL) -> NDArray[np.float32]:
    """0..1 per pixel of the region: the chance it shows a piece this turn added.

    ``model`` names another network file (a path to an ``.onnx``) for the recipe's
    evaluation of a model before it replaces the committed one.
    """
    return new_piece_maps(after_region, before_region, model=model)[0]


def new_piece_maps(after_region: NDArray[np.floating] | NDArray[np.uint8],
                   before_region: NDArray[np.floating] | NDArray[np.uint8],
                   *, model: str = MODEL, extra: NDArray[np.float32] | None = None
                   ) -> tuple[NDArray[np.float32], NDArray[np.float32] | None]:
    """The new-piece chance per pixel (:func:`new_piece_evidence`) and, from a network
    that has the second map, the height (brick levels above the plate) of the new
    surface the pixel shows, meaningful only where the chance is high; None without.
    ``extra`` (``(h, w, k)``) are input channels behind the pair's, for a network that
    takes them (full mode's geometry, :func:`vision.surface.geometry_channels`)."""
    if after_region.shape != before_region.shape or after_region.ndim != 3:
        raise ValueError(f"regions differ or are not colour: {after_region.shape} vs "
                         f"{before_region.shape}")
    h, w = after_region.shape[:2]
    x = model_input(after_region, before_region)
    if extra is not None:
        x = np.concatenate([x, np.moveaxis(extra.astype(np.float32), 2, 0)], axis=0)
    ph, pw = -h % STEP, -w % STEP
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, ph), (0, pw)), mode="edge")
    session = models.load(model)
    out = session.run(None, {session.get_inputs()[0].name: x[None]})[0][0, :, :h, :w]
    chance = (1.0 / (1.0 + np.exp(-np.clip(out[0], -30, 30)))).astype(np.float32)
    height = out[1].astype(np.float32) if len(out) > 1 else None
    return chance, height


def new_piece_weights(probability: NDArray[np.float32]) -> NDArray[np.float32]:
    """What each pixel pays (or costs) a new piece covering it: the log-odds of the
    model's probability, so that the set of pieces the decoder prefers is the one the
    model's pixels make likeliest; unchanged pixels over the old palace need no
    allowance (the model sees both frames and knows a brick hidden behind a brick)."""
    p = probability.astype(np.float32)
    odds = np.log((p + 0.02) / (1.02 - p))
    return (np.clip(odds, -ODDS_CLIP, ODDS_CLIP) * ODDS_SCALE).astype(np.float32)
