"""The simulated table's players at the page: what people would do beside the camera.

In ``palace demo`` bots play a game on the simulated table and the camera loop reads it
through the real pipeline. Someone must still do what players do on the page: pick the
cards the turn's credits buy, say "I pass", and fix the camera's misreadings. The
:class:`TablePlayers` do exactly that, through the same session methods the page
calls, and keep count of how often the camera was right, so the demo ends with an
honest tally of the pipeline at work.

A turn the camera read as the bot built it is confirmed as read. A turn read wrongly
(or out of sync) is corrected to what was built, as a player would on the page, then
confirmed. A turn the camera missed is entered by hand when the next one starts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from palace.session import TableSession
from palace.turn_actions import SessionError
from rules.pieces import same_pieces
from twin.table import SimulatedTable, TableFrame


@dataclass
class DemoTally:
    """How the camera did over the demo's turns."""

    built: int = 0
    read_right: int = 0
    corrected: int = 0
    doubted: int = 0
    """Of the corrected, turns whose pieces the camera read right but held in doubt (a
    piece under the page's doubt line, or the reading uncertain): the players only
    confirmed them. Told apart so that the loop's tally compares with the turn bench's
    exact readings."""
    missed: int = 0
    passes: int = 0
    refused: int = 0

    def line(self) -> str:
        return (f"{self.built} turns built: {self.read_right} read right by the camera, "
                f"{self.corrected} corrected on the page ({self.doubted} of them read right "
                f"but held in doubt), {self.missed} missed and entered "
                f"by hand; {self.passes} passes; {self.refused} refused")


class TablePlayers:
    """The bots' hands on the page: card picks, passes and corrections, turn by turn."""

    def __init__(self, session: TableSession, table: SimulatedTable,
                 say: Callable[[str], None] | None = None, think_s: float = 0.0,
                 after_turn: Callable[[], None] | None = None) -> None:
        self.session = session
        self.table = table
        self.say = say or (lambda _: None)
        self.after_turn = after_turn or (lambda: None)
        """Called once a turn is in the game (played or passed)."""
        self.think_s = think_s
        """How long (table time) players look at a reading before acting on it, so that
        people watching the page see it, doubts and all."""
        self._read_at: float | None = None
        self._reading = False
        self.tally = DemoTally()
        self.finished = 0
        """Turns of the table finished on the page."""
        self.started = 0
        """Turns whose building has begun on the table."""

    def set_up(self) -> None:
        """A new game in the session matching the bots' game: players, map and seed."""
        record = self.table.record
        self.session.new_game(record.players, map_name=record.map, seed=record.seed)

    def watch(self, frame: TableFrame) -> None:
        """Before the loop sees a frame: a player who starts building ends the turn
        before it on the page, if the camera has not given them the chance yet."""
        if self._reading:
            if self._read_at is None:
                self._read_at = frame.time
            if frame.time - self._read_at >= self.think_s and self.finished < self.started:
                self._reading = False
                self.finish(self.finished)
        if frame.playing is not None and frame.playing >= self.started:
            while self.finished < frame.playing:
                self.finish(self.finished)
            self._reading = False
            self.started = frame.playing + 1

    def on_turn(self, reading: Any, result: Any) -> None:
        """The camera read a turn: its player checks it and picks cards (after
        ``think_s``)."""
        del reading, result
        if self.finished >= self.started:
            return
        if self.think_s <= 0:
            self.finish(self.finished)
        else:
            self._reading, self._read_at = True, None

    def finish_all(self) -> None:
        """The last turns, once the table is done."""
        while self.finished < self.table.turns:
            self.finish(self.finished)

    def finish(self, number: int) -> None:
        """Ends turn ``number`` on the page as its player would."""
        self.finished = number + 1
        session = self.session
        if session.over:
            return
        turn = self.table.record.turns[number]
        seat = session.game.current
        name = session.row.names[seat]
        try:
            if turn.passed:
                self.tally.passes += 1
                if session.draft is not None:
                    session.discard()
                session.pass_turn(seat)
                self.say(f"turn {number + 1}: {name} passes")
                self.after_turn()
                return
            self.tally.built += 1
            truth = self.table.record.scenes[number + 1]
            draft = session.draft
            seen_right = (draft is not None and draft.source == "camera"
                          and same_pieces(draft.added, turn.placed))
            if draft is None:
                self.tally.missed += 1
                session.set_scene(truth.to_json())
                how = "missed by the camera, entered by hand"
            elif seen_right and session.sync == "pending":
                self.tally.read_right += 1
                how = "read right by the camera"
            else:
                self.tally.corrected += 1
                self.tally.doubted += seen_right
                session.set_scene(truth.to_json())
                how = ("read right but held in doubt; confirmed on the page" if seen_right
                       else "corrected on the page")
            session.confirm(seat, [card.pile for card in turn.cards])
            report = turn.report
            credits = report.credits if report is not None else 0
            self.say(f"turn {number + 1}: {name} built {len(turn.placed)} pieces, "
                     f"{credits} credits; {how}")
            self.after_turn()
        except SessionError as exc:
            self.tally.refused += 1
            self.say(f"turn {number + 1}: the session refused it ({exc.message}); passed")
            if not session.over and session.game.current == seat:
                if session.draft is not None:
                    session.discard()
                session.pass_turn(seat)
