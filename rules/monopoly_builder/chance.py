"""Chance cards: drawing one and doing what it says.

A kept card (Get Out of Jail Free) stays with the player until used; every other card
is used at once and goes back under the deck. The effects are a small vocabulary so
the deck itself is data (``data/chance.json``) a table can rewrite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.monopoly_builder.board import SPACES
from rules.monopoly_builder.resources import describe

if TYPE_CHECKING:
    from rules.monopoly_builder.game import Game
    from rules.monopoly_builder.players import Player


def draw(game: Game, p: Player) -> None:
    card_id = game.deck.popleft()
    card = game.cards[card_id]
    game.note(f"{p.colour} draws Chance: {card.text}")
    if card.kept:
        p.jail_cards.append(card_id)
        return
    apply(game, p, card.effect, card.params)
    game.deck.append(card_id)  # "After using a Chance card, put it back on the bottom"


def apply(game: Game, p: Player, effect: str, params: dict[str, Any]) -> None:
    if effect == "go_to_jail":
        game.send_to_jail(p)
    elif effect == "forced_trade":
        others = any(q.deeds for q in game.players if q is not p)
        if p.deeds and others:
            game.pending.add("forced_trade")
        else:
            game.note("forced trade: there is nothing to swap")
    elif effect == "advance_to":
        game.advance(p, (params["space"] - p.position) % SPACES or SPACES)
    elif effect == "move":
        steps = params["steps"]
        if steps >= 0:
            game.advance(p, steps)
        else:  # going back never passes GO
            p.position = (p.position + steps) % SPACES
            game.land(p)
    elif effect == "collect":
        p.cash += params["cash"]
    elif effect == "pay":
        game.charge(p, params["cash"], None)
    elif effect == "collect_from_each":
        for q in game.players:
            if q is not p:
                game.charge(q, params["cash"], p)
    elif effect == "resources":
        got = game.tray.give(params["resources"])
        p.resources.update(got)
        game.note(f"{p.colour} collects {describe(got)}")
