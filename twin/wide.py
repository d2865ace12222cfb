"""The wide look: what real tables and real prints do that the classic twin did not.

Frames of an independent path tracer (and real boards) differ from the classic twin in
ways a recogniser feels even where the classical pose survives: the print's inks drift
(sand towards orange, dark green from near black to a lifted grey, light green darker
and more saturated), stud tops show lighter *or* darker than the card around them, the
card's holes show the plate, the card's own colour or hardly at all, studs cast hard
shadows on the card under a small lamp with sky fill, the camera either meters the
whole frame (a bright table then darkens the board) or keeps a fixed exposure, and the
board fills anything from a third of the picture to more than all of it.

:class:`WideLook` is drawn once per frame from the frame's seed when
``RenderOptions(wide=True)``; the classic distribution stays the default so that
benches can compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import Camera, Pose
from rules.pieces import BOARD_STUDS, STUD_DIAMETER_MM, STUD_HEIGHT_MM, STUD_MM
from twin.cameras import random_camera
from twin.shading import Light

WIDE_FILL = (0.35, 1.15)
"""How far towards the picture's edge the board reaches (above 1: cut off)."""


@dataclass(frozen=True)
class WideLook:
    """One frame's draw of the wide look (see the module's docstring)."""

    inks: dict[str, np.ndarray] = field(default_factory=dict)
    """BGR multipliers per ground key (L, D, G, X, start) applied to the print's inks."""
    top_level: float = 1.0
    """Stud tops' light relative to the card's (below 1 darker, above lighter)."""
    hole_card: bool = False
    """Holes show the card's colour (a pressed rim) rather than the plate."""
    hole_shade: float = 0.55
    stud_shadow: float = 0.0
    """How dark the studs' own shadows on the card are (0: none)."""
    metered: bool = True
    bright_table: float = 0.0
    """0: the table as drawn; else its brightness is pulled towards white by this much."""

    @classmethod
    def random(cls, rng: np.random.Generator) -> WideLook:
        def drift(toward: tuple[float, float, float], spread: float) -> np.ndarray:
            return (np.array(toward) * rng.uniform(1 - spread, 1 + spread, 3)).astype(np.float32)

        # Dark green from near black to a lifted, greyer green: darker or lighter, and
        # the lighter the greyer (a dark ink lifts towards the paper, not towards lime).
        dark = float(rng.uniform(0.35, 1.3))
        lift = max(dark - 1.0, 0.0) * 1.5
        dark_ink = (np.array([dark] * 3) * (1 - lift)
                    + lift * np.array([0.36 / 0.2, 0.36 / 0.41, 0.36 / 0.19]))
        inks = {
            "G": drift((rng.uniform(0.5, 1.0), rng.uniform(0.8, 1.0), rng.uniform(1.0, 1.15)),
                       0.06),
            "D": drift(tuple(dark_ink), 0.08),
            "L": drift((rng.uniform(0.6, 1.0), rng.uniform(0.8, 1.05), rng.uniform(0.7, 1.0)),
                       0.06),
            "X": drift((1.0, 1.0, 1.0), 0.15),
            "start": drift((1.0, 1.0, 1.0), 0.04),
        }
        return cls(
            inks=inks,
            top_level=float(rng.choice([rng.uniform(0.55, 0.9), rng.uniform(1.1, 1.9)])),
            hole_card=bool(rng.random() < 0.6),
            hole_shade=float(rng.uniform(0.55, 1.0)),
            stud_shadow=float(rng.choice([0.0, rng.uniform(0.25, 0.6)])),
            metered=bool(rng.random() < 0.6),
            bright_table=float(rng.choice([0.0, 0.0, rng.uniform(0.5, 0.9)])),
        )


def hard_light(rng: np.random.Generator) -> Light:
    """A small lamp or the sun through a window (hard shadows) with the sky as fill."""
    base = Light.random(rng)
    sky = float(rng.uniform(0.2, 0.5))
    return Light(
        azimuth_deg=base.azimuth_deg,
        elevation_deg=float(rng.uniform(30, 85)),
        ambient=sky,
        diffuse=float(rng.uniform(0.55, 0.85)),
        specular=float(rng.uniform(0.1, 0.6)),
        shininess=base.shininess,
        color=base.color,
        shadow=float(rng.uniform(0.55, 0.9)),
        softness_mm=float(rng.uniform(0.25, 0.9)),
    )


def stud_shadow_mask(light: Light, px_per_mm: int) -> np.ndarray:
    """Where the plate's studs shade the card (1 = full shadow), in board space.

    A stud is a cylinder 1.7 mm tall: its shadow on the card is the disc swept along
    the light for ``height / tan(elevation)``, a capsule per stud.
    """
    n = BOARD_STUDS * int(STUD_MM) * px_per_mm
    mask = np.zeros((n, n), np.uint8)
    d = light.direction
    reach = STUD_HEIGHT_MM / max(float(d[2]), 0.2)
    offset = -np.array(d[:2]) / max(float(np.linalg.norm(d[:2])), 1e-6) * reach
    radius = round(STUD_DIAMETER_MM / 2 * px_per_mm)
    for y in range(BOARD_STUDS):
        for x in range(BOARD_STUDS):
            c = np.array([(x + 0.5) * STUD_MM, (y + 0.5) * STUD_MM])
            a = tuple(int(v) for v in np.round(c * px_per_mm))
            b = tuple(int(v) for v in np.round((c + offset) * px_per_mm))
            cv2.line(mask, a, b, 255, 2 * radius, cv2.LINE_AA)
    return cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 0.5)


def wide_view(rng: np.random.Generator, width: int = 1280, height: int = 720
              ) -> tuple[Camera, Pose]:
    """A webcam framing the board from a third of the picture to past its edges."""
    return random_camera(rng, width, height, fill=WIDE_FILL)
