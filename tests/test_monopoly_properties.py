"""Properties of Monopoly Builder: random legal games never break a building rule and
always end with a ranking; random attempts at any action are either legal or refused
without changing anything."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.monopoly_builder import RefusedAction, Resource
from rules.monopoly_builder.bot import play_turn, simulate
from rules.monopoly_builder.game import Game
from rules.monopoly_builder.island import BLOCKS_PER_PLAYER, MAX_FLOORS
from rules.monopoly_builder.players import COLOUR_ORDER
from rules.monopoly_builder.state import state_of
from rules.monopoly_builder.trading import Offer


def broken_rules(g: Game) -> list[str]:
    """Every way the table breaks the rules (empty when all is well)."""
    out = []
    colours = {p.colour for p in g.players}
    for lot, b in g.buildings.items():
        if b.lot != lot or not g.island.is_lot(lot):
            out.append(f"building off the lots at {lot}")
        if b.colour not in colours:
            out.append(f"building of no player's colour at {lot}")
        if not 1 <= b.floors <= MAX_FLOORS:
            out.append(f"{b.floors} floors at {lot}")
        if b.penthouse and b.floors != MAX_FLOORS:
            out.append(f"penthouse on {b.floors} floors at {lot}")
    penthouses = sum(b.penthouse for b in g.buildings.values())
    if penthouses > 1 or (penthouses and not g.is_over):
        out.append(f"{penthouses} penthouses, game over: {g.is_over}")
    for c in colours:
        if sum(b.floors for b in g.buildings.values() if b.colour == c) > BLOCKS_PER_PLAYER:
            out.append(f"{c} used more than 12 blocks")
    for r in Resource:
        counts = [g.tray.counts[r], *(p.resources[r] for p in g.players),
                  *(pile[r] for pile in g.ground.values())]
        if min(counts) < 0 or sum(counts) != 20:
            out.append(f"{r.value}: {counts}")
    owned = [d for p in g.players for d in p.deeds]
    if len(owned) != len(set(owned)):
        out.append("a deed with two owners")
    for p in g.players:
        if p.cash < 0 or not p.mortgaged <= p.deeds:
            out.append(f"{p.colour}: cash {p.cash}, mortgaged {p.mortgaged - p.deeds}")
    cards = list(g.deck) + [c for p in g.players for c in p.jail_cards]
    if sorted(cards) != sorted(g.cards):
        out.append("Chance cards lost or doubled")
    return out


def assert_ranked(g: Game) -> None:
    sheet = g.score()
    assert sorted(s.colour for s in sheet.ranking) == sorted(p.colour for p in g.players)
    best = max(s.total for s in sheet.players)
    assert sheet.winners and all(s.total == best for s in sheet.players if s.winner)
    assert [s.rank for s in sheet.ranking] == sorted(s.rank for s in sheet.ranking)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 4))
def test_random_legal_games_keep_the_rules_and_end_ranked(seed, players):
    g = Game(list(COLOUR_ORDER[:players]), seed)
    rng = random.Random(seed)
    for _ in range(300):
        if g.is_over:
            break
        play_turn(g, rng)
        assert broken_rules(g) == []
    if not g.is_over:
        g.stop()
    assert_ranked(g)


def test_bot_games_usually_reach_the_penthouse():
    games = [simulate(["red", "purple", "green"], seed) for seed in range(10)]
    assert sum("penthouse" in g.ended_by for g in games) >= 8


def _snapshot(g: Game) -> tuple:
    return (state_of(g), g.step, sorted(g.pending), list(g.deck), list(g.rent_claims),
            dict(g.tray.counts), len(g.log), g.ended_by)


def _attempt(g: Game, rng: random.Random) -> None:
    """One action of any kind by any player with random arguments."""
    colours = [p.colour for p in g.players]
    who = g.player.colour if rng.random() < 0.7 else rng.choice(colours)
    other = rng.choice(colours)
    res = [*(r.value for r in Resource), "gold"]  # "gold" is no resource: refused
    deeds = sorted(g.board.deeds)
    lot = (rng.randrange(-1, g.island.width + 1), rng.randrange(-1, g.island.height + 1))
    pay = {r: rng.randrange(-1, 3) for r in rng.sample(res, 2)}
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    actions = [
        lambda: g.roll(who, dice), lambda: g.drop(who), lambda: g.next_step(who),
        lambda: g.end_turn(who), lambda: g.buy(who),
        lambda: g.auction(who, other, rng.randrange(0, 60)),
        lambda: g.steal(who, other, rng.choice(res)),
        lambda: g.roll_for_resources(who, dice),
        lambda: g.bank_trade(who, rng.choice(res), rng.choice(res)),
        lambda: g.build(who, lot, pay if rng.random() < 0.5 else None,
                        penthouse=rng.random() < 0.2),
        lambda: g.mortgage(who, rng.choice(deeds)),
        lambda: g.unmortgage(who, rng.choice(deeds)),
        lambda: g.ask_rent(who, rng.choice(deeds)),
        lambda: g.pay_fine(who), lambda: g.use_jail_card(who),
        lambda: g.forced_trade(who, rng.choice(deeds), rng.choice(deeds)),
        lambda: g.deal(who, other, Offer.of(cash=5 * rng.randrange(0, 5)),
                       Offer.of(resources={rng.choice(res): 1})),
    ]
    flow = actions[:5]  # the turn's own steps, tried most often
    (rng.choice(flow) if rng.random() < 0.5 else rng.choice(actions))()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_any_attempt_is_legal_or_refused_without_change(seed):
    g = Game(["red", "purple", "green"], seed)
    rng = random.Random(seed)
    for _ in range(400):
        if g.is_over:
            break
        before = _snapshot(g)
        try:
            if rng.random() < 0.2:
                play_turn(g, rng)  # keep the game moving
            else:
                _attempt(g, rng)
        except RefusedAction:
            assert _snapshot(g) == before
        assert broken_rules(g) == []
    if not g.is_over:
        g.stop()
    assert_ranked(g)
