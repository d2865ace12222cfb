"""Turn mode, stage by stage, on seeded turns the tests never see and on Cycles turns.

    python3 -m bench.vision               # 10 twin palaces of 120 pieces and the 6
                                          # Cycles palaces (full mode), 200 wide-twin
                                          # turns, the Cycles turns, and 40 turns each
                                          # outside the training range
    python3 -m bench.vision --quick       # 1 twin palace of 30 pieces, 1 Cycles palace,
                                          # 12 twin turns, 6 per outside set, 4 Cycles
    python3 -m bench.vision --only twin|cycles|outside|full|cycles_full|camera_map|two_views
    python3 -m bench.vision --no-model    # the classical change evidence only
    python3 -m bench.vision --compare     # both, on the same frames
    python3 -m bench.vision --seed 6000   # the twin and outside sets from other games
                                          # (a development set apart from the bench's)

The twin turns are the first turns (at most 20 a game) of bot games from seed 5000 on
(the tests use 100-199, the model's training 100000 on), each game on a new random
ground map, in the twin's wide look, one
webcam per turn at 30 to 70 degrees of elevation, framing from a third of the picture
to past its edges, clutter and hands at the table's edges, both frames of a settled
table (:func:`training.pairs.turn_pairs`). The sets outside the training range are the
same turns at 640x480, under a strong blur (sigma 3 px), under a strongly coloured
light (the camera's white balance off by a third), with the frame after taken by the
webcam knocked on its mount (the reader told where the board lay in the frame before),
with the room's lamp swung 15 degrees round the table between the two pictures, and with
a player's soft shadow across the board in the picture after.
The two-webcam sets are the first 100 of the twin turns, each also seen by a second
webcam of the same make across the table
or on its next side, read from the first view alone and from both, each view against
its own frame before (and 40 of them from two 640x480 webcams across the table, outside
the training range); and the Cycles turns likewise, where their second webcam's
frames were rendered (``twin.cycles.driver --second-view 180``). The camera-map set is
the same twin turns read on the map the camera read of each game's set-up, as a real
table plays, and
the Cycles turns each on the map read of its own frame before
(:mod:`bench.camera_map_turns`). The Cycles turns
(``tests/data/cycles_turns``, rendered by ``twin.cycles``) come from a renderer the
project never trains on.

Each set prints its stages, each measured alone:

- board found: :func:`calibration.locate_board` on the frame after the turn, with the
  game's map, right when the stud grid lies within 2 px of the truth;
- pieces precision, recall and F1 with the true pose (a piece counts when kind, cells,
  level, arch axis and decoration colour are all right; animals are not read);
- turns exactly right, and turn reports exactly right (legal, credits, highest
  decoration, bonus);
- pieces flagged uncertain and how many of those were wrong, and wrong pieces flagged;
- turns put to the players (the reading uncertain or its report not legal, as the
  dashboard asks), and the wrong reports that were not:
  the errors a table would score without being asked;
- the wrong turns by blame (the truth weighed on the reading's own evidence and
  objective: not shown, missed by the search, or judged no better), and by what they got
  wrong (:mod:`bench.wrong_turns`: a column for three bricks, the decoration, a first
  step on the plate, other), and the wrong reports by the fields that differ;
- seconds per frame (median, one thread), beside the twin rendering one frame in the
  same run as the reference.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from bench.calibration import WRONG_PX, turn_errors
from bench.camera_map_turns import CameraMapTurn, MapCounts, on_camera_map
from bench.full_palace import BENCH_GAMES, cycles_views, measure_full, palace_views, show_full
from bench.wrong_turns import forms_line, report_fields, report_key, wrong_form
from calibration.evidence import BoardLocation
from calibration.pose import locate_board
from rules import Palace, simulate_game
from rules.moves import Hand
from rules.pieces import ANIMAL_KINDS, Piece, place_key
from training.pairs import TurnPair, twin_turns, webcam_views
from twin import Relight, RenderOptions, random_camera, render
from twin.cameras import turned_picture, turned_webcam
from twin.cycles.frames import ValidationTurn, load_turns
from vision import TurnReading, read_turn

BENCH_SEED = 5000
TWO_VIEW_TURNS = 100
"""Turns of the two-webcam sets: the twin set's first, so that its one-view figures are
the twin set's own."""
SECOND_WEBCAM_DEGREES = (180.0, 90.0)
"""Where the second webcam stands round the table from the first: across the table, and
on the next side."""
TINTED = RenderOptions(white_balance=(0.75, 1.0, 1.33))
BLURRED = RenderOptions(blur=3.0)
KNOCK = (0.3, 0.2)
"""The outside set's knocked webcam: turned on its mount this far (pan, tilt, degrees)
between the picture before and the picture after, as a table leant on turns a clamp;
every turn bench else takes both from one camera."""
RELIT = Relight(azimuth_deg=15.0)
"""The outside set's light changed between the pictures: the lamp swung this far round
the table (the sun along a window for an hour); every other set lights both alike."""
SHADOWED = Relight(shadow=0.4)
"""The outside set's player leaning over the table as the picture after is taken: a soft
shadow taking 40 % of the light from one side of the board."""


Turn = TurnPair | ValidationTurn | CameraMapTurn
"""What one measured turn needs (the palace before, the pieces added, both frames, the
camera, the true pose, the map), whichever renderer made it."""


@dataclass
class Tally:
    """One set's counts, stage by stage."""

    turns: int = 0
    found: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    exact: int = 0
    reports: int = 0
    flagged: int = 0
    flagged_wrong: int = 0
    wrong: int = 0
    wrong_flagged: int = 0
    truth_unseen: int = 0
    """Wrong turns whose truth its own pixels do not show (evidence not above zero): only
    the rules' bonuses could put it there, as any other hidden staircase."""
    search_missed: int = 0
    """Wrong turns whose truth shows and the reader's own objective judges better than
    its reading: the search never reached it."""
    truth_outjudged: int = 0
    """Wrong turns whose truth it judges no better: the evidence and the rules' priors
    chose the reading, which no search could mend."""
    asked: int = 0
    """Turns the page puts to the players before scoring them, as the dashboard's
    session does: the reading uncertain (:attr:`vision.TurnReading.uncertain`) or its
    report not legal."""
    asked_right: int = 0
    """Of :attr:`asked`, those whose report was right all the same."""
    forms: Counter[str] = field(default_factory=Counter)
    """Wrong turns by what they got wrong (:func:`bench.wrong_turns.wrong_form`)."""
    report_fields: Counter[str] = field(default_factory=Counter)
    """Wrong reports by the fields that differ (:func:`bench.wrong_turns.report_fields`)."""
    seconds: list[float] = field(default_factory=list)

    def f1(self) -> tuple[float, float, float]:
        prec = self.tp / max(self.tp + self.fp, 1)
        rec = self.tp / max(self.tp + self.fn, 1)
        return prec, rec, 2 * prec * rec / max(prec + rec, 1e-9)

    def unasked_wrong(self) -> int:
        """Wrong reports the page scored without putting the turn to the players."""
        return self.turns - self.reports - (self.asked - self.asked_right)


HANDS = True
"""Whether each turn is read knowing what its builder could build with, as the camera
loop reads it from the game (``--no-hand``: as ``palace reconstruct`` reads a photo with
no game)."""


def _hand(turn: Turn) -> Hand | None:
    return turn.hand if HANDS else None


def measure(turns: Iterable[Turn], models: tuple[bool, ...], locate: bool,
            knock: tuple[float, float] | None = None) -> dict[bool, Tally]:
    """Each turn read from its frame after, the true pose given, with its builder's hand
    (:data:`HANDS`); with ``knock`` (pan, tilt, degrees) the frame after is the picture
    the webcam took once turned that far on its mount
    (:func:`twin.cameras.turned_picture`), and the reader is told where the board lay in
    the frame before."""
    tallies = {m: Tally() for m in models}
    for turn in turns:
        built = [p for p in turn.added if p.kind not in ANIMAL_KINDS]
        found = False
        if locate:
            loc = locate_board(turn.after_frame, turn.camera, turn.ground)
            found = bool(loc.found and loc.pose is not None
                         and min(turn_errors(turn.camera, turn.pose, loc)) <= WRONG_PX)
        then = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
        after, given = turn.after_frame, then
        if knock is not None:
            after = turned_picture(after, turn.camera, *knock)
            given = BoardLocation(True, pose=turned_webcam(turn.pose, *knock), rotation=0,
                                  camera=turn.camera)
        for model in models:
            tallies[model].found += found
            reading = read_turn([after], turn.camera, turn.before,
                                before_frame=turn.before_frame,
                                before_locations=then if knock is not None else None,
                                locations=[given], model=model, weigh=built,
                                hand=_hand(turn))
            _count(tallies[model], turn, built, reading)
    return tallies


def measure_views(turns: Iterable[TurnPair | ValidationTurn]) -> dict[str, Tally]:
    """Each turn read from its first webcam alone and from both of its webcams (drawn
    with ``second_view``), each view against its own frame before, the true poses
    given: what a second webcam on another side of the table brings."""
    tallies = {"one view": Tally(), "two views": Tally()}
    for turn in turns:
        assert turn.second is not None, "turns drawn without a second view"
        built = [p for p in turn.added if p.kind not in ANIMAL_KINDS]
        for name, views in zip(tallies, webcam_views(turn), strict=True):
            reading = read_turn(views.frames, turn.camera, turn.before,
                                before_frame=views.befores, locations=views.locations,
                                weigh=built, hand=_hand(turn))
            _count(tallies[name], turn, built, reading)
    return tallies


def _count(tally: Tally, turn: Turn, built: list[Piece], reading: TurnReading) -> None:
    """One turn's reading into the set's counts, judged against the truth ``built``."""
    truth = {place_key(p) for p in built}
    true_report = report_key(_on_true_map(turn), built)
    tally.turns += 1
    # The reading's own time: the truth is weighed after it is taken.
    tally.seconds.append(reading.seconds)
    got = {place_key(r.piece) for r in reading.added}
    if truth != got:
        tally.forms[wrong_form(built, reading.pieces)] += 1
        weighed = reading.weighed
        if weighed is not None:
            tally.truth_unseen += weighed.unseen
            tally.search_missed += weighed.search_missed
            tally.truth_outjudged += not (weighed.unseen or weighed.search_missed)
    read_report = report_key(turn.before, reading.pieces)
    tally.report_fields.update(report_fields(true_report, read_report))
    tally.tp += len(truth & got)
    tally.fp += len(got - truth)
    tally.fn += len(truth - got)
    tally.exact += truth == got
    tally.reports += true_report == read_report
    asked = reading.uncertain or not read_report[0]
    tally.asked += asked
    tally.asked_right += asked and true_report == read_report
    for r in reading.added:
        bad = place_key(r.piece) not in truth
        tally.wrong += bad
        if r.confidence < 0.5:
            tally.flagged += 1
            tally.flagged_wrong += bad
            tally.wrong_flagged += bad


def _on_true_map(turn: Turn) -> Palace:
    """The palace before on the true map (a turn of the camera-map set reads on another)."""
    before = turn.before
    return before if before.ground is turn.ground else Palace(turn.ground, before.pieces)


def render_reference() -> float:
    """Median seconds the twin takes to render one 1280x720 frame, on this machine now."""
    scene = simulate_game(4, seed=1).scenes[8]
    cam, pose = random_camera(np.random.default_rng(1))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        render(scene, cam, pose, RenderOptions(), seed=1)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def show(title: str, tallies: Mapping[bool, Tally] | Mapping[str, Tally], reference: float,
         locate: bool) -> None:
    """Each tally under ``title``, named by its key: the model on or off, or a label."""
    for key, tally in tallies.items():
        label = key if isinstance(key, str) else "model" if key else "no model"
        n = tally.turns
        if not n:
            print(f"{title}: no turns")
            continue
        prec, rec, f1 = tally.f1()
        med = statistics.median(tally.seconds)
        print(f"{title} [{label}]: {n} turns")
        if locate:
            print(f"  board found {tally.found}/{n} ({tally.found / n:.1%})")
        print(f"  pieces precision {prec:.3f} recall {rec:.3f} F1 {f1:.3f}")
        print(f"  turns exactly right {tally.exact}/{n} ({tally.exact / n:.1%}); "
              f"turn reports right {tally.reports}/{n} ({tally.reports / n:.1%})")
        print(f"  pieces flagged uncertain {tally.flagged}, of which wrong "
              f"{tally.flagged_wrong}; wrong pieces flagged {tally.wrong_flagged}/{tally.wrong}")
        print(f"  turns put to the players {tally.asked}/{n} ({tally.asked / n:.1%}), "
              f"{tally.asked_right} of them with the report right; wrong reports not put "
              f"to them {tally.unasked_wrong()}/{n - tally.reports}")
        print(f"  wrong turns {n - tally.exact}: the truth's own pixels do not show it "
              f"{tally.truth_unseen}; it shows and judges better than the reading (the "
              f"search never reached it) {tally.search_missed}; it judges no better (the "
              f"evidence and the rules' priors chose the reading) {tally.truth_outjudged}")
        print(f"  {forms_line(tally.forms, tally.report_fields)}")
        print(f"  seconds per frame median {med:.2f} s; reference (twin render) "
              f"{reference:.2f} s; ratio {med / reference:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns", type=int, default=200, help="wide-twin turns")
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--no-hand", action="store_true",
                        help="read each turn without its builder's hand, as `palace "
                             "reconstruct` reads a photo with no game")
    parser.add_argument("--only", choices=("twin", "cycles", "outside", "full", "cycles_full",
                                           "camera_map", "two_views"), default=None)
    parser.add_argument("--seed", type=int, default=BENCH_SEED,
                        help="first game of the twin and outside sets (a development set "
                             "on other seeds, e.g. 6000, leaves the bench's own untouched)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    global HANDS
    HANDS = not args.no_hand
    models = (True, False) if args.compare else (not args.no_model,)
    turns = 12 if args.quick else args.turns
    outside = 6 if args.quick else 40
    reference = render_reference()
    if args.only in (None, "full"):
        games = BENCH_GAMES[:1] if args.quick else BENCH_GAMES
        tally, seconds = measure_full(palace_views(game, 30 if args.quick else 120)
                                      for game in games)
        show_full("full mode, wide twin, 4 views a quarter turn apart", tally, seconds,
                  reference)
    if args.only in (None, "cycles_full"):
        tally, seconds = measure_full(cycles_views(limit=1 if args.quick else None))
        show_full("full mode, Cycles palaces (never tuned on), 4 views round the table",
                  tally, seconds, reference)
    if args.only in (None, "twin"):
        show("wide twin (1280x720)", measure(twin_turns(turns, seed=args.seed), models, True),
             reference, True)
    if args.only in (None, "camera_map"):
        counts = MapCounts()
        tallies = measure(on_camera_map(twin_turns(turns, seed=args.seed), counts), models,
                          False)
        show("wide twin on the map the camera read at the set-up", tallies, reference, False)
        print(f"  {counts.line()}")
        counts = MapCounts()
        tallies = measure(on_camera_map(load_turns(limit=4 if args.quick else None), counts),
                          models, False)
        show("Cycles turns on the map the camera read of each turn's frame before", tallies,
             reference, False)
        print(f"  {counts.line()}")
    if args.only in (None, "cycles"):
        show("Cycles turns (never trained on)",
             measure(load_turns(limit=4 if args.quick else None), models, True), reference,
             True)
    if args.only in (None, "two_views"):
        for degrees in SECOND_WEBCAM_DEGREES:
            show(f"two webcams, the second {degrees:.0f} degrees round the table",
                 measure_views(twin_turns(4 if args.quick else TWO_VIEW_TURNS,
                                          seed=args.seed, second_view=degrees)),
                 reference, False)
        show("two 640x480 webcams (outside the training range), the second across the table",
             measure_views(twin_turns(outside, seed=args.seed, width=640, height=480,
                                      second_view=SECOND_WEBCAM_DEGREES[0])),
             reference, False)
        cycles = [t for t in load_turns(limit=4 if args.quick else None) if t.second]
        if cycles:
            show("two webcams, the Cycles turns (never trained on), the second across the "
                 "table", measure_views(cycles), reference, False)
    if args.only in (None, "outside"):
        for title, kw in (("outside: 640x480", {"width": 640, "height": 480}),
                          ("outside: strong blur", {"options": BLURRED}),
                          ("outside: coloured light", {"options": TINTED})):
            show(title, measure(twin_turns(outside, seed=args.seed, **kw), models, False),
                 reference, False)
        show(f"outside: the webcam knocked between the pictures (pan {KNOCK[0]:g}, tilt "
             f"{KNOCK[1]:g} degrees)",
             measure(twin_turns(outside, seed=args.seed), models, False, KNOCK), reference,
             False)
        show(f"outside: the lamp swung {RELIT.azimuth_deg:g} degrees round the table between "
             "the pictures",
             measure(twin_turns(outside, seed=args.seed, relight=RELIT), models, False),
             reference, False)
        show(f"outside: a player's soft shadow over the picture after ({SHADOWED.shadow:.0%} "
             "of the light)",
             measure(twin_turns(outside, seed=args.seed, relight=SHADOWED), models, False),
             reference, False)
        show("outside: a player's card laid over the board's edge before the picture after",
             measure(twin_turns(outside, seed=args.seed, card_over_edge=True), models, False),
             reference, False)
        show("outside: a player's phone laid over the board's edge before the picture after "
             "(never shown to the model)",
             measure(twin_turns(outside, seed=args.seed, phone_over_edge=True), models,
                     False), reference, False)


if __name__ == "__main__":
    main()
