"""The surface each pixel of a full-mode view shows, and how high it stands.

Space carving (:mod:`vision.carve`) keeps every voxel that no view sees through, and four
views at one elevation see through none of the layer just above a palace: a voxel there
falls, in every oblique view, on some piece behind it, which differs from the bare
board. What does see through it is depth: a pixel whose surface stands at height h shows
that nothing lies along its ray nearer the camera, so every point of the ray above h
(every camera looks down) is empty. A learned model (``models/full_surface.onnx``,
made by ``python3 -m training create_full_dataset`` and ``train --height-map``) reads,
per pixel of the region beside the bare board learned from the same view
(:mod:`vision.bare`), the chance that it shows a piece and the height (brick levels
above the plate) of the surface it shows; a model trained with ``train --geometry`` is
also told where each pixel's ray runs (:func:`geometry_channels`). With the true
heights this reads far more pieces right; the model's are not yet sharp enough to, so
:func:`vision.full.read_palace` leaves it off unless asked.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import models
from calibration.camera import project
from rules.pieces import BRICK_MM
from vision.bare import PLATE_POINTS_MM
from vision.new_pieces import CHANNELS, new_piece_maps
from vision.silhouettes import View

SURFACE_MODEL = "full_surface"
SHOWS_PIECE = 0.5
"""Chance from which a pixel's height is taken as the surface's: below it the pixel shows
the bare board by the model, and the classical change is left to say so."""
EMPTY_VIEWS = 1
"""Views that must see a point above their surface for it to be empty. Asking two (one
view's height errs by a level often enough to carve true pieces) read no better on the
development palaces (docs/vision-log.md, "The space above what each view shows")."""
ABOVE_MARGIN = 1.5
"""Levels a point must stand above the surface its pixel shows to be seen empty: the
model's height is off by about a level on the development palaces' views, and smaller
margins (0.5, 1.0) carved true pieces away."""


GEOMETRY_CHANNELS = 2
"""The view's geometry as input (:func:`geometry_channels`): a model whose input has this
many channels more than the image pair's is fed them."""
LEVEL_PX = 8.0
"""Region pixels per unit of the geometry channels: one level up moves a point 1 to 15
region pixels in the views the training set draws (about 5 at 70 degrees up, 11 at 30),
so the channels stay within about 2, as the image channels do."""
GEOMETRY_CLIP = 3.0
"""Bound on each geometry channel: a ray that runs nearly along the plate shifts a raised
point far, and the network saw shifts within about 2."""


def geometry_channels(view: View, plate: NDArray[np.float64]) -> NDArray[np.float32]:
    """Per region pixel (``(h, w, 2)``), where its ray runs: the shift (x, y, in units of
    :data:`LEVEL_PX` region pixels) of the point where the ray meets the plate when it is
    raised one brick level. A surface's height is how far up it stands along that shift:
    the same picture reads a level higher or lower as the shift is longer or shorter,
    and a wall's top lies along it, not straight up the picture. 0 where the ray never
    meets the plate's plane. ``plate`` is the view's :func:`vision.bare.plate_points`
    at their default height, which every caller has made for the learned board. The one
    place both the training pairs (:mod:`training.full_pairs`) and the reader
    (:func:`surface_heights`) take it from."""
    h, w = view.shape
    # The ray's point on the plate's own plane, taken along the ray from its point on
    # the studs' plane (exact but for rounding) rather than undistorting every pixel
    # again: that was half this function's time.
    eye = view.pose.camera_center
    flat = plate.reshape(-1, 2)
    raised = np.empty((len(flat), 3))
    raised[:, :2] = eye[:2] + (flat - eye[:2]) * (eye[2] / (eye[2] - PLATE_POINTS_MM))
    meets = np.isfinite(raised[:, :2]).all(axis=1)
    raised[~meets, :2] = 0.0
    raised[:, 2] = BRICK_MM
    # The ground point projects back to the pixel's own centre (the lens undone and
    # redone), so only the raised point is projected.
    x0, y0 = view.box[:2]
    shift = project(view.camera, view.pose, raised).reshape(h, w, 2)
    shift[..., 0] -= ((np.arange(w) + 0.5) / view.scale + x0)[None, :]
    shift[..., 1] -= ((np.arange(h) + 0.5) / view.scale + y0)[:, None]
    shift *= view.scale / LEVEL_PX
    shift = shift.reshape(-1, 2)
    shift[~meets | ~np.isfinite(shift).all(axis=1)] = 0.0
    return np.clip(shift, -GEOMETRY_CLIP, GEOMETRY_CLIP).reshape(h, w, 2).astype(np.float32)


def wants_geometry(model: str) -> bool:
    """Whether the network ``model`` takes the geometry channels: told by its input's
    channel count, so that a model made before them keeps working unchanged."""
    channels = models.load(model).get_inputs()[0].shape[1]
    return channels == CHANNELS + GEOMETRY_CHANNELS


def surface_heights(image: NDArray[np.float32], bare: NDArray[np.float32],
                    model: str = SURFACE_MODEL, view: View | None = None,
                    plate: NDArray[np.float64] | None = None) -> NDArray[np.float32]:
    """Per region pixel, the height (levels) of the piece surface it shows; NaN where the
    model sees no piece (the bare board, or the table beyond it). ``view`` (the region's
    geometry) and ``plate`` (its :func:`vision.bare.plate_points`) are needed by a model
    that takes the geometry channels."""
    extra = None
    if wants_geometry(model):
        if view is None or plate is None:
            raise ValueError(f"{model}: the model needs the view's geometry")
        extra = geometry_channels(view, plate)
    chance, height = new_piece_maps(image, bare, model=model, extra=extra)
    if height is None:
        raise ValueError(f"{model}: the model has no height map")
    return np.where(chance > SHOWS_PIECE, height, np.nan).astype(np.float32)


def seen_above(heights: NDArray[np.float32], flat: NDArray[np.intp], ok: NDArray[np.bool_],
               levels_up: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which points (region pixel ``flat``, in the view where ``ok``, at ``levels_up``
    brick levels above the plate) stand clear above the surface their pixel shows."""
    shown = heights.ravel()[flat]
    with np.errstate(invalid="ignore"):
        return ok & (levels_up > shown + ABOVE_MARGIN)
