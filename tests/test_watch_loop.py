"""The camera loop end to end on the simulated table: real tracking, the settle
detector, the table session and the page's players; the reader here is a test double
that answers with what was truly built (reconstruction is tested on its own)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from calibration.camera import Camera
from palace.demo import TablePlayers
from palace.draft import DOUBT_BELOW
from palace.session import TableSession
from palace.turn_reading import Settled, reading_is_empty
from palace.watch import CameraLoop
from rules.maps import load_map
from rules.pieces import Kind, Piece, same_pieces
from rules.staircase import split_turn
from twin.table import SimulatedTable
from twin.table_settings import TableSettings
from vision.settle import SettleSettings
from vision.turn import NOTHING_READ


class TruthReader:
    """Reads a turn as what the table truly shows in the newest frame handed over."""

    def __init__(self) -> None:
        self.frame = None
        self.calls = []
        self.befores = []
        self.hands = []

    def __call__(self, frames, camera, before, *, before_frame, before_locations, ground, look,
                 locations, hand):
        assert len(frames) == len(locations) >= 1
        assert before_frame.shape == frames[-1].shape and ground is not None
        # Where the board lay in the picture before comes with it (a knocked webcam's
        # picture before is brought to where the frames after see the board).
        assert before_locations is None or before_locations.found
        self.befores.append(before_locations)
        self.hands.append(hand)
        self.calls.append((self.frame.index, self.frame.phase, self.frame.turns_done))
        added, _, _ = split_turn(before, self.frame.scene.pieces)
        return SimpleNamespace(
            found=True, reason="", uncertain=(), location=locations[-1], seconds=0.0,
            added=[SimpleNamespace(piece=p, confidence=0.95, alternatives=()) for p in added])


class CountingLook:
    def __init__(self) -> None:
        self.palaces = []

    def learn(self, frame, location, palace):
        assert location.found
        self.palaces.append(len(palace.pieces))


class StatusSpy:
    """The session, with the camera states it was told kept in order."""

    def __init__(self, session: TableSession) -> None:
        self.session = session
        self.states = []
        self.turns = 0

    def __getattr__(self, name):
        return getattr(self.session, name)

    def camera_status(self, state, detail=""):
        self.states.append(state)
        self.session.camera_status(state, detail)

    def camera_turn(self, reading, frames):
        self.turns += 1
        return self.session.camera_turn(reading, frames)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    settings = TableSettings(width=960, height=540, still_s=1.2, setup_s=1.2,
                             move_chance=1.0, quarter_turn_chance=1.0)
    table = SimulatedTable(seed=4, turns=2, settings=settings)
    session = TableSession.open(tmp_path_factory.mktemp("loop") / "game.sqlite", resume=False)
    spy = StatusSpy(session)
    run = played_through(table, spy)
    yield SimpleNamespace(table=table, session=session, spy=spy, **vars(run))
    session.close()


def played_through(table: SimulatedTable, session, settings: SettleSettings | None = None
                   ) -> SimpleNamespace:
    """The table's game through the camera loop, its simulated players at the page and a
    reader that reads what the table truly shows."""
    players = TablePlayers(session, table)
    players.set_up()
    reader, look = TruthReader(), CountingLook()
    loop = CameraLoop(session, camera=table.camera, reader=reader, look=look,
                      on_turn=players.on_turn, settings=settings)

    def frames():
        for frame in table:
            players.watch(frame)
            reader.frame = frame
            yield frame

    stats = loop.run(frames())
    players.finish_all()
    return SimpleNamespace(players=players, reader=reader, look=look, stats=stats)


def test_each_turn_is_read_once_from_a_still_board(played):
    run = played
    built = sum(not t.passed for t in run.table.record.turns[:run.table.turns])
    assert built == 2
    assert run.spy.turns == run.stats.turns == built
    assert run.players.tally.read_right == built and run.players.tally.missed == 0
    assert all(phase == "still" for _, phase, _ in run.reader.calls)
    # Each read is told where the board lay in its picture before.
    assert len(run.reader.befores) == len(run.reader.calls)
    assert all(b is not None and b.pose is not None for b in run.reader.befores)
    # The turn's reads come after its pieces are all down, one per turn.
    turn_reads = [done for _, _, done in run.reader.calls]
    assert sorted(set(turn_reads)) == [1, 2]
    # Each read is handed what its builder could build with: the session's game keeps the
    # hands as the table's bot game did.
    assert run.reader.hands == [run.table.record.hands[done - 1] for done in turn_reads]
    # The session played both turns: its palace is the table's.
    final = run.table.record.scenes[run.table.turns].pieces
    added, removed, _ = split_turn(run.session.palace(), final)
    assert not added and not removed


def test_a_turned_board_is_followed_without_a_new_set_up(played):
    run = played
    # The board was turned by a quarter between the turns: noticed, taken as the new
    # reference, not read, and the next turn read as usual.
    assert run.stats.moves == 1
    assert run.stats.reads == run.stats.turns
    assert run.stats.found >= 0.8 * run.stats.frames
    assert {"tracking", "hands", "settling", "reading"} <= set(run.spy.states)


def test_the_look_is_learnt_at_set_up_and_after_each_confirmed_turn(played):
    run = played
    setup = len(run.table.record.scenes[0].pieces)
    assert run.look.palaces[0] >= setup
    # Learnt again where the board lies after it was turned.
    assert len(run.look.palaces) == 1 + run.stats.turns + run.stats.moves
    assert run.look.palaces == sorted(run.look.palaces)


def test_an_empty_reading_is_not_a_turn():
    assert reading_is_empty(SimpleNamespace(found=True, added=[], uncertain=[]))
    assert not reading_is_empty(SimpleNamespace(found=False, added=[], uncertain=[]))
    piece = SimpleNamespace(piece=Piece(Kind.BRICK, 3, 4))
    assert not reading_is_empty(SimpleNamespace(found=True, added=[piece], uncertain=[]))


def test_same_pieces_ignores_ids_building_colours_and_animals():
    a = (Piece(Kind.ARCH, 1, 2, 0, color="tan", id="a1"), Piece(Kind.MONKEY, 5, 5, 1))
    b = (Piece(Kind.ARCH, 1, 2, 0, color="dark_orange", id="x9"),)
    assert same_pieces(a, b)
    assert not same_pieces(a, (Piece(Kind.ARCH, 1, 3, 0),))
    # A corner brick's quarter turn is read (rules.pieces.place_key), so it counts.
    assert not same_pieces((Piece(Kind.CORNER, 1, 1, turn=0),), (Piece(Kind.CORNER, 1, 1, turn=1),))


def test_a_live_camera_is_read_in_the_background(tmp_path):
    """While a (slow) reading runs, the page still gets frames and the loop says it is
    reading; the turn is handed over once, when the reading is done."""
    import time

    settings = TableSettings(width=640, height=360, still_s=1.5, setup_s=1.2)
    table = SimulatedTable(seed=5, turns=1, settings=settings)
    frames = list(table)
    session = TableSession.open(tmp_path / "bg.sqlite", resume=False)
    spy = StatusSpy(session)
    shown = []
    spy.show_frame = lambda image, location: shown.append(time.perf_counter())
    truth = TruthReader()

    def slow_reader(*args, **kwargs):
        time.sleep(0.6)
        return truth(*args, **kwargs)

    loop = CameraLoop(spy, camera=table.camera, reader=slow_reader, look=CountingLook(),
                      background=True)
    states, previews_while_reading = [], 0
    try:
        for frame in frames:
            truth.frame = frame
            started = time.perf_counter()
            before = len(shown)
            states.append(loop.step(frame).state)
            if states[-1] == "reading":
                previews_while_reading += len(shown) - before
            time.sleep(max(0.0, 0.1 - (time.perf_counter() - started)))
        loop.finish()
    finally:
        session.close()
    assert spy.turns == 1 and loop.stats.turns == 1
    assert states.count("reading") >= 3
    read_at = states.index("reading")
    assert previews_while_reading >= 2
    assert read_at > 0 and frames[read_at].phase == "still"


def test_the_players_look_at_a_reading_before_acting_on_it(tmp_path):
    """Watched live, a reading stays on the page for ``think_s`` of table time before the
    simulated players settle it; the next player starting ends it at the latest."""
    table = SimulatedTable(seed=4, turns=2)  # not iterated: no frame is rendered
    session = TableSession.open(tmp_path / "think.sqlite", resume=False)
    try:
        players = TablePlayers(session, table, think_s=3.0)
        players.set_up()

        def at(time_s, playing=None):
            players.watch(SimpleNamespace(time=time_s, playing=playing))

        at(1.0, playing=0)
        at(2.0)
        players.on_turn(None, None)  # the camera read turn 1 (here: nothing, a miss)
        for t in (2.1, 3.0, 5.0):
            at(t)
        assert players.finished == 0 and not session.state()["turns"]
        at(5.2)
        assert players.finished == 1 and len(session.state()["turns"]) == 1
        assert players.tally.missed == 1
        at(6.0, playing=1)
        players.finish_all()
        assert players.finished == 2 and len(session.state()["turns"]) == 2
    finally:
        session.close()


def test_the_loop_keeps_settled_pictures_for_the_map_read(played):
    run = played
    # The simulated table's own frames, kept by the loop while the board was settled.
    reading = run.session.read_map()
    assert reading.offered == reading.views >= 2
    truth = load_map(run.table.record.map)

    def grid(ground):
        out = np.array([list(row) for row in ground.ground])
        for x, y in ground.start_area:
            out[y, x] = "S"
        return out

    got, known = grid(reading.ground), np.array([list(r) for r in reading.ground.ground]) != "?"
    rates = [float((got[known] == np.rot90(grid(truth), k)[known]).mean()) for k in range(4)]
    # Measured 99.2 % of 975 studs under the right quarter turn, under 47 % under the
    # others (pieces built in the game's turns hide the rest).
    assert known.sum() > 800 and max(rates) >= 0.9 and sorted(rates)[-2] < 0.7
    # The starting staircase stands in the pictures, the palace grown round it: it is
    # found on the studs the truth has it (each cell of the reading's frame as the
    # truth's under the right quarter turn), and it is the set-up.
    truth_cell = np.rot90(np.arange(32 * 32).reshape(32, 32), int(np.argmax(rates)))
    assert {(p.kind, int(truth_cell[y, x])) for p in reading.ground.setup
            for x, y in p.footprint()} == {(p.kind, y * 32 + x) for p in truth.setup
                                          for x, y in p.footprint() if p.kind is not Kind.CORNER}


@pytest.mark.parametrize(("confidence", "right", "doubted"),
                         [(0.95, 1, 0), (DOUBT_BELOW - 0.05, 0, 1)])
def test_a_right_reading_held_in_doubt_is_told_apart_from_a_wrong_one(
        tmp_path, confidence, right, doubted):
    """The page's players confirm a doubted reading of the right pieces as they would
    correct a wrong one, but the tally says which it was (the turn bench counts exact
    readings, doubted or not)."""
    table = SimulatedTable(seed=4, turns=3)
    number = next(i for i, t in enumerate(table.record.turns) if not t.passed)
    session = TableSession.open(tmp_path / "doubt.sqlite", resume=False)
    try:
        players = TablePlayers(session, table)
        players.set_up()
        while players.finished < number:
            players.finish(players.finished)
        added, _, _ = split_turn(session.palace(), table.record.scenes[number + 1].pieces)
        session.camera_turn(SimpleNamespace(
            found=True, reason="", uncertain=False, added=[
                SimpleNamespace(piece=p, confidence=confidence, alternatives=())
                for p in added]), [])
        players.finish(number)
    finally:
        session.close()
    tally = players.tally
    assert (tally.read_right, tally.doubted, tally.corrected) == (right, doubted, doubted)
    assert f"({doubted} of them read right but held in doubt)" in tally.line()


@pytest.mark.parametrize(("sync", "is_turn"), [("out_of_sync", False), ("ready", True)])
def test_a_reading_of_nothing_is_a_turn_only_when_no_reading_waits(sync, is_turn):
    """Turn mode doubts every reading of nothing (a staircase may be hidden), so it is a
    turn put to the players; but while a reading waits, nothing read means that
    reading's pieces were taken away, which is no turn."""
    session = SimpleNamespace(sync=sync, ground=None, palace=lambda: None, hand=lambda: None,
                              turned=[],
                              camera_status=lambda state, detail="": None)
    session.camera_turn = lambda reading, frames: session.turned.append(reading)
    nothing = SimpleNamespace(found=True, added=(), uncertain=True, reason=NOTHING_READ)
    loop = CameraLoop(session, camera=Camera.default_for(64, 48), look=CountingLook(),
                      reader=lambda *args, **kwargs: nothing)
    image = np.zeros((48, 64, 3), np.uint8)
    loop.reader.read_now(Settled([image], [None], image, "settled"), 0.0, loop.camera)
    assert session.turned == [nothing]
    assert (loop.stats.turns, loop.stats.nothing_new) == ((1, 0) if is_turn else (0, 1))


def test_a_board_pushed_while_a_turn_is_built_is_read(tmp_path):
    """Pressing pieces onto their studs pushes the board a few millimetres, past what is
    taken as settled where it lay: each turn is read all the same, none left to be
    entered by hand; pushed further than a push, the same turns go unread."""

    def play(settings: SettleSettings | None) -> tuple[int, int, int]:
        table = SimulatedTable(seed=6, turns=2, settings=TableSettings(
            width=960, height=540, still_s=1.2, setup_s=1.2, move_chance=0.0,
            board_push_mm=9.0))
        session = TableSession.open(tmp_path / f"push{settings is None}.sqlite",
                                    resume=False)
        try:
            run = played_through(table, session, settings)
            return run.stats.turns, run.stats.moves, run.players.tally.missed
        finally:
            session.close()

    # The pushes are real moves of the board, past the 4 mm a settled board may lie:
    # taken as moves, their turns go unread and the players enter them by hand.
    turns, moves, missed = play(SettleSettings(push_mm=0.0))
    assert moves >= 1 and missed == moves and turns == 2 - missed
    assert play(None) == (2, 0, 0)


def test_a_light_switched_while_the_palace_lies_still_is_no_turn(tmp_path):
    """After each turn the room's light changes at once (a lamp switched on): the loop
    reads each turn once and nothing else, saying the light changed; without the rule
    the changed light is read as a turn of its own (a reading of nothing)."""

    def play(settings: SettleSettings | None) -> SimpleNamespace:
        table = SimulatedTable(seed=7, turns=2, settings=TableSettings(
            width=960, height=540, still_s=1.2, setup_s=1.2, move_chance=0.0,
            light_switch_chance=1.0))
        session = TableSession.open(tmp_path / f"light{settings is None}.sqlite",
                                    resume=False)
        spy = StatusSpy(session)
        try:
            return played_through(table, spy, settings)
        finally:
            session.close()

    run = play(None)
    assert [turns for _, _, turns in run.reader.calls] == [1, 2]
    assert run.stats.relit >= 1 and run.players.tally.missed == 0
    without = play(SettleSettings(least_busy_s=0.0))
    assert without.stats.relit == 0 and len(without.reader.calls) > 2
