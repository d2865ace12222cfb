"""How much of a palace its views show at all: full mode's ceiling on the twin.

Each render knows which piece owns each pixel (:attr:`twin.Frame.piece_ids`, with
occlusion by other pieces and by clutter), so the pixels each view shows of each true
piece are counted for free. A piece no view shows can only be read by inference (a
brick under an arch's leg, the rules saying something must hold it up); a reading that
names exactly the pieces some view shows, and nothing else, is the oracle whose F1
bounds what reading the pictures alone can reach.
:mod:`bench.full_palace` counts it as a stage of the full bench.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import project
from rules.pieces import BRICK_MM, STUD_MM, Kind, Piece, place_key
from twin import Frame

Key = tuple[object, ...]
Shown = dict[Key, tuple[int, ...]]

FAINT_PX = 20
"""Below this many frame pixels in its best view a piece counts as barely seen: at the
bench's 1280x720 a stud's top face is about 15-25 px wide, so 20 px is a sliver of one
face, about 1 % of a 120-piece palace's median piece (measured on game 1000: 1983 px),
and at the carving's working scale only a handful of pixels."""

MOSTLY_HIDDEN = 0.25
"""Below this share of its own silhouette (:func:`whole_pixels`) in its best view a piece
counts as mostly hidden: a lone brick, arch or column shows 0.87-0.98 of it (a seeded
camera 45-55 degrees up, two views), the rest being the box's inset and an arch's
opening."""


def shown_pixels(frames: Sequence[Frame]) -> Shown:
    """Per true piece (:func:`rules.pieces.place_key`), the pixels each frame shows of it
    with everything in front of it drawn: the twin's own piece labels."""
    keys = [place_key(p) for p in frames[0].pieces]
    counts = np.zeros((len(keys), len(frames)), np.int64)
    for v, frame in enumerate(frames):
        assert [place_key(p) for p in frame.pieces] == keys, "views of one scene"
        ids = frame.piece_ids[frame.piece_ids >= 0]
        counts[:, v] = np.bincount(ids.ravel(), minlength=len(keys))[:len(keys)]
    return {k: tuple(int(n) for n in row) for k, row in zip(keys, counts, strict=True)}


def whole_pixels(frames: Sequence[Frame]) -> Shown:
    """Per true piece, the pixels its own silhouette would cover in each frame with nothing
    in front: the union of its cells' boxes (studs and a plant's leaves left out), cut at
    the frame's edges. What :func:`shown_pixels` counts is a share of this."""
    out: dict[Key, list[int]] = {place_key(p): [] for p in frames[0].pieces}
    for frame in frames:
        h, w = frame.piece_ids.shape
        for piece in frames[0].pieces:
            out[place_key(piece)].append(_silhouette(frame, piece, w, h))
    return {k: tuple(v) for k, v in out.items()}


def _silhouette(frame: Frame, piece: Piece, width: int, height: int) -> int:
    """:func:`whole_pixels` of one piece in one frame."""
    cells = np.array(sorted(piece.voxels()), np.float64)
    corners = np.array([(dx, dy, dz) for dx in (0, 1) for dy in (0, 1) for dz in (0, 1)],
                       np.float64)
    pts = (cells[:, None, :] + corners[None]) * (STUD_MM, STUD_MM, BRICK_MM)
    px = project(frame.camera, frame.pose, pts.reshape(-1, 3)).reshape(len(cells), 8, 2)
    low = np.clip(np.floor(px.min(axis=(0, 1))), 0, (width, height)).astype(int)
    high = np.clip(np.ceil(px.max(axis=(0, 1))) + 1, 0, (width, height)).astype(int)
    if np.any(high <= low):
        return 0
    mask = np.zeros((high[1] - low[1], high[0] - low[0]), np.uint8)
    for box in px:
        hull = cv2.convexHull(np.round((box - low) * 4).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1, shift=2)
    return int(mask.sum())


def seen_keys(shown: Mapping[Key, tuple[int, ...]], least: int = 1) -> set[Key]:
    """The pieces some view shows at least ``least`` pixels of."""
    return {k for k, px in shown.items() if max(px, default=0) >= least}


@dataclass
class SeenTally:
    """What the views show of the pieces to read, over palaces: by level and kind, how
    many some view shows, how many only one view shows, how many only faintly
    (:data:`FAINT_PX`) and how many none."""

    truth: int = 0
    seen: int = 0
    one_view: int = 0
    faint: int = 0
    mostly_hidden: int = 0
    clear: int = 0
    level_truth: Counter[int] = field(default_factory=Counter)
    level_seen: Counter[int] = field(default_factory=Counter)
    level_clear: Counter[int] = field(default_factory=Counter)
    kind_truth: Counter[str] = field(default_factory=Counter)
    kind_seen: Counter[str] = field(default_factory=Counter)
    kind_faint: Counter[str] = field(default_factory=Counter)
    kind_mostly_hidden: Counter[str] = field(default_factory=Counter)
    level_kind_unseen: Counter[tuple[int, str]] = field(default_factory=Counter)

    def add(self, want: Iterable[Key], shown: Mapping[Key, tuple[int, ...]],
            whole: Mapping[Key, tuple[int, ...]] | None = None) -> None:
        """Counts one palace's pieces to read (``want``) by what its views show of each
        (``shown``), and with ``whole`` (:func:`whole_pixels`) what share of itself."""
        for key in want:
            px = shown.get(key, ())
            level, kind = key_level(key), key_kind(key)
            views = sum(n > 0 for n in px)
            self.truth += 1
            self.level_truth[level] += 1
            self.kind_truth[kind] += 1
            if views == 0:
                self.level_kind_unseen[level, kind] += 1
                continue
            self.seen += 1
            self.one_view += views == 1
            self.level_seen[level] += 1
            self.kind_seen[kind] += 1
            if max(px) < FAINT_PX:
                self.faint += 1
                self.kind_faint[kind] += 1
            hidden = whole is not None and best_share(px, whole[key]) < MOSTLY_HIDDEN
            if hidden:
                self.mostly_hidden += 1
                self.kind_mostly_hidden[kind] += 1
            if not hidden and max(px) >= FAINT_PX:
                self.clear += 1
                self.level_clear[level] += 1

    def oracle_f1(self, faint_too: bool = True) -> float:
        """The F1 of a reading that names exactly the pieces some view shows and nothing
        else (precision 1); without ``faint_too`` only those some view shows clearly (at
        least :data:`FAINT_PX`, and :data:`MOSTLY_HIDDEN` of itself where that is known)."""
        seen = self.seen if faint_too else self.clear
        r = seen / max(self.truth, 1)
        return 2 * r / (1 + r) if seen else 0.0


def best_share(shown: Sequence[int], whole: Sequence[int]) -> float:
    """The largest share of its own silhouette any view shows of a piece."""
    return max((a / b for a, b in zip(shown, whole, strict=True) if b > 0), default=0.0)


def key_level(key: Key) -> int:
    """The level a place key (:func:`rules.pieces.place_key`) stands at."""
    level = key[3]
    assert isinstance(level, int)
    return level


def key_kind(key: Key) -> str:
    """The kind a place key (:func:`rules.pieces.place_key`) names, as the tallies count
    pieces by."""
    kind = key[0]
    assert isinstance(kind, Kind)
    return kind.value


def show_seen(tally: SeenTally) -> None:
    """The ceiling in a few lines, as the full bench and :func:`main` print it."""
    t = max(tally.truth, 1)
    print(f"  visible in some view {tally.seen}/{tally.truth} ({tally.seen / t:.1%}); "
          f"in one view only {tally.one_view}; under {FAINT_PX} px in the best view "
          f"{tally.faint}; under {MOSTLY_HIDDEN:.0%} of itself {tally.mostly_hidden}; "
          f"in none {tally.truth - tally.seen}")
    print(f"  oracle reading the visible pieces: F1 {tally.oracle_f1():.3f} "
          f"({tally.oracle_f1(faint_too=False):.3f} reading only those shown clearly: "
          f"{FAINT_PX} px and {MOSTLY_HIDDEN:.0%} of themselves)")
    print("  by kind (visible / faint / mostly hidden / to read): " + ", ".join(
        f"{k}: {tally.kind_seen[k]}/{tally.kind_faint[k]}/{tally.kind_mostly_hidden[k]}/{n}"
        for k, n in tally.kind_truth.most_common()))
    print("  by level (shown clearly / to read): " + ", ".join(
        f"{z}: {tally.level_clear[z]}/{n}" for z, n in sorted(tally.level_truth.items())))
    print("  hidden in every view, by level and kind: " + ", ".join(
        f"{z} {k} {n}" for (z, k), n in sorted(tally.level_kind_unseen.items())))
