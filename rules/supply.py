"""Where pieces and cards sit between turns: the brick tray and each player's board.

These two hold the game's bookkeeping; :mod:`rules.game` moves things between them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.cards import BoardSpec, Card, Delivery
from rules.pieces import DecorationColor

BOARD_SPACES = 4
"""A player board shows at most four stacks of monkey cards."""

TRAY_ARCHES = 80
TRAY_BRICKS = 80
TRAY_COLUMNS = 16
TRAY_DECORATIONS = 16
"""Pieces in the box, per kind (decorations per colour)."""


@dataclass
class Tray:
    """The brick tray: what is still there to be delivered."""

    arches: int = TRAY_ARCHES
    bricks: int = TRAY_BRICKS
    columns: int = TRAY_COLUMNS
    decorations: dict[str, int] = field(
        default_factory=lambda: {c.value: TRAY_DECORATIONS for c in DecorationColor}
    )

    def can_give(self, owed: Delivery) -> bool:
        """Whether every piece of ``owed`` is there, free choices included."""
        if self.arches < owed.arches or self.bricks < owed.bricks or self.columns < owed.columns:
            return False
        spare = (self.arches - owed.arches) + (self.bricks - owed.bricks)
        return spare >= owed.arch_or_brick

    def give(self, owed: Delivery, free_arches: int | None = None) -> tuple[Delivery, bool]:
        """Takes ``owed`` out of the tray, or as much of it as is left.

        Free choices become arches (``free_arches`` of them, all when None) and the rest
        bricks; when one kind runs out the other fills in. Returns the pieces actually
        handed over (no free choices left in it) and whether the tray fell short, which
        is what ends the game.
        """
        short = not self.can_give(owed)
        arches = min(owed.arches, self.arches)
        bricks = min(owed.bricks, self.bricks)
        columns = min(owed.columns, self.columns)
        self.arches -= arches
        self.bricks -= bricks
        self.columns -= columns
        free = owed.arch_or_brick
        want_arches = free if free_arches is None else min(free_arches, free)
        free_a = min(want_arches, self.arches)
        free_b = min(owed.arch_or_brick - free_a, self.bricks)
        extra_a = min(owed.arch_or_brick - free_a - free_b, self.arches - free_a)
        free_a += extra_a
        self.arches -= free_a
        self.bricks -= free_b
        return Delivery(arches + free_a, bricks + free_b, columns), short

    def snapshot(self) -> Mapping[str, int]:
        return {"arches": self.arches, "bricks": self.bricks, "columns": self.columns,
                **{f"decoration:{k}": v for k, v in self.decorations.items()}}


@dataclass
class Player:
    """One seat at the table: building pieces in hand, the board's card stacks, bonus cards.

    ``stacks`` are the board's four spaces, each a list from the bottom card to the top
    card; only top cards pay their recurring delivery, but every card's bananas count
    at the end.
    """

    seat: int
    board: BoardSpec
    arches: int = 0
    bricks: int = 0
    columns: int = 0
    stacks: list[list[Card]] = field(default_factory=lambda: [[] for _ in range(BOARD_SPACES)])
    bonus_cards: int = 0

    @property
    def name(self) -> str:
        return f"Player {self.seat + 1}"

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(card for stack in self.stacks for card in stack)

    def recurring(self) -> Delivery:
        """The board's base delivery plus the top card of every visible stack."""
        total = self.board.recurring
        for stack in self.stacks:
            if stack:
                total = total + stack[-1].recurring
        return total

    def receive(self, pieces: Delivery) -> None:
        self.arches += pieces.arches
        self.bricks += pieces.bricks
        self.columns += pieces.columns

    def pieces(self) -> dict[str, int]:
        return {"arch": self.arches, "brick": self.bricks, "column": self.columns}

    def default_stack(self) -> int:
        """Where a new card goes when the player does not say: the first empty space,
        else the stack whose top card pays the least, since covering it costs least."""
        for i, stack in enumerate(self.stacks):
            if not stack:
                return i
        return min(range(BOARD_SPACES), key=lambda i: (self.stacks[i][-1].recurring.total, i))

    def card_bananas(self) -> int:
        return sum(card.bananas for card in self.cards)
