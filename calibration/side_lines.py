"""The plate's four sides as a witness of the board's in-plane place, at sub-stud scale.

The stud lattice fixes which stud is which, but the studs' shadows and bright or dark
tops can pull its template a quarter stud along the light on every block alike (see
docs/real-tables.md, "The sub-stud poses traced further"). The plate's sides are long
straight edges that the studs' shading does not reach: fitted along their whole length
they place the board in its own plane, to a fraction of a pixel, by evidence the
lattice never used.

:func:`side_shift` measures, from a pose, how the sides' found edges lie against where
that pose projects them, and solves for the small in-plane move (x, y and a turn about
the board's normal) that best lays the projected sides onto them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import CENTRE, stud_centres
from calibration.camera import Camera, FloatArray, Pose, project
from calibration.edges import _straight_inliers, sample_edges, search_edges
from calibration.evidence import RIM_MODEL

SPACING_PX = 3.0
"""Samples along each side (px apart)."""
MIN_STEP = 4.0
"""Grey-level step a side sample must show to count."""
MIN_SIDE_SAMPLES = 12
"""Found samples a side needs to count as seen."""
STEP_MM = 0.05
"""Finite-difference step of the in-plane Jacobian (mm, and mm at the board's edge for
the turn)."""


@dataclass(frozen=True)
class SideShift:
    """An in-plane move the sides ask for, and the evidence behind it."""

    pose: Pose
    """The pose moved by (dx, dy, turn)."""
    dx_mm: float
    dy_mm: float
    turn_deg: float
    move_px: float
    """How far the move shifts the stud centres (median px)."""
    sides: int
    """Sides with at least :data:`MIN_SIDE_SAMPLES` found samples."""
    side_px: tuple[float, ...]
    """Each seen side's median found offset before the move (px, outwards positive)."""
    rms_px: float
    """The kept samples' residual after the move (px)."""


def in_plane(pose: Pose, dx: float, dy: float, turn: float) -> Pose:
    """The pose with the board moved (dx, dy) mm and turned ``turn`` radians about the
    normal through its centre, in its own frame."""
    c, s = np.cos(turn), np.sin(turn)
    rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    rotation = pose.rotation @ rz
    shift = CENTRE - rz @ CENTRE + np.array([dx, dy, 0.0])
    return Pose.from_matrix(rotation, pose.tvec + pose.rotation @ shift)


def _side_samples(
    gray: NDArray[np.float32], camera: Camera, pose: Pose, radius: int
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int32]]:
    """Found side samples: board points, their found offsets (px, outwards), normals
    and side index; samples off the picture, without a clear step or off their side's
    straight line are left out."""
    h, w = gray.shape
    p3, px, normal, seg, outer = sample_edges(camera, pose, RIM_MODEL, SPACING_PX)
    inside = (
        (px[:, 0] > radius + 2)
        & (px[:, 0] < w - radius - 3)
        & (px[:, 1] > radius + 2)
        & (px[:, 1] < h - radius - 3)
    )
    p3, px, normal, seg, outer = p3[inside], px[inside], normal[inside], seg[inside], outer[inside]
    if len(p3) == 0:
        return p3, np.zeros(0), normal, seg
    offset, ok = search_edges(gray, px, normal, radius, MIN_STEP, outer)
    ok &= _straight_inliers(offset, ok, seg, tol=1.0)
    return p3[ok], offset[ok], normal[ok], seg[ok]


def side_shift(
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    radii: tuple[int, ...] = (4, 3, 2),
) -> SideShift | None:
    """The in-plane move that lays the pose's projected sides onto the image's, or None
    where fewer than three sides are seen (two sides pin only one direction each)."""
    current = pose
    total = np.zeros(3)
    first_sides: tuple[float, ...] = ()
    sides, rms = 0, float("inf")
    for k, radius in enumerate(radii):
        p3, offset, normal, seg = _side_samples(gray, camera, current, radius)
        counts = np.bincount(seg, minlength=len(RIM_MODEL.starts))
        seen = np.flatnonzero(counts >= MIN_SIDE_SAMPLES)
        if len(seen) < 3:
            return None
        keep = np.isin(seg, seen)
        p3, offset, normal, seg = p3[keep], offset[keep], normal[keep], seg[keep]
        if k == 0:
            first_sides = tuple(float(np.median(offset[seg == s])) for s in seen)
        sides = len(seen)
        base = project(camera, current, p3)
        cols = []
        for j, step in enumerate((STEP_MM, STEP_MM, STEP_MM / (CENTRE[0]))):
            d = np.zeros(3)
            d[j] = step
            moved = project(camera, in_plane(current, *d), p3)
            cols.append(np.sum((moved - base) * normal, axis=1) / step)
        jac = np.stack(cols, axis=1)
        # Each side weighs the same whatever its length in the picture.
        weight = 1.0 / np.sqrt(counts[seg].astype(np.float64))
        delta, *_ = np.linalg.lstsq(jac * weight[:, None], offset * weight, rcond=None)
        resid = offset - jac @ delta
        rms = float(np.sqrt(np.mean(resid**2)))
        current = in_plane(current, *delta)
        total += delta
    studs = stud_centres()
    move = float(np.median(np.linalg.norm(
        project(camera, current, studs) - project(camera, pose, studs), axis=1)))
    return SideShift(current, float(total[0]), float(total[1]), float(np.degrees(total[2])),
                     move, sides, first_sides, rms)

