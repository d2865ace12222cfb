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


def _smooth_noise(rng: np.random.Generator, cells: int, size: int) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


def table_texture(rng: np.random.Generator | None, kind: str | None = None) -> np.ndarray:
    """A table top as a BGR float image of TABLE_PX squared (TABLE_MM_PER_PX per pixel)."""
    n = TABLE_PX
    if rng is None:
        return np.full((n, n, 3), 0.52, np.float32)
    kind = kind or str(rng.choice(TABLE_KINDS, p=[0.4, 0.2, 0.2, 0.2]))
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    along = np.cos(angle) * xx + np.sin(angle) * yy
    across = -np.sin(angle) * xx + np.cos(angle) * yy
    if kind == "wood":
        base = np.array(rng.uniform([0.25, 0.4, 0.55], [0.55, 0.7, 0.9]), np.float32)
        warp = _smooth_noise(rng, 6, n) * rng.uniform(3, 12)
        grain = np.sin((across + warp) * 2 * np.pi / rng.uniform(2.0, 12.0)) * 0.5 + 0.5
        fine = _smooth_noise(rng, 160, n) * 0.04
        streak = _smooth_noise(rng, 12, n) * 0.08
        level = 0.78 + 0.22 * grain ** rng.uniform(1, 4) + fine + streak
        # Plank seams.
        plank = rng.uniform(30, 70)
        seam = (np.mod(across, plank) < 1.2).astype(np.float32)
        level *= 1 - 0.35 * seam
        texture = base[None, None, :] * level[:, :, None]
    elif kind == "cloth":
        base = np.array(rng.uniform(0.15, 0.85, 3), np.float32)
        period = rng.uniform(2.0, 3.0)
        weave = (np.sin(along * np.pi / period) * np.sin(across * np.pi / period)) * 0.05
        folds = _smooth_noise(rng, 5, n) * 0.08
        texture = base[None, None, :] * (0.92 + weave + folds)[:, :, None]
    elif kind == "pattern":
        c1 = np.array(rng.uniform(0.2, 0.9, 3), np.float32)
        c2 = np.array(rng.uniform(0.2, 0.9, 3), np.float32)
        period = rng.uniform(5, 25)
        if rng.uniform() < 0.5:
            mask = (np.mod(along, period) < period / 2).astype(np.float32)
        else:
            mask = ((np.mod(along, period) < period / 2) ^ (np.mod(across, period) < period / 2))
            mask = mask.astype(np.float32)
        mask = cv2.GaussianBlur(mask, (0, 0), 0.8)
        texture = c1 * mask[:, :, None] + c2 * (1 - mask[:, :, None])
    else:
        base = np.array(rng.uniform(0.1, 0.95, 3), np.float32)
        texture = base[None, None, :] * (1 + _smooth_noise(rng, 8, n) * 0.05)[:, :, None]
    return np.clip(texture, 0, 1).astype(np.float32)


def random_pipeline(rng: np.random.Generator | None) -> Camera8Bit:
    if rng is None:
        return Camera8Bit(1.0, (1.0, 1.0, 1.0), 0.0, 0.0, 0, 0.0)
    wb = rng.normal(1.0, 0.06, 3)
    return Camera8Bit(
        exposure=float(np.exp(rng.normal(0.0, 0.3))),
        white_balance=(float(wb[0]), float(wb[1]), float(wb[2])),
        blur=float(rng.uniform(0.0, 1.6) ** 1.5),
        noise=float(rng.uniform(0.5, 7.0)),
        jpeg_quality=int(rng.choice([0, 50, 65, 75, 85, 92])),
        vignette=float(rng.uniform(0.0, 0.45)),
    )


def auto_gain(settings: Camera8Bit, mean_level: np.ndarray, auto: bool) -> np.ndarray:
    """Per-channel factor from light to 8-bit levels, as a webcam's auto exposure sets it.

    ``mean_level`` is the expected mean colour of the scene as lit; auto exposure aims
    its brightness at mid-grey, then the frame's exposure error and white balance apply.
    """
    wb = np.array(settings.white_balance, np.float32)
    if not auto:
        return wb * np.float32(255.0 * settings.exposure)
    luma = float(mean_level @ np.array([0.114, 0.587, 0.299]))
    target = 0.46 / max(luma, 1e-3)
    return wb * np.float32(255.0 * settings.exposure * min(max(target, 0.4), 4.0))


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


def finish(picture: np.ndarray, settings: Camera8Bit, rng: np.random.Generator | None) -> np.ndarray:
    """Lens fall-off, optical blur, sensor noise and JPEG on an 8-bit picture."""
    h, w = picture.shape[:2]
    if settings.vignette > 0.005:
        picture = cv2.multiply(picture, _vignette(w, h, settings.vignette), scale=1 / 255)
    if settings.blur > 0.15:
        picture = cv2.GaussianBlur(picture, (0, 0), settings.blur)
    if settings.noise > 0 and rng is not None:
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        noise = np.empty((h, w, 3), np.int16)
        cv2.randn(noise, 0, settings.noise)
        picture = cv2.add(picture, noise, dtype=cv2.CV_8U)
    if settings.jpeg_quality > 0:
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, settings.jpeg_quality])
        if ok:
            picture = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return picture
