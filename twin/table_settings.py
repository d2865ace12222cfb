"""What the simulated table does: the pace of play, the webcam's noise, and the
mishaps a run may ask for (a knocked webcam, a pushed board, the room's light changing,
players leaning over the table, a card laid over the board's edge). Every mishap is off
by default, and each draws on a stream of its own, so a table without it plays as it
always has (:class:`twin.table.SimulatedTable`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableSettings:
    """The pace of play and what the webcam adds to each frame."""

    fps: float = 10.0
    width: int = 1280
    height: int = 720
    setup_s: float = 2.0
    still_s: float = 2.0
    """How long the finished palace lies still after each turn."""
    enter_frames: int = 4
    frames_per_piece: int = 2
    move_chance: float = 0.25
    """After a turn, the chance that the board is slid or turned."""
    quarter_turn_chance: float = 0.35
    """Of those moves, the share that turn the board by a quarter."""
    noise: float = 2.0
    flicker: float = 0.03
    """Frame-to-frame light flicker (a fraction of the brightness)."""
    second_webcam_deg: float | None = None
    """A second webcam of the same make this many degrees round the table from the
    first (at the same height and distance), filming each frame too; None: one webcam."""
    webcam_bump_deg: float = 0.0
    """While a player builds, the first webcam is knocked (a table leant on, a loose
    clamp) and stays turned by up to this many degrees from where it was set up, in pan
    and tilt, drawn afresh each turn; 0: never."""
    board_push_mm: float = 0.0
    """While a player builds, pressing the pieces onto their studs pushes the board up to
    this many millimetres across the table (and turns it up to a tenth as many degrees),
    where it stays; 0: never."""
    light_drift_deg: float = 0.0
    """While the palace lies still after each turn, the room's light creeps round the
    table by this many degrees (the sun along a window), in :data:`DRIFT_STEPS` steps
    over the second half of the still spell; 0: never."""
    light_switch_chance: float = 0.0
    """After each turn, the chance that the room's light changes at once while the
    palace lies still (a lamp switched on or off, a curtain drawn): the lamp swings 20
    to 60 degrees round the table and its strength changes by up to 40 %."""
    player_shadow_chance: float = 0.0
    """After each turn, the chance that the player who built still leans over the table
    for :data:`LEAN_S` as the board settles, their soft shadow taking
    :data:`PLAYER_SHADOW` of the light over one side of it, and then leans back (the
    shadow's edge withdrawing off the board in a second)."""
    onlooker_chance: float = 0.0
    """After each turn, the chance that another player leans over the table for
    :data:`LEAN_S` to look at the palace, building nothing, once it has lain still for
    half a spell (their shadow coming over the board and going in a second each way)."""
    card_chance: float = 0.0
    """Each turn, the chance that the player lays a card over a side of the board while
    building (:meth:`twin.Card.over_an_edge`); it lies there until the next player, at
    work, picks it up."""


DRIFT_STEPS = 4
"""The steps a still spell's drift of the light is made in: a real drift is smooth."""
PLAYER_SHADOW = 0.4
"""The share of the light a player leaning over the table takes (``Relight.shadow``)."""
LEAN_BACK_MM = 400.0
"""How far a player's shadow withdraws as they lean back: off the board."""
LEAN_S = 12.0
"""How long the player who built leans over the table before leaning back."""
