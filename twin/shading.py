"""Colours and light: LEGO's palette and a directional-plus-ambient plastic model.

Shading works on sRGB values directly (no linearisation): it is not physically exact,
but it keeps a frame within budget and the recogniser is trained on widely varied
light anyway.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.camera import Camera, Pose, plane_points, rays_through
from rules.pieces import BOARD_MM, BUILDING_COLORS, COLOR_RGB, Kind, Piece


def _bgr(rgb: tuple[int, int, int]) -> np.ndarray:
    return np.array(rgb[::-1], dtype=np.float32) / 255.0


# LEGO's published RGB values (Rebrickable colour table): the game's own colours, and
# the other parts a table shows.
LEGO_RGB: dict[str, tuple[int, int, int]] = {
    **COLOR_RGB,
    "green": (35, 120, 65),  # corner bricks and the baseplate
    "monkey": (149, 138, 115),  # dark tan
    "butterfly": (254, 138, 24),  # orange
    "frog": (146, 57, 120),  # magenta
    # Other common colours, for stray bricks on the table.
    "red": (201, 26, 9),
    "blue": (0, 85, 191),
    "yellow": (242, 205, 55),
    "white": (244, 244, 244),
    "black": (27, 42, 52),
    "light_gray": (160, 165, 169),
}

# The printed ground map (a cardboard print, duller than plastic).
GROUND_RGB: dict[str, tuple[int, int, int]] = {
    "L": (132, 178, 74),
    "D": (48, 104, 52),
    "G": (214, 178, 96),
    "X": (118, 110, 98),
    "start": (232, 230, 222),
}
BASEPLATE_RGB = (35, 120, 65)


def piece_color(piece: Piece) -> np.ndarray:
    """The piece's plastic colour.

    A building piece without a known colour (scenes from the rules engine leave it
    empty: it never matters to the rules) gets one of the four building colours, picked
    from its id and place so that it keeps that colour from turn to turn, as a real
    piece does.
    """
    if piece.kind in (Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG):
        return _bgr(LEGO_RGB[piece.kind.value])
    if piece.kind is Kind.CORNER:
        return _bgr(LEGO_RGB["green"])
    if piece.color in LEGO_RGB:
        return _bgr(LEGO_RGB[piece.color])
    key = f"{piece.id}|{piece.kind.value}|{piece.x},{piece.y},{piece.z}".encode()
    return _bgr(LEGO_RGB[BUILDING_COLORS[zlib.crc32(key) % len(BUILDING_COLORS)]])


@dataclass(frozen=True)
class Light:
    """A directional light (sun or lamp) plus ambient fill.

    ``azimuth_deg``/``elevation_deg`` say where the light comes from in the board frame;
    ``color`` is the light's BGR tint (warm indoor light is blue-poor). ``fill`` is the
    ambient light's own tint where it differs from the lamp's (daylight through a window
    beside a warm lamp, a warm room under a cold lamp): what the lamp does not reach,
    shadows above all, then takes another colour. None: the lamp's.
    """

    azimuth_deg: float = 35.0
    elevation_deg: float = 60.0
    ambient: float = 0.5
    diffuse: float = 0.6
    specular: float = 0.25
    shininess: float = 40.0
    color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow: float = 0.55
    softness_mm: float = 1.5
    fill: tuple[float, float, float] | None = None

    @property
    def fill_color(self) -> tuple[float, float, float]:
        return self.color if self.fill is None else self.fill

    @property
    def direction(self) -> np.ndarray:
        """Unit vector from the board towards the light."""
        az, el = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])

    @classmethod
    def random(cls, rng: np.random.Generator) -> Light:
        """Anything from a desk lamp low over the table to flat overhead office light."""
        kelvin_tint = rng.choice(["warm", "neutral", "cool", "neutral"])
        if kelvin_tint == "warm":
            color = (rng.uniform(0.55, 0.8), rng.uniform(0.8, 0.92), 1.0)
        elif kelvin_tint == "cool":
            color = (1.0, rng.uniform(0.93, 1.0), rng.uniform(0.82, 0.95))
        else:
            color = tuple(rng.uniform(0.92, 1.0, 3))
        hard = rng.uniform()
        # Ambient plus direct light stays near 1 so that white plastic reaches white
        # without clipping whole faces; the share of direct light sets the contrast.
        total = rng.uniform(0.85, 1.05)
        ambient = total * rng.uniform(0.3, 0.65)
        return cls(
            azimuth_deg=rng.uniform(0, 360),
            elevation_deg=rng.uniform(25, 85),
            ambient=ambient,
            diffuse=total - ambient,
            specular=rng.uniform(0.05, 0.45),
            shininess=rng.uniform(15, 80),
            color=(float(color[0]), float(color[1]), float(color[2])),
            shadow=rng.uniform(0.25, 0.75) * hard + 0.1,
            softness_mm=rng.uniform(0.8, 4.0) * (1.5 - hard),
        )


@dataclass(frozen=True)
class Relight:
    """The room's light changed since the picture before: the lamp moved or dimmed.

    A game lasts an hour or more: the sun moves along a window (about a degree every
    four minutes), a cloud passes, someone switches a lamp on. The picture before a
    turn and the one after then differ where no piece was put. Applied to whatever
    light the frame's seed draws, so a relit frame is the same frame in every other
    draw. ``diffuse`` and ``ambient`` multiply the lamp's and the room's strength.
    """

    azimuth_deg: float = 0.0
    elevation_deg: float = 0.0
    diffuse: float = 1.0
    ambient: float = 1.0
    shadow: float = 0.0
    """A player leaning over the table: the share of the light a soft shadow takes from
    one side of the board (0: none). Where it falls is drawn from the frame's seed on a
    stream of its own (:func:`player_shadow`): the side, how far past the
    board's middle its edge reaches (-40 to 60 mm), an edge 60 mm soft."""
    shadow_back_mm: float = 0.0
    """How far the shadow's edge has withdrawn towards the player (leaning back)."""

    def apply(self, light: Light) -> Light:
        return replace(
            light,
            azimuth_deg=light.azimuth_deg + self.azimuth_deg,
            elevation_deg=float(np.clip(light.elevation_deg + self.elevation_deg, 10, 89)),
            diffuse=light.diffuse * self.diffuse,
            ambient=light.ambient * self.ambient,
        )


SHADOW_GRID_PX = 16
"""A player's shadow is worked out on a grid this coarse, then stretched: it is soft."""


def shadow_colour(light: Light, depth: float) -> np.ndarray:
    """What a shadow taking ``depth`` of the light on the table leaves of each channel
    (BGR): it blocks the lamp and not the room, so where the room's fill is another
    colour than the lamp the shadow takes the fill's colour (bluer under a warm lamp by
    a window). The share of the lamp it blocks is set so that the three channels lose
    ``depth`` on average (up to all of the lamp)."""
    lamp = light.diffuse * math.sin(math.radians(light.elevation_deg)) * np.array(
        light.color, np.float64)
    room = light.ambient * np.array(light.fill_color, np.float64)
    share = lamp / np.maximum(lamp + room, 1e-6)
    blocked = min(depth / max(float(share.mean()), 1e-6), 1.0)
    return (1.0 - blocked * share).astype(np.float32)


def player_shadow(image: np.ndarray, camera: Camera, pose: Pose, depth: float,
                  rng: np.random.Generator, back_mm: float = 0.0,
                  light: Light | None = None) -> np.ndarray:
    """``image`` under a player's soft shadow: a person leaning over the table from one
    side takes ``depth`` of the light from a band of the table beyond an edge across the
    board, 60 mm soft (withdrawn ``back_mm`` towards the player), in the colour the
    room's fill leaves (:func:`shadow_colour`; grey without ``light``). Each pixel is
    darkened by the shadow on the table where its ray meets it (a piece takes the shadow
    of the table under it: the shadow is far softer than a piece is tall)."""
    left = (np.full(3, 1.0 - depth, np.float32) if light is None
            else shadow_colour(light, depth))
    heading = rng.uniform(0.0, 2.0 * np.pi)
    reach = rng.uniform(-40.0, 60.0) - back_mm
    soft = 60.0
    height, width = image.shape[:2]
    ys, xs = np.mgrid[0:height + SHADOW_GRID_PX:SHADOW_GRID_PX,
                      0:width + SHADOW_GRID_PX:SHADOW_GRID_PX].astype(np.float64)
    rays = rays_through(camera, np.column_stack([xs.ravel(), ys.ravel()]))
    points, ahead = plane_points(pose, rays, 0.0)
    side = np.array([np.cos(heading), np.sin(heading)])
    past = (points[:, :2] - BOARD_MM / 2) @ side - reach
    cover = 1.0 / (1.0 + np.exp(np.clip(past / soft * 4.0, -30, 30)))
    cover = np.where(ahead, cover, 0.0).reshape(xs.shape).astype(np.float32)
    field = cv2.resize(cover, (xs.shape[1] * SHADOW_GRID_PX, xs.shape[0] * SHADOW_GRID_PX),
                       interpolation=cv2.INTER_LINEAR)[:height, :width]
    shade = 1.0 - field[:, :, None] * (1.0 - left)[None, None, :]
    return cv2.convertScaleAbs(image.astype(np.float32) * shade)


def shade_polygons(
    normals: np.ndarray,
    centroids: np.ndarray,
    albedo: np.ndarray,
    gloss: np.ndarray,
    light: Light,
    eye: np.ndarray,
) -> np.ndarray:
    """Flat Blinn-Phong colour per polygon (N x 3 BGR, 0..1+)."""
    to_light = light.direction
    view = eye[None, :] - centroids
    view /= np.linalg.norm(view, axis=1, keepdims=True) + 1e-9
    half = view + to_light[None, :]
    half /= np.linalg.norm(half, axis=1, keepdims=True) + 1e-9
    diffuse = np.clip(normals @ to_light, 0.0, None)
    spec = np.clip(np.sum(normals * half, axis=1), 0.0, None) ** light.shininess
    spec *= (diffuse > 0) * light.specular * gloss
    tint = np.array(light.color, dtype=np.float32)
    if light.fill is not None:
        fill = np.array(light.fill, dtype=np.float32)
        direct = (albedo * (light.diffuse * diffuse)[:, None] + spec[:, None]) * tint[None, :]
        return (direct + albedo * light.ambient * fill[None, :]).astype(np.float32)
    lit = albedo * (light.ambient + light.diffuse * diffuse)[:, None] + spec[:, None]
    return (lit * tint[None, :]).astype(np.float32)


def room_fill(light: Light, rng: np.random.Generator) -> Light:
    """``light`` with a fill light of another colour: bluer (a window's daylight beside
    a lamp) or warmer (a warm room under a cold lamp or the sun), by up to about a
    third in the blue-to-red balance, or now and then the lamp's own colour."""
    if rng.uniform() < 0.2:
        return light
    shift = float(rng.uniform(0.05, 0.4)) * (1 if rng.uniform() < 0.6 else -1)
    balance = np.exp(np.array([shift, shift * 0.3, -shift]) / 2)
    balance *= rng.uniform(0.95, 1.05, 3)
    fill = np.asarray(light.color, np.float64) * balance
    fill /= max(float(fill.max()), 1e-6)
    return replace(light, fill=(float(fill[0]), float(fill[1]), float(fill[2])))
