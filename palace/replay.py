"""The game rebuilt from the log (the set-up, then every turn not undone), and exported.

:class:`rules.Game` is deterministic for a seed, so playing the logged turns again
gives back exactly the position (market order, tray, trophies) the table had; this is
what ``--resume`` and undo both rely on.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from palace import views
from palace.draft import Draft
from palace.gamelog import GameLog, GameRow, LogError
from rules.formats import SCENE_FORMAT
from rules.game import Game
from rules.maps import GroundMap, load_map, map_from_json
from rules.palace import Palace
from rules.pieces import Piece
from rules.scene import scene_from_json
from rules.settings import RuleSettings


def replay(log: GameLog, row: GameRow) -> tuple[Game, dict[str, int], list[int]]:
    """The game, which turn placed each piece (by id), and the turn numbers in play.

    A log that cannot be replayed (edited by hand, or written by rules that have since
    changed) is a :class:`LogError` naming the game and the problem.
    """
    where = f"{log.path}: game {row.id}"
    try:
        ground = (map_from_json(row.map_json, f"{where} map") if row.map_json
                  else load_map(row.map_name))
        game = Game(ground, row.players, seed=row.seed, settings=RuleSettings(**row.settings))
        placed_in: dict[str, int] = {}
        numbers = []
        for turn in log.turns(row.id):
            opts = turn.options
            if turn.kind == "pass":
                result = game.pass_turn(free_arches=opts.get("free_arches"))
            else:
                added = scene_from_json({"format": SCENE_FORMAT, "pieces": turn.added},
                                        f"{where} turn {turn.number}").pieces
                spot = opts.get("monkey_at")
                result = game.play_turn(added, opts.get("purchases", []),
                                        frog=opts.get("frog", False),
                                        free_arches=opts.get("free_arches"),
                                        stacks=opts.get("stacks"),
                                        monkey_at=tuple(spot) if spot else None)
            placed_in.update(dict.fromkeys((p.id for p in result.placed), turn.number))
            numbers.append(turn.number)
    except (ValueError, KeyError, TypeError) as exc:
        raise LogError(f"{where}: cannot be replayed ({exc})") from None
    return game, placed_in, numbers


def game_export(log: GameLog, row: GameRow, game: Game, draft: Draft | None) -> dict[str, Any]:
    """The whole game as one JSON document (``palace-game/1``): set-up, every turn with
    its pieces, options, report, card picks and frame count (undone ones marked), the
    corrections and undos in order, the open draft and the position now."""
    turns = [{**asdict(t), "cards": log.picks(t.id), "frames": len(log.frames(row.id, t.id))}
             for t in log.turns(row.id, undone=True)]
    return {"format": "palace-game/1", "game": asdict(row), "turns": turns,
            "corrections": log.corrections(row.id), "undos": log.undos(row.id),
            "draft": draft.to_json() if draft else None,
            "final": views.game_json(game, row.names)}


def palace_at(log: GameLog, row: GameRow, ground: GroundMap,
              number: int) -> tuple[Piece, ...] | None:
    """The pieces standing after turn ``number`` in play (0: the set-up); None when
    there is no such turn."""
    if number == 0:
        return Palace.setup(ground).pieces
    turn = next((t for t in log.turns(row.id) if t.number == number), None)
    return None if turn is None else scene_from_json(turn.scene).pieces
