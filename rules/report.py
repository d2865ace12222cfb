"""What the rules engine tells a player: violations and the report of one turn.

These are plain, JSON-friendly records because everything downstream (the CLI, the
dashboard, the game log) shows or stores them as they are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# Rule codes. Letters are the rulebook's building rules; the rest are physical facts a
# scene must satisfy whatever the turn.
RULE_TEXT: dict[str, str] = {
    "A": "A staircase must start from an open knob on the Ground Map.",
    "B": "A staircase may start with any building brick.",
    "C": "A staircase must end with an arch.",
    "D": "You may build on any open knob, but not on the two centre knobs of an arch.",
    "E": "A staircase must attach to at least one brick already on the Ground Map.",
    "F": "Each building brick in your staircase must be fully supported.",
    "G": "Arch on arch is not allowed.",
    "H": "A staircase may turn 90 degrees.",
    "I": "Every arch must be a direct step up toward the end of the staircase.",
    "decoration": "Place the decoration of the starting point's colour at the end.",
    "overlap": "Two pieces cannot fill the same space.",
    "off-plate": "Every piece must lie on the 32x32 baseplate.",
    "floating": "Every piece stands on something: a piece with nothing under it is a misreading.",
    "blocked": "Nothing may be built on a blocked area of the Ground Map.",
    "corner": "The corner bricks hold the board and are not built on.",
    "removed": "Pieces already on the board stay where they are.",
    "pieces": "A staircase uses only the pieces the player has.",
    "staircase": "Build one staircase: every piece placed this turn belongs to it.",
    "monkey": "Whoever places a gold decoration puts the Monkey on an open end knob of an arch.",
    "butterfly": "The Butterfly sits on the tallest decoration, placed this turn.",
    "frog": "The Frog goes on the lowest open end knob of the staircase just built.",
}


@dataclass(frozen=True)
class Violation:
    """One broken rule, with the pieces involved and a sentence a player understands."""

    rule: str
    pieces: tuple[str, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "pieces": list(self.pieces), "message": self.message}


@dataclass(frozen=True)
class Trophies:
    """Trophies this turn earns (Monkey, Butterfly) or the player chose (Frog)."""

    monkey: bool = False
    butterfly: bool = False
    frog: bool = False


@dataclass(frozen=True)
class TurnReport:
    """Everything one turn's staircase is worth, or why it is not legal.

    ``credits`` already includes the highest-decoration credit. ``path`` lists the
    ids of the staircase's direct path from its starting piece to its last arch.
    Credits, bonus and the Monkey and Butterfly are only ever earned by a legal
    staircase; ``arches`` and ``path`` are filled in for illegal ones too, to explain.

    ``passed`` marks a turn where nothing was built (the player could not attach a
    staircase and only takes the recurring delivery); it is never ``legal``.
    ``decoration_tied`` says the new decoration is exactly as high as the highest other
    one of its colour (whether that earns the credit is a setting).
    ``start_named`` says the map did not know the starting stud's colour (``?``, a map
    read by the camera) and the staircase's decoration named it
    (``RuleSettings.name_unknown_start``); the game then keeps that name.
    """

    legal: bool
    violations: tuple[Violation, ...] = ()
    arches: int = 0
    credits: int = 0
    start_color: str | None = None
    start: tuple[int, int] | None = None
    decoration: str | None = None
    decoration_highest: bool = False
    bonus_card: bool = False
    bonus_height: int = 0
    trophies: Trophies = field(default_factory=Trophies)
    path: tuple[str, ...] = ()
    new_pieces: tuple[str, ...] = ()
    passed: bool = False
    decoration_tied: bool = False
    start_named: bool = False

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["violations"] = [v.to_json() for v in self.violations]
        out["start"] = list(self.start) if self.start else None
        out["path"] = list(self.path)
        out["new_pieces"] = list(self.new_pieces)
        return out
