"""The game flow: seats, turns, cards, deliveries, trophies, the end and the score.

:class:`Game` is a state machine in the manner of a chess library: it holds the whole
position (palace, tray, market, players, trophies) and changes only through
:meth:`Game.play_turn` and :meth:`Game.pass_turn`, which either apply a complete legal
turn or raise and change nothing. A turn follows the rulebook's eight steps:

1-3. the staircase (``added``: its building pieces and its decoration) is judged by
     :func:`rules.staircase.analyse_added`, which gives its credits;
4.   the cards named in ``purchases`` are bought from the market;
5-6. their one-time delivery, then the recurring delivery (the board's own plus the top
     card of each visible stack, new cards included) are taken from the tray;
7-8. a bonus card and the trophies earned are taken, and the animals are put on the
     palace (the Monkey on an open arch end knob, the Butterfly on the new decoration,
     the Frog on the lowest open end knob of the new staircase).

The game ends when the tray cannot give a player everything owed at the end of their
turn: the player takes what is left and the round is finished, so all have played the
same number of turns.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules import animals
from rules.cards import BoardSpec, Card, Delivery, Market, load_boards, load_cards
from rules.maps import GroundMap, load_map
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, DecorationColor, Kind, Piece, Voxel
from rules.report import TurnReport
from rules.scene import Scene
from rules.settings import RuleSettings
from rules.staircase import analyse_added, split_turn
from rules.supply import BOARD_SPACES, Player, Tray
from rules.turn_pieces import inventory_violations, name_pieces

BONUS_CARDS = 14
BONUS_BANANAS = 4
TROPHY_BANANAS = {"monkey": 2, "butterfly": 2, "frog": -3}
_HELD = {Kind.ARCH: "arches", Kind.BRICK: "bricks", Kind.COLUMN: "columns"}


class GameError(ValueError):
    """A call the game cannot accept in its current state; nothing was changed."""


class IllegalTurnError(GameError):
    """A staircase that breaks a rule; ``report`` says which and where."""

    def __init__(self, report: TurnReport) -> None:
        self.report = report
        text = "; ".join(v.message for v in report.violations) or "the staircase is not legal"
        super().__init__(f"illegal turn: {text}")


@dataclass(frozen=True)
class TurnResult:
    """What one turn did. ``report`` is None for a pass.

    ``received`` is what the tray actually handed over (free choices resolved);
    ``short`` says the tray could not pay everything owed, which triggers the end.
    """

    seat: int
    round: int
    report: TurnReport | None
    cards: tuple[Card, ...] = ()
    received: Delivery = field(default_factory=Delivery)
    short: bool = False
    bonus_card: bool = False
    trophies: tuple[str, ...] = ()
    placed: tuple[Piece, ...] = ()

    @property
    def passed(self) -> bool:
        return self.report is None


class Game:
    """A game of Monkey Palace for 2 to 4 players; seats are numbered from 0."""

    def __init__(
        self,
        ground: GroundMap,
        players: int = 4,
        *,
        seed: int = 0,
        settings: RuleSettings | None = None,
        cards: Sequence[Card] | None = None,
        boards: Sequence[BoardSpec] | None = None,
    ) -> None:
        if not 2 <= players <= 4:
            raise GameError(f"Monkey Palace is played by 2 to 4 players, not {players}")
        boards = tuple(boards) if boards is not None else load_boards()
        if len(boards) < players:
            raise GameError(
                f"{players} players need {players} player boards, the data has {len(boards)}"
            )
        self.settings = settings or RuleSettings()
        self.rng = random.Random(seed)
        self.palace = Palace.setup(ground)
        self.market = Market.of(cards if cards is not None else load_cards(), shuffle=self.rng)
        self.tray = Tray()
        self.bonus_pile = BONUS_CARDS
        self.trophies: dict[str, int | None] = {"monkey": None, "butterfly": None, "frog": None}
        self.current = 0
        self.round = 1
        self.end_triggered = False
        self.is_over = False
        self.history: list[TurnResult] = []
        self._counters: Counter[str] = Counter()
        self._pending_counters: Counter[str] = Counter()
        self._last_judged: tuple[Any, TurnReport, tuple[Piece, ...], Counter[str]] | None = None
        for piece in self.palace:
            self._spend(piece, self.tray)
        self.players = [Player(seat, board) for seat, board in enumerate(boards[:players])]
        for player in self.players:
            pieces, short = self.tray.give(player.board.start)
            if short:
                raise GameError(f"the tray cannot give {player.name} its starting pieces")
            player.receive(pieces)

    @classmethod
    def new(
        cls,
        players: int = 4,
        map: str | GroundMap = "1",
        seed: int = 0,
        settings: RuleSettings | None = None,
        cards: Sequence[Card] | None = None,
        boards: Sequence[BoardSpec] | None = None,
    ) -> Game:
        """A game set up on a shipped map ("1".."4"), a map file, or a GroundMap."""
        ground = map if isinstance(map, GroundMap) else load_map(map)
        return cls(ground, players, seed=seed, settings=settings, cards=cards, boards=boards)

    # -- reading the position ---------------------------------------------------------
    @property
    def player(self) -> Player:
        """The player whose turn it is."""
        return self.players[self.current]

    @property
    def frog_free(self) -> bool:
        """Whether the player to move may take the Frog for one extra column this turn."""
        return (self.settings.frog and self.trophies["frog"] != self.current
                and self.tray.columns > 0)

    def hand(self) -> Hand:
        """The building pieces the player to move may build with this turn: their own,
        and one column more where they may take the Frog for it. A staircase read from
        the camera that needs more than this is one the game would refuse, so the
        reading weighs it as such (``vision.read_turn``'s ``hand``)."""
        player = self.player
        return Hand(player.arches, player.bricks,
                    player.columns + (1 if self.frog_free else 0))

    def scene(self) -> Scene:
        return Scene.of(self.palace.pieces, self.palace.ground.name)

    def scores(self) -> list[int]:
        """Banana points per seat: all monkey cards, bonus cards and trophies held."""
        out = [p.card_bananas() + BONUS_BANANAS * p.bonus_cards for p in self.players]
        for name, holder in self.trophies.items():
            if holder is not None:
                out[holder] += TROPHY_BANANAS[name]
        return out

    def winners(self) -> tuple[int, ...]:
        """Seats with the most bananas; of tied seats the Monkey holder wins alone,
        otherwise they share the victory."""
        scores = self.scores()
        best = max(scores)
        tied = tuple(i for i, s in enumerate(scores) if s == best)
        monkey = self.trophies["monkey"]
        if len(tied) > 1 and monkey in tied:
            return (monkey,)
        return tied

    # -- judging a turn without playing it ---------------------------------------------
    def check_turn(self, added: Sequence[Piece], *, frog: bool = False) -> TurnReport:
        """The report ``play_turn`` would act on, with the game's own checks added
        (pieces in hand, decorations left, ids: :mod:`rules.turn_pieces`); changes
        nothing."""
        return self._judge(added, frog)[0]

    def _judge(self, added: Sequence[Piece], frog: bool) -> tuple[TurnReport, list[Piece]]:
        """Judges a turn; the last verdict is kept so that checking a turn and then
        playing it (what a bot does) analyses it once."""
        self._require_running()
        if frog:
            self._check_frog()
        player = self.player
        key = (tuple(added), frog, len(self.history), len(self.palace), player.arches,
               player.bricks, player.columns, self.tray.columns,
               tuple(self.tray.decorations.values()))
        if self._last_judged is not None and self._last_judged[0] == key:
            return self._last_judged[1], list(self._last_judged[2])
        named, self._pending_counters = name_pieces(added, self.palace, self._counters)
        report = analyse_added(self.palace, named, self.settings, frog_taken=frog)
        extra = inventory_violations(named, frog, player, self.tray, self.palace)
        if extra:
            report = replace(report, legal=False, violations=(*report.violations, *extra))
        self._last_judged = (key, report, tuple(named), self._pending_counters)
        return report, named

    # -- playing ----------------------------------------------------------------------
    def play_turn(
        self,
        added: Sequence[Piece],
        purchases: Sequence[str] = (),
        *,
        frog: bool = False,
        free_arches: int | None = None,
        stacks: Sequence[int] | None = None,
        monkey_at: Voxel | None = None,
    ) -> TurnResult:
        """Plays the current player's staircase and card purchases.

        ``added`` holds the staircase's building pieces and its decoration (ids are
        given to pieces without one). ``purchases`` names market piles (``gold-4``).
        ``frog`` takes the Frog trophy and its extra column before building.
        ``free_arches`` says how many free-choice pieces to take as arches (all when
        None). ``stacks`` gives the board space (0..3) of each bought card; empty
        spaces must be filled first, after that cards may go on any stack, several on
        the same one (the Dutch edition's wording; the English allows the same).
        ``monkey_at`` is the arch end knob for the Monkey when a gold decoration was
        placed (default: the highest open one).

        Raises :class:`IllegalTurnError` (with the report), :class:`~rules.cards.PurchaseError`
        or :class:`GameError`; in every case the game is unchanged.
        """
        report, named = self._judge(added, frog)
        if not report.legal:
            raise IllegalTurnError(report)
        color = report.start_color or ""
        bought = self.market.check(color, purchases, report.credits)
        spaces = self._check_stacks(len(bought), stacks)
        if (monkey_at is not None and report.trophies.monkey
                and not any(p.kind is Kind.MONKEY for p in named)):
            try:
                animals.check_monkey_spot(self.palace, named, monkey_at)
            except animals.AnimalError as exc:
                raise GameError(str(exc)) from None
        self._counters = self._last_judged[3] if self._last_judged else self._counters
        self._last_judged = None

        player = self.player
        if report.start_named and report.start is not None and report.start_color:
            # The map learns the stud the camera could not read, for the turns to come.
            self.palace.ground = self.palace.ground.naming(
                report.start, DecorationColor(report.start_color))
        if frog:
            self.tray.columns -= 1
            player.columns += 1
        moved = [p for p in named if p.kind in ANIMAL_KINDS]
        for animal in moved:
            animals.lift(self.palace, animal.kind)
        placed = [self.palace.place(p)
                  for p in sorted((p for p in named if p.kind not in ANIMAL_KINDS),
                                  key=lambda p: p.z)]
        for piece in placed:
            self._spend(piece, player)
        placed += [self.palace.place(a.moved(id=a.kind.value)) for a in moved]
        self.market.buy(color, purchases, report.credits)
        trophies, animals_put = self._award_trophies(report, placed, frog, monkey_at)
        placed += animals_put
        bonus = bool(report.bonus_card) and self.bonus_pile > 0
        if bonus:
            self.bonus_pile -= 1
            player.bonus_cards += 1
        return self._finish(report, bought, spaces, free_arches, bonus, trophies, placed)

    def play_scene(self, pieces: Sequence[Piece], purchases: Sequence[str] = (),
                   **options: Any) -> TurnResult:
        """Plays the turn that turns the palace into ``pieces``: the whole board as a
        camera or a scene file sees it after the turn. Pieces are matched to the board
        by place, so ids need not agree; options are those of :meth:`play_turn`."""
        self._require_running()
        added, removed, _ = split_turn(self.palace, pieces)
        if removed:
            raise IllegalTurnError(TurnReport(legal=False, violations=tuple(removed)))
        if all(p.kind in ANIMAL_KINDS for p in added):
            raise GameError("nothing was built; a player who cannot attach passes instead")
        return self.play_turn(added, purchases, **options)

    def pass_turn(self, *, free_arches: int | None = None) -> TurnResult:
        """The current player cannot (or will not) attach a staircase: they only take
        their recurring delivery."""
        self._require_running()
        return self._finish(None, (), [], free_arches, False, (), [])

    # -- the steps of a turn ----------------------------------------------------------
    def _require_running(self) -> None:
        if self.is_over:
            raise GameError("the game is over")

    def _check_frog(self) -> None:
        if not self.settings.frog:
            raise GameError("the Frog is not in play (RuleSettings.frog is off)")
        if self.trophies["frog"] == self.current:
            raise GameError(f"{self.player.name} already holds the Frog and cannot take it again")
        if self.tray.columns < 1:
            raise GameError("the tray has no column left for the Frog")

    def _check_stacks(self, count: int, stacks: Sequence[int] | None) -> list[int]:
        if stacks is None:
            return []
        if len(stacks) != count:
            raise GameError(f"{count} cards bought but {len(stacks)} board spaces given")
        sizes = [len(s) for s in self.player.stacks]
        for i in stacks:
            if not 0 <= i < BOARD_SPACES:
                raise GameError(f"board space {i} does not exist (0..{BOARD_SPACES - 1})")
            if sizes[i] and 0 in sizes:
                raise GameError(f"board space {i} is taken while another space is empty; "
                                "new cards fill empty spaces first")
            sizes[i] += 1
        return list(stacks)

    def _spend(self, piece: Piece, holder: Player | Tray) -> None:
        """Counts a piece built from the player's hand (or, at set-up, from the tray);
        decorations always come from the tray."""
        if piece.kind is Kind.DECORATION:
            self.tray.decorations[piece.color] -= 1
        elif piece.kind in _HELD:
            setattr(holder, _HELD[piece.kind], getattr(holder, _HELD[piece.kind]) - 1)

    def _award_trophies(self, report: TurnReport, placed: list[Piece], frog: bool,
                        monkey_at: Voxel | None) -> tuple[tuple[str, ...], list[Piece]]:
        """Hands over the trophies earned and puts each animal the player did not place
        where its trophy says."""
        won: list[str] = []
        put: list[Piece] = []
        given = {p.kind for p in placed if p.kind in ANIMAL_KINDS}
        decoration = next((p for p in placed if p.kind is Kind.DECORATION), None)
        if report.trophies.monkey:
            won.append("monkey")
            if Kind.MONKEY not in given:
                put += animals.put(self.palace, Kind.MONKEY,
                                   monkey_at or animals.monkey_spot(self.palace))
        if report.trophies.butterfly and self.settings.butterfly and decoration:
            won.append("butterfly")
            if Kind.BUTTERFLY not in given:
                put += animals.put(self.palace, Kind.BUTTERFLY,
                                   (decoration.x, decoration.y, decoration.top))
        if frog:
            won.append("frog")
            if Kind.FROG not in given:
                put += animals.put(self.palace, Kind.FROG, animals.frog_spot(self.palace, placed))
        for name in won:
            self.trophies[name] = self.current
        return tuple(won), put

    def _finish(self, report: TurnReport | None, bought: Sequence[Card], spaces: list[int],
                free_arches: int | None, bonus: bool, trophies: tuple[str, ...],
                placed: list[Piece]) -> TurnResult:
        player = self.player
        owed = Delivery()
        for i, card in enumerate(bought):
            owed = owed + card.one_time
            space = spaces[i] if spaces else player.default_stack()
            player.stacks[space].append(card)
        owed = owed + player.recurring()
        received, short = self.tray.give(owed, free_arches)
        player.receive(received)
        result = TurnResult(self.current, self.round, report, tuple(bought), received, short,
                            bonus, trophies, tuple(placed))
        self.history.append(result)
        self.end_triggered = self.end_triggered or short
        if self.current == len(self.players) - 1:
            self.current = 0
            self.round += 1
            self.is_over = self.end_triggered
        else:
            self.current += 1
        return result
