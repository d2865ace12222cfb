"""Seams: the thin dark line where a piece stands on another.

The twin draws each piece as boxes from its bottom to its top, flush with the piece
below, so a stack of three 1x1 bricks and a 1x1x3 column have one smooth side. On a real
table they differ: a brick's edges are slightly rounded and the brick above never sits
perfectly flush, so a thin dark line runs round the stack at every joint, while a
column's side is one face. That line is the one cue beside colour that tells three
bricks of one colour from a column.

The line is drawn in the picture, not as geometry: it is often narrower than a pixel,
and a polygon that thin would come and go from pixel row to row. Each side-face pixel of
a piece is taken back to its point on the piece (the render's depth), and darkened by a
soft profile of its height from the nearest joint: the piece's own bottom where it
stands on another piece in that cell, and its top where another stands on it. The
profile is a Gaussian widened by the pixel's own height on the face (so a line thinner
than a pixel fades rather than flickers) and its peak kept in proportion (the same ink
spread over more of a pixel).

:class:`SeamLook` is drawn once per frame from a stream of its own, widely: from a line
plainly darker than the faces to one barely there, so that no reader trained or tuned on
the twin comes to depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calibration.camera import Pose
from rules.pieces import ANIMAL_KINDS, BRICK_MM, STUD_MM, Piece
from twin.lens import Lens
from twin.mesh import PART_BODY
from twin.piece_light import board_points
from twin.polygons import Prepared

SIDE_NORMAL_Z = 0.3
"""Faces whose normal rises less than this are sides (a top face at a joint's height is
no joint)."""
BAND_MM = 5.0
"""Side pixels further than this from a joint's height are left as they are (the widest
line, over the largest pixel, has faded long before)."""
INWARD_MM = 0.5
"""How far into the piece a side pixel's point is moved to find its cell (the faces lie
on the cells' borders)."""
CELL_KEY = 128
"""Cells are keyed ``(piece * CELL_KEY + x + 32) * CELL_KEY + y + 32``: pieces may overhang."""


@dataclass(frozen=True)
class SeamLook:
    """One frame's draw."""

    darkness: float
    """Share of the light lost at the line's centre (a line far thinner than a pixel
    loses less per pixel: see the module's docstring)."""
    width_mm: float
    """The line's width at half its darkness."""

    @classmethod
    def random(cls, rng: np.random.Generator) -> SeamLook:
        """A frame's seams, from plainly dark to barely there, so that no reader may
        count on seeing them (widths log-uniform: most real lines are thin)."""
        return cls(darkness=float(rng.uniform(0.02, 0.7)),
                   width_mm=float(np.exp(rng.uniform(np.log(0.15), np.log(0.9)))))


def joint_cells(pieces: Sequence[Piece]) -> tuple[np.ndarray, np.ndarray]:
    """Keys (see :data:`CELL_KEY`, sorted) of the cells where each piece stands on
    another (its bottom is a joint) and of those where another stands on it (its top
    is)."""
    below: list[int] = []
    above: list[int] = []
    tops: dict[tuple[int, int, int], int] = {}
    for i, p in enumerate(pieces):
        if p.kind in ANIMAL_KINDS:
            continue
        for x, y in p.footprint():
            tops[(x, y, p.top)] = i
    for i, p in enumerate(pieces):
        if p.kind in ANIMAL_KINDS or p.z == 0:
            continue
        for x, y in p.footprint():
            under = tops.get((x, y, p.z))
            if under is not None:
                below.append(_cell_key(i, x, y))
                above.append(_cell_key(under, x, y))
    return np.unique(np.array(below, np.int64)), np.unique(np.array(above, np.int64))


def _cell_key(piece: int | np.ndarray, x: int | np.ndarray, y: int | np.ndarray
              ) -> int | np.ndarray:
    """One integer per (piece, cell), so that pixels and joints are matched by a sorted
    search instead of a set of tuples (cells offset by 32: a key is never negative)."""
    return (piece * CELL_KEY + x + 32) * CELL_KEY + y + 32


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which ``keys`` are among ``sorted_keys`` (a binary search: a few hundred joints
    against tens of thousands of pixels). ``sorted_keys`` must not be empty: the caller
    returns before, when no piece stands on another."""
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


SIDE, HIDDEN_TOP = 1, 2


def draw_seams(image: np.ndarray, piece_ids: np.ndarray, poly: np.ndarray,
               polys: Prepared, depth: np.ndarray, lens: Lens, pose: Pose,
               pieces: Sequence[Piece], look: SeamLook) -> None:
    """Darkens, in place, the side pixels of ``image`` (8-bit BGR) near a joint.

    ``piece_ids`` index ``pieces`` (negative off them), ``poly`` is each pixel's
    polygon in ``polys``.

    The lower piece's top face meets the upper piece's sides along the joint at the
    same depth, and the z-buffer's ties let a row of its lit pixels through there: a
    light line no camera sees. Those pixels take their side neighbours' colour first,
    then the seam's darkening like the rest of the joint."""
    below, above = joint_cells(pieces)
    if not len(below):
        return
    # Per polygon: a side of a stacked piece, a top face of a piece something stands on.
    on_top = np.zeros(len(pieces) + 1, bool)
    on_top[np.concatenate([below, above]) // (CELL_KEY * CELL_KEY) + 1] = True
    carries = np.zeros(len(pieces) + 1, bool)
    carries[above // (CELL_KEY * CELL_KEY) + 1] = True
    owner = np.maximum(polys.piece, -1) + 1
    body = polys.part == PART_BODY
    rise = polys.normals[:, 2]
    kind = np.zeros(len(polys.piece) + 1, np.uint8)
    kind[1:][body & on_top[owner] & (np.abs(rise) < SIDE_NORMAL_Z)] = SIDE
    kind[1:][body & carries[owner] & (rise > 1 - SIDE_NORMAL_Z)] = HIDDEN_TOP
    chosen = np.flatnonzero(kind[1:])
    if not len(chosen):
        return
    # Worked in the box of those polygons only (their outlines are in 1/16 pixels).
    corners = np.concatenate([polys.outlines[i] for i in chosen.tolist()]) >> 4
    height, width = piece_ids.shape
    x0, y0 = np.maximum(corners.min(axis=0), 0).tolist()
    x1, y1 = (np.minimum(corners.max(axis=0) + 2, [width, height])).tolist()
    if x1 <= x0 or y1 <= y0:
        return
    which = kind[poly[y0:y1, x0:x1] + 1]
    which[piece_ids[y0:y1, x0:x1] < 0] = 0
    ys, xs = np.nonzero(which)
    if not len(ys):
        return
    which = which[ys, xs]
    ys += y0
    xs += x0
    owner_px = piece_ids[ys, xs].astype(np.int64)
    face = polys.normals[poly[ys, xs]].astype(np.float32)
    points = board_points(lens, pose, ys, xs, depth[ys, xs])
    bottoms = np.array([p.z * BRICK_MM for p in pieces], np.float32)[owner_px]
    tops = np.array([p.top * BRICK_MM for p in pieces], np.float32)[owner_px]
    z = points[:, 2]
    side = which == SIDE
    hidden = ~side & (np.abs(z - tops) < 0.05)
    if hidden.any():
        # The leaking pixels lie on the cell's border, on either side of it.
        near = np.zeros(int(hidden.sum()), bool)
        for dx, dy in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
            shifted = points[hidden, :2] + np.float32(INWARD_MM) * np.float32([dx, dy])
            at = np.floor(shifted / np.float32(STUD_MM)).astype(np.int64)
            near |= _member(_cell_key(owner_px[hidden], at[:, 0], at[:, 1]), above)
        hidden[hidden] = near
        if hidden.any():
            _fill_from_sides(image, ys[hidden], xs[hidden], ys[side], xs[side])
    # Only what lies within reach of a joint's height is worked out further.
    band = hidden | (side & ((z - bottoms < BAND_MM) | (tops - z < BAND_MM)))
    ys, xs, owner_px, face, points = ys[band], xs[band], owner_px[band], face[band], points[band]
    bottoms, tops, z, hidden = bottoms[band], tops[band], z[band], hidden[band]
    inward = points[:, :2] - INWARD_MM * face[:, :2]
    cell = np.floor(inward / np.float32(STUD_MM)).astype(np.int64)
    key = _cell_key(owner_px, cell[:, 0], cell[:, 1])
    # The pixel's height on the face: how far one pixel reaches along the vertical.
    per_mm = _pixels_per_mm(points, pose, lens)
    sigma = np.float32(look.width_mm / 2.355)
    wide = np.sqrt(sigma * sigma + (1 / np.maximum(per_mm, 1e-3)) ** 2 / 12)
    peak = np.float32(look.darkness) * sigma / wide
    dark = np.zeros(len(z), np.float32)
    for joints, height in ((below, bottoms), (above, tops)):
        at = ~hidden & _member(key, joints)
        if joints is above:
            at |= hidden
        d = (z[at] - height[at]) / wide[at]
        dark[at] = np.maximum(dark[at], peak[at] * np.exp(-0.5 * d * d))
    hit = dark > 1 / 512
    if not hit.any():
        return
    ys, xs = ys[hit], xs[hit]
    scaled = image[ys, xs].astype(np.float32) * (1 - dark[hit])[:, None]
    image[ys, xs] = np.clip(np.rint(scaled), 0, 255).astype(np.uint8)


def _fill_from_sides(image: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                     side_ys: np.ndarray, side_xs: np.ndarray) -> None:
    """Gives the pixels ``ys, xs`` the mean colour of the side pixels among their eight
    neighbours (those with none keep theirs)."""
    h, w = image.shape[:2]
    is_side = np.zeros((h + 2, w + 2), bool)
    is_side[side_ys + 1, side_xs + 1] = True
    total = np.zeros((len(ys), 3), np.float32)
    count = np.zeros(len(ys), np.float32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                ok = is_side[ys + 1 + dy, xs + 1 + dx]
                total[ok] += image[ys[ok] + dy, xs[ok] + dx]
                count += ok
    some = count > 0
    mean = total[some] / count[some, None]
    image[ys[some], xs[some]] = np.clip(np.rint(mean), 0, 255).astype(np.uint8)


def _pixels_per_mm(points: np.ndarray, pose: Pose, lens: Lens) -> np.ndarray:
    """Picture pixels a millimetre up the vertical spans at each point (pinhole: the
    lens bends lines, it barely changes their scale)."""
    r = pose.rotation.astype(np.float32)
    t = np.asarray(pose.tvec, np.float32).reshape(3)
    cam = points @ r.T + t
    up = r[:, 2]
    k = lens.camera_matrix
    z = np.maximum(cam[:, 2], np.float32(1.0))
    z2 = np.maximum(cam[:, 2] + up[2], np.float32(1.0))
    du = np.float32(k[0, 0]) * ((cam[:, 0] + up[0]) / z2 - cam[:, 0] / z)
    dv = np.float32(k[1, 1]) * ((cam[:, 1] + up[1]) / z2 - cam[:, 1] / z)
    return np.hypot(du, dv)
