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
above the plate) of the surface it shows. With the true heights this reads far more
pieces right; the model's are not yet sharp enough to, so
:func:`vision.full.read_palace` leaves it off unless asked.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.new_pieces import new_piece_maps

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


def surface_heights(image: NDArray[np.float32], bare: NDArray[np.float32],
                    model: str = SURFACE_MODEL) -> NDArray[np.float32]:
    """Per region pixel, the height (levels) of the piece surface it shows; NaN where the
    model sees no piece (the bare board, or the table beyond it)."""
    chance, height = new_piece_maps(image, bare, model=model)
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
