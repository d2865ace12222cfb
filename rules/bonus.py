"""What a staircase earns beyond its arches, and where the animals may sit.

The highest-decoration credit, the 5-brick bonus and the three trophies are questions
about heights on the finished board; they live apart from the path search so that each
house rule in :class:`rules.settings.RuleSettings` is visibly applied in one place.
"""

from __future__ import annotations

from rules.pieces import Kind, Piece
from rules.report import Violation
from rules.settings import RuleSettings
from rules.turn_board import TurnBoard

STACKING_KINDS = frozenset({Kind.BRICK, Kind.COLUMN})
"""Pieces that make up a run for the 5-brick bonus (arches never count)."""


def decoration_rank(board: TurnBoard, decoration: Piece | None) -> tuple[bool, bool, bool]:
    """(strictly highest of its colour, tied for highest, strictly tallest of any colour)."""
    if decoration is None:
        return False, False, False
    same: list[int] = []
    every: list[int] = []
    for d in board.before.decorations():
        if d.id != decoration.id:
            every.append(d.top)
            if d.color == decoration.color:
                same.append(d.top)
    top = decoration.top
    highest = not same or top > max(same)
    tied = bool(same) and top == max(same)
    tallest = not every or top > max(every)
    return highest, tied, tallest


def tallest_run(board: TurnBoard, chain: list[Piece], new_ids: frozenset[str],
                 counts_existing: bool) -> int:
    """The 5-brick bonus: the tallest stack of this turn's bricks and columns, in bricks.

    Each piece of a run rests directly on the one below; arches break a run. With
    ``counts_existing`` the bricks, columns and decorations that already stood under
    the run's lowest piece count too.
    """
    best = 0
    for piece in chain:
        if piece.kind not in STACKING_KINDS:
            continue
        below = board.piece_at(board.knobs, (piece.x, piece.y, piece.z)) if piece.z else None
        if below is not None and below.id in new_ids and below.kind in STACKING_KINDS:
            continue  # not the bottom of its run
        height, top = 0, piece
        while top is not None and top.id in new_ids and top.kind in STACKING_KINDS:
            height += top.height
            top = board.piece_at(board.space, (top.x, top.y, top.top))
        if counts_existing:
            while (below is not None and below.id not in new_ids
                   and below.kind in (*STACKING_KINDS, Kind.DECORATION)):
                height += below.height
                below = (board.piece_at(board.knobs, (below.x, below.y, below.z))
                         if below.z else None)
        best = max(best, height)
    return best


def check_animals(
    board: TurnBoard,
    animals: list[Piece],
    monkey_for: Piece | None,
    butterfly_for: Piece | None,
    path_arches: tuple[Piece, ...],
    settings: RuleSettings,
    frog: bool,
) -> list[Violation]:
    """Animals placed this turn must be earned and sit where their trophy puts them."""
    out: list[Violation] = []
    for animal in animals:
        under = board.piece_at(board.knobs, (animal.x, animal.y, animal.z)) if animal.z else None
        if animal.kind is Kind.MONKEY:
            if monkey_for is None:
                out.append(Violation("monkey", (animal.id,), "the monkey moves only when a "
                                     "legal staircase ends with a gold decoration"))
            elif under is None or under.kind is not Kind.ARCH:
                out.append(Violation("monkey", (animal.id,), "the monkey must sit on an open "
                                     "end knob of an arch"))
        elif animal.kind is Kind.BUTTERFLY:
            if butterfly_for is None:
                out.append(Violation("butterfly", (animal.id,), "the butterfly moves only onto "
                                     "a new decoration taller than every other one"))
            elif under is None or under.id != butterfly_for.id:
                out.append(Violation("butterfly", (animal.id, butterfly_for.id), "the butterfly "
                                     f"must sit on decoration {butterfly_for.id}"))
        elif animal.kind is Kind.FROG:
            if not settings.frog or not frog:
                out.append(Violation("frog", (animal.id,), "the frog is not in play"))
                continue
            lowest = _lowest_open_end(board, path_arches, animal.id)
            if lowest is None or under is None or under.kind is not Kind.ARCH \
                    or under.id not in {a.id for a in path_arches} or animal.z != lowest:
                out.append(Violation("frog", (animal.id,), "the frog must sit on the lowest "
                                     "open end knob of the staircase just built"))
    return out


def _lowest_open_end(board: TurnBoard, arches: tuple[Piece, ...], ignore: str) -> int | None:
    levels = [
        a.top for a in arches for x, y in a.knobs()
        if board.space.get((x, y, a.top)) in (None, ignore)
    ]
    return min(levels, default=None)
