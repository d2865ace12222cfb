"""A simple bot and whole simulated games, for tests, benchmarks and training data.

The bot is greedy on purpose: it takes the staircase worth the most credits (a gold
decoration's Monkey counts too), buys the cards with the most bananas it can afford and
passes when nothing legal attaches. That is enough to drive a game through every rule
end to end; it is not meant to play well.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from rules.cards import Card
from rules.game import Game, TurnResult
from rules.maps import GroundMap
from rules.moves import Candidate, Hand, staircases
from rules.report import TurnReport
from rules.scene import Scene
from rules.settings import RuleSettings

MAX_CHECKED = 4
"""Candidates judged by the staircase analysis per turn before the bot gives up."""


@dataclass(frozen=True)
class GameRecord:
    """A finished (or cut-off) game: ``scenes[0]`` is the set-up and ``scenes[i + 1]``
    the palace after ``turns[i]``, animals included."""

    seed: int
    map: str
    players: int
    scenes: tuple[Scene, ...]
    turns: tuple[TurnResult, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    finished: bool
    hands: tuple[Hand, ...] = ()
    """Before each of ``turns``, what its player could build with (:meth:`Game.hand`)."""

    @property
    def reports(self) -> tuple[TurnReport | None, ...]:
        """Each turn's report; None where the player passed."""
        return tuple(t.report for t in self.turns)

    def scene_with(self, pieces: int) -> Scene:
        """The first scene holding at least ``pieces`` pieces (corner bricks and animals
        counted), else the last: the palace as the game had built it that far. The full
        mode benches read such palaces, the twin's and the validation renderer's alike."""
        return next((s for s in self.scenes if len(s.pieces) >= pieces), self.scenes[-1])


class Bot:
    """Greedy player; ``frog_chance`` is how often it takes the Frog for a column."""

    def __init__(self, seed: int = 0, *, frog_chance: float = 0.0, max_starts: int = 8) -> None:
        self.rng = random.Random(seed)
        self.frog_chance = frog_chance
        self.max_starts = max_starts

    def play(self, game: Game) -> TurnResult:
        """Plays the current player's turn in ``game``: a staircase, or a pass."""
        player = game.player
        frog = self.frog_chance > 0 and game.frog_free and self.rng.random() < self.frog_chance
        hand = Hand(player.arches, player.bricks, player.columns + (1 if frog else 0))
        found = staircases(game.palace, hand, game.tray.decorations, rng=self.rng,
                           max_starts=self.max_starts)
        found.sort(key=lambda c: self._value(game, c), reverse=True)
        for candidate in found[:MAX_CHECKED]:
            report = game.check_turn(candidate.pieces, frog=frog)
            if not report.legal:
                continue
            purchases = self.purchases(game, report.start_color or "", report.credits)
            return game.play_turn(candidate.pieces, [c.pile for c in purchases], frog=frog)
        return game.pass_turn()

    def _value(self, game: Game, candidate: Candidate) -> float:
        highest = game.palace.highest_decoration_level(candidate.color)
        credits = candidate.arches + (1 if highest is None or candidate.top > highest else 0)
        monkey = 2 if candidate.color == "gold" and game.trophies["monkey"] != game.current else 0
        return credits + monkey + 0.01 * candidate.top

    @staticmethod
    def purchases(game: Game, color: str, credits: int) -> tuple[Card, ...]:
        """The affordable set of top cards (one per pile) with the most value."""
        offer = [c for c in game.market.available(color) if c.cost <= credits]
        best: tuple[Card, ...] = ()
        best_value = 0.0
        for size in range(1, min(len(offer), credits) + 1):
            for combo in combinations(offer, size):
                if sum(c.cost for c in combo) > credits:
                    continue
                value = sum(c.bananas + 0.3 * (c.one_time.total + 2 * c.recurring.total)
                            for c in combo)
                if value > best_value:
                    best, best_value = combo, value
        return best


def simulate_game(
    players: int = 4,
    seed: int = 0,
    map_name: str | GroundMap = "1",
    *,
    settings: RuleSettings | None = None,
    frog_chance: float = 0.05,
    max_rounds: int = 60,
) -> GameRecord:
    """A whole game between bots; the same arguments always give the same game.

    ``max_rounds`` only guards against card data that never drains the tray.
    """
    game = Game.new(players, map_name, seed=seed, settings=settings)
    bot = Bot(seed, frog_chance=frog_chance)
    scenes = [game.scene()]
    turns = []
    hands = []
    while not game.is_over and game.round <= max_rounds:
        hands.append(game.hand())
        turns.append(bot.play(game))
        scenes.append(game.scene())
    return GameRecord(
        seed=seed,
        map=game.palace.ground.name,
        players=players,
        scenes=tuple(scenes),
        turns=tuple(turns),
        scores=tuple(game.scores()),
        winners=game.winners(),
        finished=game.is_over,
        hands=tuple(hands),
    )
