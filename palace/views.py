"""The game as the page shows it: one JSON document built from a :class:`rules.Game`.

The page never computes a rule: everything it shows (who may buy which card, the
ranking and its tie-break, which turn placed which piece) is worked out here from the
rules engine, so the page, the API and the exported log cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from palace.commands.score import format_report
from palace.draft import Draft
from palace.gamelog import TurnRow
from rules.cards import Card, Delivery
from rules.game import Game, TurnResult
from rules.maps import piece_to_json
from rules.pieces import DecorationColor
from rules.report import Trophies, TurnReport, Violation


def report_words(report: TurnReport | None) -> list[str]:
    """The turn report in plain sentences, one per line (the CLI's wording)."""
    if report is None:
        return ["No staircase was built: the player only takes the recurring delivery."]
    return [line.strip() for line in format_report(report).splitlines() if line.strip()]


def report_from_json(data: dict[str, Any] | None) -> TurnReport | None:
    """A logged report back as the engine's record (for its words); None for a pass."""
    if data is None:
        return None
    violations = tuple(Violation(v["rule"], tuple(v["pieces"]), v["message"])
                       for v in data["violations"])
    return TurnReport(**{**data, "violations": violations,
                         "trophies": Trophies(**data["trophies"]),
                         "start": tuple(data["start"]) if data["start"] else None,
                         "path": tuple(data["path"]), "new_pieces": tuple(data["new_pieces"])})


def card_json(card: Card) -> dict[str, Any]:
    return {"id": card.id, "pile": card.pile, "cost": card.cost, "color": card.color.value,
            "bananas": card.bananas, "one_time": card.one_time.to_json(),
            "recurring": card.recurring.to_json()}


def delivery_json(delivery: Delivery) -> dict[str, int]:
    return {"arch": delivery.arches, "brick": delivery.bricks, "column": delivery.columns,
            "arch_or_brick": delivery.arch_or_brick}


def result_json(result: TurnResult) -> dict[str, Any]:
    """What a confirmed turn did, as the log stores it and the page lists it."""
    return {"seat": result.seat, "round": result.round, "passed": result.passed,
            "cards": [card_json(c) for c in result.cards],
            "received": delivery_json(result.received), "short": result.short,
            "bonus_card": result.bonus_card, "trophies": list(result.trophies),
            "placed": [p.id for p in result.placed]}


def ranking(game: Game) -> tuple[list[dict[str, Any]], str]:
    """Seats from best to worst with their rank, and how a tie for first was settled.

    Winners come from :meth:`Game.winners` (the Monkey holder wins a tie, otherwise the
    victory is shared); the other seats are ranked by bananas, equal bananas sharing a
    rank.
    """
    scores = game.scores()
    winners = set(game.winners())
    order = sorted(range(len(scores)), key=lambda s: (s not in winners, -scores[s], s))
    out = []
    for i, seat in enumerate(order):
        if seat in winners:
            rank = 1
        else:
            better = sum(1 for s in range(len(scores)) if s in winners or scores[s] > scores[seat])
            rank = better + 1
        out.append({"seat": seat, "score": scores[seat], "rank": rank,
                    "winner": seat in winners, "position": i})
    best = max(scores)
    tied = [s for s in range(len(scores)) if scores[s] == best]
    if len(tied) < 2:
        note = ""
    elif len(winners) == 1:
        note = (f"{len(tied)} players tie on {best} bananas; the Monkey trophy holder "
                f"(Player {next(iter(winners)) + 1}) wins the tie")
    else:
        note = f"{len(tied)} players tie on {best} bananas and nobody of them holds the " \
               "Monkey trophy: they share the victory"
    return out, note


def players_json(game: Game, names: Sequence[str]) -> list[dict[str, Any]]:
    scores = game.scores()
    out = []
    for player in game.players:
        held = [t for t, seat in game.trophies.items() if seat == player.seat]
        out.append({
            "seat": player.seat, "name": names[player.seat], "pieces": player.pieces(),
            "stacks": [[card_json(c) for c in stack] for stack in player.stacks],
            "visible": [card_json(s[-1]) for s in player.stacks if s],
            "card_bananas": player.card_bananas(), "bonus_cards": player.bonus_cards,
            "trophies": held, "score": scores[player.seat],
            "recurring": delivery_json(player.recurring()),
            "active": player.seat == game.current and not game.is_over})
    return out


def market_json(game: Game, color: str | None) -> list[dict[str, Any]]:
    """The twelve piles with their top cards; ``color`` (the draft's decoration colour)
    marks which top cards the active player may take."""
    out = []
    for name, cards in game.market.piles.items():
        top = cards[-1] if cards else None
        allowed = bool(top and color and top.color.value in (color, "multi"))
        out.append({"pile": name, "count": len(cards), "top": card_json(top) if top else None,
                    "allowed": allowed})
    return out


def palace_json(game: Game, placed_in: dict[str, int]) -> list[dict[str, Any]]:
    """The pieces standing, each with the turn that put it there (0: the set-up)."""
    return [{**piece_to_json(p), "turn": placed_in.get(p.id, 0)} for p in game.palace]


def game_json(game: Game, names: Sequence[str]) -> dict[str, Any]:
    """Everything about the position except the draft and the log's history."""
    tray = game.tray
    highest = {c.value: game.palace.highest_decoration_level(c.value) for c in DecorationColor}
    rank, note = ranking(game)
    return {
        "players": players_json(game, names),
        "current": game.current, "round": game.round, "is_over": game.is_over,
        "end_triggered": game.end_triggered,
        "tray": {"arch": tray.arches, "brick": tray.bricks, "column": tray.columns,
                 "decorations": dict(tray.decorations), "bonus_cards": game.bonus_pile},
        "trophies": dict(game.trophies),
        "highest_decoration": highest,
        "ground": list(game.palace.ground.ground),
        "start_area": [list(c) for c in sorted(game.palace.ground.start_area)],
        "standin_map": game.palace.ground.standin,
        "settings": asdict(game.settings),
        "ranking": rank, "tie_break": note,
    }


def draft_json(draft: Draft | None, report: TurnReport | None) -> dict[str, Any] | None:
    """This turn as read so far, with its report, its words and what to highlight."""
    if draft is None:
        return None
    return {**draft.to_json(), "doubtful": list(draft.doubtful),
            "report": report.to_json() if report else None,
            "words": report_words(report) if report else [draft.reason],
            "offending": sorted({i for v in report.violations for i in v.pieces})
            if report else []}


def turns_json(turns: Sequence[TurnRow]) -> list[dict[str, Any]]:
    """The logged turns (undone ones marked) as the page lists them."""
    return [{"number": t.number, "seat": t.seat, "round": t.round, "kind": t.kind,
             "source": t.source, "undone": t.undone is not None, "report": t.report,
             "result": t.result, "words": report_words(report_from_json(t.report))}
            for t in turns]
