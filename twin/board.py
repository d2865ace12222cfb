"""The baseplate and the ground map, shaded per pixel through the board plane.

A thousand baseplate studs would cost thousands of polygons; instead every pixel's ray
is intersected with three horizontal planes (the card at ``z = 0``, the stud middle and
the stud tops at 1.7 mm), which tells exactly whether it meets a stud top, a stud side,
the green plate inside a card hole, or the printed card. The intersections are affine
maps of the pixel position, so the whole board is a few dozen array operations.

The card is treated as having no thickness: its print (:mod:`twin.card_print`) lies in
the ``z = 0`` plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rules.pieces import BOARD_MM, STUD_HEIGHT_MM, STUD_MM, Piece
from twin.card_print import TEXTURE_PX_PER_MM
from twin.lens import Lens
from twin.mesh import PART_CARD, PART_HOLE, PART_STUD_SIDE, PART_STUD_TOP, STUD_R
from twin.shading import BASEPLATE_RGB, Light

HOLE_R = 2.95  # the card's holes are a little wider than the studs
SHADOW_PX_PER_MM = 1
SHADOW_MARGIN_MM = 32
CONTACT_SHARE = 0.45
"""The share of the room's light the contact map takes away where it is 1."""


@dataclass(frozen=True)
class BoardLook:
    """How the studs and holes take the light; the defaults are the classic twin's."""

    top_level: float = 1.0
    """Stud tops' light relative to what the classic twin gives them."""
    hole_card: bool = False
    """Holes show the card's colour (a pressed rim) instead of the plate's."""
    hole_shade: float = 0.55
    sheen: float = 0.0
    """The card's gloss: this share of the light's own colour added on the card (a
    semi-gloss print under a bright lamp lifts its dark inks towards the light)."""


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
    # Every vertex swept to the ground in one pass; hulls are then taken per piece.
    every = np.concatenate([np.zeros((0, 3)), *meshes_pts])
    ground = every[:, :2] - every[:, 2:3] / max(d[2], 0.05) * d[None, :2]
    swept = np.round((ground + SHADOW_MARGIN_MM) * SHADOW_PX_PER_MM * 16).astype(np.int32)
    ends = np.cumsum([len(p) for p in meshes_pts], dtype=np.int64).tolist()
    for piece, pts, end in zip(pieces, meshes_pts, ends, strict=True):
        if len(pts) == 0:
            continue
        hull = cv2.convexHull(swept[end - len(pts):end])
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


def _within(x: np.ndarray, y: np.ndarray, half: np.float32) -> np.ndarray:
    """Where (x, y) lies on the board: ``|x - half| < half`` and the same for y."""
    t = x - half
    inside = np.abs(t, out=t) < half
    t = np.subtract(y, half, out=t)
    inside &= np.abs(t, out=t) < half
    return inside


def _stud_offsets(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offset from the nearest stud axis and its square length, for board points.

    ``x mod 8 - 4``, written with floor (np.fmod is ten times slower).
    """
    pitch, inv, centre = np.float32(STUD_MM), np.float32(1 / STUD_MM), np.float32(STUD_MM / 2)
    offsets = []
    for coord in (x, y):
        t = coord * inv
        np.floor(t, out=t)
        t *= pitch
        np.subtract(coord, t, out=t)
        t -= centre
        offsets.append(t)
    ox, oy = offsets
    r2 = ox * ox
    r2 += oy * oy
    return ox, oy, r2


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
    nearer: np.ndarray | None = None,
    look: BoardLook | None = None,
) -> BoardLayer:
    """The board's pixels as 8-bit colour (``gain`` maps light to 0..255 per channel).

    ``nearer`` is the inverse depth of what is already drawn over the whole picture
    (0 = nothing): colour is only worked out where the board is nearer than that, the
    only pixels where it can show (a palace hides much of its board), and left black
    elsewhere. Depth and parts are always complete.
    """
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
    # The arithmetic below works in place on a few frame-sized buffers: each step is
    # the same float32 operation in the same order as the plain expressions it
    # replaces (so pixels and labels do not move), with far less memory traffic.
    half = np.float32(BOARD_MM / 2)
    ahead = inv_dz < 0
    valid = _within(x0m, y0m, half)
    valid &= ahead
    top_x, top_y = x0m + STUD_HEIGHT_MM * px, y0m + STUD_HEIGHT_MM * py
    top = _within(top_x, top_y, half)
    _, _, rt2 = _stud_offsets(top_x, top_y)
    top &= rt2 < r2
    top &= ahead
    oxm, oym, rm2 = _stud_offsets(x0m + (STUD_HEIGHT_MM / 2) * px,
                                  y0m + (STUD_HEIGHT_MM / 2) * py)
    # At the card (height 0) the ray's crossing is (x0m, y0m) itself.
    _, _, r02 = _stud_offsets(x0m, y0m)
    side = (rm2 < r2) | (r02 < r2)
    side &= valid
    side &= ~top
    hole = r02 < np.float32(HOLE_R * HOLE_R)
    hole &= valid
    hole &= ~top
    hole &= ~side
    plate_px = top | side | hole
    board = top | valid

    sub_inv = np.zeros(board.shape, np.float32)
    np.copyto(sub_inv, np.float32(STUD_HEIGHT_MM / 2), where=side)
    np.copyto(sub_inv, np.float32(STUD_HEIGHT_MM), where=top)
    sub_inv -= ez
    sub_inv *= inv_dz
    with np.errstate(divide="ignore"):
        np.divide(np.float32(1.0), sub_inv, out=sub_inv)
    np.copyto(sub_inv, np.float32(0), where=~board)
    # Later assignments win, as the first true condition does in a select.
    sub_part = np.zeros(board.shape, np.uint8)
    for mask, label in ((valid, PART_CARD), (hole, PART_HOLE), (side, PART_STUD_SIDE),
                        (top, PART_STUD_TOP)):
        np.copyto(sub_part, label, where=mask)

    seen = board if nearer is None else board & (sub_inv > nearer[y0:y1, x0:x1])
    where = np.flatnonzero(seen)
    out = np.zeros((*board.shape, 3), np.uint8)
    if len(where):
        lit = _shade(
            {"x": x0m, "y": y0m, "ox": oxm, "oy": oym, "r2": rm2},
            {"side": side, "hole": hole, "top": top, "plate": plate_px},
            where, texture, np.dstack([shadow, contact]), light, plate_tint, gain,
            look or BoardLook(),
        )
        # Scattered as one 32-bit word per pixel: far faster than three bytes.
        packed = np.zeros(board.size, np.uint32)
        packed[where] = cv2.cvtColor(lit, cv2.COLOR_BGR2BGRA).view(np.uint32).reshape(-1)[
            : len(where)]
        out = cv2.cvtColor(packed.view(np.uint8).reshape(*board.shape, 4), cv2.COLOR_BGRA2BGR)
    return BoardLayer((x0, y0, x1, y1), out, sub_inv, sub_part)


_LANE = 1024  # compacted pixels are laid out in rows this long (OpenCV maps < 32767 wide)


def _shade(
    values: dict[str, np.ndarray],
    masks: dict[str, np.ndarray],
    where: np.ndarray,
    texture: np.ndarray,
    dark_maps: np.ndarray,
    light: Light,
    plate_tint: np.ndarray,
    gain: np.ndarray,
    look: BoardLook,
) -> np.ndarray:
    """8-bit colour of the board pixels at flat indices ``where``, as ``(rows, _LANE, 3)``.

    The pixels are gathered into a compact block (padded to whole rows); each result
    depends on its own pixel only, so this gives exactly what shading the whole box
    would give there.
    """
    count = len(where)
    padded = -(-count // _LANE) * _LANE

    def take(a: np.ndarray) -> np.ndarray:
        block = np.zeros(padded, a.dtype)
        block[:count] = a.reshape(-1)[where]
        return block.reshape(-1, _LANE)

    x0m, y0m = take(values["x"]), take(values["y"])
    oxm, oym, rm2 = take(values["ox"]), take(values["oy"]), take(values["r2"])
    side, hole, top, plate_px = (take(masks[k]) for k in ("side", "hole", "top", "plate"))
    # Light: shadow and contact darkening are sampled where the ray meets the card.
    sx = x0m + SHADOW_MARGIN_MM
    sx *= SHADOW_PX_PER_MM
    sy = y0m + SHADOW_MARGIN_MM
    sy *= SHADOW_PX_PER_MM
    dark = cv2.remap(dark_maps, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    ld = light.direction.astype(np.float32)
    # Stud sides: the normal runs from the axis to where the ray crosses mid-height.
    lam = oxm * ld[0]
    lam += np.multiply(oym, ld[1], out=oym)
    norm = np.maximum(rm2, np.float32(1e-6), out=rm2)
    lam /= np.sqrt(norm, out=norm)
    np.maximum(lam, 0, out=lam)
    lam *= np.float32(0.9)
    np.copyto(lam, np.float32(ld[2]), where=~side)
    level = dark[:, :, 1] * (CONTACT_SHARE * light.ambient)
    np.subtract(light.ambient, level, out=level)
    direct = dark[:, :, 0] * (light.diffuse * light.shadow)
    np.subtract(light.diffuse, direct, out=direct)
    direct *= lam
    # The room's share of each pixel's light, for a fill of another colour than the lamp.
    room = None if light.fill is None else level / np.maximum(level + direct, np.float32(1e-6))
    level += direct
    np.multiply(level, np.float32(look.hole_shade), out=level, where=hole)
    # A soft highlight on stud tops: the plastic is glossier than the card.
    np.add(level, np.float32(light.specular * 0.35), out=level, where=top)
    if look.top_level != 1.0:
        np.multiply(level, np.float32(look.top_level), out=level, where=top)
    tx = x0m * TEXTURE_PX_PER_MM
    np.clip(tx, 0, texture.shape[1] - 1, out=tx)
    ty = y0m * TEXTURE_PX_PER_MM
    np.clip(ty, 0, texture.shape[0] - 1, out=ty)
    # Plate pixels sample far outside the texture, where remap returns exactly its
    # border value: the plate colour (cheaper than overwriting three channels after).
    np.copyto(tx, np.float32(-16), where=plate_px & ~hole if look.hole_card else plate_px)
    plate = tuple(float(c) for c in np.asarray(plate_tint, np.float32).reshape(3))
    albedo = cv2.remap(texture, tx, ty, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=plate)
    tint = (np.array(light.color, np.float32) * np.asarray(gain, np.float32))
    albedo *= level[:, :, None]
    if room is not None:
        fill = np.array(light.fill_color, np.float32) * np.asarray(gain, np.float32)
        albedo *= tint + (fill - tint) * room[:, :, None]
    else:
        cv2.multiply(albedo, (*(float(c) for c in tint), 0.0), dst=albedo)
    out = cv2.convertScaleAbs(albedo)
    if look.sheen:
        card = ~(plate_px | hole) if not look.hole_card else ~plate_px
        out[card] = _sheen_lut(look.sheen, tint)[out[card], np.arange(3)]
    return out


def _sheen_lut(sheen: float, tint: np.ndarray) -> np.ndarray:
    """8-bit values with the card's gloss added as light adds: in linear light, where a
    dark ink gains far more, relatively, than a light one (256 x 3, a column a channel)."""
    v = np.arange(256, dtype=np.float64) / 255.0
    linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    lifted = linear[:, None] + sheen * np.clip(np.asarray(tint, np.float64), 0, 2)[None, :]
    lifted = np.clip(lifted, 0, 1)
    srgb = np.where(lifted <= 0.0031308, lifted * 12.92, 1.055 * lifted ** (1 / 2.4) - 0.055)
    return np.round(srgb * 255).astype(np.uint8)


def plate_color() -> np.ndarray:
    return np.array(BASEPLATE_RGB[::-1], np.float32) / 255.0
