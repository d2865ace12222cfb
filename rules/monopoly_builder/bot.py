"""A bot that plays random legal Monopoly Builder turns, for simulations and tests.

It takes every decision the rules offer (buy or auction, steal, reroll, rent asked,
2-for-1 and 4-for-1 trades, building) by chance, but builds greedily towards the
penthouse so that seeded games reach an end: a game that ends is the only proof that
the whole turn flow holds together.
"""

from __future__ import annotations

import random
from collections import Counter

from rules.monopoly_builder.board import FREE_PARKING
from rules.monopoly_builder.errors import RefusedAction
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import MAX_FLOORS, NEEDS, PENTHOUSE, Lot
from rules.monopoly_builder.players import Player
from rules.monopoly_builder.resources import Resource, covers, total
from rules.monopoly_builder.table import Step


def play_turn(game: Game, rng: random.Random) -> None:
    """Play the current player's whole turn (or the rest of it)."""
    colour = game.player.colour
    while not game.is_over and game.player.colour == colour:
        _act(game, game.player, rng)
        if game.step is Step.START and game.player.colour != colour:
            return


def _act(game: Game, p: Player, rng: random.Random) -> None:
    c, step = p.colour, game.step
    if step is Step.START:
        if p.in_jail:
            if p.jail_cards and rng.random() < 0.5:
                game.use_jail_card(c)
            elif p.cash >= 50 and rng.random() < 0.3:
                game.pay_fine(c)
            else:
                game.roll(c)
                return
        if p.over_limit():
            game.drop(c)
        game.roll(c)
    elif step is Step.JAIL_DROP:
        game.drop(c)
    elif step is Step.ROLL_AGAIN:
        game.roll(c)
    elif step is Step.SPACE:
        _settle_space(game, p, rng)
        game.next_step(c)
    elif step is Step.TRADE:
        _trade(game, p, rng)
        game.next_step(c)
    elif step is Step.BUILD:
        if not p.in_jail:
            _build(game, p, rng)
        if not game.is_over:
            game.next_step(c)


def _settle_space(game: Game, p: Player, rng: random.Random) -> None:
    c = p.colour
    for deed, payer, owner in list(game.rent_claims):
        if payer == c and rng.random() < 0.7:
            game.ask_rent(owner, deed)
    if "buy_or_auction" in game.pending:
        deed = game.board.deed_at(p.position)
        assert deed is not None
        if p.cash >= deed.price and rng.random() < 0.8:
            game.buy(c)
        else:
            price = 10 + 5 * rng.randrange(0, 20)
            rich = [q.colour for q in game.players if q.cash >= price]
            game.auction(c, rng.choice(rich) if rich and rng.random() < 0.8 else None, price)
    if "roll_for_resources" in game.pending:
        game.roll_for_resources(c)
    if "forced_trade" in game.pending:
        mine = sorted(p.deeds)
        theirs = sorted(d for q in game.players if q is not p for d in q.deeds)
        game.forced_trade(c, rng.choice(mine), rng.choice(theirs))
    if "steal" in game.pending and rng.random() < 0.9:
        victims = [(q.colour, r) for q in game.players if q is not p for r in q.resources]
        if victims:
            game.steal(c, *rng.choice(victims))
    if "free_parking" in game.pending and p.position == FREE_PARKING:
        _trade_towards(game, p, rate=2)


def _trade(game: Game, p: Player, rng: random.Random) -> None:
    if not p.in_jail:
        _trade_towards(game, p, rate=4)
    if p.mortgaged and rng.random() < 0.3:
        deed = rng.choice(sorted(p.mortgaged))
        if p.cash >= game.board.deeds[deed].unmortgage:
            game.unmortgage(p.colour, deed)


def _target(game: Game, p: Player) -> tuple[Lot, int] | None:
    """The lot to grow next: the tallest own building, else a free lot next to one."""
    own = sorted((b for b in game.buildings.values() if b.colour == p.colour),
                 key=lambda b: (-b.floors, b.lot))
    for b in own:
        if b.floors < MAX_FLOORS:
            return b.lot, b.floors + 1
        if not b.penthouse and not game.penthouse_built:
            return b.lot, PENTHOUSE
    free = [lot for lot in game.island.all_lots() if lot not in game.buildings]
    if not free:
        return None
    near = [lot for lot in free if any(n in {b.lot for b in own}
                                       for n in game.island.next_door(lot))]
    return (near or free)[0], 1


def _missing(level: int, hand: Counter[Resource]) -> Resource | None:
    fixed, _ = NEEDS[level]
    return next((r for r in Resource if hand[r] < fixed[r]), None)


def _trade_towards(game: Game, p: Player, rate: int) -> None:
    target = _target(game, p)
    if target is None:
        return
    for _ in range(4):
        want = _missing(target[1], p.resources)
        if want is None:
            return
        fixed, _ = NEEDS[target[1]]
        spare = [r for r in Resource if r is not want and p.resources[r] - fixed[r] >= rate]
        if not spare or game.tray.counts[want] == 0:
            return
        game.bank_trade(p.colour, max(spare, key=lambda r: p.resources[r]), want)


def _build(game: Game, p: Player, rng: random.Random) -> None:
    while not game.is_over:
        target = _target(game, p)
        if target is None:
            return
        lot, level = target
        fixed, anys = NEEDS[level]
        if not covers(p.resources, fixed) or total(p.resources) < total(fixed) + anys:
            return
        try:
            game.build(p.colour, lot, penthouse=level == PENTHOUSE)
        except RefusedAction:
            return  # out of blocks: this player is done building
        if rng.random() < 0.1:
            return


def simulate(colours: list[str], seed: int, max_turns: int = 400) -> Game:
    """A seeded game between bots, stopped after ``max_turns`` if nobody tops out."""
    game = Game(colours, seed)
    rng = random.Random(seed + 1)
    turns = 0
    while not game.is_over and turns < max_turns:
        play_turn(game, rng)
        turns += 1
    if not game.is_over:
        game.stop(f"stopped after {max_turns} turns")
    return game
