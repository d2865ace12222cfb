"""Light on the pieces from the other pieces: cast shadows and occlusion.

The twin shades each face of a piece flat, from the lamp and the room alone. On a real
table (and under a path tracer) a tall piece shades its neighbours, and the foot of a
brick or the inside of a crevice sees less of the room, so faces darken along
gradients. A turn's new piece then also changes how the old pieces beside it look:
their faces fall into its shadow. A reader that never saw that in training takes a
shaded old piece for a new one.

Both effects are worked out per picture pixel from the render's depth: the pixel's point
on its piece (board millimetres) is compared with a height field of the palace (the top
of what stands over each square millimetre), marching towards the light for the shadow
and against the blurred field for the occlusion. The field treats each piece as the
prism of its outline up to its top (an arch's opening is filled), which is coarse but
darkens the same places a real palace darkens.

The occlusion field of a point leaves out the piece the point lies on: a lone brick's
prism blurred would stand over its own lower sides as a crevice's walls do, and darken
them, though nothing but open room faces them. Only the other pieces hide the room.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import Pose
from rules.pieces import BOARD_MM, STUD_HEIGHT_MM
from twin.lens import Lens
from twin.shading import Light

FIELD_MARGIN_MM = 40.0
"""The field reaches this far past the board (pieces may overhang it)."""
STEP_MM = 1.5
"""Horizontal step of the march towards the light."""
REACH_MM = 150.0
"""No shadow is followed further than this (the tallest palace at a low lamp)."""
_LANE = 1024


@dataclass(frozen=True)
class PieceLight:
    """One frame's draw: how strong the occlusion is and how soft the shadows are."""

    occlusion: float
    """Share of the room's light a point deep in a crevice loses (0: none)."""
    blur_mm: float
    """How far the occlusion looks around a point (the blur of the height field)."""
    penumbra_mm: float
    """How much higher than a ray an occluder must stand to shade it fully."""

    @classmethod
    def random(cls, rng: np.random.Generator) -> PieceLight:
        return cls(occlusion=float(rng.uniform(0.15, 0.6)),
                   blur_mm=float(rng.uniform(3.0, 8.0)),
                   penumbra_mm=float(rng.uniform(1.0, 5.0)))


def height_field(verts: list[np.ndarray]) -> np.ndarray:
    """Board-space heights (mm, 1 px per mm, :data:`FIELD_MARGIN_MM` around the board)
    of the highest piece over each point: outlines filled lowest first."""
    size = int(BOARD_MM + 2 * FIELD_MARGIN_MM)
    field = np.zeros((size, size), np.float32)
    tops = [(float(v[:, 2].max()), i) for i, v in enumerate(verts) if len(v) >= 3]
    for top, i in sorted(tops):
        hull = cv2.convexHull(np.round((verts[i][:, :2] + FIELD_MARGIN_MM) * 16)
                              .astype(np.int32))
        cv2.fillConvexPoly(field, hull, top, cv2.LINE_8, 4)
    return field


def height_layers(verts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The height field (as :func:`height_field`), the piece on top over each point
    (-1 for none) and the height there without that piece: the field without any one
    piece ``i`` is the second height where ``i`` is on top, the first elsewhere, so
    leaving each piece out costs no new field."""
    size = int(BOARD_MM + 2 * FIELD_MARGIN_MM)
    field = np.zeros((size, size), np.float32)
    second = np.zeros((size, size), np.float32)
    owner = np.full((size, size), -1, np.int32)
    tops = [(float(v[:, 2].max()), i) for i, v in enumerate(verts) if len(v) >= 3]
    for top, i in sorted(tops):
        hull = cv2.convexHull(np.round((verts[i][:, :2] + FIELD_MARGIN_MM) * 16)
                              .astype(np.int32))
        # The outline filled in its own box (a whole-pixel shift, the same pixels).
        x, y, w, h = cv2.boundingRect(hull)
        x0, y0 = max((x >> 4) - 1, 0), max((y >> 4) - 1, 0)
        x1, y1 = min(((x + w) >> 4) + 2, size), min(((y + h) >> 4) + 2, size)
        if x1 <= x0 or y1 <= y0:
            continue
        stamp = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(stamp, hull - np.int32([x0 * 16, y0 * 16]), 1, cv2.LINE_8, 4)
        inside = stamp.view(bool)
        # Filled lowest first, so what stood here is now second.
        box = field[y0:y1, x0:x1]
        second[y0:y1, x0:x1][inside] = box[inside]
        box[inside] = top
        owner[y0:y1, x0:x1][inside] = i
    return field, second, owner


def _sample(field: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return cv2.remap(field, x + np.float32(FIELD_MARGIN_MM), y + np.float32(FIELD_MARGIN_MM),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)


def board_points(lens: Lens, pose: Pose, ys: np.ndarray, xs: np.ndarray,
                 depth: np.ndarray) -> np.ndarray:
    """Board-frame points (N x 3, mm) that picture pixels show at camera depth ``depth``
    (single precision: a tenth of a millimetre is far below what shading needs)."""
    k = lens.camera_matrix
    if lens.und_x is not None and lens.und_y is not None:
        ux, uy = lens.und_x[ys, xs], lens.und_y[ys, xs]
    else:
        ux, uy = xs.astype(np.float32), ys.astype(np.float32)
    z = depth.astype(np.float32, copy=False)
    tvec = np.asarray(pose.tvec, float).reshape(3)
    # Camera-frame coordinates less the translation, then R^T row by row.
    cam = ((ux - np.float32(k[0, 2])) * np.float32(1 / k[0, 0]) * z - np.float32(tvec[0]),
           (uy - np.float32(k[1, 2])) * np.float32(1 / k[1, 1]) * z - np.float32(tvec[1]),
           z - np.float32(tvec[2]))
    r = pose.rotation
    out = np.empty((len(z), 3), np.float32)
    for i in range(3):
        out[:, i] = (cam[0] * np.float32(r[0, i]) + cam[1] * np.float32(r[1, i])
                     + cam[2] * np.float32(r[2, i]))
    return out


def _occluders(points: np.ndarray, owner: np.ndarray, verts: list[np.ndarray],
               blur_mm: float) -> np.ndarray:
    """Per point: the blurred height of the pieces other than its own (``owner``: the
    index into ``verts`` of the piece each point lies on, -1 for none)."""
    out = np.zeros(len(points), np.float32)
    reach = int(np.ceil(4 * blur_mm)) + 3  # the blur's kernel reaches 4 sigma
    field, second, top_piece = height_layers(verts)
    size = len(field)
    order = np.argsort(owner, kind="stable")
    pieces, starts = np.unique(owner[order], return_index=True)
    for piece, at in zip(pieces, np.split(order, starts[1:]), strict=True):
        x = points[at, 0].astype(np.float32) + np.float32(FIELD_MARGIN_MM)
        y = points[at, 1].astype(np.float32) + np.float32(FIELD_MARGIN_MM)
        # Blur only a window around the points (exact: the kernel ends inside it).
        x0 = int(np.clip(np.floor(x.min()) - reach, 0, size))
        y0 = int(np.clip(np.floor(y.min()) - reach, 0, size))
        x1 = int(np.clip(np.ceil(x.max()) + reach + 1, 0, size))
        y1 = int(np.clip(np.ceil(y.max()) + reach + 1, 0, size))
        if x1 <= x0 or y1 <= y0:
            continue
        lo_y, lo_x = max(y0 - reach, 0), max(x0 - reach, 0)
        rows, cols = slice(lo_y, min(y1 + reach, size)), slice(lo_x, min(x1 + reach, size))
        window = np.where(top_piece[rows, cols] == piece, second[rows, cols],
                          field[rows, cols])
        blurred = cv2.GaussianBlur(window, (0, 0), blur_mm, borderType=cv2.BORDER_CONSTANT)
        out[at] = cv2.remap(blurred, (x - lo_x).reshape(1, -1), (y - lo_y).reshape(1, -1),
                            cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=0.0).reshape(-1)
    return out


def shade_factors(points: np.ndarray, owner: np.ndarray, verts: list[np.ndarray],
                  light: Light, look: PieceLight) -> tuple[np.ndarray, np.ndarray]:
    """Per point: the share of direct light that reaches it (0 in full shadow) and of
    the room's light (1 in the open). ``owner``: the index into ``verts`` of the piece
    each point lies on (-1 for none), left out of the point's occlusion."""
    field = height_field(verts)
    n = len(points)
    padded = -(-max(n, 1) // _LANE) * _LANE

    def lane(a: np.ndarray) -> np.ndarray:
        out = np.zeros(padded, np.float32)
        out[:n] = a
        return out.reshape(-1, _LANE)

    x, y, z = (lane(points[:, i]) for i in range(3))
    d = light.direction
    flat = float(np.hypot(d[0], d[1]))
    rise = float(d[2]) / max(flat, 1e-3)
    ux, uy = (float(d[0] / flat), float(d[1] / flat)) if flat > 1e-3 else (0.0, 0.0)
    # A point shades only from what stands higher than it plus a stud (its own studs).
    tolerance = np.float32(STUD_HEIGHT_MM + 0.3)
    highest = float(field.max())
    excess = np.full(x.shape, -1e3, np.float32)
    reach = min(REACH_MM, max(highest - float(points[:, 2].min(initial=0.0)), 0.0)
                / max(rise, 1e-3)) if flat > 1e-3 else 0.0
    for h in np.arange(STEP_MM, reach + STEP_MM, STEP_MM, dtype=np.float32):
        above = _sample(field, x + np.float32(ux * h), y + np.float32(uy * h))
        above -= z
        above -= np.float32(h * rise)
        np.maximum(excess, above, out=excess)
    direct = 1 - np.clip((excess - tolerance) / np.float32(look.penumbra_mm), 0, 1)
    around = _occluders(points, owner, verts, look.blur_mm)
    deep = np.clip((around - points[:, 2] - tolerance) / np.float32(12.0), 0, 1)
    room = 1 - np.float32(look.occlusion) * deep
    return direct.reshape(-1)[:n], room


def shade_pieces(image: np.ndarray, piece_ids: np.ndarray, poly: np.ndarray,
                 normals: np.ndarray, depth: np.ndarray, lens: Lens, pose: Pose,
                 verts: list[np.ndarray], light: Light, look: PieceLight) -> None:
    """Darken, in place, the piece pixels of ``image`` (8-bit BGR; ``piece_ids``: each
    pixel's index into ``verts``, negative off the pieces) where the palace shades them;
    ``poly`` is each pixel's polygon, ``normals`` the polygons' normals (board frame)."""
    piece_px = piece_ids >= 0
    x0, y0, w, h = cv2.boundingRect(piece_px.view(np.uint8))
    if not w:
        return
    # Everything in the box that holds the pieces, a blur's reach wider.
    x0, y0 = max(x0 - 4, 0), max(y0 - 4, 0)
    x1, y1 = min(x0 + w + 9, piece_px.shape[1]), min(y0 + h + 9, piece_px.shape[0])
    mask = piece_px[y0:y1, x0:x1]
    ys, xs = np.nonzero(mask)
    ys += y0
    xs += x0
    points = board_points(lens, pose, ys, xs, depth[ys, xs])
    direct, room = shade_factors(points, piece_ids[ys, xs], verts, light, look)
    per_poly = np.clip(normals @ light.direction, 0, None).astype(np.float32)
    facing = per_poly[poly[ys, xs]]
    # Per channel: what the room gives (in its own colour) and what the lamp gives.
    fill = np.asarray(light.fill_color, np.float32)[None, :] * np.float32(light.ambient)
    lamp = np.asarray(light.color, np.float32)[None, :] * np.float32(light.diffuse)
    lit = fill + lamp * facing[:, None]
    shaded = fill * room[:, None] + lamp * (facing * (1 - light.shadow * (1 - direct)))[:, None]
    # Shadows and occlusion are soft at the scale of a pixel or two: the ratio is
    # blurred over the pieces' pixels only.
    inside = mask.astype(np.float32)
    ratio = np.zeros((*inside.shape, 3), np.float32)
    ratio[ys - y0, xs - x0] = shaded / np.maximum(lit, np.float32(1e-3))
    weight = cv2.GaussianBlur(inside, (0, 0), 1.0)
    ratio = cv2.GaussianBlur(ratio, (0, 0), 1.0) / np.maximum(weight, np.float32(1e-3))[..., None]
    box = image[y0:y1, x0:x1]
    darker = cv2.multiply(box, ratio, dtype=cv2.CV_8U)
    np.copyto(box, darker, where=mask[..., None])
