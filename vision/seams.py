"""Seams: the dark line at each joint of a stack of bricks, which a column has not.

A column (1x1x3) and three stacked 1x1 bricks have one outline, and when the three
bricks share a colour the levels' colours (:mod:`vision.colours`) cannot tell them
apart. A real stack can be told by its joints: a brick's edges are slightly rounded and
the brick above never sits perfectly flush, so a thin dark line runs round the stack
one and two bricks above its base, where a column's side is one smooth face.

The line is a pixel wide or less, so it is looked for in the whole frame, not in the
softened, shrunk region the decoder works in. For each side face of the stack's cell
that the camera sees (mostly on pixels that changed, and where the palace before the
turn does not hide it), the picture is sampled along vertical lines across the face's
middle, and the lines' median profile (up the face, in millimetres) is compared at each
joint with the face on both sides of it: how much darker its darkest row within a pixel
or so of the joint is (:func:`joint_dip`). The same is measured at every other height
of the face, where nothing is drawn, and a joint counts only by how far it passes what a
quarter of those reach: noise, shading and the edge of a shadow darken some row of any
face. Both joints must show it.

When no seam shows (a path-traced frame without them, a blurred frame, a face seen
edge-on) the cue says nothing: 0, and the reading is what the colours alone give. It
never argues for a column: a missing line proves little when real lines range from
plain to barely there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import project
from rules.pieces import BRICK_MM, STUD_MM, Piece
from vision.evidence import Evidence

SEAM_CUE = True
"""Whether the cue speaks at all; off only to measure what it brings."""
SEAM_FROM = 0.04
"""The joints' dip (:func:`joint_dip`) from which a stack's seams begin to count. On the
development turns with seams (games 6000, 7000 and 8000, 40 turns each) the faces of
true columns at :data:`MIN_LEVEL_PX` or more reached at most 0.032; true three-brick
stacks whose lines show reach 0.11-0.20, most show none (a faint or blurred line)."""
SEAM_RAMP = 0.04
"""How much more dip makes them certain (the cue then prices a column as surely as
levels of different colours do)."""
MIN_FACE_PX = 5.0
"""A face narrower than this in the picture is seen too nearly edge-on to sample."""
MIN_LEVEL_PX = 6.0
"""A level shorter than this in the picture leaves too few rows between its joints: at
5.9 px a true column's face reached 0.072 on the development turns (read as three
bricks with 5 px here, while one stack was read right)."""
LINES = 9
"""Vertical lines sampled across each face (its middle 70 %)."""
EDGE_MM = 1.0
"""The stack's own bottom and top rows are left out (the board's contact shadow, the
top face's edge)."""
CONTROL_SHARE = 0.75
"""The quantile of the other rows' dips a joint's dip is measured against."""
NEW_SHARE = 0.3
"""A face is read only where at least this share of it lies on pixels that changed (a new
stack's faces lie 50-100 % on them in the seeded test frame)."""
DARK_FLOOR = 60.0
"""The light (the three channels summed, 0-765) below which a face's dips are no longer
taken as shares of its own: a face of a dark colour in shade sums to 20-30, where the
frame's noise and its compression's steps are a tenth of the light or more. On the
development turns without seams a dark column's side (summing to about 24) so passed as
three bricks; the faces where seams were read sum to 80-310."""
HIDDEN_MM = 2.0
"""A sample counts as hidden where the palace before the turn is nearer than this in
front of it."""

_FACES = (((0.0, 0.0), (0.0, 1.0), (-1.0, 0.0)), ((1.0, 0.0), (1.0, 1.0), (1.0, 0.0)),
          ((0.0, 0.0), (1.0, 0.0), (0.0, -1.0)), ((0.0, 1.0), (1.0, 1.0), (0.0, 1.0)))
"""A cell's four sides: their two bottom corners (in cells) and their outward normal."""
BOX_MARGIN_PX = 2
"""Region pixels by which a face's box (its corners' pixels) is widened before it is
asked for changed pixels: a sample's pixel is rounded (half a pixel), and the lens bends
a face's straight edges by far less than a pixel over its few dozen."""
GROUP_POINTS = 4096
"""Samples projected at once (:meth:`SeamLines._dips`)."""
_ACROSS = np.linspace(0.15, 0.85, LINES)
"""Where the lines lie across a face, as shares of its width."""


class SeamLines:
    """How surely each stack's place shows the seams of three bricks, per turn (the
    column candidates that share a place ask alike)."""

    def __init__(self, evidence: Sequence[Evidence]) -> None:
        self.evidence = list(evidence)
        self._known: dict[tuple[int, int, int], float] = {}
        self._grey: list[NDArray[np.float32] | None] = [None] * len(self.evidence)
        self._table: list[NDArray[np.int32] | None] = [None] * len(self.evidence)
        self._eyes = [tuple(ev.view.pose.camera_center.tolist()) for ev in self.evidence]

    def seen(self, piece: Piece) -> float:
        """0..1: how surely a column's place shows a seam at both of its inner joints
        (so it is three bricks), from the face that shows them best; 0 when no face
        shows them, or none can be seen."""
        if not SEAM_CUE:
            return 0.0
        key = (piece.x, piece.y, piece.z)
        known = self._known.get(key)
        if known is None:
            self.look([key])
            known = self._known[key]
        return known

    def look(self, places: Sequence[tuple[int, int, int]]) -> None:
        """Works out :meth:`seen` for many column places at once (those not known yet):
        a round prices hundreds of columns, and each place's projections, sampled
        alone, cost more in numpy's fixed costs than in arithmetic. Every place's
        answer is the very number it gets alone (see :meth:`_dips`)."""
        if not SEAM_CUE:
            return
        todo = list(dict.fromkeys(p for p in places if p not in self._known))
        if not todo:
            return
        views = [self._dips(i, todo) for i, ev in enumerate(self.evidence)
                 if ev.picture is not None]
        for k, key in enumerate(todo):
            dip = max((dips[k] for dips in views), default=0.0)
            self._known[key] = min(max((dip - SEAM_FROM) / SEAM_RAMP, 0.0), 1.0)

    def _dips(self, view: int, places: Sequence[tuple[int, int, int]]) -> list[float]:
        """Each place's best face's dip at its weaker joint, in one view. The faces the
        camera sees, of all the places, are sampled together (one projection for their
        ends, one for their samples): a point's pixel is the very number its own
        projection gives (the projection's matrix product is row by row, the rest is
        per point), so each place's dip is the one it gets alone."""
        ev = self.evidence[view]
        assert ev.picture is not None
        cam, pose = ev.view.camera, ev.view.pose
        ex, ey, _ = self._eyes[view]
        faces = []  # (place's index, face's two bottom corners, the place)
        for k, (x, y, z) in enumerate(places):
            for a, b, (nx, ny) in _FACES:
                # The face's normal (one axis, outward) against the way to the camera from
                # its middle: the sign of the one term the dot product has.
                if (nx * (ex - (x + (a[0] + b[0]) / 2) * STUD_MM)
                        + ny * (ey - (y + (a[1] + b[1]) / 2) * STUD_MM)) > 0:
                    faces.append((k, a, b, x, y, z * BRICK_MM))
        best = [0.0] * len(places)
        if not faces:
            return best
        ends = np.array([[[(x + a[0]) * STUD_MM, (y + a[1]) * STUD_MM, base + 1.5 * BRICK_MM],
                          [(x + b[0]) * STUD_MM, (y + b[1]) * STUD_MM, base + 1.5 * BRICK_MM],
                          [(x + a[0]) * STUD_MM, (y + a[1]) * STUD_MM, base],
                          [(x + a[0]) * STUD_MM, (y + a[1]) * STUD_MM, base + 3 * BRICK_MM],
                          [(x + b[0]) * STUD_MM, (y + b[1]) * STUD_MM, base],
                          [(x + b[0]) * STUD_MM, (y + b[1]) * STUD_MM, base + 3 * BRICK_MM]]
                         for _, a, b, x, y, base in faces])
        corners = project(cam, pose, ends.reshape(-1, 3)).reshape(len(faces), 6, 2)
        finite = np.isfinite(corners).all(axis=(1, 2))
        # A face none of whose samples can lie on a changed pixel is no new face (its
        # share of them is 0): it is neither sampled nor projected.
        finite = (finite & self._may_be_new(view, corners[:, 2:], finite)).tolist()
        # Each face the camera sees well enough: its heights and its samples' points.
        sampled: list[tuple[int, NDArray[np.float64], float, NDArray[np.float64]]] = []
        for (k, a, b, x, y, base), px, ok in zip(faces, corners, finite, strict=True):
            if not ok:
                continue
            # np.linalg.norm's own sums for a vector (the same floats), without its checks.
            d = px[1] - px[0]
            across = math.sqrt(d.dot(d))
            d = px[3] - px[2]
            per_mm = math.sqrt(d.dot(d)) / (3 * BRICK_MM)
            if across < MIN_FACE_PX or per_mm * BRICK_MM < MIN_LEVEL_PX:
                continue
            heights = np.arange(EDGE_MM, 3 * BRICK_MM - EDGE_MM, 1 / (3 * per_mm))
            fx = (x + a[0] + _ACROSS * (b[0] - a[0])) * STUD_MM
            fy = (y + a[1] + _ACROSS * (b[1] - a[1])) * STUD_MM
            points = np.empty((len(heights), LINES, 3))
            points[..., 0] = fx
            points[..., 1] = fy
            points[..., 2] = base + heights[:, None]
            sampled.append((k, heights, per_mm, points.reshape(-1, 3)))
        # A few thousand points at a time, not the whole round's faces at once: numpy's
        # matrix product (OpenBLAS) turns to several threads past some 100 000 rows,
        # which on a loaded machine costs up to a hundredfold a row, and the elementwise
        # steps run faster on arrays that stay in the cache.
        group: list[tuple[int, NDArray[np.float64], float, NDArray[np.float64]]] = []
        size = 0
        for face in sampled:
            group.append(face)
            size += len(face[3])
            if size >= GROUP_POINTS or face is sampled[-1]:
                self._read_faces(view, group, best)
                group, size = [], 0
        return best

    def _may_be_new(self, view: int, corners: NDArray[np.float64],
                    finite: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Whether any changed pixel of the region lies in each face's box (its four
        corners' pixels, ``corners``, widened by :data:`BOX_MARGIN_PX`): every sample's
        pixel lies in it, so a face without one has none on changed pixels."""
        v = self.evidence[view].view
        h, w = v.shape
        region = v.to_region(np.where(finite[:, None, None], corners, 0.0))
        lo = np.floor(region.min(axis=1)).astype(np.int64) - BOX_MARGIN_PX
        hi = np.ceil(region.max(axis=1)).astype(np.int64) + BOX_MARGIN_PX
        x0, y0 = np.maximum(lo[:, 0], 0), np.maximum(lo[:, 1], 0)
        x1, y1 = np.minimum(hi[:, 0], w - 1) + 1, np.minimum(hi[:, 1], h - 1) + 1
        some = (x0 < x1) & (y0 < y1)
        x0, y0, x1, y1 = (np.where(some, c, 0) for c in (x0, y0, x1, y1))
        table = self._changed_table(view)
        count = table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]
        return some & (count > 0)

    def _changed_table(self, view: int) -> NDArray[np.int32]:
        """The count of changed pixels above and left of each region pixel (a summed-area
        table, ``cv2.integral``), made once a turn."""
        table = self._table[view]
        if table is None:
            ev = self.evidence[view]
            changed = (ev.weight > 0).astype(np.uint8).reshape(ev.view.shape)
            table = self._table[view] = cv2.integral(changed)
        return table

    def _read_faces(self, view: int,
                    sampled: list[tuple[int, NDArray[np.float64], float, NDArray[np.float64]]],
                    best: list[float]) -> None:
        """Raises each place's ``best`` dip to its faces' in ``sampled`` (the place's
        index, the face's heights, pixels a millimetre and samples' points), the faces'
        samples projected together."""
        ev = self.evidence[view]
        v = ev.view
        points = np.concatenate([s[3] for s in sampled])
        image = project(v.camera, v.pose, points).astype(np.float32)
        region = np.round(v.to_region(image.astype(np.float64))).astype(np.int64)
        h, w = v.shape
        inside = ((region[:, 0] >= 0) & (region[:, 0] < w) & (region[:, 1] >= 0)
                  & (region[:, 1] < h))
        flat = np.where(inside, region[:, 1] * w + region[:, 0], 0)
        changed = (ev.weight[flat] > 0) & inside
        # A face is new where enough of its samples lie on pixels that changed: a stack's
        # face is new, and a place where none stands shows whatever is there (old bricks'
        # own seams, the board's rows of studs). The counts of all faces at once: two
        # faces in three stop there.
        starts = np.cumsum([0] + [len(s[3]) for s in sampled[:-1]])
        counts = np.add.reduceat(inside.astype(np.int64), starts).tolist()
        news = np.add.reduceat(changed.astype(np.int64), starts).tolist()
        read = [(face, at) for face, at, count, new
                in zip(sampled, starts.tolist(), counts, news, strict=True)
                if count and new / count >= NEW_SHARE]
        if not read:
            return
        # The faces read, their samples together (one depth test, one remap); each
        # sample's value is its own (per point), so each face's profile is the one it
        # gets alone.
        take = np.concatenate([np.arange(at, at + len(face[3])) for face, at in read])
        values = self._samples(view, points[take], image[take], region[take], inside[take])
        at = 0
        for k, heights, per_mm, pts in (face for face, _ in read):
            profile = self._profile(values[at:at + len(pts)], len(heights))
            at += len(pts)
            if profile is not None:
                best[k] = max(best[k], joint_dip(profile, heights, per_mm))

    def _samples(self, view: int, points: NDArray[np.float64], image: NDArray[np.float32],
                 region: NDArray[np.int64], inside: NDArray[np.bool_]) -> NDArray[np.float32]:
        """The frame's light at samples (their points, their pixels in the frame and in
        the region, and which lie in the region), NaN where hidden: where the palace
        before the turn is nearer than :data:`HIDDEN_MM` in front of the sample, or off
        the region (a face at the frame's edge), nothing is known of it."""
        v = self.evidence[view].view
        col, row = region[inside, 0], region[inside, 1]
        # np.linalg.norm's own sums along a row (the same floats), without its checks.
        apart = points[inside] - v.eye
        far = np.sqrt(np.add.reduce(apart * apart, axis=1))
        hidden = np.ones(len(points), bool)
        hidden[inside] = v.old_depth[row, col] < far - HIDDEN_MM
        grey = self._grey_of(view)
        values = cv2.remap(grey, image[:, 0].reshape(1, -1), image[:, 1].reshape(1, -1),
                           cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                           borderValue=np.nan).reshape(-1)
        values[hidden] = np.nan
        return values

    @staticmethod
    def _profile(values: NDArray[np.float32], rows: int) -> NDArray[np.float32] | None:
        """One face's median light up its height, from its samples' (``rows`` of
        :data:`LINES`, :meth:`_samples`), for a face new enough (:meth:`_dips` asks that
        first); None when it is mostly hidden."""
        values = values.reshape(rows, LINES)
        shown = np.isfinite(values)
        if shown.sum(axis=1).min() < LINES // 2 + 1:
            return None
        return masked_medians(values, shown).astype(np.float32)

    def _grey_of(self, view: int) -> NDArray[np.float32]:
        """The view's whole frame as the sum of its three channels (0..765), made once a
        turn, when the first face is sampled: a seam darkens all three alike."""
        grey = self._grey[view]
        if grey is None:
            picture = self.evidence[view].picture
            assert picture is not None
            # The channels added one by one: the same float32 sums as .sum(axis=2), a tenth
            # of the time.
            grey = self._grey[view] = (picture[..., 0].astype(np.float32) + picture[..., 1]
                                       + picture[..., 2])
        return grey


def joint_dip(profile: NDArray[np.float32], heights: NDArray[np.float64],
              per_mm: float) -> float:
    """The weaker of the two inner joints' dips less what the face's other rows show
    (see the module's docstring).

    A row's dip is how much darker the darkest of the rows within a pixel and a third
    of a millimetre of it are (the profile averaged over about a pixel first) than the
    face on either side of it, up to half a level away: darker than both sides, so
    that the edge of a shadow across the face, light above and dark below, is no seam.
    What the other rows show is the dip that a quarter of the rows a joint's reach or
    more from both joints reach or pass: a face's noise and shading make some dip.
    Dips are shares of the face's light, but of no less than :data:`DARK_FLOOR`: on a
    near-black face a step or two of noise is a large share, and its joints, as dark as
    the face beside them, passed the other rows by more than a seam does."""
    reach = 1.0 / per_mm + 0.3
    # The profile padded with its end rows (what np.pad's "edge" mode gives), then averaged.
    padded = np.concatenate((profile[:1], profile, profile[-1:]))
    smooth = np.convolve(padded, np.ones(3) / 3, mode="valid")
    rows = np.arange(heights[0], heights[-1], reach / 2)
    apart = ((np.abs(rows - BRICK_MM) > 2 * reach + 0.5)
             & (np.abs(rows - 2 * BRICK_MM) > 2 * reach + 0.5))
    dips = _dips(np.concatenate([[BRICK_MM, 2 * BRICK_MM], rows[apart]]), heights,
                 profile, smooth, reach)
    joints = min(float(dips[0]), float(dips[1]))  # as Python's min takes a NaN
    others = dips[2:][~np.isnan(dips[2:])].tolist()
    if np.isnan(joints) or not others:
        return 0.0
    return joints - quantile(others, CONTROL_SHARE)


def quantile(values: list[float], share: float) -> float:
    """``float(np.quantile(values, share))`` (its linear method) worked out in Python
    floats: the same sorted neighbours and the same interpolation, from the nearer of
    the two, to the bit; the numpy call's own checks cost more than the sum, and it is
    asked for every column place a turn prices. ``values`` has no NaN."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * share
    if at >= len(ordered) - 1:
        return ordered[-1]
    below = math.floor(at)
    a, b = ordered[below], ordered[below + 1]
    t = at - below
    step = b - a
    return b - step * (1 - t) if t >= 0.5 else a + step * t


def _dips(ats: NDArray[np.float64], heights: NDArray[np.float64],
          profile: NDArray[np.float32], smooth: NDArray[np.float64], reach: float
          ) -> NDArray[np.float64]:
    """Each height's dip (see :func:`joint_dip`), NaN where the face has too few rows
    on either side: all heights at once, a face's forty-odd being asked every time a
    column's place is priced."""
    d = heights[None, :] - ats[:, None]
    window = np.abs(d) <= reach
    below = (d < -reach - 0.5) & (d >= -BRICK_MM / 2)
    above = (d > reach + 0.5) & (d <= BRICK_MM / 2)
    rows = np.broadcast_to(profile, d.shape)
    ref = np.minimum(masked_medians(rows, below), masked_medians(rows, above))
    ref = ref.astype(np.float64)
    low = np.where(window, smooth[None, :], np.inf).min(axis=1)
    ok = window.any(axis=1) & (below.sum(axis=1) >= 3) & (above.sum(axis=1) >= 3)
    with np.errstate(invalid="ignore"):
        return np.where(ok, (ref - low) / np.maximum(ref, DARK_FLOOR), np.nan)


def masked_medians(values: NDArray[np.float32], mask: NDArray[np.bool_]
                   ) -> NDArray[np.float32]:
    """Each row's median over its ``mask``ed entries (NaN for none), the very number
    ``np.median`` gives for them: sorted once for all rows, instead of a median call
    (or numpy's masked-array ``nanmedian``) per row. Rows that count every entry have
    the cheaper :func:`calibration.turn.row_medians`."""
    count = mask.sum(axis=1)
    ordered = np.sort(np.where(mask, values, np.float32(np.inf)), axis=1)
    # Each row's two middle entries, indexed directly (what np.take_along_axis picks).
    each = np.arange(len(ordered))
    lo = ordered[each, np.maximum((count - 1) // 2, 0)]
    hi = ordered[each, np.maximum(count // 2, 0)]
    return np.where(count > 0, (lo + hi) / np.float32(2), np.float32(np.nan))
