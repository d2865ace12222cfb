"""`palace score --game monopoly-builder STATE.json [--json]`: a Monopoly Builder table
scored as if the game ended now (builder points, colour sets, the two Builder's
Bonuses, the winner with the cash tie-break).

Reached from `palace score` (see :mod:`palace.commands.score`), which stays Monkey
Palace's by default.
"""

from __future__ import annotations

import argparse
import json

from palace.cli import UsageError
from rules.monopoly_builder.data import DataFileError
from rules.monopoly_builder.scoring import ScoreSheet
from rules.monopoly_builder.state import load_state, score_state


def run(args: argparse.Namespace) -> int:
    if args.after is not None:
        raise UsageError("monopoly-builder scores one state file, not a before and an after")
    try:
        sheet = score_state(load_state(args.before))
    except DataFileError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(sheet.to_json(), indent=1) if args.json else format_sheet(sheet))
    return 0


def format_sheet(sheet: ScoreSheet) -> str:
    """One line per player, winner first, with where each point comes from."""
    lines = []
    for s in sheet.ranking:
        parts = [f"buildings {sum(s.buildings)} ({'+'.join(map(str, s.buildings)) or 'none'})"]
        if s.sets:
            parts.append(f"sets {s.set_points} ({', '.join(s.sets)})")
        if s.billionaire:
            parts.append("Billionaire Builder 3")
        if s.community:
            parts.append(f"Community Builder 5 (neighbourhood of {s.neighbourhood})")
        mark = "  winner" if s.winner else ""
        lines.append(f"{s.rank}. {s.colour}: {s.total} builder points, ${s.cash} "
                     f"[{'; '.join(parts)}]{mark}")
    return "\n".join(lines)
