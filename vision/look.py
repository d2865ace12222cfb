"""What this table looks like: the colours of the card's regions and of the pieces under
this light, learned from frames whose palace is known (the set-up, each confirmed turn).

The last such frame is also kept as the picture to compare the next turn with when the
camera loop has no settled frame from before the turn to hand over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, project
from calibration.evidence import BoardLocation
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, STUD_MM


@dataclass
class TableLook:
    """Learned colours of this table (BGR, 0..255), and the last frame of a known palace."""

    region_colours: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    reference: NDArray[np.uint8] | None = None
    reference_location: BoardLocation | None = None
    reference_pieces: frozenset[tuple[object, ...]] = frozenset()
    frames_learned: int = 0

    def learn(self, frame: NDArray[np.uint8], camera: Camera, location: BoardLocation,
              palace: Palace) -> None:
        """Adapts to a frame whose palace is known: the colour of each ground region where
        no piece stands (a running mean over frames), and the frame as the reference."""
        if not location.found or location.pose is None:
            return
        covered = {c for p in palace for c in p.footprint()}
        pts, chars = [], []
        for y in range(BOARD_STUDS):
            for x in range(BOARD_STUDS):
                if (x, y) in covered:
                    continue
                # The card between studs, a quarter stud from the cell's corner.
                pts.append([(x + 0.15) * STUD_MM, (y + 0.15) * STUD_MM, 0.0])
                chars.append(palace.ground.char(x, y))
        px = np.round(project(camera, location.pose, np.array(pts))).astype(int)
        h, w = frame.shape[:2]
        ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        colours = np.zeros((len(pts), 3))
        colours[ok] = frame[px[ok, 1], px[ok, 0]]
        rate = 1.0 / (self.frames_learned + 1)
        for char in set(chars):
            sel = ok & (np.array(chars) == char)
            if sel.sum() < 5:
                continue
            seen = np.median(colours[sel], axis=0)
            old = self.region_colours.get(char)
            self.region_colours[char] = seen if old is None else (1 - rate) * old + rate * seen
        self.reference = frame.copy()
        self.reference_location = location
        self.reference_pieces = frozenset(_place(p) for p in palace)
        self.frames_learned += 1

    def reference_for(self, palace: Palace) -> tuple[NDArray[np.uint8], BoardLocation] | None:
        """The learned frame when it shows exactly ``palace``: the turn's frame before."""
        if self.reference is None or self.reference_location is None:
            return None
        if frozenset(_place(p) for p in palace) != self.reference_pieces:
            return None
        return self.reference, self.reference_location


def _place(piece: object) -> tuple[object, ...]:
    p = piece
    return (p.kind, p.x, p.y, p.z, p.axis, p.turn, p.color)  # type: ignore[attr-defined]
