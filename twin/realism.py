"""What a cheap webcam does to a picture, and the table the board lies on.

The recogniser will be judged on real photos and on other renderers' frames, so every
setting here is drawn widely: exposure, white balance (warm lamps included), optical
blur, signal-dependent sensor noise, vignetting and JPEG compression.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TABLE_PX = 512
TABLE_MM_PER_PX = 3.0  # the table texture spans 1.5 m around the board
TABLE_KINDS = ("wood", "cloth", "plain", "pattern")


@dataclass(frozen=True)
class Camera8Bit:
    """Sensor and pipeline settings for one frame."""

    exposure: float
    white_balance: tuple[float, float, float]
    blur: float
    noise: float
    jpeg_quality: int
    vignette: float
    soften: float = 1.0  # < 1: a cheap sensor upscaled to this size (resolution lost)
    motion: float = 0.0  # length of a motion-blur streak in pixels (0 = none)
    motion_angle: float = 0.0
    uneven: float = 0.0  # strength of low-frequency light unevenness


def _smooth_noise(rng: np.random.Generator, cells: int, size: int) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


def _hsv_color(rng: np.random.Generator, hue: tuple[float, float], sat: tuple[float, float],
               val: tuple[float, float]) -> np.ndarray:
    """A BGR colour (0..1) from ranges of hue (degrees), saturation and value."""
    hsv = np.array([[[rng.uniform(*hue) / 2 % 180, rng.uniform(*sat) * 255,
                      rng.uniform(*val) * 255]]], np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32) / 255


def _any_table_color(rng: np.random.Generator) -> np.ndarray:
    """Mostly the greys, whites, browns and muted tones of real tables and cloths."""
    if rng.uniform() < 0.35:
        return np.full(3, rng.uniform(0.08, 0.92), np.float32) * rng.uniform(0.95, 1.05, 3)
    return _hsv_color(rng, (0, 360), (0.05, 0.6), (0.15, 0.9))


def table_texture(rng: np.random.Generator | None, kind: str | None = None) -> np.ndarray:
    """A table top as a BGR float image of TABLE_PX squared (TABLE_MM_PER_PX per pixel)."""
    n = TABLE_PX
    if rng is None:
        return np.full((n, n, 3), 0.52, np.float32)
    kind = kind or str(rng.choice(TABLE_KINDS, p=[0.45, 0.2, 0.2, 0.15]))
    # Pixel coordinates as a row and a column: broadcasting builds the rotated ones.
    coords = np.arange(n, dtype=np.float32)
    xx, yy = coords[None, :], coords[:, None]
    angle = rng.uniform(0, np.pi)
    if kind == "wood":
        across = -np.sin(angle) * xx + np.cos(angle) * yy
        base = _hsv_color(rng, (18, 42), (0.25, 0.75), (0.25, 0.9))
        dark = base * np.float32(rng.uniform(0.55, 0.8))
        # Grain: stretched noise along the boards, a little wavy.
        stretch = cv2.resize(rng.standard_normal((n, n // 24)).astype(np.float32), (n, n),
                             interpolation=cv2.INTER_CUBIC)
        center = (n / 2, n / 2)
        turn = cv2.getRotationMatrix2D(center, float(np.degrees(angle)), 1.0)
        grain = cv2.warpAffine(stretch, turn, (n, n), borderMode=cv2.BORDER_REFLECT)
        grain = cv2.GaussianBlur(grain, (0, 0), 0.7)
        level = np.clip(0.5 + 0.35 * grain + _smooth_noise(rng, 10, n) * 0.2, 0, 1)
        plank = rng.uniform(25, 60)
        seam = (np.mod(across + rng.uniform(0, plank), plank) < 0.7).astype(np.float32)
        level = level * (1 - 0.6 * seam)
        texture = dark + (base - dark)[None, None, :] * level[:, :, None]
    elif kind == "cloth":
        base = _any_table_color(rng)
        period = rng.uniform(2.0, 3.0)
        along = np.cos(angle) * xx + np.sin(angle) * yy
        across = -np.sin(angle) * xx + np.cos(angle) * yy
        weave = (np.sin(along * np.pi / period) * np.sin(across * np.pi / period)) * 0.05
        folds = _smooth_noise(rng, 5, n) * 0.1
        texture = base[None, None, :] * (0.92 + weave + folds)[:, :, None]
    elif kind == "pattern":
        c1 = _any_table_color(rng)
        c2 = _any_table_color(rng)
        period = rng.uniform(5, 25)
        along = np.cos(angle) * xx + np.sin(angle) * yy
        if rng.uniform() < 0.5:
            mask = (np.mod(along, period) < period / 2).astype(np.float32)
        else:
            across = -np.sin(angle) * xx + np.cos(angle) * yy
            mask = ((np.mod(along, period) < period / 2) ^ (np.mod(across, period) < period / 2))
            mask = mask.astype(np.float32)
        mask = cv2.GaussianBlur(mask, (0, 0), 0.8)
        texture = c1 * mask[:, :, None] + c2 * (1 - mask[:, :, None])
    else:
        base = _any_table_color(rng)
        texture = base[None, None, :] * (1 + _smooth_noise(rng, 8, n) * 0.06
                                         + _smooth_noise(rng, 120, n) * 0.02)[:, :, None]
    return np.clip(texture, 0, 1, out=texture).astype(np.float32, copy=False)


def random_pipeline(rng: np.random.Generator | None) -> Camera8Bit:
    if rng is None:
        return Camera8Bit(1.0, (1.0, 1.0, 1.0), 0.0, 0.0, 0, 0.0)
    wb = rng.normal(1.0, 0.05, 3)
    return Camera8Bit(
        exposure=float(np.clip(np.exp(rng.normal(0.0, 0.2)), 0.7, 1.35)),
        white_balance=(float(wb[0]), float(wb[1]), float(wb[2])),
        blur=float(0.35 + rng.uniform(0.0, 1.2) ** 1.5),
        noise=float(rng.uniform(1.0, 7.0)),
        jpeg_quality=int(rng.choice([0, 45, 60, 70, 80, 90])),
        vignette=float(rng.uniform(0.0, 0.4)),
        soften=float(rng.choice([1.0, 1.0, 1.0, rng.uniform(0.45, 0.8)])),
        motion=float(rng.choice([0.0, 0.0, 0.0, 0.0, rng.uniform(2.0, 7.0)])),
        motion_angle=float(rng.uniform(0, 180)),
        uneven=float(rng.uniform(0.0, 0.18)),
    )


def auto_gain(settings: Camera8Bit, mean_level: np.ndarray, auto: bool) -> np.ndarray:
    """Per-channel factor from light to 8-bit levels before metering.

    ``mean_level`` is a guess of the scene's mean colour as lit; the first exposure aims
    a little low (so that highlights are not clipped before :func:`meter` corrects it).
    """
    wb = np.array(settings.white_balance, np.float32)
    if not auto:
        return wb * np.float32(255.0 * settings.exposure)
    luma = float(mean_level @ np.array([0.114, 0.587, 0.299]))
    return wb * np.float32(255.0 * min(max(0.33 / max(luma, 1e-3), 0.3), 4.0))


def meter(picture: np.ndarray, settings: Camera8Bit) -> np.ndarray:
    """Auto exposure on the composed picture: mean brightness to mid-grey, then the
    frame's exposure error (a webcam meters the whole frame, table included)."""
    sample = picture[::6, ::6].reshape(-1, 3).astype(np.float32)
    luma = float((sample @ np.array([0.114, 0.587, 0.299], np.float32)).mean())
    correction = min(max(0.42 * 255 * settings.exposure / max(luma, 1.0), 0.4), 3.0)
    if abs(correction - 1) < 0.01:
        return picture
    return cv2.convertScaleAbs(picture, alpha=correction)


_VIGNETTES: dict[tuple[int, int, float], np.ndarray] = {}


def _vignette(width: int, height: int, strength: float) -> np.ndarray:
    key = (width, height, round(strength, 2))
    if key not in _VIGNETTES:
        if len(_VIGNETTES) > 64:
            _VIGNETTES.clear()
        x = (np.arange(width, dtype=np.float32) - width / 2) / (width / 2)
        y = (np.arange(height, dtype=np.float32) - height / 2) / (width / 2)
        r2 = x[None, :] ** 2 + y[:, None] ** 2
        level = np.clip(255 * (1 - key[2] * r2), 0, 255).astype(np.uint8)
        _VIGNETTES[key] = cv2.merge([level, level, level])
    return _VIGNETTES[key]


def finish(
    picture: np.ndarray, settings: Camera8Bit, rng: np.random.Generator | None
) -> np.ndarray:
    """Lens fall-off, optical blur, sensor noise and JPEG on an 8-bit picture."""
    h, w = picture.shape[:2]
    if settings.vignette > 0.005:
        picture = cv2.multiply(picture, _vignette(w, h, settings.vignette), scale=1 / 255)
    if settings.uneven > 0.005 and rng is not None:
        # Uneven light over the scene (a lamp's falloff, a window on one side).
        field = 1 + settings.uneven * rng.standard_normal((4, 6)).astype(np.float32)
        field = cv2.resize(np.clip(field, 0.5, 1.5), (w, h), interpolation=cv2.INTER_CUBIC)
        # Channel by channel: the same products, without a three-channel float field.
        picture = cv2.merge([cv2.multiply(plane, field, dtype=cv2.CV_8U)
                             for plane in cv2.split(picture)])
    if settings.soften < 0.99:
        small = cv2.resize(picture, (max(int(w * settings.soften), 8),
                                     max(int(h * settings.soften), 8)),
                           interpolation=cv2.INTER_AREA)
        picture = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if settings.blur > 0.15:
        picture = cv2.GaussianBlur(picture, (0, 0), settings.blur)
    if settings.motion >= 1.5:
        size = int(settings.motion) | 1
        kernel = np.zeros((size, size), np.float32)
        kernel[size // 2, :] = 1.0 / size
        turn = cv2.getRotationMatrix2D((size / 2 - 0.5, size / 2 - 0.5), settings.motion_angle, 1)
        kernel = cv2.warpAffine(kernel, turn, (size, size))
        picture = cv2.filter2D(picture, -1, kernel / max(float(kernel.sum()), 1e-6))
    if settings.noise > 0 and rng is not None:
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        # Luminance noise per pixel plus coarser colour noise, as a demosaiced sensor
        # makes it (and a third of the cost of independent noise per channel).
        luma = np.empty((h, w), np.int16)
        cv2.randn(luma, 0, settings.noise)
        chroma = np.empty(((h + 1) // 2, (w + 1) // 2, 3), np.int16)
        cv2.randn(chroma, 0, settings.noise * 0.6)
        chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST)
        # Luma to three channels: a plain copy, done on the same bits as unsigned.
        luma3 = cv2.cvtColor(luma.view(np.uint16), cv2.COLOR_GRAY2BGR).view(np.int16)
        noise = cv2.add(chroma, luma3, dst=chroma, dtype=cv2.CV_16S)
        picture = cv2.add(picture, noise, dtype=cv2.CV_8U)
    if settings.jpeg_quality > 0:
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, settings.jpeg_quality])
        if ok:
            picture = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return picture
