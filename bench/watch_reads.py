"""Why the camera loop read a turn wrong: each read's inputs against the truth, read again.

The loop hands ``vision.read_turn`` more than the turn bench does (three tracked frames,
the session's palace, the last settled picture, the table's learned look) and its
frames are noisier (hands just gone, flicker, sensor noise, a board moved). For every
read of simulated games this records what the reader was given next to what the frames
truly show, and reads each wrong or doubted turn again with the true pose and then as
the turn bench would (one noise-free frame after, one before, the true pose, no look),
so that each loss is put down to one input or to turn mode itself:

- ``right``: exactly the pieces built, and nothing the session would doubt;
- ``no turn``: read while no turn had been built (the light changed, say);
- ``palace`` / ``settle`` / ``before``: the palace, the settled frames (not all still,
  or not all the same scene) or the picture before were not the true ones;
- ``pose``: read right again with the true pose;
- ``frames``: read right again from the noise-free frames, the true pose and no look
  (noise, flicker or the look lose it);
- ``turn mode``: read the same way from the bench's inputs (the turn itself is hard);
  ``turn mode, in doubt`` when the pieces were right but the session doubted them.

    python3 -m bench.watch_reads [--seeds 200-203] [--turns 6]
    python3 -m bench.watch_reads --second-webcam 180   # the same games, a second webcam
                                                       # across the table: the players'
                                                       # tally only
    python3 -m bench.watch_reads --bump 0.3            # the webcam knocked up to 0.3
                                                       # degrees while each turn is built
    python3 -m bench.watch_reads --push 8              # the board pushed up to 8 mm
    python3 -m bench.watch_reads --shadow 0.5          # half the players lean over the
                                                       # table for 12 s after building
    python3 -m bench.watch_reads --onlooker 0.5        # after half the turns another
                                                       # leans over it to look, 12 s
    python3 -m bench.watch_reads --card 0.5            # half the players lay a card over
                                                       # the board's edge as they build
    python3 -m bench.watch_reads --drift 4 --switch 0.5  # the room's light creeping 4
                                                       # degrees round the table after
                                                       # each turn, and half the time
                                                       # changing at once

With ``--second-webcam DEG`` the table has a second webcam that many degrees round it
and the loop reads each turn from both (``palace.following``); the reads are not taken
apart then (the second view has its own true pose), only the players' tally is printed,
to set beside the one-webcam run's on the same games.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2

from bench.calibration import turn_errors
from calibration.camera import Camera
from calibration.evidence import BoardLocation
from palace.demo import DemoTally, TablePlayers
from palace.draft import DOUBT_BELOW
from palace.following import SecondWebcam
from palace.session import TableSession
from palace.turn_reading import LoopStats
from palace.watch import CameraLoop
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import built_keys, same_pieces
from rules.staircase import analyse_added
from twin.table import SimulatedTable, TableFrame
from twin.table_settings import LEAN_S, TableSettings
from vision import read_turn


@dataclass(frozen=True)
class LoopRead:
    """One read of the loop: what it was given, what was true, and the re-reads."""

    game: int
    turns_done: int
    pose_px: float
    """Worst stud-grid error (median px) of the tracked poses handed over."""
    settled: bool
    """All frames handed over were still and showed the same scene."""
    palace_right: bool
    before_right: bool | None
    """The picture before showed the palace given (None: no picture before given)."""
    exact: bool
    in_doubt: bool
    """Uncertain, a piece under the page's doubt line, or not a legal turn."""
    true_pose: bool | None = None
    bench_inputs: bool | None = None
    no_turn: bool = False
    """Read while nothing had been built since the palace given."""


def classify(read: LoopRead) -> str:
    """Which input lost the read (the first that was not true), else turn mode."""
    if read.no_turn:
        return "no turn"
    if read.exact and not read.in_doubt:
        return "right"
    if not read.palace_right:
        return "palace"
    if not read.settled:
        return "settle"
    if read.before_right is False:
        return "before"
    if read.true_pose:
        return "pose"
    if read.bench_inputs:
        return "frames"
    return "turn mode, in doubt" if read.exact else "turn mode"


def _right(reading: Any, palace: Palace,
           truth: AbstractSet[tuple[object, ...]]) -> tuple[bool, bool]:
    """(exact, in doubt) as the page's players would judge the reading."""
    pieces = [r.piece for r in reading.added]
    doubt = bool(reading.uncertain) or any(r.confidence < DOUBT_BELOW for r in reading.added)
    legal = analyse_added(palace, pieces).legal if pieces else False
    return built_keys(pieces) == truth, doubt or not legal


class RecordingReader:
    """``vision.read_turn`` for the loop, noting each read as a :class:`LoopRead`."""

    def __init__(self, table: SimulatedTable, game: int) -> None:
        self.table, self.game = table, game
        self.frames: dict[int, TableFrame] = {}
        """The table's frames by the id of their image (the loop hands images only)."""
        self.reads: list[LoopRead] = []

    def see(self, frame: TableFrame) -> None:
        """Called with each frame before the loop gets it. Frames are kept (so their
        images' ids stay theirs) for 40 s, longer than any settled picture is kept; a
        picture before older than that is taken as unknown, not as wrong."""
        self.frames[id(frame.image)] = frame
        if len(self.frames) > 400:  # the last few seconds cover any settled frame kept
            del self.frames[next(iter(self.frames))]

    def __call__(self, frames: Sequence[Any], camera: Camera, palace: Palace, *,
                 before_frame: Any, before_locations: Any, ground: Any, look: Any,
                 locations: Sequence[BoardLocation], hand: Hand | None) -> Any:
        reading = read_turn(frames, camera, palace, before_frame=before_frame,
                            before_locations=before_locations, ground=ground, look=look,
                            locations=locations, hand=hand)
        shots = [self.frames[id(f)] for f in frames]
        last = shots[-1]
        truth = built_keys(last.scene.pieces) - built_keys(palace.pieces)
        before = self.frames.get(id(before_frame)) if before_frame is not None else None
        exact, doubt = _right(reading, palace, truth)
        read = LoopRead(
            self.game, last.turns_done,
            max(min(turn_errors(camera, s.pose, loc)) for s, loc in zip(
                shots, locations, strict=True)),
            all(s.phase == "still" and s.scene.pieces == last.scene.pieces for s in shots),
            # The simulated players confirm each turn before the next is built, so the
            # session's palace is the scene before the turn whose frames are read.
            same_pieces(palace.pieces,
                        self.table.record.scenes[max(last.turns_done - 1, 0)].pieces),
            None if before is None else same_pieces(before.scene.pieces, palace.pieces),
            exact, doubt, no_turn=not truth)
        if not (exact and not doubt) and truth:
            true = [BoardLocation(True, pose=s.pose, rotation=0, camera=camera) for s in shots]
            again = read_turn(frames, camera, palace, before_frame=before_frame,
                              before_locations=before_locations, ground=ground, look=look,
                              locations=true, hand=hand)
            # The bench's picture before: the palace given, where the board lies now, with
            # whatever lay over its edge then (a card laid since is part of the change).
            then = last if before is None else replace(last, cards=before.cards)
            bench = read_turn([self.table.clean_picture(last)], camera, palace,
                              before_frame=self.table.clean_picture(then, palace.pieces),
                              locations=true[-1:], hand=hand)
            read = replace(read, true_pose=_right(again, palace, truth) == (True, False),
                           bench_inputs=_right(bench, palace, truth) == (True, False))
        self.reads.append(read)
        return reading


TABLE_FLAGS = (
    ("--bump", "webcam_bump_deg", "DEG", "the first webcam knocked by up to this many "
     "degrees each turn (pan and tilt), as a table leant on does"),
    ("--push", "board_push_mm", "MM", "the board pushed up to this many millimetres while "
     "each turn is built, as pressing pieces onto their studs does"),
    ("--drift", "light_drift_deg", "DEG", "the room's light creeping this many degrees "
     "round the table while the palace lies still after each turn (the sun along a window)"),
    ("--switch", "light_switch_chance", "CHANCE", "after each turn, the chance that the "
     "room's light changes at once (a lamp switched on or off)"),
    ("--shadow", "player_shadow_chance", "CHANCE", "after each turn, the chance that the "
     f"player who built leans over the table for {LEAN_S:g} s, their soft shadow over the "
     "board"),
    ("--onlooker", "onlooker_chance", "CHANCE", "after each turn, the chance that another "
     f"player leans over the table for {LEAN_S:g} s to look, building nothing"),
    ("--card", "card_chance", "CHANCE", "each turn, the chance that the player lays a card "
     "over a side of the board while building (the next player picks it up)"),
)
"""The simulated table's mishaps a run may ask for: flag, ``TableSettings`` field, unit,
help."""


def play(seed: int, turns: int, db: Path, second_webcam: float | None = None,
         **table: float) -> tuple[list[LoopRead], DemoTally, LoopStats]:
    """One simulated game through the loop (as ``palace demo --headless-check``); with
    ``second_webcam``, a second webcam that many degrees round the table, its view read
    with the first's, and no read taken apart; ``table``: the table's mishaps, by their
    ``TableSettings`` fields (:data:`TABLE_FLAGS`)."""
    filmed = SimulatedTable(seed=seed, players=3, turns=turns,
                            settings=TableSettings(second_webcam_deg=second_webcam, **table))
    session = TableSession.open(db.with_name(f"reads{seed}.sqlite"), resume=False)
    players = TablePlayers(session, filmed)
    players.set_up()
    reader = RecordingReader(filmed, seed) if second_webcam is None else None
    second = None if second_webcam is None else SecondWebcam(filmed.camera)
    loop = CameraLoop(session, camera=filmed.camera, on_turn=players.on_turn,
                      reader=reader, second=second)
    for frame in filmed:
        if reader is not None:
            reader.see(frame)
        players.watch(frame)
        loop.step(frame, None if frame.second_image is None
                  else SimpleNamespace(image=frame.second_image, time=frame.time))
    players.finish_all()
    session.close()
    return ([] if reader is None else reader.reads), players.tally, loop.stats


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="200-203", help="table seeds, FIRST-LAST")
    parser.add_argument("--turns", type=int, default=6, help="turns a game")
    parser.add_argument("--second-webcam", type=float, metavar="DEG",
                        help="a second webcam this many degrees round the table")
    for flag, _, unit, text in TABLE_FLAGS:
        parser.add_argument(flag, type=float, default=0.0, metavar=unit, help=text)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    db = Path(tempfile.mkdtemp(prefix="bench-watch-reads-")) / "x.sqlite"
    classes: Counter[str] = Counter()
    built = right = missed = relit = 0
    for seed in _seeds(args.seeds):
        reads, tally, stats = play(seed, args.turns, db, args.second_webcam, **{
            field: getattr(args, flag[2:]) for flag, field, _, _ in TABLE_FLAGS})
        built, right = built + tally.built, right + tally.read_right
        missed += tally.missed
        relit += stats.relit
        print(f"game {seed}: {tally.line()}; {stats.relit} settles taken for the light "
              "changing" + ("" if args.second_webcam is None else
              f"; {stats.reads} reads, {stats.second_views} with the second webcam's view, "
              f"{stats.second_alone} of them started by its picture alone"))
        for read in reads:
            verdict = classify(read)
            classes[verdict] += 1
            print(f"  turn {read.turns_done}: {verdict} (pose {read.pose_px:.2f} px, "
                  f"settled {read.settled}, palace {read.palace_right}, before "
                  f"{read.before_right})")
    print(f"{right} of {built} turns read right by the camera, {missed} never read "
          "(entered by hand)" + ("" if args.second_webcam is None else
                                  f" (a second webcam {args.second_webcam:.0f} degrees round "
                                  "the table)") + f"; {relit} settles taken for the light changing")
    if classes:
        print(f"{sum(classes.values())} reads: " + ", ".join(
            f"{n} {name}" for name, n in classes.most_common()))


if __name__ == "__main__":
    main()
