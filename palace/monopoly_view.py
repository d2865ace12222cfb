"""A Monopoly Builder table as the dashboard's page draws it.

One JSON document with everything on the table (players, the board's spaces with
their owners and the resources lying on them, the island's lots and buildings, the
tray, rent that may be asked for, the score as it stands and the log), so the page
never works anything out itself: every number it shows comes from the rules engine.
"""

from __future__ import annotations

from typing import Any

from rules.monopoly_builder.bank import rent_due
from rules.monopoly_builder.errors import RefusedAction
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import BLOCKS_PER_PLAYER, NEEDS, blocks_used, need_text
from rules.monopoly_builder.resources import to_json
from rules.monopoly_builder.table import Step

LOG_LINES = 80
STEP_NUMBER = {Step.START: 1, Step.JAIL_DROP: 1, Step.ROLL_AGAIN: 2, Step.SPACE: 4,
               Step.TRADE: 5, Step.BUILD: 6, Step.OVER: 7}


def table_view(game: Game) -> dict[str, Any]:
    board = game.board
    players = []
    for p in game.players:
        players.append({
            "colour": p.colour, "token": p.token, "cash": p.cash,
            "resources": to_json(p.resources), "held": p.held,
            "deeds": [{"id": d, "name": board.deeds[d].name, "colour": board.deeds[d].colour,
                       "mortgaged": d in p.mortgaged,
                       "mortgage": board.deeds[d].mortgage,
                       "unmortgage": board.deeds[d].unmortgage}
                      for d in sorted(p.deeds, key=board.space_of)],
            "jail_cards": len(p.jail_cards), "position": p.position, "in_jail": p.in_jail,
            "jail_attempts": p.jail_attempts, "bankruptcies": p.bankruptcies,
            "blocks_left": BLOCKS_PER_PLAYER - blocks_used(game.buildings.values(), p.colour),
        })
    spaces = []
    for s in board.spaces:
        deed = board.deeds.get(s.deed) if s.deed else None
        owner = game.owner(s.deed) if s.deed else None
        spaces.append({
            "index": s.index, "kind": s.kind.value, "label": s.label(board),
            "resource": s.resource.value if s.resource else None,
            "deed": None if deed is None else {
                "id": deed.id, "colour": deed.colour, "price": deed.price, "rent": deed.rent,
                "roll": deed.roll, "resource": deed.resource.value, "amount": deed.amount},
            "owner": owner.colour if owner else None,
            "mortgaged": bool(owner and s.deed in owner.mortgaged),
            "ground": to_json(game.ground.get(s.index, {})),
            "tokens": [p.colour for p in game.players if p.position == s.index],
        })
    claims = []
    for deed_id, payer, owner_colour in game.rent_claims:
        try:
            amount = rent_due(board, game.by_colour(owner_colour), deed_id)
        except RefusedAction:
            continue  # mortgaged since: nothing can be asked
        claims.append({"deed": deed_id, "name": board.deeds[deed_id].name, "payer": payer,
                       "owner": owner_colour, "amount": amount})
    return {
        "game": "monopoly-builder",
        "over": game.is_over, "ended_by": game.ended_by,
        "current": game.player.colour, "step": game.step.value,
        "step_number": STEP_NUMBER[game.step], "pending": sorted(game.pending),
        "last_roll": list(game.last_roll) if game.last_roll else None,
        "doubles": game.doubles,
        "players": players,
        "board": spaces,
        "island": {
            "width": game.island.width, "height": game.island.height,
            "lots": list(game.island.lots),
            "buildings": [{"lot": list(b.lot), "colour": b.colour, "floors": b.floors,
                           "penthouse": b.penthouse}
                          for b in sorted(game.buildings.values(), key=lambda b: b.lot)],
        },
        "tray": to_json(game.tray.counts),
        "rent_claims": claims,
        "deck": len(game.deck),
        "needs": {str(level): need_text(level) for level in NEEDS},
        "score": game.score().to_json(),
        "log": game.log[-LOG_LINES:],
        "standin": board.standin or game.island.standin,
    }
