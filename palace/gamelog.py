"""The game log: every game of an installation in one SQLite file, written step by step.

A table game must survive a crash, a closed laptop lid or a power cut without losing a
turn, so each step (a new game, a camera reading, a correction, a confirmed turn, an
undo) is one transaction in a write-ahead-logged database with full synchronous
writes. The log is the truth: the live :class:`rules.Game` is rebuilt from it by
replaying the turns that were not undone (``Game`` is deterministic for a seed), which
is how ``--resume`` carries on after a crash.

Nothing is ever deleted except the open draft of a turn, which is replaced as it is
corrected (each correction is also logged on its own): undone turns stay, marked.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, created REAL NOT NULL, players INTEGER NOT NULL,
    map_name TEXT NOT NULL, map_json TEXT, settings_json TEXT NOT NULL,
    seed INTEGER NOT NULL, ended REAL, end_reason TEXT);
CREATE TABLE IF NOT EXISTS players (
    game_id INTEGER NOT NULL REFERENCES games(id), seat INTEGER NOT NULL, name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat));
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL, seat INTEGER NOT NULL, round INTEGER NOT NULL,
    kind TEXT NOT NULL, added_json TEXT NOT NULL, options_json TEXT NOT NULL,
    report_json TEXT, result_json TEXT NOT NULL, scene_json TEXT NOT NULL,
    source TEXT NOT NULL, created REAL NOT NULL, undone REAL);
CREATE INDEX IF NOT EXISTS turns_game ON turns(game_id, number);
CREATE TABLE IF NOT EXISTS card_picks (
    turn_id INTEGER NOT NULL REFERENCES turns(id), pile TEXT NOT NULL, card_id TEXT NOT NULL,
    cost INTEGER NOT NULL, bananas INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS drafts (
    game_id INTEGER PRIMARY KEY REFERENCES games(id), draft_json TEXT NOT NULL,
    updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS corrections (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    turn_number INTEGER NOT NULL, action_json TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS undos (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    turn_number INTEGER NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS frames (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    turn_id INTEGER REFERENCES turns(id), idx INTEGER NOT NULL, jpeg BLOB NOT NULL,
    created REAL NOT NULL);
"""
"""``frames.turn_id`` is NULL while the frames belong to the open draft of their game."""


class LogError(ValueError):
    """A log file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class GameRow:
    """One game's set-up as logged: enough to start it again from nothing."""

    id: int
    created: float
    players: int
    names: tuple[str, ...]
    map_name: str
    map_json: dict[str, Any] | None
    settings: dict[str, Any]
    seed: int
    ended: float | None
    end_reason: str | None


@dataclass(frozen=True)
class TurnRow:
    """One confirmed turn: what was built and chosen (enough to replay it) and what it did."""

    id: int
    number: int
    seat: int
    round: int
    kind: str
    added: list[dict[str, Any]]
    options: dict[str, Any]
    report: dict[str, Any] | None
    result: dict[str, Any]
    scene: dict[str, Any]
    source: str
    created: float
    undone: float | None


class GameLog:
    """The SQLite file; every public method that writes is one transaction.

    The connection is shared between the camera loop's thread and the server's, so a
    lock serialises its use (SQLite would otherwise refuse a second thread).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: str | Path) -> GameLog:
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise LogError(f"{path}: cannot open the game log ({exc})") from None
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _step(self) -> Iterator[sqlite3.Connection]:
        """One step of the game as one transaction: all of it is on disk, or none."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, tuple(args)).fetchall()

    # -- games --------------------------------------------------------------------------
    def new_game(self, names: Sequence[str], map_name: str, map_json: dict[str, Any] | None,
                 settings: dict[str, Any], seed: int) -> int:
        with self._step() as db:
            cur = db.execute(
                "INSERT INTO games(created, players, map_name, map_json, settings_json, seed)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (time.time(), len(names), map_name,
                 json.dumps(map_json) if map_json is not None else None,
                 json.dumps(settings), seed))
            game_id = int(cur.lastrowid or 0)
            db.executemany("INSERT INTO players(game_id, seat, name) VALUES (?, ?, ?)",
                           [(game_id, seat, name) for seat, name in enumerate(names)])
        return game_id

    def game(self, game_id: int) -> GameRow:
        rows = self._query("SELECT id, created, players, map_name, map_json, settings_json,"
                           " seed, ended, end_reason FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise LogError(f"{self.path}: no game {game_id} in the log")
        r = rows[0]
        names = tuple(n for (n,) in self._query(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,)))
        return GameRow(r[0], r[1], r[2], names, r[3], json.loads(r[4]) if r[4] else None,
                       json.loads(r[5]), r[6], r[7], r[8])

    def latest_game(self) -> GameRow | None:
        rows = self._query("SELECT id FROM games ORDER BY id DESC LIMIT 1")
        return self.game(rows[0][0]) if rows else None

    def games(self) -> list[GameRow]:
        return [self.game(i) for (i,) in self._query("SELECT id FROM games ORDER BY id")]

    def end_game(self, game_id: int, reason: str) -> None:
        with self._step() as db:
            db.execute("UPDATE games SET ended = ?, end_reason = ? WHERE id = ? AND ended IS NULL",
                       (time.time(), reason, game_id))

    # -- turns --------------------------------------------------------------------------
    def add_turn(self, game_id: int, turn: dict[str, Any],
                 picks: Sequence[tuple[str, str, int, int]]) -> int:
        """Logs a confirmed turn with its card picks; the draft it came from is closed
        and its frames become the turn's, all in the same transaction."""
        with self._step() as db:
            cur = db.execute(
                "INSERT INTO turns(game_id, number, seat, round, kind, added_json, options_json,"
                " report_json, result_json, scene_json, source, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, turn["number"], turn["seat"], turn["round"], turn["kind"],
                 json.dumps(turn["added"]), json.dumps(turn["options"]),
                 json.dumps(turn["report"]) if turn["report"] is not None else None,
                 json.dumps(turn["result"]), json.dumps(turn["scene"]), turn["source"],
                 time.time()))
            turn_id = int(cur.lastrowid or 0)
            db.executemany("INSERT INTO card_picks(turn_id, pile, card_id, cost, bananas)"
                           " VALUES (?, ?, ?, ?, ?)", [(turn_id, *p) for p in picks])
            db.execute("UPDATE frames SET turn_id = ? WHERE game_id = ? AND turn_id IS NULL",
                       (turn_id, game_id))
            db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))
        return turn_id

    def turns(self, game_id: int, *, undone: bool = False) -> list[TurnRow]:
        """The game's turns in order; only those in play unless ``undone``."""
        where = "" if undone else " AND undone IS NULL"
        rows = self._query(
            "SELECT id, number, seat, round, kind, added_json, options_json, report_json,"
            " result_json, scene_json, source, created, undone FROM turns"
            f" WHERE game_id = ?{where} ORDER BY id", (game_id,))
        return [TurnRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), json.loads(r[6]),
                        json.loads(r[7]) if r[7] else None, json.loads(r[8]),
                        json.loads(r[9]), r[10], r[11], r[12]) for r in rows]

    def picks(self, turn_id: int) -> list[dict[str, Any]]:
        return [{"pile": p, "card": c, "cost": k, "bananas": b} for p, c, k, b in self._query(
            "SELECT pile, card_id, cost, bananas FROM card_picks WHERE turn_id = ?", (turn_id,))]

    def undo(self, game_id: int, number: int, draft: dict[str, Any] | None) -> None:
        """Marks turn ``number`` and every later one undone and opens ``draft`` (the
        undone turn's pieces, to be corrected and confirmed again) in their place; a
        game that had ended is open again (going back is what the players asked for)."""
        with self._step() as db:
            now = time.time()
            db.execute("UPDATE games SET ended = NULL, end_reason = NULL WHERE id = ?",
                       (game_id,))
            db.execute("INSERT INTO undos(game_id, turn_number, created) VALUES (?, ?, ?)",
                       (game_id, number, now))
            db.execute("UPDATE turns SET undone = ? WHERE game_id = ? AND number >= ?"
                       " AND undone IS NULL", (now, game_id, number))
            db.execute("DELETE FROM frames WHERE game_id = ? AND turn_id IS NULL", (game_id,))
            self._write_draft(db, game_id, draft)

    # -- the open draft of a turn ---------------------------------------------------------
    def save_draft(self, game_id: int, draft: dict[str, Any] | None, *,
                   correction: dict[str, Any] | None = None, turn_number: int = 0,
                   frames: Sequence[bytes] | None = None) -> None:
        """Replaces the open draft (None closes it), logging the correction that changed
        it and, for a new camera reading, the frames that show it, in one transaction."""
        with self._step() as db:
            now = time.time()
            if correction is not None:
                db.execute("INSERT INTO corrections(game_id, turn_number, action_json, created)"
                           " VALUES (?, ?, ?, ?)",
                           (game_id, turn_number, json.dumps(correction), now))
            if frames is not None or draft is None:
                db.execute("DELETE FROM frames WHERE game_id = ? AND turn_id IS NULL",
                           (game_id,))
            if frames is not None:
                db.executemany("INSERT INTO frames(game_id, turn_id, idx, jpeg, created)"
                               " VALUES (?, NULL, ?, ?, ?)",
                               [(game_id, i, f, now) for i, f in enumerate(frames)])
            self._write_draft(db, game_id, draft)

    @staticmethod
    def _write_draft(db: sqlite3.Connection, game_id: int, draft: dict[str, Any] | None) -> None:
        if draft is None:
            db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))
        else:
            db.execute("INSERT OR REPLACE INTO drafts(game_id, draft_json, updated)"
                       " VALUES (?, ?, ?)", (game_id, json.dumps(draft), time.time()))

    def draft(self, game_id: int) -> dict[str, Any] | None:
        rows = self._query("SELECT draft_json FROM drafts WHERE game_id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def corrections(self, game_id: int) -> list[dict[str, Any]]:
        return [{"turn": t, "action": json.loads(a), "at": c} for t, a, c in self._query(
            "SELECT turn_number, action_json, created FROM corrections WHERE game_id = ?"
            " ORDER BY id", (game_id,))]

    def undos(self, game_id: int) -> list[dict[str, Any]]:
        return [{"turn": t, "at": c} for t, c in self._query(
            "SELECT turn_number, created FROM undos WHERE game_id = ? ORDER BY id", (game_id,))]

    # -- frames -------------------------------------------------------------------------
    def frames(self, game_id: int, turn_id: int | None) -> list[bytes]:
        """The JPEG frames that decided a turn (``turn_id`` None: the open draft's)."""
        test = "turn_id IS NULL" if turn_id is None else "turn_id = ?"
        args: tuple[Any, ...] = (game_id,) if turn_id is None else (game_id, turn_id)
        return [bytes(b) for (b,) in self._query(
            f"SELECT jpeg FROM frames WHERE game_id = ? AND {test} ORDER BY idx", args)]
