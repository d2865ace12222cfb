"""The turn flow: a Monopoly Builder game as a state machine.

:class:`Game` holds the whole table and changes only through its actions, each of
which either does what the rules allow or raises a :class:`~.errors.RefusedAction`
saying why and changes nothing. A turn walks the rulebook's seven steps:

1. ``Step.START``: a player holding more than 6 resources must :meth:`Game.drop` the
   extra on their space; a jailed player may :meth:`Game.pay_fine`,
   :meth:`Game.use_jail_card` or roll for doubles.
2-4. :meth:`Game.roll` rolls (dice from the game's seeded RNG, or the table's dice
   passed in), pays every player's title deeds and, on a 6, reference cards, moves the
   token and applies its space (``Step.SPACE``). Decisions the space forces (buy or
   auction, forced trade, the reroll of Roll for Resources) must be taken before
   :meth:`Game.next_step`; a steal or Free Parking's 2-for-1 trades are optional.
   After doubles, ``next_step`` leads to ``Step.ROLL_AGAIN`` instead of step 5.
5. ``Step.TRADE``: :meth:`Game.deal` with another player, :meth:`Game.bank_trade`
   4-for-1.
6. ``Step.BUILD``: :meth:`Game.build` (building ends step 5).
7. :meth:`Game.end_turn` passes the dice to the left.

Rent is paid only when the owner asks (:meth:`Game.ask_rent`) before the lander's
turn is over; mortgages can be taken and repaid at any time. The game ends at once
when the penthouse is built (or when the table calls :meth:`Game.stop`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from rules.monopoly_builder import chance
from rules.monopoly_builder.board import GO_SALARY, JAIL, JAIL_FINE, SPACES, SpaceKind
from rules.monopoly_builder.dealing import Dealing
from rules.monopoly_builder.errors import (
    CashError,
    InJailError,
    NotYourTurnError,
    PropertyError,
    RefusedAction,
    TooManyResourcesError,
    WrongStepError,
)
from rules.monopoly_builder.island import (
    PENTHOUSE,
    Building,
    Lot,
    check_payment,
    choose_payment,
    level_name,
    next_level,
)
from rules.monopoly_builder.players import RESOURCE_LIMIT, Player
from rules.monopoly_builder.resources import Resource, describe, most_plentiful, pile, take, total
from rules.monopoly_builder.table import Dice, Step


class Game(Dealing):
    """A whole game: ``Game(["red", "yellow"], seed=0)``; see the module's docstring."""

    # -- step 1 and jail -----------------------------------------------------------------
    def drop(self, colour: str, resources: Mapping[str, int] | None = None) -> Counter[Resource]:
        """Drop the resources over 6 on the current space (chosen, or the most plentiful)."""
        p = self._turn(colour, Step.START, Step.JAIL_DROP)
        if p.in_jail:
            raise InJailError(f"{colour} stays In Jail and does not drop resources")
        extra = p.over_limit()
        if extra == 0:
            raise TooManyResourcesError(f"{colour} holds {p.held} resources; nothing to drop")
        dropped = pile(resources) if resources is not None else most_plentiful(p.resources, extra)
        if total(dropped) != extra:
            raise TooManyResourcesError(f"{colour} holds {p.held} resources and must drop "
                                        f"exactly {extra} to keep 6, not {total(dropped)}")
        take(p.resources, dropped, colour)
        self.ground.setdefault(p.position, Counter()).update(dropped)
        self.note(f"{colour} drops {describe(dropped)} on space {p.position}")
        if self.step is Step.JAIL_DROP and self._held_roll is not None:
            held, self._held_roll = self._held_roll, None
            self._after_roll(p, held)
        return dropped

    def pay_fine(self, colour: str) -> None:
        p = self._turn(colour, Step.START)
        if not p.in_jail:
            raise WrongStepError(f"{colour} is not In Jail")
        if p.cash < JAIL_FINE:
            raise CashError(f"the fine is ${JAIL_FINE}; {colour} has ${p.cash} "
                            "(mortgage a property first)")
        p.cash -= JAIL_FINE
        self._leave_jail(p, "pays $50")

    def use_jail_card(self, colour: str) -> None:
        p = self._turn(colour, Step.START)
        if not p.in_jail:
            raise WrongStepError(f"{colour} is not In Jail")
        if not p.jail_cards:
            raise PropertyError(f"{colour} holds no Get Out of Jail Free card")
        self.deck.append(p.jail_cards.pop())
        self._leave_jail(p, "uses a Get Out of Jail Free card")

    def _leave_jail(self, p: Player, how: str) -> None:
        p.in_jail, p.jail_attempts = False, 0
        self.note(f"{p.colour} {how} and leaves Jail")

    # -- steps 2-4 ---------------------------------------------------------------------
    def roll(self, colour: str, dice: Dice | None = None) -> Dice:
        p = self._turn(colour, Step.START, Step.ROLL_AGAIN)
        if dice is not None and (len(dice) != 2 or not all(1 <= d <= 6 for d in dice)):
            raise RefusedAction(f"dice show 1 to 6, not {dice}")
        if self.step is Step.START and not p.in_jail and p.over_limit():
            raise TooManyResourcesError(
                f"{colour} holds {p.held} resources; at the start of a turn a player may "
                f"carry {RESOURCE_LIMIT}: drop {p.over_limit()} on space {p.position} first")
        dice = dice if dice is not None else self.dice()
        self.last_roll = dice
        self.note(f"{colour} rolls {dice[0]}+{dice[1]}")
        doubles = dice[0] == dice[1]
        if p.in_jail:
            return self._jail_roll(p, dice, doubles)
        self.doubles += doubles
        if self.doubles == 3:
            self._distribute(sum(dice))
            self.note(f"{colour} rolls doubles three times and goes to Jail")
            self.send_to_jail(p)
            return dice
        self._after_roll(p, dice)
        return dice

    def _jail_roll(self, p: Player, dice: Dice, doubles: bool) -> Dice:
        if doubles:
            self._leave_jail(p, "rolls doubles")
            self._extra_turn = False
            if p.over_limit():
                self.step, self._held_roll = Step.JAIL_DROP, dice
            else:
                self._after_roll(p, dice)
            return dice
        self._distribute(sum(dice))
        p.jail_attempts += 1
        if p.jail_attempts < 3:
            self.step = Step.TRADE  # deals and trades still allowed; building is not
            return dice
        self.note(f"{p.colour} fails a third time, pays $50 and takes the turn as usual")
        self.charge(p, JAIL_FINE, None)
        self._leave_jail(p, "is out")
        self.step = Step.START
        return dice

    def _after_roll(self, p: Player, dice: Dice) -> None:
        self._distribute(sum(dice))
        self.step = Step.SPACE
        self.advance(p, sum(dice))

    def _distribute(self, rolled: int) -> None:
        """Step 3, in turn order from the roller, each taking what the tray still has."""
        n = len(self.players)
        for p in (self.players[(self.current + i) % n] for i in range(n)):
            owed: Counter[Resource] = Counter()
            for deed_id in p.deeds - p.mortgaged:
                deed = self.board.deeds[deed_id]
                if deed.roll == rolled:
                    owed[deed.resource] += deed.amount
            if rolled == 6:
                owed.update(self.references[p.colour].on_six)
            if owed:
                got = self.tray.give(owed)
                p.resources.update(got)
                self.note(f"{p.colour} collects {describe(got)}")

    def advance(self, p: Player, steps: int) -> None:
        if steps > 0 and p.position + steps >= SPACES:
            p.cash += GO_SALARY
            self.note(f"{p.colour} passes GO and collects ${GO_SALARY}")
        p.position = (p.position + steps) % SPACES
        self.land(p)

    def land(self, p: Player) -> None:
        space = self.board.spaces[p.position]
        self.note(f"{p.colour} lands on {space.label(self.board)}")
        found = self.ground.pop(p.position, None)
        if found:
            p.resources.update(found)
            self.note(f"{p.colour} picks up {describe(found)}")
        self.pending = set()
        kind = space.kind
        if kind is SpaceKind.PROPERTY and space.deed:
            owner = self.owner(space.deed)
            if owner is None:
                self.pending.add("buy_or_auction")
            elif owner is not p and space.deed not in owner.mortgaged:
                self.rent_claims.append((space.deed, p.colour, owner.colour))
        elif kind is SpaceKind.COLLECT and space.resource:
            got = self.tray.give({space.resource: 2})
            p.resources.update(got)
            self.note(f"{p.colour} collects {describe(got)}")
        elif kind is SpaceKind.ROLL_FOR_RESOURCES:
            self.pending.add("roll_for_resources")
        elif kind is SpaceKind.STEAL:
            self.pending.add("steal")
        elif kind is SpaceKind.FREE_PARKING:
            self.pending.add("free_parking")
        elif kind is SpaceKind.CHANCE:
            chance.draw(self, p)
        elif kind is SpaceKind.GO_TO_JAIL:
            self.send_to_jail(p)

    def send_to_jail(self, p: Player) -> None:
        p.position, p.in_jail, p.jail_attempts = JAIL, True, 0
        self.note(f"{p.colour} goes to Jail; the turn is over")
        self._end_turn()


    def next_step(self, colour: str) -> Step:
        """Finish the current step: step 4 leads to another roll after doubles, else to
        step 5; step 5 to step 6; step 6 ends the turn."""
        p = self._turn(colour, Step.SPACE, Step.TRADE, Step.BUILD)
        if self.step is Step.SPACE:
            self._required_done()
            self.pending = set()
            self.step = Step.ROLL_AGAIN if self._rolls_again(p) else Step.TRADE
        elif self.step is Step.TRADE:
            self.step = Step.BUILD
        else:
            self._end_turn()
        return self.step

    def _rolls_again(self, p: Player) -> bool:
        doubles = self.last_roll is not None and self.last_roll[0] == self.last_roll[1]
        return doubles and self._extra_turn and not p.in_jail

    def end_turn(self, colour: str) -> None:
        """Finish every remaining step of the turn (refused while a decision is due or
        after doubles, when the player must roll again)."""
        p = self._turn(colour, Step.SPACE, Step.TRADE, Step.BUILD)
        if self.step is Step.SPACE:
            self._required_done()
            if self._rolls_again(p):
                raise WrongStepError(f"{colour} rolled doubles and must roll again")
        while not self.is_over and self.player is p and self.step is not Step.START:
            self.next_step(colour)

    def _end_turn(self) -> None:
        self.rent_claims = [c for c in self.rent_claims if c[1] != self.player.colour]
        self.pending = set()
        self.current = (self.current + 1) % len(self.players)
        self.step, self.doubles, self.last_roll = Step.START, 0, None
        self._extra_turn, self._held_roll = True, None


    # -- step 6: building ------------------------------------------------------------
    def build(self, colour: str, lot: Lot, pay: Mapping[str, int] | None = None, *,
              penthouse: bool = False) -> int:
        """Add a floor (or the penthouse) on ``lot``; returns the level built. ``pay``
        chooses the resources; by default the "[any]" come from the most plentiful."""
        self._live()
        p = self.by_colour(colour)
        if p is not self.player:
            raise NotYourTurnError(f"{colour} can build only on their own turn; it is "
                                   f"{self.player.colour}'s")
        if p.in_jail:
            raise InJailError(f"{colour} is In Jail and cannot build")
        if self.step not in (Step.TRADE, Step.BUILD):
            raise WrongStepError(f"building is step 6; the turn is at step {self.step.value}")
        lot = (int(lot[0]), int(lot[1]))
        level = next_level(self.island, self.buildings, lot, colour, penthouse=penthouse,
                           penthouse_built=self.penthouse_built)
        if pay is None:
            payment = choose_payment(level, p.resources)
        else:
            payment = pile(pay)
            check_payment(level, payment)
        take(p.resources, payment, colour)
        self.tray.receive(payment)
        self.step = Step.BUILD
        if level == PENTHOUSE:
            self.buildings[lot].penthouse = True
            self.ended_by = f"{colour} built the penthouse"
            self.step = Step.OVER
        elif level == 1:
            self.buildings[lot] = Building(lot, colour)
        else:
            self.buildings[lot].floors = level
        self.note(f"{colour} builds {level_name(level)} on {lot} with {describe(payment)}")
        return level


    def stop(self, reason: str = "the table stopped the game") -> None:
        """End without a penthouse (not in the rulebook: for a table that stops early)."""
        self._live()
        self.ended_by, self.step = reason, Step.OVER


