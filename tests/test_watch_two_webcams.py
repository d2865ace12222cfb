"""The camera loop with a second webcam across the table: real tracking of both boards,
the settle detector on the first, the real turn reader; the session is a stand-in
holding the palace before the turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from palace.following import SecondWebcam
from palace.watch import SECOND_WAIT_S, CameraLoop
from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, built_keys
from training.pairs import TurnPair, turn_pairs
from twin import RenderOptions, around_board, render
from vision import TableLook, read_turn

STILL = 14
"""Frames of each still picture (at 10 a second): the detector settles after 5 and 0.8 s."""


@dataclass
class Table:
    """The session as the loop sees it: the palace before the turn, the turns handed over."""

    pair: TurnPair
    sync: str = "ready"
    turns: list[tuple[Any, list[np.ndarray]]] = field(default_factory=list)

    @property
    def ground(self):
        return self.pair.ground

    confirmed: Palace | None = None
    """The palace the players confirmed since, if any."""
    kept: list[tuple[int, np.ndarray]] = field(default_factory=list)
    """The settled pictures kept for the map read: (webcam, picture)."""

    def palace(self) -> Palace:
        return self.confirmed or self.pair.before

    def hand(self):
        return self.pair.hand

    def show_frame(self, image, location, webcam=1) -> None:
        pass

    def camera_status(self, state, detail="") -> None:
        pass

    def keep_settled(self, image, camera, time_s, webcam=1) -> None:
        self.kept.append((webcam, image))

    def camera_turn(self, reading, frames) -> None:
        self.turns.append((reading, frames))


class Reader:
    """The real turn reader, with what it was handed kept."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, frames, camera, before, **kw):
        self.calls.append({"frames": frames, **kw})
        return read_turn(frames, camera, before, before_frame=kw["before_frame"],
                         ground=kw["ground"], look=kw["look"], locations=kw["locations"])


@pytest.fixture(scope="module")
def pair() -> TurnPair:
    return next(turn_pairs(1, 100, max_turns=1, elevation_deg=(45.0, 60.0), second_view=180.0,
                           options=RenderOptions(clutter=False)))


def frames(first: list[np.ndarray], second: list[np.ndarray | list[np.ndarray]]):
    """Each picture held still for STILL frames (or a list of STILL frames given for the
    second webcam), both webcams on one clock."""
    out1, out2 = [], []
    for a, b in zip(first, second, strict=True):
        for i in range(STILL):
            t = len(out1) / 10.0
            out1.append(SimpleNamespace(image=a, time=t))
            out2.append(SimpleNamespace(image=b[i] if isinstance(b, list) else b, time=t))
    return out1, out2


def watch(pair: TurnPair, first: list[np.ndarray],
          second: list[np.ndarray | list[np.ndarray]]) -> tuple[Table, Reader, CameraLoop]:
    table, reader = Table(pair), Reader()
    loop = CameraLoop(table, camera=pair.camera, reader=reader,
                      second=SecondWebcam(pair.camera))
    ones, twos = frames(first, second)
    loop.run(ones, second_source=twos)
    return table, reader, loop


def test_a_turn_is_read_from_both_webcams_each_against_its_own_picture_before(pair) -> None:
    assert pair.second is not None
    table, reader, loop = watch(pair, [pair.before_frame, hand_over(pair.before_frame),
                                       pair.after_frame],
                                [pair.second.before_frame, hand_over(pair.second.before_frame),
                                 pair.second.after_frame])
    assert len(table.turns) == len(reader.calls) == 1 and loop.stats.second_views == 1
    call = reader.calls[0]
    befores, views = call["before_frame"], call["frames"]
    # The first webcam's settled frames, then the second's, each with its picture before.
    assert len(befores) == len(views) == len(call["locations"]) >= 2
    assert befores[0] is not None and all(b is None for b in befores[1:-1])
    assert np.array_equal(befores[-1], pair.second.before_frame)
    assert np.array_equal(views[-1], pair.second.after_frame)
    reading = table.turns[0][0]
    truth = [p for p in pair.added if p.kind not in ANIMAL_KINDS]
    assert built_keys(tuple(r.piece for r in reading.added)) == built_keys(tuple(truth))
    # Both webcams' still pictures are kept for the set-up's map read.
    for webcam, pictures in ((1, (pair.before_frame, pair.after_frame)),
                             (2, (pair.second.before_frame, pair.second.after_frame))):
        kept = [image for w, image in table.kept if w == webcam]
        assert all(any(image is p for p in pictures) for image in kept)
        assert {id(p) for p in pictures} == {id(image) for image in kept}


def bumped_pictures(pair: TurnPair) -> list[np.ndarray]:
    """The second webcam's pictures before and after the turn, the webcam bumped 4
    degrees round the table."""
    assert pair.second is not None
    bumped = around_board(pair.second.pose, 4.0)
    options = RenderOptions(clutter=False, color_jitter=0.0, settled=True)
    after = pair.before.copy()
    for piece in pair.added:
        if piece.kind not in ANIMAL_KINDS:
            after.place(piece)
    return [render(palace, pair.camera, bumped, options, seed=1).image
            for palace in (pair.before, after)]


def test_a_second_webcam_bumped_during_the_turn_is_left_out(pair) -> None:
    """Bumped while the players build (a hand over the first webcam's board), then
    still again: its picture after no longer lines up with its picture before, so only
    the first webcam's view is read."""
    assert pair.second is not None
    moved = bumped_pictures(pair)
    _, reader, loop = watch(pair, [pair.before_frame, hand_over(pair.before_frame),
                                   pair.after_frame],
                            [pair.second.before_frame, *moved])
    assert len(reader.calls) == 1 and loop.stats.second_views == 0
    assert len(reader.calls[0]["frames"]) == len(reader.calls[0]["locations"])
    assert not isinstance(reader.calls[0]["before_frame"], list)
    # Its board found, still, in its last picture: left out for the move, not for a
    # lost board or a hand.
    assert loop.second is not None and loop.second.still is not None


def test_a_second_webcam_bumped_between_turns_takes_its_picture_before_again(pair) -> None:
    """Bumped while nothing is built (the first webcam's picture stays as it was), then
    still: that still picture becomes its picture before, and the turn after is read
    from both webcams."""
    assert pair.second is not None
    moved = bumped_pictures(pair)
    _, reader, loop = watch(pair, [*[pair.before_frame] * 3, hand_over(pair.before_frame),
                                   pair.after_frame],
                            [pair.second.before_frame, moved[0], moved[0],
                             hand_over(moved[0]), moved[1]])
    assert len(reader.calls) == 1 and loop.stats.second_views == 1
    assert loop.stats.second_alone == 0
    call = reader.calls[0]
    assert np.array_equal(call["before_frame"][-1], moved[0])
    assert np.array_equal(call["frames"][-1], moved[1])


def test_the_simulated_table_films_with_a_second_webcam_across_it() -> None:
    """Each frame comes with the second webcam's picture, in which the board lies where
    the table says it does for that webcam, and the hands are the same."""
    from bench.calibration import WRONG_PX, turn_errors
    from calibration.pose import locate_board
    from rules.maps import load_map
    from twin.table import SimulatedTable
    from twin.table_settings import TableSettings

    table = SimulatedTable(seed=3, turns=1, settings=TableSettings(
        width=960, height=540, setup_s=0.1, second_webcam_deg=180.0))
    frame = next(iter(table))
    assert frame.second_image is not None and frame.second_image.shape == frame.image.shape
    assert not np.array_equal(frame.second_image, frame.image)
    assert frame.placement is not None
    truth = table.board_pose(frame.placement, second=True)
    found = locate_board(frame.second_image, table.camera, load_map(table.record.map))
    assert found.found and min(turn_errors(table.camera, truth, found)) <= WRONG_PX
    plain = SimulatedTable(seed=3, turns=1, settings=TableSettings(width=960, height=540,
                                                                   setup_s=0.1))
    first = next(iter(plain))
    assert first.second_image is None and np.array_equal(first.image, frame.image)


def hand_over(image: np.ndarray, shift: int = 0) -> np.ndarray:
    """The picture with a dark block over its middle: a hand reaching over the board
    (``shift`` pixels to the right)."""
    out = image.copy()
    h, w = out.shape[:2]
    out[h // 3: 2 * h // 3, w // 3 + shift: 2 * w // 3 + shift] = 40
    return out


def waving(image: np.ndarray) -> list[np.ndarray]:
    """A hand moving over the board for one picture's time."""
    return [hand_over(image, 60 * (i % 2)) for i in range(STILL)]


@pytest.mark.parametrize("first_sees_hands", [True, False])
def test_a_turn_only_the_second_webcam_sees_is_read(pair, first_sees_hands) -> None:
    """The palace hides the staircase from the first webcam: its picture settles as it
    was (after a hand, or with no hand seen at all), the second's settles changed. The
    turn is read once, from both views, the first against its unchanged picture and the
    second against its own picture before."""
    assert pair.second is not None
    # The first webcam's picture after: the same palace, a shade lighter.
    again = np.clip(pair.before_frame.astype(np.int16) + 3, 0, 255).astype(np.uint8)
    first = [pair.before_frame, hand_over(pair.before_frame) if first_sees_hands
             else pair.before_frame, again]
    second = [pair.second.before_frame, hand_over(pair.second.before_frame),
              pair.second.after_frame]
    table, reader, loop = watch(pair, first, second)
    assert len(reader.calls) == 1 and loop.stats.second_alone == loop.stats.second_views == 1
    call = reader.calls[0]
    befores, views = call["before_frame"], call["frames"]
    assert len(befores) == len(views) == len(call["locations"]) == 2
    assert np.array_equal(views[0], again)
    assert np.array_equal(befores[0], pair.before_frame)
    assert np.array_equal(befores[1], pair.second.before_frame)
    assert np.array_equal(views[1], pair.second.after_frame)
    assert len(table.turns) == 1


@pytest.mark.parametrize("late", [1, 3])
def test_a_second_webcam_that_settles_late_is_waited_for_a_while(pair, late) -> None:
    """The first webcam settles changed while a hand still moves over the second's
    board: the reading waits for the second's picture to settle (``late`` pictures of
    1.4 s after the first's) for up to SECOND_WAIT_S, else reads the first alone; either
    way the second's still picture then becomes its picture before the next turn, not a
    second turn."""
    assert pair.second is not None
    first = [pair.before_frame, hand_over(pair.before_frame),
             *[pair.after_frame] * (late + 1)]
    second = [pair.second.before_frame, hand_over(pair.second.before_frame),
              *[waving(pair.second.before_frame)] * late, pair.second.after_frame]
    _, reader, loop = watch(pair, first, second)
    waited = late * STILL / 10.0 < SECOND_WAIT_S
    assert len(reader.calls) == 1 and loop.stats.second_views == int(waited)
    assert loop.stats.second_alone == 0
    views = reader.calls[0]["frames"]
    assert np.array_equal(views[-1], pair.second.after_frame) == waited
    assert loop.second is not None and not loop.second.changed
    assert loop.second.view() is not None  # its picture now and before: the same palace


def test_the_look_learns_nothing_while_a_turn_waits_for_the_second_webcam(pair) -> None:
    """The players confirm the turn before while the turn just settled waits for the
    second webcam: the settled picture then shows that turn too, so the table's look
    must not learn it as the confirmed palace."""
    assert pair.second is not None
    table, reader = Table(pair), Reader()
    confirmed = pair.before.copy()  # any other palace will do: the look learns it anew
    for piece in pair.added:
        if piece.kind not in ANIMAL_KINDS:
            confirmed.place(piece)
    waits: list[bool] = []

    class Look(TableLook):
        def learn(self, frame, location, palace):
            waits.append(loop._waiting is not None)
            super().learn(frame, location, palace)

    def status(state, detail=""):
        if detail.startswith("waiting for the second"):
            table.confirmed = confirmed  # the turn before, confirmed on the page now

    table.camera_status = status
    loop = CameraLoop(table, camera=pair.camera, reader=reader, look=Look(),
                      second=SecondWebcam(pair.camera))
    first = [pair.before_frame, hand_over(pair.before_frame), pair.after_frame,
             pair.after_frame]
    second = [pair.second.before_frame, hand_over(pair.second.before_frame),
              waving(pair.second.before_frame), pair.second.after_frame]
    ones, twos = frames(first, second)
    loop.run(ones, second_source=twos)
    assert loop.stats.second_views == 1 and waits and not any(waits)
    assert len(waits) >= 2  # the set-up, then the confirmed palace once the turn was read
