"""A turn's pieces as the game takes them: readable ids for the unnamed ones, and what
the player's hand and the tray must hold for them.

The rules' analysis of a staircase (:func:`rules.staircase.analyse_added`) asks only the
palace; these are the game's own checks besides (:meth:`rules.game.Game.check_turn`):
pieces in hand (the Frog's extra column counted), decorations left in the tray, corner
bricks, ids already on the board.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, Kind, Piece
from rules.report import Violation
from rules.supply import Player, Tray

ID_PREFIX = {Kind.ARCH: "a", Kind.BRICK: "b", Kind.COLUMN: "c", Kind.DECORATION: "d"}
"""The letter of a piece's readable id, by kind (others take the kind's name)."""


def name_pieces(added: Sequence[Piece], palace: Palace,
                counters: Counter[str]) -> tuple[list[Piece], Counter[str]]:
    """Gives unnamed pieces readable ids (a7, b3, d2...) not yet used on the board,
    counting on from ``counters``; returns the pieces and the counters moved on.

    The game moves its counters only when the turn is played, so judging a turn twice
    names its pieces the same way both times.
    """
    counters = Counter(counters)
    taken = {p.id for p in added if p.id}
    out = []
    for piece in added:
        if not piece.id:
            prefix = ID_PREFIX.get(piece.kind, piece.kind.value)
            while True:
                counters[prefix] += 1
                candidate = f"{prefix}{counters[prefix]}"
                if candidate not in palace and candidate not in taken:
                    break
            piece = piece.moved(id=candidate)
            taken.add(candidate)
        out.append(piece)
    return out, counters


def inventory_violations(added: Sequence[Piece], frog: bool, player: Player, tray: Tray,
                         palace: Palace) -> list[Violation]:
    """What the staircase asks that ``player``'s hand or the tray does not hold, and
    pieces that are no building pieces or whose id is already on ``palace``."""
    out: list[Violation] = []
    have = {Kind.ARCH: player.arches, Kind.BRICK: player.bricks,
            Kind.COLUMN: player.columns + (1 if frog else 0)}
    used = Counter(p.kind for p in added)
    for kind, count in have.items():
        if used[kind] > count:
            ids = tuple(p.id for p in added if p.kind is kind)
            noun = "arches" if kind is Kind.ARCH else f"{kind.value}s"
            out.append(Violation("pieces", ids, f"the staircase uses {used[kind]} "
                                 f"{noun} but {player.name} has only {count}"))
    decorations = Counter(p.color for p in added if p.kind is Kind.DECORATION)
    for color, count in decorations.items():
        if tray.decorations.get(color, 0) < count:
            out.append(Violation("pieces", (), f"the tray has no {color} decoration left"))
    for piece in added:
        if piece.kind is Kind.CORNER:
            out.append(Violation("pieces", (piece.id,), f"{piece.label} is not a building "
                                 "piece; corner bricks are set up once"))
        elif piece.id in palace and piece.kind not in ANIMAL_KINDS:
            out.append(Violation("overlap", (piece.id,),
                                 f"id {piece.id} is already on the board"))
    return out
