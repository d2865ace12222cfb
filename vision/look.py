"""What this table looks like: the last frame whose palace is known (the set-up, each
confirmed turn), kept as the picture to compare the next turn with when the camera loop
has no settled frame from before the turn to hand over. Every colour under this light is
in it; turn mode reads the change against it, and full mode learns the bare board from
each view itself (:mod:`vision.bare`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.evidence import BoardLocation
from rules.palace import Palace


@dataclass
class TableLook:
    """The last frame of a known palace, where the board was in it, and that palace."""

    reference: NDArray[np.uint8] | None = None
    reference_location: BoardLocation | None = None
    reference_pieces: frozenset[tuple[object, ...]] = frozenset()

    def learn(self, frame: NDArray[np.uint8], location: BoardLocation, palace: Palace) -> None:
        """Adapts to a frame whose palace is known: it becomes the reference."""
        if not location.found or location.pose is None:
            return
        self.reference = frame.copy()
        self.reference_location = location
        self.reference_pieces = frozenset(_place(p) for p in palace)

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
