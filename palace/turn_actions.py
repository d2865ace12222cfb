"""The players' actions on a turn: correct it, give it as a whole scene, discard, confirm
it with cards, pass, undo turns, end the game.

Each is what a page asks (:mod:`palace.server`), checked against the rules and the turn
order, with a refused one raised as :class:`SessionError` (an HTTP status, a short code and
a sentence), and each change logged before it is shown. :class:`TurnActions` is mixed into
the table session (:class:`palace.session.TableSession`), which holds the game, the log and
this turn's draft, and keeps the draft's rule check (``_set_draft``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from palace import views
from palace.draft import CorrectionError, Draft, DraftPiece, apply, check_piece, named
from palace.gamelog import GameLog, GameRow
from rules.cards import PurchaseError
from rules.game import Game, GameError, IllegalTurnError
from rules.maps import piece_to_json
from rules.scene import scene_from_json
from rules.staircase import split_turn


class SessionError(Exception):
    """A refused action: ``status`` for HTTP, ``code`` for programs, ``message`` for people."""

    def __init__(self, status: int, code: str, message: str,
                 report: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.report = status, code, message, report


class TurnActions:
    """The players' actions, on the session's game, log and draft (under its lock)."""

    if TYPE_CHECKING:
        _lock: threading.RLock
        _numbers: list[int]
        _placed_in: dict[str, int]
        log: GameLog
        row: GameRow
        game: Game
        draft: Draft | None

        @property
        def over(self) -> bool: ...

        def _load(self, row: GameRow) -> None: ...

        def _set_draft(self, draft: Draft | None, *, correction: dict[str, Any] | None = None,
                       frames: list[bytes] | None = None, log: bool = True) -> None: ...

        def _changed(self) -> None: ...

    def correct(self, action: dict[str, Any]) -> None:
        """Applies one correction to this turn (starting one by hand if there is none)."""
        with self._lock:
            self._require_running()
            draft = self.draft or Draft("manual")
            taken = {p.id for p in self.game.palace}
            try:
                new = apply(draft, action, taken)
            except CorrectionError as exc:
                raise SessionError(422, "correction", str(exc)) from None
            if new.frog and not draft.frog:
                try:
                    self.game.check_turn(new.added, frog=True)
                except GameError as exc:
                    raise SessionError(409, "frog", str(exc)) from None
            self._set_draft(new, correction=action)

    def set_scene(self, data: Any) -> None:
        """This turn as a whole scene after it (``palace-scene/1``): what is new on it
        becomes the draft; a scene that removes pieces of the board is refused."""
        with self._lock:
            self._require_running()
            try:
                scene = scene_from_json(data, "scene")
            except ValueError as exc:
                raise SessionError(422, "scene", str(exc)) from None
            added, removed, _ = split_turn(self.game.palace, scene.pieces)
            if removed:
                text = "; ".join(v.message for v in removed)
                raise SessionError(422, "scene", f"scene: {text}")
            pieces = named(added, [p.id for p in self.game.palace])
            try:
                draft = Draft("scene", tuple(DraftPiece(check_piece(p)) for p in pieces))
            except CorrectionError as exc:
                raise SessionError(422, "scene", f"scene: {exc}") from None
            self._set_draft(draft, correction={"action": "scene", "pieces": len(pieces)})

    def discard(self) -> None:
        with self._lock:
            if self.draft is None:
                raise SessionError(409, "no_turn", "there is no turn being read to discard")
            self._set_draft(None, correction={"action": "discard"})

    def confirm(self, seat: int, purchases: Sequence[str], *, free_arches: int | None = None,
                stacks: Sequence[int] | None = None,
                monkey_at: tuple[int, int, int] | None = None) -> None:
        """Plays this turn's staircase with the cards picked, as the rules allow."""
        with self._lock:
            self._require_turn(seat)
            if self.draft is None:
                raise SessionError(409, "no_turn", "there is no staircase to confirm: build "
                                   "one (or enter it by hand) first, or pass")
            draft = self.draft
            options = {"purchases": list(purchases), "frog": draft.frog,
                       "free_arches": free_arches,
                       "stacks": list(stacks) if stacks is not None else None,
                       "monkey_at": list(monkey_at) if monkey_at else None}
            try:
                result = self.game.play_turn(
                    draft.added, purchases, frog=draft.frog, free_arches=free_arches,
                    stacks=stacks, monkey_at=monkey_at)
            except IllegalTurnError as exc:
                raise SessionError(409, "illegal_turn", str(exc), exc.report.to_json()) from None
            except PurchaseError as exc:
                raise SessionError(409, "purchase", str(exc)) from None
            except GameError as exc:
                raise SessionError(409, "refused", str(exc)) from None
            self._record(result, "play", [piece_to_json(p) for p in draft.added], options,
                         draft.source, [(c.pile, c.id, c.cost, c.bananas) for c in result.cards])

    def pass_turn(self, seat: int, *, free_arches: int | None = None) -> None:
        with self._lock:
            self._require_turn(seat)
            result = self.game.pass_turn(free_arches=free_arches)
            self._record(result, "pass", [], {"free_arches": free_arches}, "manual", [])

    def undo(self, number: int) -> None:
        """Takes back turn ``number`` and every later one; its pieces come back as this
        turn's draft, to be corrected and confirmed again."""
        with self._lock:
            if number not in self._numbers:
                known = ", ".join(map(str, self._numbers)) or "none"
                raise SessionError(404, "no_such_turn",
                                   f"there is no turn {number} in play (turns: {known})")
            turn = next(t for t in self.log.turns(self.row.id) if t.number == number)
            draft = None
            if turn.kind == "play":
                pieces = scene_from_json({"format": "palace-scene/1", "pieces": turn.added})
                draft = Draft("undo", tuple(DraftPiece(p) for p in pieces.pieces),
                              frog=bool(turn.options.get("frog")))
            self.log.undo(self.row.id, number, draft.to_json() if draft else None)
            self._load(self.log.game(self.row.id))
            self._changed()

    def end_game(self, reason: str = "the players ended the game") -> None:
        with self._lock:
            if self.over:
                raise SessionError(409, "over", "the game is already over")
            self.log.end_game(self.row.id, reason)
            self.row = self.log.game(self.row.id)
            self._changed()

    def _require_running(self) -> None:
        if self.over:
            raise SessionError(409, "over", "the game is over; set up a new one to play on")

    def _require_turn(self, seat: int) -> None:
        self._require_running()
        if seat != self.game.current:
            who = self.row.names[self.game.current]
            raise SessionError(409, "out_of_turn", f"it is {who}'s turn (seat "
                               f"{self.game.current}), not seat {seat}'s")

    def _record(self, result: Any, kind: str, added: list[dict[str, Any]],
                options: dict[str, Any], source: str,
                picks: list[tuple[str, str, int, int]]) -> None:
        number = (self._numbers[-1] + 1) if self._numbers else 1
        turn = {"number": number, "seat": result.seat, "round": result.round, "kind": kind,
                "added": added, "options": options,
                "report": result.report.to_json() if result.report else None,
                "result": views.result_json(result), "scene": self.game.scene().to_json(),
                "source": source}
        try:
            self.log.add_turn(self.row.id, turn, picks)
        except Exception:
            self._load(self.row)  # the log is the truth: take the turn back
            raise
        self._numbers.append(number)
        self._placed_in.update(dict.fromkeys((p.id for p in result.placed), number))
        if self.game.is_over and self.row.ended is None:
            self.log.end_game(self.row.id, "the tray ran short")
            self.row = self.log.game(self.row.id)
        self._set_draft(None, log=False)
