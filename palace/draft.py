"""The turn being read: pieces the camera (or a player) says were added, before it counts.

A camera reading is a guess until the players accept it, so the pieces of the current
turn live in a :class:`Draft` first: each with the confidence the reading gave it and
the alternatives it considered, each correction (add, remove, move, change kind or
colour, the Frog taken or not) producing a new draft. Drafts are plain data that
round-trip through JSON, so the game log can store one after every step and a crash
mid-turn loses none of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rules.maps import piece_to_json
from rules.pieces import ANIMAL_KINDS, Axis, DecorationColor, Kind, Piece
from rules.scene import SceneError, piece_from_json
from vision.reading import UNCERTAIN_BELOW

DOUBT_BELOW = UNCERTAIN_BELOW
"""A piece read with less confidence than this is shown as doubtful, and the turn put
to the players: the reader's own flag (:data:`vision.reading.UNCERTAIN_BELOW`), which
its fitted confidence is set to and the benches count the turns asked by. The page had
its own 0.6: on the 240 development turns (games 9000 to 12000 on) it asked about 25
more turns than the flag, none of them with a wrong report."""
_PREFIX = {Kind.ARCH: "a", Kind.BRICK: "b", Kind.COLUMN: "c", Kind.DECORATION: "d"}
MAX_DRAFT_PIECES = 64
"""More pieces than a whole staircase could hold means a misreading, not a turn."""


class CorrectionError(ValueError):
    """A correction that cannot be applied; the message says which piece and why."""


@dataclass(frozen=True)
class DraftPiece:
    """One piece of the draft with what the reading said about it."""

    piece: Piece
    confidence: float = 1.0
    alternatives: tuple[Piece, ...] = ()

    @property
    def doubtful(self) -> bool:
        return self.confidence < DOUBT_BELOW

    def to_json(self) -> dict[str, Any]:
        return {"piece": piece_to_json(self.piece), "confidence": self.confidence,
                "doubtful": self.doubtful,
                "alternatives": [piece_to_json(p) for p in self.alternatives]}


@dataclass(frozen=True)
class Draft:
    """The current turn as read so far.

    ``source`` is camera, manual, scene or undo; ``reason`` is what the camera said when
    its reading was not found or uncertain (cleared once the players correct or accept).
    """

    source: str
    pieces: tuple[DraftPiece, ...] = ()
    frog: bool = False
    uncertain: bool = False
    reason: str = ""
    corrections: int = 0
    notice: str = ""

    @property
    def added(self) -> tuple[Piece, ...]:
        return tuple(d.piece for d in self.pieces)

    @property
    def doubtful(self) -> tuple[str, ...]:
        return tuple(d.piece.id for d in self.pieces if d.doubtful)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "pieces": [d.to_json() for d in self.pieces],
                "frog": self.frog, "uncertain": self.uncertain, "reason": self.reason,
                "corrections": self.corrections, "notice": self.notice}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Draft:
        pieces = tuple(
            DraftPiece(piece_from_json(d["piece"], "draft"), float(d.get("confidence", 1.0)),
                       tuple(piece_from_json(a, "draft") for a in d.get("alternatives", ())))
            for d in data.get("pieces", ()))
        return cls(str(data.get("source", "manual")), pieces, bool(data.get("frog", False)),
                   bool(data.get("uncertain", False)), str(data.get("reason", "")),
                   int(data.get("corrections", 0)), str(data.get("notice", "")))


def fresh_id(kind: Kind, taken: set[str]) -> str:
    """A readable id (a7, b3, d2) that no piece on the board or in the draft has; the
    animals keep their own names, since there is one of each."""
    if kind in ANIMAL_KINDS:
        return kind.value
    prefix = _PREFIX.get(kind, kind.value)
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def named(pieces: Iterable[Piece], taken: Iterable[str]) -> list[Piece]:
    """The pieces with ids of the board's kind: camera ids mean nothing from frame to
    frame and could collide with the board's."""
    used = set(taken)
    out = []
    for piece in pieces:
        new_id = fresh_id(piece.kind, used)
        used.add(new_id)
        out.append(piece.moved(id=new_id))
    return out


def check_piece(piece: Piece) -> Piece:
    """Refuses pieces no table could hold, with the field that is wrong; a decoration's
    colour must be one of the three, a building piece's colour is free."""
    for name, value, top in (("x", piece.x, 31), ("y", piece.y, 31), ("z", piece.z, 60)):
        if not 0 <= value <= top:
            raise CorrectionError(f"{piece.kind.value} {piece.id or ''}: '{name}' must be "
                                  f"0..{top}, found {value}".replace("  ", " "))
    if piece.kind is Kind.CORNER:
        raise CorrectionError("corner bricks are set up once and are not part of a turn")
    if piece.kind is Kind.DECORATION and piece.color not in {c.value for c in DecorationColor}:
        raise CorrectionError(f"decoration {piece.id}: 'color' must be light_green, dark_green "
                              f"or gold, found {piece.color!r}")
    return piece


def _find(draft: Draft, piece_id: str) -> int:
    for i, d in enumerate(draft.pieces):
        if d.piece.id == piece_id:
            return i
    ids = ", ".join(d.piece.id for d in draft.pieces) or "none"
    raise CorrectionError(f"no piece {piece_id!r} in this turn (its pieces: {ids}); pieces "
                          "of earlier turns change by undoing their turn")


def apply(draft: Draft, action: dict[str, Any], taken: set[str]) -> Draft:
    """The draft after one correction (``action`` as the API's correction models dump
    it). A corrected piece is certain: the players said so."""
    kind = action.get("action")
    pieces = list(draft.pieces)
    if kind == "add":
        if len(pieces) >= MAX_DRAFT_PIECES:
            raise CorrectionError(f"a turn holds at most {MAX_DRAFT_PIECES} pieces")
        piece = _piece(action["piece"])
        piece = check_piece(piece.moved(id=fresh_id(piece.kind, taken | set(draft_ids(draft)))))
        if piece.kind in ANIMAL_KINDS and piece.id in draft_ids(draft):
            raise CorrectionError(f"the {piece.kind.value} is already in this turn")
        pieces.append(DraftPiece(piece))
    elif kind == "remove":
        pieces.pop(_find(draft, action["id"]))
    elif kind in ("move", "change", "replace"):
        i = _find(draft, action["id"])
        old = pieces[i].piece
        if kind == "move":
            changes = {k: action[k] for k in ("x", "y", "z") if action.get(k) is not None}
            if action.get("axis") is not None:
                changes["axis"] = Axis(action["axis"])
            new = old.moved(**changes)
        elif kind == "change":
            new = old
            if action.get("kind") is not None and Kind(action["kind"]) is not old.kind:
                new_kind = Kind(action["kind"])
                others = taken | set(draft_ids(draft)) - {old.id}
                new = new.moved(kind=new_kind, id=fresh_id(new_kind, others))
            if action.get("color") is not None:
                new = new.moved(color=action["color"])
        else:
            new = _piece(action["piece"]).moved(id=old.id)
            if new.kind is not old.kind:
                new = new.moved(id=fresh_id(new.kind, taken | set(draft_ids(draft)) - {old.id}))
        pieces[i] = DraftPiece(check_piece(new))
    elif kind == "frog":
        return replace(draft, frog=bool(action["value"]), corrections=draft.corrections + 1)
    elif kind == "accept":
        pieces = [DraftPiece(d.piece) for d in pieces]
    else:
        raise CorrectionError(f"unknown correction {kind!r}")
    return replace(draft, pieces=tuple(pieces), uncertain=False, reason="",
                   corrections=draft.corrections + 1, notice="")


def draft_ids(draft: Draft) -> list[str]:
    return [d.piece.id for d in draft.pieces]


def _piece(data: dict[str, Any]) -> Piece:
    try:
        return piece_from_json({k: v for k, v in data.items() if v is not None}, "piece")
    except SceneError as exc:
        raise CorrectionError(str(exc)) from None


def from_reading(reading: Any, taken: Sequence[str]) -> Draft:
    """A camera reading (vision's TurnReading, duck-typed) as a draft, its pieces
    renamed for the board and their doubts kept."""
    if not reading.found:
        return Draft("camera", uncertain=True, reason=str(reading.reason or "nothing was read"))
    readings = list(reading.added)[:MAX_DRAFT_PIECES]
    pieces = named([r.piece for r in readings], taken)
    return Draft("camera", tuple(
        DraftPiece(p, max(0.0, min(1.0, float(r.confidence))), tuple(r.alternatives))
        for p, r in zip(pieces, readings, strict=True)),
        uncertain=bool(reading.uncertain), reason=str(reading.reason or ""))
