"""What a reading of the board says: the pieces seen, how sure, and what else they could be.

These records are the contract between reconstruction and everything that consumes it
(the camera loop, the CLI, the dashboard), so they are small, frozen and JSON-friendly.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from calibration.evidence import BoardLocation
from rules.maps import piece_to_json
from rules.pieces import Piece

UNCERTAIN_BELOW = 0.5
"""A piece read with less confidence than this makes the whole reading uncertain."""


@dataclass(frozen=True)
class PieceReading:
    """One piece read from the frames, with the other pieces the evidence also allows.

    ``confidence`` is 0..1: how much better this piece explains the pictures than its
    best alternative (another place, height, axis, kind or decoration colour), or than
    leaving it out. A piece hidden behind a tower, that only the rules put there, is
    read with a low confidence.
    """

    piece: Piece
    confidence: float
    alternatives: tuple[Piece, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = piece_to_json(self.piece)
        out["confidence"] = round(self.confidence, 3)
        if self.alternatives:
            out["alternatives"] = [piece_to_json(p) for p in self.alternatives]
        return out


WEIGH_TIE = 0.05
"""Two judged scores closer than this are a tie (the scores are sums of float32 pixel
weights, summed in different orders)."""


@dataclass(frozen=True)
class Weighed:
    """A turn's reading and another set of added pieces (a bench's truth) judged on the
    same evidence by the same objective (:meth:`vision.decode.Decoder.weighed`: the
    pixels' evidence, the rules' bonuses, the stacks' prior). It splits a wrong
    reading's blame: where the other set's own pixels do not show it (their evidence,
    without the rules' bonuses, is not above zero), no reader of these pictures could
    tell it from any other hidden staircase; where it shows and judges better, the
    search never reached it (the objective would have taken it); where it judges no
    better, the objective chose the reading (the evidence, or the rules' priors, prefer
    it), and no search could help."""

    reading: float
    other: float
    other_evidence: float
    """The other set's score on the pixels alone (:meth:`vision.decode.Decoder.score_of`)."""

    @property
    def unseen(self) -> bool:
        """Whether the other set's own pixels do not show it."""
        return self.other_evidence <= 0

    @property
    def search_missed(self) -> bool:
        """Whether the other set shows and judges better than the reading."""
        return not self.unseen and self.other > self.reading + WEIGH_TIE


@dataclass(frozen=True)
class TurnReading:
    """The pieces one turn added to the palace, as the frames after it show them.

    ``found`` is False when the board could not be located (``reason`` says why) or the
    frames cannot be compared with the palace before; ``added`` is then empty.
    ``uncertain`` says that at least one piece is doubtful, something changed that no
    piece explains, or nothing was read at all (a turn adds a staircase; ``reason`` then
    says so). ``seconds`` is the time the reading took. ``weighed`` is there only when
    the reader was asked to weigh other pieces against its reading (a bench's truth);
    it is no part of the reading's JSON.
    """

    found: bool
    reason: str
    added: tuple[PieceReading, ...]
    uncertain: bool
    location: BoardLocation | None
    seconds: float
    weighed: Weighed | None = None

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return tuple(r.piece for r in self.added)

    def to_json(self) -> dict[str, Any]:
        return {
            "found": self.found,
            "reason": self.reason,
            "uncertain": self.uncertain,
            "added": [r.to_json() for r in self.added],
            "location": None if self.location is None else self.location.to_json(),
            "seconds": round(self.seconds, 4),
        }


def board_not_found(located: Sequence[BoardLocation], started: float) -> TurnReading:
    """The reading when no frame shows the board: the first frame's reason, timed from
    ``started`` (a :func:`time.perf_counter` value)."""
    reason = located[0].reason or "the board was not found"
    return TurnReading(False, f"board not found: {reason}", (), True, located[0],
                       time.perf_counter() - started)
