"""A z-buffer rasteriser for planar polygons, built on OpenCV's polygon fill.

Coverage comes from OpenCV (sub-pixel vertices, 4 fractional bits); depth is exact
because on a plane ``1/z`` is an affine function of the *pinhole* pixel position, so
each polygon writes ``a*u + b*v + c`` (u, v: the undistorted position of each picture
pixel, see :mod:`twin.lens`) into its bounding box and keeps the pixels where it
is nearer than what is there. That gives correct occlusion for interlocking pieces (an
arch over a brick, a column seen through an arch's opening) with no depth sorting.

Polygons are drawn straight into the distorted picture: vertices go through the full
lens model, and edges long enough to bow visibly are split so that they follow the
curve. The buffer holds ``1/z`` (0 = nothing, larger = nearer) and the index of the
winning polygon; colours and labels are looked up from that index once at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from twin.geometry import Geometry
from twin.lens import Lens

NEAR_MM = 1.0
CYL_SEGMENTS = 16
SHIFT = 4
ONE = 1 << SHIFT
BOW_SPLIT_PX = 40.0  # with distortion, edges longer than this are split into pieces
SMALL_PX = 48  # polygons whose box is at most this wide and high are filled in one batch


class ZBuffer:
    """Inverse depth and polygon index per pixel of the picture."""

    def __init__(self, lens: Lens) -> None:
        self.width, self.height = lens.width, lens.height
        self.invz = np.zeros((self.height, self.width), np.float32)
        self.poly = np.full((self.height, self.width), -1, np.int32)
        self.lens = lens
        self.u = np.arange(self.width, dtype=np.float32)
        self.v = np.arange(self.height, dtype=np.float32)


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


def draw(zb: ZBuffer, prepared: Prepared, first_index: int = 0) -> None:
    """Fills every prepared polygon into the buffer; polygon i gets id first_index + i.

    The result is the same as filling the polygons one by one in index order and keeping
    a pixel where a polygon is strictly nearer: per pixel, the nearest polygon wins and
    of equally near ones the lowest index. That rule does not depend on the order of
    work, so large polygons are filled one at a time while the many small ones (most
    of a palace: studs, seams, arch facets) go through :func:`_draw_small` together,
    where a per-polygon loop would cost far more than their few pixels.
    """
    if not prepared.outlines:
        return
    w, h = zb.width, zb.height
    lengths = np.array([len(o) for o in prepared.outlines])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    every = np.concatenate(prepared.outlines)
    lo = np.minimum.reduceat(every, starts, axis=0) >> SHIFT
    hi = (np.maximum.reduceat(every, starts, axis=0) >> SHIFT) + 2
    origin = np.maximum(lo, 0)
    # Every outline shifted to its own bounding box, in one operation.
    local_all = every - np.repeat(origin << SHIFT, lengths, axis=0).astype(np.int32)
    size = hi - lo
    small = ((lo >= 0).all(axis=1) & (hi[:, 0] <= w) & (hi[:, 1] <= h)
             & (size <= SMALL_PX).all(axis=1))
    x0s, y0s = origin[:, 0].tolist(), origin[:, 1].tolist()
    x1s, y1s = np.minimum(hi[:, 0], w).tolist(), np.minimum(hi[:, 1], h).tolist()
    starts_l, ends_l = starts.tolist(), (starts + lengths).tolist()
    planes = prepared.planes.tolist()
    convex = prepared.convex.tolist()
    u, v = zb.u, zb.v
    und_x, und_y = zb.lens.und_x, zb.lens.und_y
    for i in np.flatnonzero(~small).tolist():
        x0, x1, y0, y1 = x0s[i], x1s[i], y0s[i], y1s[i]
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        local = local_all[starts_l[i]:ends_l[i]]
        if convex[i]:
            cv2.fillConvexPoly(mask, local, 1, cv2.LINE_8, SHIFT)
        else:
            cv2.fillPoly(mask, [local], 1, cv2.LINE_8, SHIFT)
        a, b, c = planes[i]
        if und_x is None:
            invz = (a * u[x0:x1])[None, :] + (b * v[y0:y1] + c)[:, None]
        else:
            invz = a * und_x[y0:y1, x0:x1] + b * und_y[y0:y1, x0:x1] + c
        zsub = zb.invz[y0:y1, x0:x1]
        win = mask.view(bool) & (invz > zsub)
        np.copyto(zsub, invz, where=win)
        np.copyto(zb.poly[y0:y1, x0:x1], first_index + i, where=win)
    chosen = np.flatnonzero(small)
    if len(chosen):
        _draw_small(zb, prepared, chosen, first_index, local_all, starts, lengths, lo, size)


def _draw_small(zb: ZBuffer, prepared: Prepared, chosen: np.ndarray, first_index: int,
                local_all: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                lo: np.ndarray, size: np.ndarray) -> None:
    """Small polygons wholly inside the picture, all at once.

    Each is filled (with the same OpenCV call, so the same pixels) into its own tile
    of a tall atlas: a view exactly the size of its box, so what a fill would paint
    past the box is clipped as before. The covered pixels then become one list of
    candidates whose depth is computed exactly as the one-by-one path does (same
    float32 operations in the same order), and the z-test is resolved per pixel.
    """
    widths, heights = size[chosen, 0], size[chosen, 1]
    tops = np.cumsum(heights) - heights
    atlas = np.zeros((int(heights.sum()), int(widths.max())), np.uint8)
    owner = np.repeat(np.arange(len(chosen)), heights)
    convex = prepared.convex[chosen].tolist()
    s_l, e_l = starts[chosen].tolist(), (starts[chosen] + lengths[chosen]).tolist()
    t_l, b_l, w_l = tops.tolist(), (tops + heights).tolist(), widths.tolist()
    fill_convex, fill = cv2.fillConvexPoly, cv2.fillPoly
    for j, is_convex in enumerate(convex):
        tile = atlas[t_l[j]:b_l[j], :w_l[j]]
        if is_convex:
            fill_convex(tile, local_all[s_l[j]:e_l[j]], 1, cv2.LINE_8, SHIFT)
        else:
            fill(tile, [local_all[s_l[j]:e_l[j]]], 1, cv2.LINE_8, SHIFT)
    found = cv2.findNonZero(atlas)
    if found is None:
        return
    found = found.reshape(-1, 2).astype(np.int64)
    col, row = found[:, 0], found[:, 1]
    tile = owner[row]
    width = zb.width
    x0, y0 = lo[chosen, 0], lo[chosen, 1]
    # Picture pixel = (y0 + row - top) * width + x0 + col, folded per tile.
    pix = ((y0 - tops) * width + x0)[tile]
    pix += row * width
    pix += col
    plane = prepared.planes[chosen].astype(np.float32)
    a, b, c = (np.take(np.ascontiguousarray(plane[:, j]), tile) for j in range(3))
    und_x, und_y = zb.lens.und_x, zb.lens.und_y
    if und_x is None or und_y is None:
        x = x0[tile] + col
        y = (y0 - tops)[tile] + row
        invz = a * zb.u[x] + (b * zb.v[y] + c)
    else:
        invz = a * und_x.reshape(-1)[pix] + b * und_y.reshape(-1)[pix] + c
    ids = (first_index + chosen).astype(np.int32)[tile]
    zflat, pflat = zb.invz.reshape(-1), zb.poly.reshape(-1)
    held = zflat[pix]
    beats = (invz > held) | ((invz == held) & (ids < pflat[pix]))
    pix, invz, ids = pix[beats], invz[beats], ids[beats]
    np.maximum.at(zflat, pix, invz)
    best = invz == zflat[pix]
    pix, ids = pix[best], ids[best]
    pflat[pix] = np.iinfo(np.int32).max
    np.minimum.at(pflat, pix, ids)
