"""Windows of the picture whose texture repeats like a lattice, and the lattice's steps.

The first half of finding the board from its studs alone (:mod:`calibration.lattice_pose`
fits the plane): each window's autocorrelation, tapered and with the taper divided out,
peaks at the stud pattern's repeats; the two strongest in different directions, reduced
to the shortest basis, are the lattice's steps as the image shows them there. Only the
windows with texture at the studs' scale are transformed (a plain table, a sleeve or a
hand has a fraction of the studs' band-pass energy).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray

WINDOW_PX = 96
STRIDE_PX = 80
DENSE_STRIDE_PX = 40
"""Windows half as far apart, for a board too small for the first pass: a board 250 px
across holds four or five whole windows 80 px apart, fewer than a plane needs."""
MIN_REPEAT_PX = 4.0
MAX_REPEAT_PX = 40.0
MIN_PEAK = 0.3
"""Normalised autocorrelation a stud lattice reaches at its first repeat; wood grain,
cloth and skin stay well under it."""
HIGH_PASS_SIGMA_PX = 8.0
"""Gaussian (px) whose blur the first look (:data:`STRIDE_PX`) takes off each window
before its autocorrelation. On dev 3000 (17 px a stud, light map regions across most
windows) 10 of 14 windows read their steps 10 to 30 % short and no plane fitted; at 8 the
windows reading the true steps to 8 % rose from 4 to 7 of 3000's, 2 to 8 of 20044's, 11
to 13 of 20075's, 15 to 24 of 3002's. At 5 as many, but a patterned table's windows passed
too (dev 3001's table: 4 windows, then 36, and its board was lost). The dense look stays plain:
high-passed, it fitted no plane to a small board it had found (dev 3073)."""
MIN_TEXTURE_SHARE = 0.35
"""Share of the most textured windows' stud-scale energy a window needs to be looked at."""


@dataclass(frozen=True)
class Patch:
    """One window's lattice: its centre and the image steps (columns) of two lattice repeats."""

    centre: FloatArray
    steps: FloatArray


_HANN = np.outer(np.hanning(WINDOW_PX), np.hanning(WINDOW_PX)).astype(np.float32)


def _window_taper() -> NDArray[np.float64]:
    """The Hann window's own autocorrelation, centred: what tapering does to every lag.

    A tapered patch's autocorrelation is the pattern's times this; dividing it out keeps
    the taper from pulling every repeat a few per cent towards zero lag.
    """
    spectrum = np.fft.rfft2(_HANN.astype(np.float64))
    auto = np.fft.fftshift(np.fft.irfft2(np.abs(spectrum) ** 2, s=_HANN.shape))
    return auto / auto.max()


_TAPER = _window_taper()


_REACH = int(np.ceil(MAX_REPEAT_PX)) + 1
_LAG_ROWS = np.arange(-_REACH, _REACH + 1) % WINDOW_PX
_LAG_COLS = np.arange(-1, _REACH + 1) % WINDOW_PX
"""The lags kept (as indices of the unshifted autocorrelation): rows -R..R, columns -1..R."""
_LAG_Y, _LAG_X = np.meshgrid(np.arange(-_REACH + 1, _REACH), np.arange(0, _REACH), indexing="ij")
"""Each inner kept lag's offset (the peak test's pixel round the edge left out)."""
_USABLE = (
    (np.hypot(_LAG_X, _LAG_Y) >= MIN_REPEAT_PX)
    & (np.hypot(_LAG_X, _LAG_Y) <= MAX_REPEAT_PX)
    & (_LAG_X * 1000 + _LAG_Y > 0)
)
_NEIGHBOURHOOD = np.ones((3, 3), np.uint8)
_USABLE_KEPT = np.pad(_USABLE, 1)
""":data:`_USABLE` over all the kept lags (the pixel round the edge never usable)."""
_TAPER_LAGS = np.maximum(np.fft.ifftshift(_TAPER)[_LAG_ROWS][:, _LAG_COLS], 0.05)


def lattice_patches(
    gray: NDArray[np.float32], stride: int = STRIDE_PX, half: NDArray[np.float32] | None = None,
    high_pass: bool | None = None,
) -> list[Patch]:
    """Windows across the picture whose texture repeats like a lattice, with its steps.

    ``half`` is the picture at half size (``INTER_AREA``), when the caller has made it.
    ``high_pass``: each window's blur (:data:`HIGH_PASS_SIGMA_PX`) is taken off first;
    by default for the first look's stride and not for the dense look's."""
    h, w = gray.shape
    xs = range(0, w - WINDOW_PX + 1, stride)
    ys = range(0, h - WINDOW_PX + 1, stride)
    if half is None:
        half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    corners = _textured_windows(half, [(x, y) for y in ys for x in xs])
    if not corners:
        return []
    stack = np.stack([gray[y : y + WINDOW_PX, x : x + WINDOW_PX] for x, y in corners])
    stack -= stack.mean(axis=(1, 2), keepdims=True)
    first_look = stride >= STRIDE_PX if high_pass is None else high_pass
    if first_look:
        # A map region's edge or a shadow across a window adds a broad hump round zero
        # lag that pulls the first repeat in. One blur of the windows stacked: where it
        # reaches into the next window the taper is nearly zero.
        # Blurred at a quarter size: a blur this wide at full size cost a fifth of a
        # first detection.
        flat = stack.reshape(-1, WINDOW_PX)
        small = cv2.resize(flat, (WINDOW_PX // 4, flat.shape[0] // 4),
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), HIGH_PASS_SIGMA_PX / 4)
        flat -= cv2.resize(small, (WINDOW_PX, flat.shape[0]), interpolation=cv2.INTER_LINEAR)
    stack *= _HANN
    auto = np.stack([_autocorrelation(window) for window in stack])
    zero = auto[:, 0, 0].copy()
    # An autocorrelation is symmetric, and repeats are looked for within MAX_REPEAT_PX
    # only: the half plane of lags x >= 0 out to that radius, and a pixel round it for
    # the peak test, is a third of the window, and everything below reads no more.
    auto = auto[:, _LAG_ROWS[:, None], _LAG_COLS] / np.where(zero > 0, zero, 1.0)[:, None, None]
    out = []
    for k, strong, values in _strong_peaks(auto):
        # The taper is divided out only of the windows with two repeats to place.
        steps = _two_steps(auto[k] / _TAPER_LAGS, strong, values)
        if steps is not None:
            x, y = corners[k]
            out.append(Patch(np.array([x, y]) + (WINDOW_PX - 1) / 2, steps))
    return out


def _strong_peaks(
    auto: NDArray[np.float32],
) -> Iterator[tuple[int, NDArray[np.intp], NDArray[np.float32]]]:
    """Per window with two repeats or more: its index, the lags (flat indices of the kept
    ones, in order) that peak at :data:`MIN_PEAK` or more, and their heights.

    A peak is a usable lag no lower than its eight neighbours (all inside the lags
    kept): no lower than the greatest of its 3 x 3 neighbourhood, which one dilation of
    all windows stacked gives (a window's inner lags reach no row of the next window).
    """
    count, rows, cols = auto.shape
    top = cv2.dilate(auto.reshape(-1, cols), _NEIGHBOURHOOD).reshape(auto.shape)
    at = np.flatnonzero((auto >= top) & (auto >= MIN_PEAK) & _USABLE_KEPT)
    values = auto.ravel()[at]
    ks, lags = np.divmod(at, rows * cols)
    # Window by window, each in flat order.
    bounds = np.searchsorted(ks, np.arange(count + 1))
    for k in range(count):
        lo, hi = bounds[k], bounds[k + 1]
        if hi - lo >= 2:
            yield k, lags[lo:hi], values[lo:hi]


def _autocorrelation(window: NDArray[np.float32]) -> NDArray[np.float32]:
    """A window's circular autocorrelation, unshifted (zero lag at [0, 0]), unscaled.

    OpenCV's transforms in their packed form, one window at a time, cost a fifth of
    numpy's batched real transforms of the same float32 windows (which agree with them
    to float32's precision): the transforms were half of a search's look at the windows.
    """
    spectrum = cv2.dft(window)
    return cv2.idft(cv2.mulSpectrums(spectrum, spectrum, 0, conjB=True), flags=cv2.DFT_REAL_OUTPUT)


def _textured_windows(
    half: NDArray[np.float32], corners: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The windows with texture at the studs' scale: the only ones worth a Fourier transform.

    Band-pass energy (a difference of Gaussians at half size, ``half`` the picture halved)
    summed per window through an integral image; a plain table, a sleeve or a hand has a
    fraction of the studs' energy.
    """
    band = np.abs(cv2.GaussianBlur(half, (0, 0), 1.0) - cv2.GaussianBlur(half, (0, 0), 3.0))
    total = cv2.integral(band)
    n = WINDOW_PX // 2
    x0, y0 = (np.array([c[i] for c in corners], dtype=np.intp) // 2 for i in (0, 1))
    energy = total[y0 + n, x0 + n] - total[y0, x0 + n] - total[y0 + n, x0] + total[y0, x0]
    level = MIN_TEXTURE_SHARE * float(np.percentile(energy, 90)) if len(energy) else 0.0
    return [c for c, e in zip(corners, energy, strict=True) if e >= level]


def _two_steps(
    auto: NDArray[np.float64], strong: NDArray[np.intp], values: NDArray[np.float32]
) -> FloatArray | None:
    """The two strongest repeats in different directions, sub-pixel, reduced to a short basis.

    ``auto`` holds the kept lags (:data:`_LAG_ROWS`, :data:`_LAG_COLS`); ``strong`` the
    peaks among them (flat indices, in order; never on the edge) and ``values`` their
    heights (see :func:`_strong_peaks`).
    """
    order = np.argsort(-values)[:12]
    found: list[tuple[FloatArray, float]] = []
    for i in order:
        value = float(values[i])
        iy, ix = divmod(int(strong[i]), auto.shape[1])
        # As whole-window indices (zero lag at the centre), so that the sums round alike.
        fx, fy = _peak_fractions(auto, iy, ix)
        c = WINDOW_PX // 2
        vec = np.array([ix - 1 + c + fx, iy - _REACH + c + fy]) - c
        if found:
            first = found[0][0]
            cos = abs(float(vec @ first)) / (_length(vec) * _length(first))
            if cos > 0.9:
                continue
        found.append((vec, value))
        if len(found) == 2:
            break
    if len(found) < 2:
        return None
    a, b = found[0][0], found[1][0]
    # Gauss reduction: the two shortest vectors spanning the same lattice.
    for _ in range(4):
        if _length(b) < _length(a):
            a, b = b, a
        k = round(float(a @ b) / float(a @ a))
        if k == 0:
            break
        b = b - k * a
    if _length(a) < MIN_REPEAT_PX:
        return None
    return np.stack([a, b], axis=1)


def _length(vector: FloatArray) -> float:
    """``np.linalg.norm`` of a vector, the same product and root without its checks (a
    search asks some two hundred of them)."""
    return math.sqrt(vector.dot(vector))


def _peak_fractions(auto: NDArray[np.float64], iy: int, ix: int) -> tuple[float, float]:
    """How far (x, y) between pixels a peak of ``auto`` lies: a parabola through it and its
    neighbours along each axis."""
    out = []
    for lo, mid, hi in (
        (auto[iy, ix - 1], auto[iy, ix], auto[iy, ix + 1]),
        (auto[iy - 1, ix], auto[iy, ix], auto[iy + 1, ix]),
    ):
        den = lo - 2 * mid + hi
        out.append(0.5 * (lo - hi) / den if den < 0 else 0.0)
    return out[0], out[1]
