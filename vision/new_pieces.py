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
SURE_ABOVE, NONE_BELOW = 0.75, 0.25
"""Model probabilities read by the decoder as surely new, and as surely not."""
WIDEN_PX = 1
"""How far the decoder's evidence reaches past the model's outline (region pixels)."""


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
    if after_region.shape != before_region.shape or after_region.ndim != 3:
        raise ValueError(f"regions differ or are not colour: {after_region.shape} vs "
                         f"{before_region.shape}")
    h, w = after_region.shape[:2]
    x = model_input(after_region, before_region)
    ph, pw = -h % STEP, -w % STEP
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, ph), (0, pw)), mode="edge")
    session = models.load(model)
    logits = session.run(None, {session.get_inputs()[0].name: x[None]})[0][0, 0, :h, :w]
    return (1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))).astype(np.float32)


def new_piece_change(after_region: NDArray[np.floating] | NDArray[np.uint8],
                     before_region: NDArray[np.floating] | NDArray[np.uint8]
                     ) -> NDArray[np.float32]:
    """The model's evidence as turn mode's decoder reads change (0..1 per pixel).

    The decoder prices every pixel a candidate piece covers at the evidence less 0.75;
    it was built on the classical evidence, which is 1 over a new piece and spills a
    pixel or two past it. The model's probabilities stop short of 1 inside small pieces
    (a decoration on a knob) and end exactly at the outline, while the projected
    silhouettes of candidates are a little wider than the true one; read raw, a new
    decoration does not pay for itself. So the probability is stretched (above 0.75
    sure, below 0.25 none) and widened by a pixel. Measured on seeded twin turns this
    reads more turns exactly than either the raw model or the classical evidence.
    """
    return widened(stretched(new_piece_evidence(after_region, before_region)))


def stretched(p: NDArray[np.float32]) -> NDArray[np.float32]:
    """Probabilities above :data:`SURE_ABOVE` to 1, below :data:`NONE_BELOW` to 0."""
    return np.clip((p - NONE_BELOW) / (SURE_ABOVE - NONE_BELOW), 0.0, 1.0).astype(np.float32)


def widened(evidence: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each pixel the most of its neighbours within :data:`WIDEN_PX`."""
    side = 2 * WIDEN_PX + 1
    return cv2.dilate(evidence, np.ones((side, side), np.uint8))
