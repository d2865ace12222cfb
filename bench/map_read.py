"""Map reading benchmark: studs read right, on twin frames and on the Cycles frames.

    python3 -m bench.map_read            # 60 twin maps x (set-up, palace) + the Cycles set
    python3 -m bench.map_read --quick    # 10 twin maps + the first 8 Cycles frames
    python3 -m bench.map_read --seed 50000 --maps 40 --no-cycles   # a dev set
    python3 -m bench.map_read --second-view 180   # each view with a second webcam too

Each twin frame draws a random ground map (``rules.random_map``) under the wide look and
is read from one view: once with the set-up position, once with a palace from a bot
game, and both again with the card's gloss (``RenderOptions.card_sheen``). A stud is
*visible* when the twin's labels show the board's stud top at its centre; *right* when
the character read (L, D, G, X, or S for the starting area) equals the map's. Reported:
the share of visible studs read (coverage), the share of studs read that are right
(target 99.5 %), and the share of hidden studs read as known and wrong (target under 0.5
%: a hidden stud should come out as ``?``). Cycles frames carry no labels: there a stud
counts as hidden when a piece stands on it. The time of one reading is set against
OpenCV's ArUco marker detection on the same frame.

The players can correct the map on the set-up dialog before the game starts on it (a
stud, the region clicked or every stud of an ink, :func:`palace.camera_map.painted`).
Each reading is also corrected as a player would, click by click, each click the one
on a stud read wrongly that leaves fewest studs wrong (its true ink, or unknown for
the starting area); printed: the studs read wrongly after 0 to 3 clicks, and the
readings left with none.

Several views: with ``--second-view DEG`` each matt twin view is read again with a
picture of the same board from a second webcam that many degrees round it (a stud is
visible when either picture shows it), and the Cycles palaces (one webcam, the board
turned between four views) are read from their first view and from all four fused;
the share of pictures the reading fused is printed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from bench.calibration import aruco_ms
from calibration.camera import Camera, Pose
from calibration.map_read import MapReadError, cell_in, map_cells, read_map
from palace.camera_map import PAINT_REACHES, painted
from rules.maps import UNKNOWN_GROUND, GroundMap, MapError
from rules.pieces import BOARD_STUDS
from twin.cycles.frames import load_frames, load_palaces
from twin.map_views import map_views, truth_cells, visible_cells

CHARS = ("L", "D", "G", "X", "S", UNKNOWN_GROUND)
"""The characters of the confusion matrix, in its order."""
CHARS_SORTED = np.array(sorted(CHARS))
ORDER = np.array([CHARS.index(c) for c in CHARS_SORTED])


@dataclass
class Tally:
    views: int = 0
    read: int = 0
    offered: int = 0
    """Pictures offered to the readings that found the board, and of those fused."""
    fused: int = 0
    visible: int = 0
    known: int = 0
    right: int = 0
    hidden: int = 0
    hidden_wrong: int = 0
    ms: list[float] = field(default_factory=list)
    aruco: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((len(CHARS), len(CHARS)), int))
    after_clicks: np.ndarray = field(default_factory=lambda: np.zeros(CLICKS + 1, int))
    """Studs read wrongly (anywhere on the board) after 0, 1, ... clicks."""
    mended: list[int] = field(default_factory=lambda: [0] * (CLICKS + 1))
    """Readings with no stud read wrongly after 0, 1, ... clicks."""

    def add(self, views: Sequence[tuple[str, np.ndarray, Camera, Pose]], ground: GroundMap,
            visible: np.ndarray) -> None:
        """Read the pictures (name, image, camera, true pose) as one reading and score it
        against the map; ``visible`` per truth cell, in any of the pictures."""
        self.views += 1
        name, image = views[0][0], views[0][1]
        self.aruco.append(aruco_ms(image))
        t0 = time.perf_counter()
        try:
            reading = read_map([(n, im, cam) for n, im, cam, _ in views], views[0][2])
        except MapReadError:
            self.misses.append(name)
            return
        finally:
            self.ms.append((time.perf_counter() - t0) * 1000)
        truth_pose = views[reading.picture][3]
        self.offered += len(views)
        self.fused += reading.fused
        self.read += 1
        where = cell_in(reading.pose, truth_pose)
        truth = truth_cells(ground)
        got = reading.cells().reshape(-1)
        on_board = where >= 0
        want = np.where(on_board, truth[np.maximum(where, 0)], UNKNOWN_GROUND)
        seen = np.where(on_board, visible[np.maximum(where, 0)], False)
        known = (got != UNKNOWN_GROUND) & on_board
        self.visible += int(seen.sum())
        self.known += int((known & seen).sum())
        self.right += int((known & seen & (got == want)).sum())
        self.hidden += int((~seen & on_board).sum())
        self.hidden_wrong += int((known & ~seen & (got != want)).sum())
        rows = np.searchsorted(CHARS_SORTED, want[seen])
        cols = np.searchsorted(CHARS_SORTED, got[seen])
        np.add.at(self.confusion, (ORDER[rows], ORDER[cols]), 1)
        left = corrected(reading.ground, np.where(on_board, want, got))
        self.after_clicks += left
        for k, wrong in enumerate(left):
            self.mended[k] += int(wrong == 0)

    def report(self, title: str) -> None:
        print(f"\n== {title}: {self.views} readings, board found in {self.read}")
        if not self.read:
            return
        if self.offered > self.read:
            print(f"pictures fused          {self.fused} of {self.offered}")
        print(f"visible studs read      {self.known / max(self.visible, 1):.1%} "
              f"({self.known} of {self.visible})")
        print(f"read studs right        {self.right / max(self.known, 1):.2%} "
              f"({self.right} of {self.known}; target 99.5 %)")
        print(f"hidden read wrongly     {self.hidden_wrong / max(self.hidden, 1):.2%} "
              f"({self.hidden_wrong} of {self.hidden}; target under 0.5 %)")
        ms, ref = float(np.median(self.ms)), float(np.median(self.aruco))
        print(f"reading ms p50          {ms:.0f} = {ms / ref:.1f} x ArUco ({ref:.1f} ms)")
        if self.misses:
            print(f"  board not found: {' '.join(self.misses)}")
        print("studs read wrongly after " + " / ".join(str(k) for k in range(CLICKS + 1))
              + " clicks: " + " / ".join(str(int(n)) for n in self.after_clicks)
              + "; readings with none: " + " / ".join(str(n) for n in self.mended)
              + f" of {self.read}")
        print("visible studs, true (rows) against read (columns):")
        print("      " + "".join(f"{c:>7}" for c in CHARS))
        for c, row in zip(CHARS, self.confusion, strict=True):
            print(f"  {c}   " + "".join(f"{n:>7}" for n in row))


CLICKS = 3
"""Corrections a player makes on the set-up dialog, at most, in this measure."""


def corrected(ground: GroundMap, want: np.ndarray) -> list[int]:
    """Studs read wrongly (known, and not ``want``'s, the truth in the reading's frame)
    after 0 .. :data:`CLICKS` clicks, each the click on a wrong stud that leaves fewest
    wrong: a player comparing the picture with the card."""
    want = want.reshape(BOARD_STUDS, BOARD_STUDS)

    def wrong(cells: np.ndarray) -> np.ndarray:
        return (cells != UNKNOWN_GROUND) & (cells != want)

    left = [int(wrong(map_cells(ground)).sum())]
    for _ in range(CLICKS):
        cells = map_cells(ground)
        best, tried = (left[-1], ground), set()
        for y, x in zip(*np.nonzero(wrong(cells)), strict=True):
            ink = str(want[y, x]) if want[y, x] in "LDGX" else UNKNOWN_GROUND
            for reach in PAINT_REACHES:
                key = (reach, ink, str(cells[y, x]) if reach == "ink" else (int(x), int(y)))
                if key in tried:
                    continue
                tried.add(key)
                try:
                    after = painted(ground, int(x), int(y), ink, reach)
                except MapError:  # the starting staircase's studs
                    continue
                n = int(wrong(map_cells(after)).sum())
                if n < best[0]:
                    best = (n, after)
        left.append(best[0])
        ground = best[1]
    return left


def under_pieces(pieces: tuple, ground: GroundMap) -> np.ndarray:
    covered = np.zeros(BOARD_STUDS * BOARD_STUDS, bool)
    for piece in pieces:
        if piece.z == 0:
            for x, y in piece.footprint():
                covered[y * BOARD_STUDS + x] = True
    return covered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--maps", type=int, help="twin maps (default 60, quick 10)")
    parser.add_argument("--seed", type=int, default=20_000,
                        help="first twin seed (default 20000; take another range as a dev set)")
    parser.add_argument("--no-cycles", action="store_true", help="twin frames only")
    parser.add_argument("--second-view", type=float, metavar="DEG",
                        help="also read each matt twin view with a second webcam this many "
                        "degrees round the board (180: across the table)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = args.maps if args.maps is not None else (10 if args.quick else 60)
    setup, palace, gloss, setup2, palace2 = Tally(), Tally(), Tally(), Tally(), Tally()
    for i in range(n):
        for sheen in (False, True):
            second = None if sheen else args.second_view
            for view in map_views(args.seed + i, sheen=sheen, second_view=second):
                tally = gloss if sheen else setup if view.setup else palace
                first = (view.name, view.frame.image, view.camera, view.pose)
                tally.add([first], view.ground, visible_cells(view.frame))
                if view.second is not None:
                    both = setup2 if view.setup else palace2
                    both.add([first, (f"{view.name} second", view.second.image, view.camera,
                                      view.second.pose)], view.ground,
                             visible_cells(view.frame) | visible_cells(view.second))
    if n:
        setup.report("twin, set-up position, one view")
        palace.report("twin, a palace standing, one view")
        gloss.report("twin, the same views with a glossy card")
        if args.second_view is not None:
            where = f"{args.second_view:g} degrees round the board"
            setup2.report(f"twin, set-up position, with a second webcam {where} "
                          "(visible = in either view)")
            palace2.report(f"twin, a palace standing, with a second webcam {where}")
    if args.no_cycles:
        return
    cycles = Tally()
    for frame in load_frames(limit=8 if args.quick else None):
        hidden = under_pieces(frame.scene.pieces, frame.ground)
        cycles.add([(frame.name, frame.image, frame.camera, frame.pose)], frame.ground, ~hidden)
    cycles.report("Cycles frames, one view (hidden = under a piece)")
    first_view, all_views = Tally(), Tally()
    for built in load_palaces(limit=2 if args.quick else None):
        uncovered = ~under_pieces(built.scene.pieces, built.ground)
        views = [(f"{built.name} view {k}", image, built.camera, pose)
                 for k, (image, pose) in enumerate(zip(built.frames, built.poses, strict=True))]
        first_view.add(views[:1], built.ground, uncovered)
        all_views.add(views, built.ground, uncovered)
    first_view.report("Cycles palaces (about 120 pieces), the first view")
    all_views.report("Cycles palaces, four views round the table fused")


if __name__ == "__main__":
    main()
