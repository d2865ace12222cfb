"""The scene's polygons in picture space, ready for the z-buffer (:mod:`twin.raster`).

Back faces and polygons off the view are culled, the rest clipped to the view; vertices
go through the full lens model (:mod:`twin.lens`), and edges long enough to bow visibly
are split so that they follow the curve; cylinders become the bands their outline shows.
Each polygon keeps its plane as ``1/z = a*u + b*v + c`` in pinhole pixels (on a plane
``1/z`` is an affine function of the pinhole pixel position), with what it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from twin.geometry import Geometry
from twin.lens import Lens

NEAR_MM = 1.0
CYL_SEGMENTS = 16
SHIFT = 4
"""Fractional bits of the outlines' fixed-point picture points (OpenCV's fill shift)."""
ONE = 1 << SHIFT
BOW_SPLIT_PX = 40.0  # with distortion, edges longer than this are split into pieces


@dataclass
class Prepared:
    """Polygons that survived culling, in picture space, with what they belong to."""

    outlines: list[np.ndarray]  # fixed-point picture points, one int32 array per polygon
    planes: np.ndarray  # (M, 3): 1/z = a*u + b*v + c in pinhole pixels
    normals: np.ndarray  # (M, 3) board frame, facing the camera
    centroids: np.ndarray  # (M, 3) board frame
    colors: np.ndarray  # (M, 3) albedo
    gloss: np.ndarray
    piece: np.ndarray
    kind: np.ndarray
    part: np.ndarray
    convex: np.ndarray  # False where cv2.fillPoly is needed (bands, bowed outlines)


def _planes(normals_cam: np.ndarray, points_cam: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Affine 1/z coefficients of planes given by a normal and a point (camera frame)."""
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    d = np.sum(normals_cam * points_cam, axis=1)
    d = np.where(np.abs(d) < 1e-9, -1e-9, d)
    nx, ny, nz = normals_cam[:, 0], normals_cam[:, 1], normals_cam[:, 2]
    a = nx / (fx * d)
    b = ny / (fy * d)
    c = (nz - nx * cx / fx - ny * cy / fy) / d
    return np.stack([a, b, c], axis=1)


def _frustum_planes(lens: Lens) -> np.ndarray:
    """Half-spaces n . p >= offset (camera frame) that keep what the picture can show."""
    hx, hy = lens.half_x, lens.half_y
    return np.array([
        [0.0, 0.0, 1.0, NEAR_MM],
        [-1.0, 0.0, hx, 0.0],
        [1.0, 0.0, hx, 0.0],
        [0.0, -1.0, hy, 0.0],
        [0.0, 1.0, hy, 0.0],
    ])


def _clip(points: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman of a convex polygon against half-spaces."""
    for plane in planes:
        if len(points) == 0:
            break
        side = points @ plane[:3] - plane[3]
        if np.all(side >= 0):
            continue
        out = []
        n = len(points)
        for i in range(n):
            j = (i + 1) % n
            if side[i] >= 0:
                out.append(points[i])
            if (side[i] >= 0) != (side[j] >= 0):
                t = side[i] / (side[i] - side[j])
                out.append(points[i] + t * (points[j] - points[i]))
        points = np.array(out) if out else np.zeros((0, 3))
    return points


def _bow(polygons: list[np.ndarray], k: np.ndarray) -> list[np.ndarray]:
    """Splits the polygons' long edges so that their distorted images can bend.

    An edge is cut into ``1 + length // BOW_SPLIT_PX`` equal pieces, its length taken
    between the pinhole images of its ends. All polygons are done in one pass.
    """
    sizes = np.array([len(p) for p in polygons])
    points = np.concatenate(polygons)
    first_vertex = np.repeat(np.cumsum(sizes) - sizes, sizes)
    following = first_vertex + (np.arange(len(points)) - first_vertex + 1) % np.repeat(
        sizes, sizes)
    pinhole = _pinhole(points, k)
    step = pinhole[following] - pinhole
    counts = (np.hypot(step[:, 0], step[:, 1]) // BOW_SPLIT_PX).astype(np.int64) + 1
    if np.all(counts == 1):
        return polygons
    edge = np.repeat(np.arange(len(points)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    t = ((np.arange(len(edge)) - first) / np.repeat(counts, counts))[:, None]
    bowed = points[edge] + t * (points[following][edge] - points[edge])
    new_sizes = np.add.reduceat(counts, np.cumsum(sizes) - sizes)
    return np.split(bowed, np.cumsum(new_sizes)[:-1])


def _pinhole(cam: np.ndarray, k: np.ndarray) -> np.ndarray:
    z = np.maximum(cam[:, 2], NEAR_MM)
    return np.stack([k[0, 0] * cam[:, 0] / z + k[0, 2], k[1, 1] * cam[:, 1] / z + k[1, 2]], axis=1)


def _cylinder_bands(
    g: Geometry, eye: np.ndarray, lens: Lens, rotation: np.ndarray, tvec: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The visible side of each vertical cylinder as one (non-convex) band polygon.

    A band runs along the camera-facing half of the bottom rim and back along the top
    rim. Its depth is the vertical plane through the axis, facing the camera: the top
    disc's front rim lies in front of that plane, so the disc keeps the pixels the two
    share (its centre stays where it projects), while the pieces around a stud stay a
    stud pitch away and keep their order. The one cost: the band can lose a pixel row
    at its foot to the face it stands on.

    Returns the outlines, the cylinder each belongs to, and per cylinder the unit
    horizontal normal towards the eye.
    """
    count = len(g.cyl_radius)
    toward = eye[None, :2] - g.cyl_base[:, :2]
    dist = np.hypot(toward[:, 0], toward[:, 1])
    h = toward / np.maximum(dist, 1e-9)[:, None]
    ring = np.linspace(0, 2 * np.pi, CYL_SEGMENTS, endpoint=False)
    cos, sin = np.cos(ring), np.sin(ring)
    facing = (toward[:, 0:1] * cos[None, :] + toward[:, 1:2] * sin[None, :]) > g.cyl_radius[:, None]
    xs = g.cyl_base[:, 0:1] + g.cyl_radius[:, None] * cos[None, :]
    ys = g.cyl_base[:, 1:2] + g.cyl_radius[:, None] * sin[None, :]
    z0 = np.repeat(g.cyl_base[:, 2:3], CYL_SEGMENTS, 1)
    z1 = z0 + g.cyl_height[:, None]
    pts = np.stack([np.concatenate([xs, xs], 1), np.concatenate([ys, ys], 1),
                    np.concatenate([z0, z1], 1)], axis=2).reshape(-1, 3)
    cam = pts @ rotation.T + tvec
    per = cam.reshape(count, -1, 3)
    inside = (
        (per[:, :, 2].min(axis=1) > NEAR_MM)
        & (np.abs(per[:, :, 0] / per[:, :, 2]).max(axis=1) < lens.half_x)
        & (np.abs(per[:, :, 1] / per[:, :, 2]).max(axis=1) < lens.half_y)
    )
    ok = inside & facing.any(axis=1)
    img = np.zeros((len(cam), 2))
    keep_pts = np.repeat(ok, 2 * CYL_SEGMENTS)
    if keep_pts.any():
        img[keep_pts] = lens.project(cam[keep_pts])
    fixed = np.round(img * ONE).astype(np.int32).reshape(count, 2, CYL_SEGMENTS, 2)
    starts = np.argmax(facing & ~np.roll(facing, 1, axis=1), axis=1)
    starts[facing.all(axis=1)] = 0
    runs = facing.sum(axis=1)
    # Each band: the facing run of the bottom rim widened by one segment at each end,
    # then the same run of the top rim backwards; gathered for all bands at once.
    owners = np.flatnonzero(ok)
    span = runs[owners] + 2
    step = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
    first = np.repeat(starts[owners] - 1, span)
    base = np.repeat(owners * (2 * CYL_SEGMENTS), span)
    bottom = base + (first + step) % CYL_SEGMENTS
    top = base + CYL_SEGMENTS + (first + np.repeat(span - 1, span) - step) % CYL_SEGMENTS
    # Per band: its bottom run, then its top run (positions interleaved band by band).
    band_first = np.repeat(np.cumsum(span) - span, span)
    order = np.empty(2 * len(step), np.int64)
    order[band_first + step + band_first] = bottom
    order[band_first + step + band_first + np.repeat(span, span)] = top
    flat = fixed.reshape(-1, 2)[order]
    outlines = np.split(flat, np.cumsum(2 * span)[:-1]) if len(owners) else []
    normals = np.column_stack([h, np.zeros(count)])
    return outlines, owners.astype(np.int64), normals


def prepare(g: Geometry, lens: Lens, rotation: np.ndarray, tvec: np.ndarray) -> Prepared:
    """Culls back faces and off-view polygons, clips, projects; cylinders become bands."""
    k = lens.camera_matrix
    eye = -rotation.T @ tvec
    outlines: list[np.ndarray] = []
    convex: list[bool] = []
    n_polys = len(g.sizes)
    keep = np.zeros(0, np.int64)
    normals = cam_normals = cam_points = centroids = np.zeros((0, 3))
    if n_polys:
        starts = np.concatenate([[0], np.cumsum(g.sizes)[:-1]])
        cam = g.verts @ rotation.T + tvec
        n_cam = g.normals @ rotation.T
        first = cam[starts]
        facing = np.sum(n_cam * first, axis=1)
        visible = (facing < 0) | g.two_sided
        sign = np.where(facing > 0, -1.0, 1.0)
        frustum = _frustum_planes(lens)
        side = cam @ frustum[:, :3].T - frustum[:, 3]  # (V, 5)
        inside = side >= 0
        all_out = np.logical_and.reduceat(~inside, starts, axis=0).any(axis=1)
        all_in = np.logical_and.reduceat(inside, starts, axis=0).all(axis=1)
        visible &= ~all_out
        pinhole = _pinhole(cam, k)
        extent = np.maximum.reduceat(pinhole, starts, axis=0) - np.minimum.reduceat(
            pinhole, starts, axis=0)
        bowed = lens.distorted & (extent.max(axis=1) > BOW_SPLIT_PX)
        simple = visible & all_in & ~bowed
        image = np.zeros_like(pinhole)
        simple_pts = np.repeat(simple, g.sizes)
        if simple_pts.any():
            image[simple_pts] = lens.project(cam[simple_pts])
        fixed = np.round(image * ONE).astype(np.int32)
        ends = starts + g.sizes
        shown = np.flatnonzero(visible)
        starts_l, ends_l = starts[shown].tolist(), ends[shown].tolist()
        outlines = [fixed[s:e] for s, e in zip(starts_l, ends_l, strict=True)]
        convex_arr = np.ones(len(shown), bool)
        kept_arr = np.ones(len(shown), bool)
        # Clipped or bowed outlines are projected together at the end (one call).
        pending: list[tuple[int, np.ndarray]] = []
        for slot in np.flatnonzero(~simple[shown]).tolist():
            i, s, e = shown[slot], starts_l[slot], ends_l[slot]
            pts = cam[s:e] if all_in[i] else _clip(cam[s:e], frustum)
            if len(pts) < 3:
                kept_arr[slot] = False
                continue
            pending.append((slot, pts))
            convex_arr[slot] = not lens.distorted
        if pending:
            chunks = [p for _, p in pending]
            if lens.distorted:
                chunks = _bow(chunks, k)
            projected = np.round(lens.project(np.concatenate(chunks)) * ONE)
            projected = projected.astype(np.int32)
            offset = 0
            for (slot, _), pts in zip(pending, chunks, strict=True):
                outlines[slot] = projected[offset:offset + len(pts)]
                offset += len(pts)
        if not kept_arr.all():
            outlines = [o for o, ok in zip(outlines, kept_arr.tolist(), strict=True) if ok]
        convex = convex_arr[kept_arr].tolist()
        kept = shown[kept_arr]
        keep = np.array(kept, np.int64)
        normals = g.normals[keep] * sign[keep, None]
        cam_normals = n_cam[keep] * sign[keep, None]
        cam_points = first[keep]
        centroids = (np.add.reduceat(g.verts, starts, axis=0) / g.sizes[:, None])[keep]
    colors, gloss = g.colors[keep], g.gloss[keep]
    piece, kind, part = g.piece[keep], g.kind[keep], g.part[keep]
    if len(g.cyl_radius):
        bands, owners, horizontal = _cylinder_bands(g, eye, lens, rotation, tvec)
        outlines.extend(bands)
        convex.extend([False] * len(bands))
        n_b = horizontal[owners]
        mid = g.cyl_base[owners] + np.column_stack(
            [np.zeros((len(owners), 2)), g.cyl_height[owners] / 2])
        axis_points = mid - 0.02 * g.cyl_radius[owners, None] * n_b
        normals = np.concatenate([normals, n_b])
        cam_normals = np.concatenate([cam_normals, n_b @ rotation.T])
        cam_points = np.concatenate([cam_points, axis_points @ rotation.T + tvec])
        centroids = np.concatenate([centroids, axis_points])
        colors = np.concatenate([colors, g.cyl_colors[owners]])
        gloss = np.concatenate([gloss, g.cyl_gloss[owners]])
        piece = np.concatenate([piece, g.cyl_piece[owners]])
        kind = np.concatenate([kind, g.cyl_kind[owners]])
        part = np.concatenate([part, g.cyl_part[owners]])
    m = len(outlines)
    planes = _planes(cam_normals, cam_points, k) if m else np.zeros((0, 3))
    return Prepared(
        outlines=outlines,
        planes=planes,
        normals=normals.reshape(m, 3),
        centroids=centroids.reshape(m, 3),
        colors=colors.astype(np.float32).reshape(m, 3),
        gloss=gloss.astype(np.float32),
        piece=piece.astype(np.int32),
        kind=kind.astype(np.uint8),
        part=part.astype(np.uint8),
        convex=np.array(convex, dtype=bool),
    )
