"""House rules: the choices the rulebook leaves open, with the project's defaults.

Every default below is the interpretation written down in docs/game.md; a table that plays
differently changes a setting instead of the code, and the turn report follows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleSettings:
    """Options of the staircase analysis.

    ``tie_earns_credit``: a decoration only as high as the highest one of its colour
    earns no extra Monkey Credit by default ("strictly higher", docs/game.md, rule 7).

    ``bonus_counts_existing``: the 5-brick bonus counts this turn's vertical run of
    bricks and columns; set it to also count the pieces that were already standing
    under that run (arches never count, docs/game.md, rule 8).

    ``bonus_height``: how tall, in bricks, that run must be for a Bonus Card.

    ``butterfly`` / ``frog``: the optional trophies are in play.

    ``corner_inset``: free studs between the plate's edge and each corner brick.

    ``name_unknown_start``: a staircase that starts on a stud the map does not know
    (``?``, a map read by the camera) names that stud by its decoration, and the game
    keeps the name (``TurnReport.start_named``); off, such a stud is
    never a starting point.
    """

    tie_earns_credit: bool = False
    bonus_counts_existing: bool = False
    bonus_height: int = 5
    butterfly: bool = True
    frog: bool = True
    corner_inset: int = 1
    name_unknown_start: bool = True
