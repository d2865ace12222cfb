"""Coarse search: where is the plate, roughly, in a downscaled frame?

The plate is the one large green-and-sand quadrilateral on the table. Its outline in a
quarter-size image gives four corners good to a few full-size pixels, which is all the
edge refinement needs to lock on. A hand or a card over one corner cuts that corner off
the outline, so the quadrilateral is rebuilt from its four longest sides, whose
intersections restore the hidden corner.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, FloatArray

COARSE_WIDTH = 320


def stud_texture(
    image_bgr: NDArray[np.uint8], size: tuple[int, int]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Band-pass energy at the studs' scale, averaged down to ``size``: plain and relative.

    A plain or green table may match the board's colours, never its thousand studs. The
    relative energy is divided by the local brightness: studs modulate the light by a
    similar fraction on the darkest region of the map as on the sand, so both count as
    board where the colour masks ask for studs; the plain energy is what tells studs
    from a dark table's grain on its own.
    """
    h, w = image_bgr.shape[:2]
    half = cv2.resize(image_bgr, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY).astype(np.float32)
    fine = cv2.GaussianBlur(gray, (0, 0), 1.0)
    coarse = cv2.GaussianBlur(gray, (0, 0), 3.0)
    band = np.abs(fine - coarse)
    plain = cv2.blur(cv2.resize(band, size, interpolation=cv2.INTER_AREA), (5, 5))
    relative = band / (coarse + 16.0)
    relative = cv2.blur(cv2.resize(relative, size, interpolation=cv2.INTER_AREA), (5, 5))
    return plain, relative


def board_mask(
    small_bgr: NDArray[np.uint8], texture: NDArray[np.float32] | None = None
) -> NDArray[np.uint8]:
    """Pixels where green dominates both red and blue and studs show, as 0/255, cleaned up.

    The plate's green studs poke through every region of the ground map, so even the
    sand-coloured regions stay green on average at a quarter of the resolution, and the
    test holds under warm or cold light because it compares channels, not hues. Thin
    lines (the blend between two colours of a patterned tablecloth) are opened away.
    """
    img = small_bgr.astype(np.int16)
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    colour = (g - r > 6) & (g - b > 4)
    if texture is not None and colour.any():
        # Relative to the texture inside the colour mask: the board's own darkest region
        # still has its card holes, a plain table has nothing.
        level = float(np.percentile(texture[colour], 75))
        colour &= texture > 0.25 * level
    mask = colour.astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def chroma_mask(
    small_bgr: NDArray[np.uint8], texture: NDArray[np.float32] | None = None
) -> NDArray[np.uint8]:
    """The greenest part of the picture, split from the rest where the histogram splits.

    A fixed margin of green over red and blue takes in a grey-green table as well as the
    board. Relative to the picture itself the board still stands out: after a grey-world
    balance (which also undoes a warm or cold light) its green chromaticity is the
    highest around, so Otsu's threshold between it and everything else finds it whatever
    the table's own tint.
    """
    f = small_bgr.astype(np.float32)
    means = f.reshape(-1, 3).mean(axis=0) + 1.0
    balanced = f * (means.mean() / means)
    total = balanced.sum(axis=2) + 1.0
    green = (balanced[..., 1] - np.maximum(balanced[..., 0], balanced[..., 2])) / total
    level = np.clip(128 + 400 * green, 0, 255).astype(np.uint8)
    level = cv2.GaussianBlur(level, (3, 3), 0)
    _, mask = cv2.threshold(level, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if texture is not None and mask.any():
        inside = texture[mask > 0]
        mask[texture < 0.25 * float(np.percentile(inside, 75))] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def texture_mask(small_bgr: NDArray[np.uint8], texture: NDArray[np.float32]) -> NDArray[np.uint8]:
    """Where the stud texture is strong and the colour at least as green as the picture's.

    A table the board's own green, a green sleeve or a card beside the board share its
    colour but not its thousand studs; the studs' energy, split from the rest by Otsu's
    threshold on its logarithm, outlines the plate where the colour cannot.
    """
    log = np.log1p(texture)
    scaled = cv2.normalize(log, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    f = small_bgr.astype(np.float32)
    total = f.sum(axis=2) + 1.0
    green = (f[..., 1] - np.maximum(f[..., 0], f[..., 2])) / total
    mask[green < float(np.median(green))] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))


def largest_blob(mask: NDArray[np.uint8], min_fraction: float = 0.02) -> NDArray[np.int32] | None:
    """The outer contour of the largest region, if it covers at least ``min_fraction``."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    if cv2.contourArea(best) < min_fraction * mask.shape[0] * mask.shape[1]:
        return None
    return best


def merged_blobs(mask: NDArray[np.uint8], share: float = 0.2) -> NDArray[np.int32] | None:
    """All large regions' points together, when there are several, else None.

    An arm lying across the board cuts its mask in two; the plate is then the hull of
    both halves, not the larger one alone.
    """
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(contours) < 2:
        return None
    areas = np.array([cv2.contourArea(c) for c in contours])
    big = [c for c, a in zip(contours, areas, strict=True) if a >= share * areas.max()]
    if len(big) < 2:
        return None
    return np.concatenate(big)


def _intersect(p1: FloatArray, p2: FloatArray, q1: FloatArray, q2: FloatArray) -> FloatArray | None:
    d1, d2 = p2 - p1, q2 - q1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((q1[0] - p1[0]) * d2[1] - (q1[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _quad_from_sides(poly: FloatArray, keep: tuple[int, ...]) -> FloatArray | None:
    n = len(poly)
    sides = [(poly[i], poly[(i + 1) % n]) for i in keep]
    corners = []
    for k in range(4):
        a, b = sides[k - 1], sides[k]
        point = _intersect(a[0], a[1], b[0], b[1])
        if point is None:
            return None
        corners.append(point)
    quad = np.array(corners)
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return None
    return quad


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
    for keep in itertools.combinations(usable, 4):
        quad = _quad_from_sides(poly, keep)
        if quad is None:
            continue
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


def line_quads(
    mask: NDArray[np.uint8], contour: NDArray[np.int32], limit: int = 3, max_lines: int = 8
) -> list[FloatArray]:
    """Quadrilaterals whose four sides the outline follows for the longest stretches.

    Straight runs of the outline are found as Hough lines; every four of them that close
    a convex quadrilateral is scored by how many outline points lie on its sides. A card
    pushed against the board or a hand over its rim adds or removes a short stretch of
    outline, but the plate's own sides stay the longest straight runs there are.
    """
    edge = np.zeros_like(mask)
    cv2.drawContours(edge, [contour], -1, 255, 1)
    lines = cv2.HoughLines(edge, 1, np.pi / 180, threshold=max(15, mask.shape[0] // 10))
    if lines is None:
        return []
    picked: list[tuple[float, float]] = []
    for rho, theta in lines.reshape(-1, 2):
        if all(
            abs(rho - r) > 6 or min(abs(theta - t), np.pi - abs(theta - t)) > 0.12
            for r, t in picked
        ):
            picked.append((float(rho), float(theta)))
        if len(picked) == max_lines:
            break
    if len(picked) < 4:
        return []
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) > 400:
        pts = pts[:: len(pts) // 400 + 1]
    h, w = mask.shape
    # Every outline point's distance from each line and place along it, and every two
    # lines' crossing, worked out once: the quadrilaterals below share them.
    theta = np.array([t for _, t in picked])
    normals = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    directions = np.stack([-normals[:, 1], normals[:, 0]], axis=1)
    across = np.abs(pts @ normals.T - np.array([r for r, _ in picked]))
    along = pts @ directions.T
    crossings: dict[tuple[int, int], FloatArray | None] = {}
    for a, b in itertools.combinations(range(len(picked)), 2):
        crossings[a, b] = crossings[b, a] = _cross(picked[a], picked[b])
    scored: list[tuple[float, FloatArray]] = []
    for combo in itertools.combinations(range(len(picked)), 4):
        thetas = [picked[c][1] for c in combo]
        # Pair the four lines into two pairs of opposite sides: the most parallel pairing.
        best_pair = None
        for (i, j), (k, m) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
            spread = _angle_gap(thetas[i], thetas[j]) + _angle_gap(thetas[k], thetas[m])
            if best_pair is None or spread < best_pair[0]:
                best_pair = (spread, (i, j), (k, m))
        assert best_pair is not None
        _, (i, j), (k, m) = best_pair
        if min(_angle_gap(thetas[i], thetas[k]), _angle_gap(thetas[j], thetas[m])) < 0.35:
            continue  # the "opposite" pairs must cross at a real corner
        corners = [crossings[combo[a], combo[b]] for a, b in ((i, k), (k, j), (j, m), (m, i))]
        if any(c is None for c in corners):
            continue
        quad = np.array(corners, dtype=np.float64)
        if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
            continue
        if np.any(np.abs(quad) > 4 * max(w, h)):
            continue
        near = np.zeros(len(pts), bool)
        # Side q runs from corner q to corner q + 1 along the line they share.
        for q, line in enumerate((combo[k], combo[j], combo[m], combo[i])):
            ends = sorted((quad[q] @ directions[line], quad[(q + 1) % 4] @ directions[line]))
            beyond = along[:, line] - np.clip(along[:, line], *ends)
            near |= np.hypot(across[:, line], beyond) < 1.5
        scored.append((float(near.sum()), quad))
    return _best_distinct(scored, limit)


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % np.pi
    return min(d, np.pi - d)


def _cross(l1: tuple[float, float], l2: tuple[float, float]) -> FloatArray | None:
    """Where two lines (rho, theta) cross, or None for parallel ones (Cramer's rule)."""
    (r1, t1), (r2, t2) = l1, l2
    c1, s1, c2, s2 = math.cos(t1), math.sin(t1), math.cos(t2), math.sin(t2)
    det = c1 * s2 - s1 * c2
    if abs(det) < 1e-6:
        return None
    return np.array([(r1 * s2 - r2 * s1) / det, (c1 * r2 - c2 * r1) / det])


@dataclass
class PlateSearch:
    """The coarse stage's answer: outlines (full-size undistorted px) and the masks behind them."""

    quads: list[FloatArray]
    masks: list[NDArray[np.uint8]]  # undistorted, COARSE_WIDTH wide
    scale: float  # mask pixels per full-size pixel

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
) -> PlateSearch:
    """Candidate outlines of the plate, best first, and the masks they came from.

    A wide webcam bends the plate's straight sides into arcs; fitting lines to those
    puts the corners pixels off, so with a camera the mask is undistorted first and the
    corners come back in the pinhole image of ``camera.camera_matrix``. ``quick`` uses
    the stud-texture mask alone, which finds most boards at a third of the cost.
    """
    h, w = image_bgr.shape[:2]
    scale = COARSE_WIDTH / w
    small = cv2.resize(image_bgr, (COARSE_WIDTH, round(h * scale)), interpolation=cv2.INTER_AREA)
    size = (small.shape[1], small.shape[0])
    plain, relative = stud_texture(image_bgr, size)
    maps = None
    if camera is not None and np.any(camera.dist_coeffs != 0):
        k = camera.scaled_to(*size).camera_matrix
        maps = cv2.initUndistortRectifyMap(k, camera.dist_coeffs, None, k, size, cv2.CV_32FC1)
    per_mask: list[list[FloatArray]] = []
    masks: list[NDArray[np.uint8]] = []
    # Studs first: the texture is what no table, sleeve or card shares with the board.
    makers = [
        lambda: texture_mask(small, plain),
        lambda: chroma_mask(small, relative),
        lambda: board_mask(small, relative),
    ]
    for make in makers[:1] if quick else makers:
        mask = make()
        if maps is not None:
            mask = cv2.remap(mask, maps[0], maps[1], cv2.INTER_NEAREST)
        masks.append(mask)
        contour = largest_blob(mask)
        if contour is None:
            continue
        found = line_quads(mask, contour, limit) + candidate_quads(contour, size, limit)
        merged = merged_blobs(mask)
        if merged is not None:
            found += candidate_quads(merged, size, 2)
        per_mask.append(found)
    # Each mask fails on its own kind of scene, so their candidates take turns.
    quads: list[FloatArray] = []
    for rank in range(max((len(q) for q in per_mask), default=0)):
        for found in per_mask:
            if rank < len(found) and all(np.abs(found[rank] - q).max() > 2.0 for q in quads):
                quads.append(found[rank])
    return PlateSearch([(quad + 0.5) / scale - 0.5 for quad in quads], masks, scale)
