"""The table a Monopoly Builder game is played on, and the checks every action makes.

:class:`Table` is the whole position (players, the bank's tray, resources on the
ground, the Chance deck, the island's buildings, whose turn and which step) with the
ways to read it; the actions live in :mod:`.dealing` (money, deeds and trades) and
:mod:`.game` (the turn flow and building), which share these checks so that every
refusal is raised before anything changes.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Mapping
from enum import StrEnum

from rules.monopoly_builder import bank
from rules.monopoly_builder.board import Board, ChanceCard, ReferenceCard
from rules.monopoly_builder.data import shipped
from rules.monopoly_builder.errors import (
    DecisionPendingError,
    GameOverError,
    NotYourTurnError,
    RefusedAction,
    WrongStepError,
)
from rules.monopoly_builder.island import Building, Island, Lot
from rules.monopoly_builder.players import COLOUR_ORDER, Player
from rules.monopoly_builder.resources import Resource, Tray
from rules.monopoly_builder.scoring import BonusTies, ScoreSheet, score

Dice = tuple[int, int]

class Step(StrEnum):
    START = "start"  # step 1 (and a jailed player's choice)
    JAIL_DROP = "jail_drop"  # out of jail on doubles, holding more than 6: drop, then move
    ROLL_AGAIN = "roll_again"  # doubles: step 2 again, no drop
    SPACE = "space"  # step 4: the space's actions
    TRADE = "trade"  # step 5
    BUILD = "build"  # step 6
    OVER = "over"


REQUIRED = ("buy_or_auction", "forced_trade", "roll_for_resources")



class Table:
    """The position. ``colours`` are the players in seat order (play passes to the
    left, i.e. up the list); ``first`` is the seat that won the first roll, rolled with
    the game's dice when not given; ``board``, ``references``, ``cards`` and ``island``
    replace the shipped stand-in data. Dice and the Chance shuffle come from ``rng``
    (by default ``random.Random(seed)``), so a seed replays a game exactly."""

    def __init__(
        self,
        colours: list[str],
        seed: int = 0,
        *,
        board: Board | None = None,
        references: Mapping[str, ReferenceCard] | None = None,
        cards: tuple[ChanceCard, ...] | None = None,
        island: Island | None = None,
        bonus_ties: BonusTies = "share",
        first: int | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not 2 <= len(colours) <= 4 or len(set(colours)) != len(colours):
            raise RefusedAction("a game has 2 to 4 players of different colours")
        if first is not None and not 0 <= first < len(colours):
            raise RefusedAction(f"no seat {first} among {len(colours)} players")
        if unknown := set(colours) - set(COLOUR_ORDER):
            raise RefusedAction(f"unknown colour {sorted(unknown)[0]!r}; use {COLOUR_ORDER}")
        sb, sr, sc, si = shipped()
        self.board, self.island = board or sb, island or si
        self.references = dict(references or sr)
        self.cards = {c.id: c for c in (cards or sc)}
        self.bonus_ties: BonusTies = bonus_ties
        self.rng = rng if rng is not None else random.Random(seed)
        self.tray = Tray()
        self.players = [Player(c, self.references[c].token) for c in colours]
        for p in self.players:
            p.resources = self.tray.give(self.references[p.colour].start)
        order = list(self.cards)
        self.rng.shuffle(order)
        self.deck: deque[str] = deque(order)  # top card first
        self.ground: dict[int, Counter[Resource]] = {}
        self.buildings: dict[Lot, Building] = {}
        self.current = self._first_player() if first is None else first
        self.step = Step.START
        self.doubles = 0
        self.last_roll: Dice | None = None
        self.pending: set[str] = set()
        self.rent_claims: list[tuple[str, str, str]] = []  # (deed, payer, owner)
        self.ended_by: str | None = None
        self.log: list[str] = []
        self._held_roll: Dice | None = None
        self._extra_turn = True  # False after leaving jail on doubles

    def _first_player(self) -> int:
        """"The highest roller gets to go first"; tied highest rollers roll again."""
        seats = list(range(len(self.players)))
        while len(seats) > 1:
            rolls = {s: sum(self.dice()) for s in seats}
            best = max(rolls.values())
            seats = [s for s in seats if rolls[s] == best]
        return seats[0]

    # -- reading -----------------------------------------------------------------------
    @property
    def player(self) -> Player:
        return self.players[self.current]

    @property
    def is_over(self) -> bool:
        return self.ended_by is not None

    @property
    def penthouse_built(self) -> bool:
        return any(b.penthouse for b in self.buildings.values())

    def by_colour(self, colour: str) -> Player:
        for p in self.players:
            if p.colour == colour:
                return p
        raise RefusedAction(f"no {colour} player in this game")

    def owner(self, deed_id: str) -> Player | None:
        return bank.owner_of(self.players, deed_id)

    def score(self) -> ScoreSheet:
        """The score as if the game ended now; final once :attr:`is_over`."""
        return score(self.board, self.island, self.players, self.buildings, self.bonus_ties)

    def dice(self) -> Dice:
        return self.rng.randint(1, 6), self.rng.randint(1, 6)

    def note(self, text: str) -> None:
        self.log.append(text)

    # -- checks shared by the actions ---------------------------------------------------
    def _live(self) -> None:
        if self.is_over:
            raise GameOverError(f"the game is over ({self.ended_by})")

    def _turn(self, colour: str, *steps: Step) -> Player:
        self._live()
        p = self.by_colour(colour)
        if p is not self.player:
            raise NotYourTurnError(f"it is {self.player.colour}'s turn, not {colour}'s")
        if steps and self.step not in steps:
            names = " or ".join(s.value for s in steps)
            raise WrongStepError(f"{colour} cannot do that now: the turn is at step "
                                 f"{self.step.value}, not {names}")
        return p

    def _required_done(self) -> None:
        due = sorted(self.pending & set(REQUIRED))
        if due:
            raise DecisionPendingError(f"{self.player.colour} must first settle: "
                                       f"{', '.join(d.replace('_', ' ') for d in due)}")


    def charge(self, debtor: Player, amount: int, creditor: Player | None) -> None:
        for event in bank.charge(self.board, self.tray, self.deck, debtor, amount, creditor):
            self.note(event)

    # -- step 4 decisions ----------------------------------------------------------------
    def _decision(self, colour: str, name: str) -> Player:
        p = self._turn(colour, Step.SPACE)
        if name not in self.pending:
            raise WrongStepError(f"{colour} has no {name.replace('_', ' ')} to do here")
        return p


    def _live_player(self, colour: str) -> Player:
        self._live()
        return self.by_colour(colour)

