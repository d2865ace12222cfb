"""Coarse search: where is the plate, roughly, in a downscaled frame?

The plate is the one large green-and-sand quadrilateral on the table. Its outline in a
quarter-size image gives four corners good to a few full-size pixels, which is all the
edge refinement needs to lock on. A hand or a card over one corner cuts that corner off
the outline, so the quadrilateral is rebuilt from its four longest sides, whose
intersections restore the hidden corner. The masks the outlines come from are
:mod:`calibration.board_masks`'.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_masks import (
    board_mask,
    chroma_mask,
    coarse_texture,
    largest_blob,
    merged_blobs,
    stud_band,
    texture_mask,
)
from calibration.camera import Camera, FloatArray

COARSE_WIDTH = 320


def _quads_from_sides(poly: FloatArray, keeps: NDArray[np.intp]) -> FloatArray:
    """The convex quadrilaterals that the rows of ``keeps`` (four side indices each) close.

    Each corner is where the lines through two neighbouring sides cross; a row with two
    parallel neighbours closes none. Every row is worked out at once, as one at a time the
    arithmetic cost more than the overlap tests that follow.
    """
    q1 = poly[keeps]
    d2 = poly[(keeps + 1) % len(poly)] - q1
    p1, d1 = np.roll(q1, 1, axis=1), np.roll(d2, 1, axis=1)  # the side before each corner
    den = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    ok = np.all(np.abs(den) >= 1e-9, axis=1)
    p1, d1, q1, d2, den = p1[ok], d1[ok], q1[ok], d2[ok], den[ok]
    t = ((q1[..., 0] - p1[..., 0]) * d2[..., 1] - (q1[..., 1] - p1[..., 1]) * d2[..., 0]) / den
    quads = p1 + t[..., None] * d1
    return quads[_convex(quads)]


def _convex(quads: FloatArray) -> NDArray[np.bool_]:
    """Which quadrilaterals OpenCV takes for convex (tested in float32, one by one)."""
    single = quads.astype(np.float32)
    return np.array([cv2.isContourConvex(q.reshape(-1, 1, 2)) for q in single], bool)


def candidate_quads(
    contour: NDArray[np.int32], size: tuple[int, int], limit: int = 3
) -> list[FloatArray]:
    """Quadrilaterals the outline may be, best first.

    The hull is simplified to a polygon; every choice of four of its sides (in order)
    whose neighbours are intersected is a candidate: a hand over a corner cuts it off,
    and the two sides around the cut meet again where the corner is. Candidates are
    ranked by how well they overlap the hull, which also rejects a card lying against
    the board's side (its edges enclose too much or too little).
    """
    hull = cv2.convexHull(contour)
    hull_f = hull.reshape(-1, 2).astype(np.float32)
    hull_area = float(cv2.contourArea(hull_f))
    if hull_area <= 0:
        return []
    perimeter = cv2.arcLength(hull, True)
    poly = None
    for eps in (0.01, 0.015, 0.02, 0.03, 0.04):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2).astype(np.float64)
        if 4 <= len(approx) <= 10:
            poly = approx
            break
    if poly is None:
        return []
    n = len(poly)
    # Sides along the image border are where the picture ends, not where the board does.
    w, h = size
    ends = np.stack([poly, np.roll(poly, -1, axis=0)], axis=1)
    on_border = (
        np.all(ends[:, :, 0] <= 1.5, axis=1)
        | np.all(ends[:, :, 0] >= w - 2.5, axis=1)
        | np.all(ends[:, :, 1] <= 1.5, axis=1)
        | np.all(ends[:, :, 1] >= h - 2.5, axis=1)
    )
    usable = [i for i in range(n) if not on_border[i]]
    cropped = bool(on_border.any())
    reach = 0.3 * np.sqrt(hull_area)
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    scored: list[tuple[float, FloatArray]] = []
    keeps = np.array(list(itertools.combinations(usable, 4)), np.intp).reshape(-1, 4)
    for quad in _quads_from_sides(poly, keeps):
        qf = quad.astype(np.float32)
        area = float(cv2.contourArea(qf))
        if area <= 0 or area > 4 * hull_area:
            continue
        # A corner restored behind a hand lies a little beyond the outline, never far;
        # one outside the picture cannot be checked that way.
        far = [
            -cv2.pointPolygonTest(hull_f, (float(x), float(y)), True) > reach
            for x, y in quad
            if 0 <= x < w and 0 <= y < h
        ]
        if any(far):
            continue
        inter, _ = cv2.intersectConvexConvex(qf, hull_f)
        if cropped:
            # Overlap within the picture: a board running off the image is not
            # penalised for the part of it the camera cannot see.
            area, _ = cv2.intersectConvexConvex(qf, frame)
        iou = inter / (area + hull_area - inter)
        scored.append((iou, quad))
    return _best_distinct(scored, limit)


def _best_distinct(scored: list[tuple[float, FloatArray]], limit: int) -> list[FloatArray]:
    """The best-scoring quadrilaterals, skipping near-copies (within 2 px) of better ones.

    Several masks and line sets often find the same outline; trying it twice would
    spend the search budget without new evidence.
    """
    scored.sort(key=lambda item: -item[0])
    out: list[FloatArray] = []
    for _, quad in scored:
        if all(np.abs(quad - q).max() > 2.0 for q in out):
            out.append(quad)
        if len(out) == limit:
            break
    return out


_PAIRINGS = np.array([[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 1, 2]])
"""The three ways to split four lines into two pairs (i, j) and (k, m) of opposite sides."""


def line_quads(
    mask: NDArray[np.uint8], contour: NDArray[np.int32], limit: int = 3, max_lines: int = 8
) -> list[FloatArray]:
    """Quadrilaterals whose four sides the outline follows for the longest stretches.

    Straight runs of the outline are found as Hough lines; every four of them that close
    a convex quadrilateral is scored by how many outline points lie on its sides. A card
    pushed against the board or a hand over its rim adds or removes a short stretch of
    outline, but the plate's own sides stay the longest straight runs there are. Every
    choice of four lines is weighed at once: one at a time, the bookkeeping cost more
    than the Hough transform itself.
    """
    edge = np.zeros_like(mask)
    cv2.drawContours(edge, [contour], -1, 255, 1)
    lines = cv2.HoughLines(edge, 1, np.pi / 180, threshold=max(15, mask.shape[0] // 10))
    if lines is None:
        return []
    rho, theta = _distinct_lines(lines.reshape(-1, 2), max_lines)
    if len(rho) < 4:
        return []
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) > 400:
        pts = pts[:: len(pts) // 400 + 1]
    h, w = mask.shape
    # Every outline point's distance from each line and place along it, worked out once:
    # the quadrilaterals below share them.
    normals = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    directions = np.stack([-normals[:, 1], normals[:, 0]], axis=1)
    across = np.abs(pts @ normals.T - rho).T
    along = (pts @ directions.T).T
    combos = np.array(list(itertools.combinations(range(len(rho)), 4)))
    # Pair each four lines into two pairs of opposite sides: the most parallel pairing.
    angles = theta[combos]
    spread = _angle_gap(angles[:, _PAIRINGS[:, 0]], angles[:, _PAIRINGS[:, 1]])
    spread += _angle_gap(angles[:, _PAIRINGS[:, 2]], angles[:, _PAIRINGS[:, 3]])
    i, j, k, m = np.take_along_axis(combos, _PAIRINGS[spread.argmin(axis=1)], axis=1).T
    # The "opposite" pairs must cross at a real corner. Side q runs along line sides[q]
    # from corner q, where it meets the line before it, to corner q + 1.
    real = np.minimum(_angle_gap(theta[i], theta[k]), _angle_gap(theta[j], theta[m])) >= 0.35
    sides = np.stack([k, j, m, i], axis=1)[real]
    quads, sides = _crossings(rho, normals, np.roll(sides, 1, axis=1), sides)
    keep = _convex(quads) & np.all(np.abs(quads) <= 4 * max(w, h), axis=(1, 2))
    quads, sides = quads[keep], sides[keep]
    corners = np.stack([quads, np.roll(quads, -1, axis=1)], axis=2)  # each side's two ends
    ends = (corners * directions[sides][:, :, None]).sum(axis=3)  # as places along its line
    place = along[sides]
    beyond = place - np.clip(place, ends.min(axis=2)[..., None], ends.max(axis=2)[..., None])
    near = np.any(np.hypot(across[sides], beyond) < 1.5, axis=1).sum(axis=1)
    return _best_distinct(list(zip(near.astype(float).tolist(), quads, strict=True)), limit)


def _distinct_lines(lines: NDArray[np.float32], limit: int) -> tuple[FloatArray, FloatArray]:
    """Up to ``limit`` of the (rho, theta) lines, strongest first, none near a stronger one.

    A straight run of outline votes for a fan of near-copies of its line; skipping those
    leaves the runs. Each line picked strikes its near-copies off at once, in the lines'
    own float32 arithmetic, so the picks are those of comparing every line in turn.
    """
    rho, theta = lines[:, 0], lines[:, 1]
    free = np.ones(len(lines), bool)
    picked: list[int] = []
    while len(picked) < limit and free.any():
        picked.append(int(free.argmax()))
        gap = np.abs(theta - theta[picked[-1]])
        free &= (np.abs(rho - rho[picked[-1]]) > 6) | (np.minimum(gap, np.pi - gap) > 0.12)
    return rho[picked].astype(np.float64), theta[picked].astype(np.float64)


def _crossings(
    rho: FloatArray, normals: FloatArray, first: NDArray[np.intp], second: NDArray[np.intp]
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Where each line of ``first`` crosses the one beside it in ``second`` (Cramer's rule).

    A row with a parallel pair closes no quadrilateral; it is dropped, from ``second`` too.
    """
    (c1, s1), (c2, s2) = np.moveaxis(normals[first], 2, 0), np.moveaxis(normals[second], 2, 0)
    det = c1 * s2 - s1 * c2
    ok = np.all(np.abs(det) >= 1e-6, axis=1)
    r1, r2, c1, s1, c2, s2, det = (a[ok] for a in (rho[first], rho[second], c1, s1, c2, s2, det))
    return np.stack([r1 * s2 - r2 * s1, c1 * r2 - c2 * r1], axis=2) / det[..., None], second[ok]


def _angle_gap(a: FloatArray, b: FloatArray) -> FloatArray:
    d = np.abs(a - b) % np.pi
    return np.minimum(d, np.pi - d)


@dataclass
class SearchWork:
    """What a full search of a picture can take over from a quick one of the same
    picture: the small picture, the stud band and its brightness, the undistortion maps,
    and the texture mask with its candidates (None where it has no blob)."""

    small: NDArray[np.uint8]
    band: NDArray[np.float32]
    brightness: NDArray[np.float32]
    maps: tuple[NDArray[np.float32], NDArray[np.float32]] | None
    texture: tuple[NDArray[np.uint8], list[FloatArray] | None] | None = None


@dataclass
class PlateSearch:
    """The coarse stage's answer: outlines (full-size undistorted px) and the masks behind them."""

    quads: list[FloatArray]
    masks: list[NDArray[np.uint8]]  # undistorted, COARSE_WIDTH wide
    scale: float  # mask pixels per full-size pixel
    work: SearchWork | None = field(default=None, repr=False, compare=False)
    """What a full search of the same picture can take over."""

    def overlap(self, outline_px: FloatArray) -> float:
        """Best intersection-over-union of a full-size outline with any of the masks."""
        canvas = np.zeros_like(self.masks[0]) if self.masks else None
        if canvas is None:
            return 0.0
        pts = np.round(((outline_px + 0.5) * self.scale - 0.5) * 4).astype(np.int32)
        cv2.fillPoly(canvas, [pts], 255, shift=2)
        inside = canvas > 0
        best = 0.0
        for mask in self.masks:
            board = mask > 0
            union = int((board | inside).sum())
            best = max(best, int((board & inside).sum()) / union if union else 0.0)
        return best


def find_plate_quads(
    image_bgr: NDArray[np.uint8], camera: Camera | None = None, limit: int = 4
) -> list[FloatArray]:
    """Candidate outlines of the plate, best first, in full-size *undistorted* pixels."""
    return search_plate(image_bgr, camera, limit).quads


def search_plate(
    image_bgr: NDArray[np.uint8],
    camera: Camera | None = None,
    limit: int = 4,
    *,
    quick: bool = False,
    prior: PlateSearch | None = None,
) -> PlateSearch:
    """Candidate outlines of the plate, best first, and the masks they came from.

    A wide webcam bends the plate's straight sides into arcs; fitting lines to those
    puts the corners pixels off, so with a camera the mask is undistorted first and the
    corners come back in the pinhole image of ``camera.camera_matrix``. ``quick`` uses
    the stud-texture mask alone, which finds most boards at a third of the cost.
    ``prior``, an earlier search of the same picture with the same camera and ``limit``
    (the quick one), lends its small picture, stud band and texture mask's candidates.
    """
    h, w = image_bgr.shape[:2]
    scale = COARSE_WIDTH / w
    work = replace(prior.work) if prior is not None and prior.work is not None else None
    if work is None:
        small = cv2.resize(
            image_bgr, (COARSE_WIDTH, round(h * scale)), interpolation=cv2.INTER_AREA
        )
        size = (small.shape[1], small.shape[0])
        band, brightness = stud_band(image_bgr)
        maps = None
        if camera is not None and np.any(camera.dist_coeffs != 0):
            k = camera.scaled_to(*size).camera_matrix
            maps = cv2.initUndistortRectifyMap(k, camera.dist_coeffs, None, k, size, cv2.CV_32FC1)
        work = SearchWork(small, band, brightness, maps)
    small, band, brightness, maps = work.small, work.band, work.brightness, work.maps
    size = (small.shape[1], small.shape[0])
    per_mask: list[list[FloatArray]] = []
    masks: list[NDArray[np.uint8]] = []
    # Studs first: the texture is what no table, sleeve or card shares with the board.
    makers = [lambda: texture_mask(small, coarse_texture(band, size))]
    if not quick:
        relative = coarse_texture(band / (brightness + 16.0), size)
        makers += [lambda: chroma_mask(small, relative), lambda: board_mask(small, relative)]
    for i, make in enumerate(makers):
        if i == 0 and work.texture is not None:
            mask, found = work.texture
            masks.append(mask)
            if found is not None:
                per_mask.append(found)
            continue
        mask = make()
        if maps is not None:
            mask = cv2.remap(mask, maps[0], maps[1], cv2.INTER_NEAREST)
        masks.append(mask)
        contour = largest_blob(mask)
        found = None
        if contour is not None:
            found = line_quads(mask, contour, limit) + candidate_quads(contour, size, limit)
            merged = merged_blobs(mask)
            if merged is not None:
                found += candidate_quads(merged, size, 2)
            per_mask.append(found)
        if i == 0:
            work.texture = (mask, found)
    # Each mask fails on its own kind of scene, so their candidates take turns.
    quads: list[FloatArray] = []
    for rank in range(max((len(q) for q in per_mask), default=0)):
        for found in per_mask:
            if rank < len(found) and all(np.abs(found[rank] - q).max() > 2.0 for q in quads):
                quads.append(found[rank])
    return PlateSearch([(quad + 0.5) / scale - 0.5 for quad in quads], masks, scale, work)
