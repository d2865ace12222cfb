"""Space carving: which one-stud, one-brick voxels of the board hold something, read from
several views with known poses and no history.

A voxel that holds a piece shows a piece at every point of it in every view: whatever a
ray to it meets first is that piece or one in front of it, never the bare board. A voxel
that is empty shows the bare board in every view that sees through it. So each voxel is
scored, per view, by how much of it (a few points spread through it) falls on pixels
that differ from the bare board learned for that view (:mod:`vision.bare`), and the
views' least score decides: one view seeing the board through it carves it away. What
it cannot carve (a voxel hidden in every view: under an arch, in a courtyard, behind a
tower from every side) the parse (:mod:`vision.parse`, which chooses only surely
filled voxels and lets the rules put back hidden stacks) and the silhouettes' account
(:mod:`vision.explain`) settle.

Everything is arrays: all voxels' points are projected at once per view.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose, project
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS, BRICK_MM, STUD_MM
from vision.bare import learned_bare_board, plate_points
from vision.change import change_evidence, region
from vision.seams import masked_medians
from vision.silhouettes import View
from vision.surface import EMPTY_VIEWS, seen_above, surface_heights
from vision.views import board_box, working_scale

LEVELS = 12
"""Levels carved: a 120-piece bot palace stands about 8 to 10 bricks high."""
OFFSETS = (0.2, 0.5, 0.8)
"""Where in a voxel (share of its width and height) the points it is scored by lie: the
inner part, away from seams that a pose a pixel off would blur into the neighbours."""
FILLED = 0.5
"""A voxel's least view score (share of its points on changed pixels) from which it is
taken as filled."""


@dataclass
class ViewData:
    """One view in the carving: the geometry, the region's colours (float BGR, softened,
    at the working scale) and its change from the bare board (0..1 per pixel)."""

    view: View
    image: NDArray[np.float32]
    change: NDArray[np.float32]
    green: NDArray[np.float32]
    board: NDArray[np.float32]
    """The median colour (BGR) of the bare board as this view shows it: the white
    balance that makes views comparable (:func:`balanced`)."""
    plate: NDArray[np.bool_]
    """Pixels whose ray meets the plate: elsewhere (the table, beyond the far edge) no
    bare board is known, so the change there says nothing."""
    surface: NDArray[np.float32] | None = None
    """Height (levels) of the piece surface each pixel shows, NaN where none
    (:mod:`vision.surface`); None without the model."""
    projected: dict[int, tuple[NDArray[np.intp], NDArray[np.bool_]]] = field(
        default_factory=dict, repr=False, compare=False)
    """:func:`voxel_pixels` by levels, kept: the carving and the top colours both need
    every voxel's points in the view."""


GREEN_MARGIN = 4.0
"""Chromaticity units (x 300) by which green must exceed red for a changed pixel to be
read as a plant's rather than a building piece's: every building colour, and the gold
decoration, is redder than green; the plants and their leaves are far greener."""


def view_data(frame: NDArray[np.uint8], camera: Camera, pose: Pose, ground: GroundMap,
              levels: int = LEVELS, model: str | None = None) -> ViewData | None:
    """One frame ready for carving: its region, and its change from the learned bare
    board split by colour into building pieces' and plants' (a plant's leaves reach two
    studs sideways and would carve phantom voxels around it); with ``model`` (a surface
    model's name, :mod:`vision.surface`) the height of the surface each pixel shows."""
    box = board_box(camera, pose, levels)
    if box is None:
        return None
    scale = working_scale(camera, pose)
    image = region(frame, box, scale)
    view = View(camera, pose, box, scale)
    pts, on = plate_points(view)
    bare = learned_bare_board(image, ground, pts, on)
    change = change_evidence(image, bare)
    board = np.median(bare[on], axis=0) if on.any() else np.ones(3)
    surface = surface_heights(image, bare, model, view, pts) if model is not None else None
    return ViewData(view, image, *split_plants(image, change), np.asarray(board, np.float32),
                    on, surface)


def balanced(views: Sequence[ViewData]) -> list[ViewData]:
    """The views with their colours brought to one white balance, the board's: one
    palace is seen under each view's own light (a webcam re-balances as the board turns
    under the lamp), and a top's or a decoration's colour is compared from view to
    view and with LEGO's colours."""
    if not views:
        return []
    mean = np.mean([vd.board for vd in views], axis=0)
    return [replace(vd, image=(vd.image * (mean / np.maximum(vd.board, 1.0))).astype(np.float32))
            for vd in views]


def split_plants(image: NDArray[np.float32], change: NDArray[np.float32]
                 ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``change`` split into building pieces' and plants' by the pixel's colour: every
    building colour, and the gold decoration, is redder than green; the plants and
    their leaves are far greener (a warm lamp can still turn a lime leaf yellow: it is
    then read as a building piece's pixel)."""
    total = image.sum(axis=2) + 6.0
    greener = (image[..., 1] - image[..., 2]) / total * 300.0 > GREEN_MARGIN
    return (np.where(greener, 0.0, change).astype(np.float32),
            np.where(greener, change, 0.0).astype(np.float32))


@functools.cache
def voxel_points(levels: int = LEVELS) -> NDArray[np.float64]:
    """Every voxel's scoring points in board mm, shaped (32, 32, levels, points, 3); made
    once a level count (read-only)."""
    o = np.array(OFFSETS)
    dx, dy, dz = (a.ravel() for a in np.meshgrid(o, o, o, indexing="ij"))
    x = np.arange(BOARD_STUDS, dtype=np.float64)[:, None, None, None]
    y = np.arange(BOARD_STUDS, dtype=np.float64)[None, :, None, None]
    z = np.arange(levels, dtype=np.float64)[None, None, :, None]
    shape = (BOARD_STUDS, BOARD_STUDS, levels, len(dx))
    out = np.empty((*shape, 3))
    out[..., 0] = np.broadcast_to((x + dx) * STUD_MM, shape)
    out[..., 1] = np.broadcast_to((y + dy) * STUD_MM, shape)
    out[..., 2] = np.broadcast_to((z + dz) * BRICK_MM, shape)
    out.flags.writeable = False
    return out


def voxel_pixels(vd: ViewData, levels: int = LEVELS
                 ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """:func:`region_pixels` of every voxel's points (:func:`voxel_points`, flattened) in
    the view, projected once per view and kept on it."""
    if levels not in vd.projected:
        vd.projected[levels] = region_pixels(vd.view.camera, vd.view.pose, vd.view,
                                             voxel_points(levels).reshape(-1, 3))
    return vd.projected[levels]


def region_pixels(camera: Camera, pose: Pose, view: View, points: NDArray[np.float64]
                  ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Flat region indices of ``points`` (N x 3 board mm) in ``view``, and which fall in it."""
    px = np.round(view.to_region(project(camera, pose, points)))
    h, w = view.shape
    x, y = px[:, 0], px[:, 1]
    # Rounded in place and compared as floats (whole numbers, exact): NaN and infinities
    # fail every comparison, so no separate finiteness test or integer copy is needed.
    ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    with np.errstate(invalid="ignore"):
        flat = np.where(ok, y * w + x, 0.0).astype(np.intp)
    return flat, ok


ROOF_OFFSET = 2
"""Index in :data:`OFFSETS` of the points an arch's middle cell is scored by: only the
highest lie in its roof, the rest in its opening."""
LEAST_VALID = 1 / 3
"""Share of a voxel's points that must fall on pixels not read as a plant's for a view
to have its say on it."""


@dataclass
class Carving:
    """Per voxel (32, 32, levels): ``full`` the least view score over the whole voxel,
    ``roof`` over its top points alone (an arch's middle cell: its opening below is
    empty), both from pixels not read as a plant's; ``green`` the same over plants'
    pixels."""

    full: NDArray[np.float32]
    roof: NDArray[np.float32]
    green: NDArray[np.float32]


def carve(views: Sequence[ViewData], levels: int = LEVELS) -> Carving:
    """Each voxel's least score over the views that see it: the share of its points on
    changed pixels.

    A point on a plant's pixel says nothing either way (a plant's leaves hang two studs
    around it and over whatever is there), nor does one whose ray misses the plate (a
    tall piece near the far edge seen against the table, whose look is not known), so a
    view whose points fall mostly on such pixels abstains; where every view abstains the
    voxel reads 0. A point that stands above the surface its pixel shows in
    :data:`vision.surface.EMPTY_VIEWS` views (those with a surface map) is empty: their
    rays meet it before that surface."""
    pts = voxel_points(levels)
    up = pts[..., 2].ravel() / BRICK_MM
    shape = pts.shape[:4]
    upper = np.array([k % len(OFFSETS) == ROOF_OFFSET for k in range(shape[3])])
    full = np.full(shape[:3], np.inf, np.float32)
    roof = np.full(shape[:3], np.inf, np.float32)
    green = np.full(shape[:3], np.inf, np.float32)
    where = [voxel_pixels(vd, levels) for vd in views]
    above = np.zeros(len(up), np.int32)
    for vd, (flat, ok) in zip(views, where, strict=True):
        if vd.surface is not None:
            above += seen_above(vd.surface, flat, ok, up)
    empty = above >= EMPTY_VIEWS
    for vd, (flat, ok) in zip(views, where, strict=True):
        change = np.where(empty, 0.0, vd.change.ravel()[flat]).reshape(shape)
        plant = vd.green.ravel()[flat].reshape(shape)
        seen = ok.reshape(shape).all(axis=3)
        valid = (plant <= 0) & vd.plate.ravel()[flat].reshape(shape)
        for out, sel, need in ((full, slice(None), LEAST_VALID),
                               (roof, upper, LEAST_VALID)):
            v = valid[..., sel]
            count = v.sum(axis=3)
            mean = (change[..., sel] * v).sum(axis=3) / np.maximum(count, 1)
            say = seen & (count >= need * v.shape[3])
            np.minimum(out, np.where(say, mean, np.inf), out=out)
        np.minimum(green, np.where(seen, plant.mean(axis=3), np.inf), out=green)
    return Carving(*(np.where(np.isfinite(a), a, 0.0).astype(np.float32)
                     for a in (full, roof, green)))


def top_colours(views: Sequence[ViewData], levels: int = LEVELS) -> NDArray[np.float32]:
    """Each voxel's colour (BGR, (32, 32, levels, 3)): the median over every view of the
    pixels its upper points fall on. A decoration is a piece's top, which every view
    sees, so this plain median names it without any visibility reasoning."""
    pts = voxel_points(levels)
    upper = [k for k in range(pts.shape[3]) if k % len(OFFSETS) == ROOF_OFFSET]
    shape = (*pts.shape[:3], len(upper))
    got = []
    for vd in views:
        flat, ok = (a.reshape(pts.shape[:4])[..., upper].ravel()
                    for a in voxel_pixels(vd, levels))
        px = vd.image.reshape(-1, 3)[flat]
        px[~ok] = np.nan
        got.append(px.reshape(*shape, 3))
    allpx = np.concatenate(got, axis=3)
    # One sort for every voxel and channel (np.nanmedian's numbers, at a third its cost).
    rows = np.moveaxis(allpx, 3, -1).reshape(-1, allpx.shape[3])
    med = masked_medians(rows, ~np.isnan(rows)).reshape(*shape[:3], 3)
    return np.nan_to_num(med).astype(np.float32)


PAY_LEVEL = 0.5
"""Change a pixel must show to pay for a piece covering it alone."""


def unweighed(vd: ViewData) -> NDArray[np.bool_]:
    """The view's pixels whose change says nothing of the pieces' silhouettes: plant-green
    ones (a plant's leaves hang over whatever stands there) and those off the plate (the
    table's look is not known)."""
    return (vd.green > 0) | ~vd.plate


def pixel_pay(vd: ViewData) -> NDArray[np.float32]:
    """Per pixel of the view's region, what a silhouette covering it earns: its change
    beyond :data:`PAY_LEVEL` (a cost below it), nothing where :func:`unweighed`. The
    measure :mod:`vision.explain` and :mod:`vision.agreement` weigh pieces by."""
    return np.where(unweighed(vd), 0.0, vd.change - PAY_LEVEL)
