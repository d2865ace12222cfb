"""A z-buffer rasteriser for convex planar polygons, built on ``cv2.fillConvexPoly``.

Coverage comes from OpenCV (sub-pixel vertices, 4 fractional bits); depth is exact
because on a plane ``1/z`` is an affine function of the pixel position, so each polygon
writes ``a*u + b*v + c`` into its bounding box and keeps the pixels where it is nearer
than what is there. That gives correct occlusion for interlocking pieces (an arch over a
brick, a column seen through an arch's opening) with no depth sorting at all.

The buffer holds ``1/z`` (0 = nothing, larger = nearer) and the index of the winning
polygon; colours and labels are looked up from that index once at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.twin.mesh import Geometry

NEAR_MM = 1.0
CYL_SEGMENTS = 16
SHIFT = 4
ONE = 1 << SHIFT


class ZBuffer:
    """Inverse depth and polygon index per pixel of an undistorted pinhole image."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.invz = np.zeros((height, width), np.float32)
        self.poly = np.full((height, width), -1, np.int32)
        self.u = np.arange(width, dtype=np.float32)
        self.v = np.arange(height, dtype=np.float32)


@dataclass
class Prepared:
    """Polygons that survived culling, in image space, with what they belong to."""

    outlines: list[np.ndarray]  # fixed-point image points, one int32 array per polygon
    planes: np.ndarray  # (M, 3) 1/z = a*u + b*v + c
    normals: np.ndarray  # (M, 3) board frame, facing the camera
    centroids: np.ndarray  # (M, 3) board frame
    colors: np.ndarray  # (M, 3) albedo
    gloss: np.ndarray
    piece: np.ndarray
    kind: np.ndarray
    part: np.ndarray
    convex: np.ndarray  # False for cylinder side bands, which need cv2.fillPoly


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


def _clip_near(points: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman against the plane z = NEAR_MM (camera frame)."""
    out = []
    n = len(points)
    for i in range(n):
        p, q = points[i], points[(i + 1) % n]
        p_in, q_in = p[2] >= NEAR_MM, q[2] >= NEAR_MM
        if p_in:
            out.append(p)
        if p_in != q_in:
            t = (NEAR_MM - p[2]) / (q[2] - p[2])
            out.append(p + t * (q - p))
    return np.array(out) if out else np.zeros((0, 3))


def _to_image(cam: np.ndarray, k: np.ndarray) -> np.ndarray:
    z = cam[:, 2]
    return np.stack([k[0, 0] * cam[:, 0] / z + k[0, 2], k[1, 1] * cam[:, 1] / z + k[1, 2]], axis=1)


def _cylinder_bands(
    g: Geometry, eye: np.ndarray, k: np.ndarray, rotation: np.ndarray, tvec: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The visible side of each vertical cylinder as one (non-convex) band polygon.

    A band runs along the camera-facing half of the bottom rim and back along the top
    rim. Its depth is the vertical plane through the axis, facing the camera: the top
    disc's front rim lies in front of that plane, so the disc keeps the pixels the two
    share (its centre stays where it projects), while the pieces around a stud stay a
    stud pitch away and keep their order. The one cost: the band can lose a pixel row
    at its foot to the face it stands on.

    Returns the outlines, the index of the cylinder each belongs to, and the unit
    horizontal normal towards the eye per cylinder.
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
    ok = (cam[:, 2].reshape(count, -1).min(axis=1) > NEAR_MM) & facing.any(axis=1)
    cam[:, 2] = np.maximum(cam[:, 2], NEAR_MM)
    img = np.round(_to_image(cam, k) * ONE).astype(np.int32).reshape(count, 2, CYL_SEGMENTS, 2)
    starts = np.argmax(facing & ~np.roll(facing, 1, axis=1), axis=1)
    starts[facing.all(axis=1)] = 0
    runs = facing.sum(axis=1)
    outlines: list[np.ndarray] = []
    owners: list[int] = []
    steps = np.arange(CYL_SEGMENTS + 2)
    for c in np.flatnonzero(ok):
        idx = (starts[c] - 1 + steps[: runs[c] + 2]) % CYL_SEGMENTS
        outlines.append(np.concatenate([img[c, 0, idx], img[c, 1, idx[::-1]]]))
        owners.append(int(c))
    normals = np.column_stack([h, np.zeros(count)])
    return outlines, np.array(owners, np.int64), normals


def prepare(g: Geometry, k: np.ndarray, rotation: np.ndarray, tvec: np.ndarray) -> Prepared:
    """Culls back faces, projects, and turns silhouette cylinders into band polygons."""
    eye = -rotation.T @ tvec
    outlines: list[np.ndarray] = []
    n_polys = len(g.sizes)
    keep = np.zeros(0, np.int64)
    normals = np.zeros((0, 3))
    cam_normals = np.zeros((0, 3))
    cam_points = np.zeros((0, 3))
    centroids = np.zeros((0, 3))
    if n_polys:
        starts = np.concatenate([[0], np.cumsum(g.sizes)[:-1]])
        cam = g.verts @ rotation.T + tvec
        n_cam = g.normals @ rotation.T
        first = cam[starts]
        facing = np.sum(n_cam * first, axis=1)
        visible = (facing < 0) | g.two_sided
        sign = np.where(facing > 0, -1.0, 1.0)
        zmin = np.minimum.reduceat(cam[:, 2], starts)
        safe_z = np.maximum(cam[:, 2], NEAR_MM)
        image = np.stack([k[0, 0] * cam[:, 0] / safe_z + k[0, 2],
                          k[1, 1] * cam[:, 1] / safe_z + k[1, 2]], axis=1)
        fixed = np.round(image * ONE).astype(np.int32)
        kept: list[int] = []
        ends = starts + g.sizes
        for i in np.flatnonzero(visible).tolist():
            s, e = starts[i], ends[i]
            if zmin[i] < NEAR_MM:
                clipped = _clip_near(cam[s:e])
                if len(clipped) < 3:
                    continue
                outlines.append(np.round(_to_image(clipped, k) * ONE).astype(np.int32))
            else:
                outlines.append(fixed[s:e])
            kept.append(i)
        keep = np.array(kept, np.int64)
        normals = g.normals[keep] * sign[keep, None]
        cam_normals = n_cam[keep] * sign[keep, None]
        cam_points = first[keep]
        centroids = (np.add.reduceat(g.verts, starts, axis=0) / g.sizes[:, None])[keep]
    convex = [True] * len(outlines)
    colors, gloss = g.colors[keep], g.gloss[keep]
    piece, kind, part = g.piece[keep], g.kind[keep], g.part[keep]
    if len(g.cyl_radius):
        bands, owners, horizontal = _cylinder_bands(g, eye, k, rotation, tvec)
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


def draw(zb: ZBuffer, prepared: Prepared, first_index: int = 0) -> None:
    """Fills every prepared polygon into the buffer; polygon i gets id first_index + i."""
    if not prepared.outlines:
        return
    w, h = zb.width, zb.height
    lengths = np.array([len(o) for o in prepared.outlines])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    every = np.concatenate(prepared.outlines)
    lo = np.minimum.reduceat(every, starts, axis=0) >> SHIFT
    hi = (np.maximum.reduceat(every, starts, axis=0) >> SHIFT) + 2
    x0s, y0s = np.maximum(lo[:, 0], 0).tolist(), np.maximum(lo[:, 1], 0).tolist()
    x1s, y1s = np.minimum(hi[:, 0], w).tolist(), np.minimum(hi[:, 1], h).tolist()
    planes = prepared.planes.tolist()
    convex = prepared.convex.tolist()
    u, v = zb.u, zb.v
    for i, pts in enumerate(prepared.outlines):
        x0, x1, y0, y1 = x0s[i], x1s[i], y0s[i], y1s[i]
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        local = pts - np.array([x0 << SHIFT, y0 << SHIFT], np.int32)
        if convex[i]:
            cv2.fillConvexPoly(mask, local, 1, cv2.LINE_8, SHIFT)
        else:
            cv2.fillPoly(mask, [local], 1, cv2.LINE_8, SHIFT)
        a, b, c = planes[i]
        invz = (a * u[x0:x1])[None, :] + (b * v[y0:y1] + c)[:, None]
        zsub = zb.invz[y0:y1, x0:x1]
        win = mask.view(bool) & (invz > zsub)
        np.copyto(zsub, invz, where=win)
        np.copyto(zb.poly[y0:y1, x0:x1], first_index + i, where=win)
