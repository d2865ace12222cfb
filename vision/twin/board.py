"""The baseplate and the ground map, shaded per pixel through the board plane.

A thousand baseplate studs would cost thousands of polygons; instead every pixel's ray
is intersected with three horizontal planes (the card at ``z = 0``, the stud middle and
the stud tops at 1.7 mm), which tells exactly whether it meets a stud top, a stud side,
the green plate inside a card hole, or the printed card. The intersections are affine
maps of the pixel position, so the whole board is a few dozen array operations.

The card is treated as having no thickness: its print lies in the ``z = 0`` plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rules.maps import GroundMap
from rules.pieces import BOARD_MM, BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM, Piece
from vision.twin.lens import Lens
from vision.twin.mesh import PART_CARD, PART_HOLE, PART_STUD_SIDE, PART_STUD_TOP, STUD_R
from vision.twin.shading import BASEPLATE_RGB, GROUND_RGB, Light

HOLE_R = 2.95  # the card's holes are a little wider than the studs
TEXTURE_PX_PER_MM = 2
SHADOW_PX_PER_MM = 1
SHADOW_MARGIN_MM = 32


@dataclass
class BoardLayer:
    """Board colour, inverse depth (0 = not board) and part, inside ``box`` of the canvas.

    ``box`` is (x0, y0, x1, y1); outside it there is no board.
    """

    box: tuple[int, int, int, int]
    color: np.ndarray
    invz: np.ndarray
    part: np.ndarray

    @classmethod
    def empty(cls) -> BoardLayer:
        return cls((0, 0, 0, 0), np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0), np.float32),
                   np.zeros((0, 0), np.uint8))

    def full(self, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The layer spread over the whole canvas (for tests and debugging)."""
        x0, y0, x1, y1 = self.box
        color = np.zeros((height, width, 3), np.uint8)
        invz = np.zeros((height, width), np.float32)
        part = np.zeros((height, width), np.uint8)
        color[y0:y1, x0:x1], invz[y0:y1, x0:x1], part[y0:y1, x0:x1] = (
            self.color, self.invz, self.part)
        return color, invz, part


def card_texture(ground: GroundMap, rng: np.random.Generator | None) -> np.ndarray:
    """The printed map in board space (BGR float, 2 px per mm, row = y)."""
    cells = np.zeros((BOARD_STUDS, BOARD_STUDS, 3), np.float32)
    tints = {
        key: np.array(rgb[::-1], np.float32) / 255.0 for key, rgb in GROUND_RGB.items()
    }
    if rng is not None:
        for key in tints:
            tints[key] = np.clip(tints[key] * rng.uniform(0.88, 1.1, 3), 0, 1).astype(np.float32)
    for y, row in enumerate(ground.ground):
        for x, ch in enumerate(row):
            cells[y, x] = tints["start" if (x, y) in ground.start_area else ch]
    size = BOARD_STUDS * int(STUD_MM) * TEXTURE_PX_PER_MM
    texture = cv2.resize(cells, (size, size), interpolation=cv2.INTER_NEAREST)
    texture = cv2.GaussianBlur(texture, (0, 0), 1.2)
    if rng is not None:
        # Print grain and uneven ink: low-frequency blotches plus fine speckle.
        blotch = cv2.resize(rng.normal(1.0, 0.06, (24, 24)).astype(np.float32), (size, size),
                            interpolation=cv2.INTER_CUBIC)
        speckle = np.empty((size, size), np.float32)
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        cv2.randn(speckle, 1.0, 0.03)
        # Illustration: leaves, tufts and pebbles printed a shade lighter or darker.
        strokes = np.ones((size, size), np.float32)
        count = int(rng.integers(150, 500))
        centres = rng.uniform(0, size, (count, 2)).astype(int)
        axes = rng.uniform(2, 12, (count, 2)).astype(int)
        angles = rng.uniform(0, 180, count)
        shades = rng.uniform(0.8, 1.18, count)
        for (x, y), (a, b), angle, shade in zip(centres, axes, angles, shades, strict=True):
            cv2.ellipse(strokes, (int(x), int(y)), (int(a), int(b)), float(angle), 0, 360,
                        float(shade), -1, cv2.LINE_AA)
        strokes = cv2.GaussianBlur(strokes, (0, 0), 0.8)
        texture *= (blotch * speckle * strokes)[:, :, None]
    return texture


def shadow_maps(pieces: list[Piece], meshes_pts: list[np.ndarray], light: Light,
                softness_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Cast shadow and contact darkening on the ground, in board space.

    Each piece's outline is swept along the light onto ``z = 0``; the blur makes the
    penumbra. Contact darkening (ambient occlusion) is the blurred footprint of what
    stands on the ground.
    """
    size = int((BOARD_MM + 2 * SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM)
    shadow = np.zeros((size, size), np.uint8)
    contact = np.zeros((size, size), np.uint8)
    d = light.direction
    for piece, pts in zip(pieces, meshes_pts, strict=True):
        if len(pts) == 0:
            continue
        ground = pts[:, :2] - pts[:, 2:3] / max(d[2], 0.05) * d[None, :2]
        img = (ground + SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM * 16
        hull = cv2.convexHull(np.round(img).astype(np.int32))
        cv2.fillConvexPoly(shadow, hull, 255, cv2.LINE_AA, 4)
        if piece.z == 0:
            foot = (pts[pts[:, 2] < 0.5, :2] + SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM * 16
            if len(foot) >= 3:
                fh = cv2.convexHull(np.round(foot).astype(np.int32))
                cv2.fillConvexPoly(contact, fh, 255, cv2.LINE_AA, 4)
    s = cv2.GaussianBlur(shadow.astype(np.float32) / 255, (0, 0), max(softness_mm, 0.6))
    c = cv2.GaussianBlur(contact.astype(np.float32) / 255, (0, 0), 2.5)
    return s, c


def _board_box(lens: Lens, rotation: np.ndarray, tvec: np.ndarray) -> tuple[int, int, int, int]:
    """The picture rectangle holding the board (its rim bows under distortion)."""
    t = np.linspace(0.0, BOARD_MM, 17)
    zeros, full = np.zeros_like(t), np.full_like(t, BOARD_MM)
    rim = np.concatenate([np.c_[t, zeros], np.c_[full, t], np.c_[t, full], np.c_[zeros, t]])
    pts = np.concatenate([np.c_[rim, np.zeros(len(rim))], np.c_[rim, np.full(len(rim),
                                                                           STUD_HEIGHT_MM)]])
    cam = pts @ rotation.T + tvec
    inside = ((cam[:, 2] > 1.0) & (np.abs(cam[:, 0]) < lens.half_x * cam[:, 2])
              & (np.abs(cam[:, 1]) < lens.half_y * cam[:, 2]))
    if not inside.all():
        return 0, 0, lens.width, lens.height
    img = lens.project(cam)
    x0, y0 = np.floor(img.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(img.max(axis=0)).astype(int) + 3
    return max(int(x0), 0), max(int(y0), 0), min(int(x1), lens.width), min(int(y1), lens.height)


def render_board(
    lens: Lens,
    rotation: np.ndarray,
    tvec: np.ndarray,
    texture: np.ndarray,
    shadow: np.ndarray,
    contact: np.ndarray,
    light: Light,
    plate_tint: np.ndarray,
    gain: np.ndarray,
) -> BoardLayer:
    """The board's pixels as 8-bit colour (``gain`` maps light to 0..255 per channel)."""
    eye = -rotation.T @ tvec
    if eye[2] <= STUD_HEIGHT_MM:
        return BoardLayer.empty()
    x0, y0, x1, y1 = _board_box(lens, rotation, tvec)
    if x1 <= x0 or y1 <= y0:
        return BoardLayer.empty()
    k = lens.camera_matrix
    fx, fy, cx, cy = float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2])
    if lens.und_x is None or lens.und_y is None:
        u = ((np.arange(x0, x1, dtype=np.float32) - cx) / fx)[None, :]
        v = ((np.arange(y0, y1, dtype=np.float32) - cy) / fy)[:, None]
    else:
        u = (lens.und_x[y0:y1, x0:x1] - np.float32(cx)) * np.float32(1 / fx)
        v = (lens.und_y[y0:y1, x0:x1] - np.float32(cy)) * np.float32(1 / fy)
    rt = [[float(c) for c in row] for row in rotation.T]
    ex, ey, ez = (float(c) for c in eye)
    # Board-frame ray direction for the camera ray (u, v, 1), scaled so that its z step
    # is 1 mm: a ray meets the plane at height z at (x0 + z * px, y0 + z * py), at
    # camera depth (z - ez) * inv_dz.
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_dz = np.float32(1.0) / (rt[2][0] * u + (rt[2][1] * v + rt[2][2]))
        px = (rt[0][0] * u + (rt[0][1] * v + rt[0][2])) * inv_dz
        py = (rt[1][0] * u + (rt[1][1] * v + rt[1][2])) * inv_dz
    x0m = ex - ez * px
    y0m = ey - ez * py
    r2 = np.float32(STUD_R * STUD_R)

    def stud_r2(height: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = x0m + height * px
        y = y0m + height * py
        # x mod 8 - 4, written with floor (np.fmod is ten times slower).
        pitch, inv, centre = np.float32(STUD_MM), np.float32(1 / STUD_MM), np.float32(STUD_MM / 2)
        ox = x - pitch * np.floor(x * inv) - centre
        oy = y - pitch * np.floor(y * inv) - centre
        return ox, oy, ox * ox + oy * oy

    half = np.float32(BOARD_MM / 2)
    valid = (np.abs(x0m - half) < half) & (np.abs(y0m - half) < half) & (inv_dz < 0)
    top_x, top_y = x0m + STUD_HEIGHT_MM * px, y0m + STUD_HEIGHT_MM * py
    inside_top = (np.abs(top_x - half) < half) & (np.abs(top_y - half) < half)
    _, _, rt2 = stud_r2(STUD_HEIGHT_MM)
    top = inside_top & (rt2 < r2) & (inv_dz < 0)
    oxm, oym, rm2 = stud_r2(STUD_HEIGHT_MM / 2)
    _, _, r02 = stud_r2(0.0)
    side = valid & ~top & ((rm2 < r2) | (r02 < r2))
    hole = valid & ~top & ~side & (r02 < np.float32(HOLE_R * HOLE_R))
    plate_px = top | side | hole
    board = top | valid

    # Light: shadow and contact darkening are sampled where the ray meets the card.
    scale = SHADOW_PX_PER_MM
    sx = (x0m + SHADOW_MARGIN_MM) * scale
    sy = (y0m + SHADOW_MARGIN_MM) * scale
    dark = cv2.remap(np.dstack([shadow, contact]), sx, sy, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT)
    ld = light.direction.astype(np.float32)
    # Stud sides: the normal runs from the axis to where the ray crosses mid-height.
    lam_side = (oxm * ld[0] + oym * ld[1]) / np.sqrt(np.maximum(rm2, np.float32(1e-6)))
    lam = np.where(side, np.maximum(lam_side, 0) * np.float32(0.9), np.float32(ld[2]))
    level = (light.ambient - 0.45 * light.ambient * dark[:, :, 1]) + (
        light.diffuse - light.diffuse * light.shadow * dark[:, :, 0]) * lam
    level[hole] *= np.float32(0.55)
    # A soft highlight on stud tops: the plastic is glossier than the card.
    level[top] += np.float32(light.specular * 0.35)
    tx = np.clip(x0m * TEXTURE_PX_PER_MM, 0, texture.shape[1] - 1)
    ty = np.clip(y0m * TEXTURE_PX_PER_MM, 0, texture.shape[0] - 1)
    albedo = cv2.remap(texture, tx, ty, cv2.INTER_LINEAR)
    np.copyto(albedo, plate_tint, where=plate_px[:, :, None])
    tint = (np.array(light.color, np.float32) * np.asarray(gain, np.float32))
    out = cv2.convertScaleAbs(albedo * level[:, :, None] * tint[None, None, :])
    z_hit = np.where(top, np.float32(STUD_HEIGHT_MM),
                     np.where(side, np.float32(STUD_HEIGHT_MM / 2), np.float32(0)))
    with np.errstate(divide="ignore"):
        sub_inv = np.where(board, np.float32(1.0) / ((z_hit - ez) * inv_dz), np.float32(0))
    sub_part = np.select([top, side, hole, valid], [PART_STUD_TOP, PART_STUD_SIDE, PART_HOLE,
                                                    PART_CARD], 0).astype(np.uint8)
    return BoardLayer((x0, y0, x1, y1), out, sub_inv, sub_part)


def plate_color() -> np.ndarray:
    return np.array(BASEPLATE_RGB[::-1], np.float32) / 255.0
