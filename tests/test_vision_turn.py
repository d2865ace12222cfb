"""Turn mode on seeded twin frames: a short bot game read turn by turn, a hidden piece,
a board that is not there, the table's learned frame, and the reconstruct command."""

from __future__ import annotations

import gc
import json
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.evidence import BoardLocation
from palace.cli import main
from rules import Axis, Kind, Palace, Piece, load_map
from rules.pieces import ANIMAL_KINDS, built_keys
from rules.scene import Scene, piece_from_json
from rules.staircase import analyse_added
from tests.turn_fixtures import read_on_setup
from training.pairs import TurnPair, redevelop, turn_pairs
from twin import RenderOptions, orbit_pose, render
from twin.cameras import random_camera, turned_webcam
from vision import TableLook, read_turn
from vision.reading import UNCERTAIN_BELOW
from vision.turn import collector_paused


def staircase(pieces: tuple[Piece, ...]) -> list[tuple[object, ...]]:
    """What turn mode reads (building pieces and the decoration; animals are not read),
    sorted so that a failure shows the two readings side by side."""
    return sorted(built_keys(pieces), key=repr)


def located(pair: TurnPair) -> BoardLocation:
    return BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)


@pytest.fixture(scope="module")
def game() -> list[TurnPair]:
    return list(turn_pairs(1, 100, max_turns=3, elevation_deg=(45.0, 60.0),
                           options=RenderOptions(clutter=False)))


def test_a_short_bot_game_is_read_turn_by_turn_exactly(game: list[TurnPair]) -> None:
    assert len(game) == 3
    for pair in game:
        reading = read_turn([pair.after_frame], pair.camera, pair.before,
                            before_frame=pair.before_frame, locations=[located(pair)])
        assert reading.found, reading.reason
        assert staircase(reading.pieces) == staircase(pair.added), f"turn {pair.turn}"
        # Whatever is read can stand on the palace before the turn.
        board = pair.before.copy()
        for piece in reading.pieces:
            board.place(piece)


def test_a_staircase_from_studs_the_camera_left_unknown_is_read_and_named(
        game: list[TurnPair]) -> None:
    """The map as a camera reads it: each turn's starting stud and the studs round it
    unknown (``?``). The staircase is still read, its decoration's colour taken from the
    picture, and the game names the stud by it."""
    for pair in game:
        start = analyse_added(pair.before, list(pair.added)).start
        assert start is not None
        rows = [list(row) for row in pair.before.ground.ground]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                x, y = start[0] + dx, start[1] + dy
                if (x, y) not in pair.before.ground.start_area and rows[y][x] in "LDG":
                    rows[y][x] = "?"
        ground = replace(pair.before.ground, ground=tuple("".join(r) for r in rows))
        before = Palace(ground, pair.before.pieces)
        reading = read_turn([pair.after_frame], pair.camera, before,
                            before_frame=pair.before_frame, locations=[located(pair)])
        assert staircase(reading.pieces) == staircase(pair.added), f"turn {pair.turn}"
        report = analyse_added(before, list(reading.pieces))
        assert report.legal and report.start_named and report.start == start


def test_the_tables_learned_frame_stands_in_for_the_frame_before(game: list[TurnPair]) -> None:
    pair = game[0]
    look = TableLook()
    look.learn(pair.before_frame, located(pair), pair.before)
    reading = read_turn([pair.after_frame], pair.camera, pair.before, look=look,
                        locations=[located(pair)])
    assert staircase(reading.pieces) == staircase(pair.added)
    # A look learned on another palace is no picture of this one.
    other = TableLook()
    other.learn(pair.after_frame, located(pair), Palace(pair.ground))
    missing = read_turn([pair.after_frame], pair.camera, pair.before, look=other,
                        locations=[located(pair)])
    assert not missing.found


def test_a_step_hidden_behind_a_tower_is_reported_uncertain() -> None:
    """The step changes nothing this view shows: the reading is empty, and a turn
    always adds a staircase, so it asks the players (or any piece it reads is doubted)."""
    ground = load_map("1")
    before = Palace.setup(ground)
    # A wall of columns two levels higher than the new step, between it and the camera.
    for x in range(4, 12):
        before.place(Piece(Kind.COLUMN, x, 6, 0))
        before.place(Piece(Kind.COLUMN, x, 6, 3))
    added = [Piece(Kind.BRICK, 5, 9, 0), Piece(Kind.BRICK, 8, 9, 0),
             Piece(Kind.ARCH, 5, 9, 1, axis=Axis.X)]
    after = before.copy()
    for p in added:
        after.place(p)
    rng = np.random.default_rng(5)
    camera, _ = random_camera(rng)
    pose = orbit_pose(35.0, 270.0, 520.0, target=np.array([64.0, 80.0, 0.0]))
    options = RenderOptions(clutter=False, color_jitter=0.0)
    before_frame = render(before, camera, pose, options, seed=3).image
    after_frame = redevelop(render(after, camera, pose, options, seed=3).image, rng)
    reading = read_turn([after_frame], camera, before, before_frame=before_frame,
                        locations=[BoardLocation(True, pose=pose, rotation=0, camera=camera)])
    assert reading.found
    assert reading.uncertain
    assert reading.added or reading.reason, "an empty reading says why it is doubted"
    assert not reading.added or any(r.confidence < 0.5 for r in reading.added)


def test_a_faint_trace_of_change_on_the_board_makes_an_empty_reading_uncertain(
        game: list[TurnPair], monkeypatch: pytest.MonkeyPatch) -> None:
    """A settled board re-exposed reads as nothing new, and asks whether a staircase is
    hidden (:data:`vision.turn.NOTHING_READ`); the same frames where the model sees a
    patch over the board it finds faintly likely new (a leaf tip over the palace's far
    side, all a hidden staircase may show) say that something changed; such a patch on
    the table beside the board is no trace of a turn."""
    import vision.turn as turn_mode

    pair = game[0]
    settled = redevelop(pair.before_frame, np.random.default_rng(1))
    reading = read_turn([settled], pair.camera, pair.before, before_frame=pair.before_frame,
                        locations=[located(pair)])
    assert reading.found and reading.added == () and reading.reason == turn_mode.NOTHING_READ

    real = turn_mode.new_piece_evidence
    side = int(np.ceil(np.sqrt(turn_mode.MIN_FAINT_PIXELS)))
    faint = (turn_mode.FAINT_LEVEL + 0.5) / 2  # under the level that lights a voxel

    def read_with_patch(where: str) -> object:
        def with_patch(after: np.ndarray, before: np.ndarray) -> np.ndarray:
            out = real(after, before).copy()
            h, w = out.shape
            y, x = (h // 2, w // 2) if where == "board" else (0, 0)
            out[y:y + side, x:x + side] = faint
            return out

        monkeypatch.setattr(turn_mode, "new_piece_evidence", with_patch)
        return read_turn([settled], pair.camera, pair.before,
                         before_frame=pair.before_frame, locations=[located(pair)])

    traced = read_with_patch("board")
    assert traced.found and traced.added == () and traced.uncertain
    assert "no staircase could be read" in traced.reason
    beside = read_with_patch("table")
    assert beside.found and beside.added == () and beside.reason == turn_mode.NOTHING_READ


def test_the_truth_is_weighed_against_the_reading_on_the_same_evidence(
        game: list[TurnPair]) -> None:
    pair = game[0]
    built = [p for p in pair.added if p.kind not in ANIMAL_KINDS]
    plain = read_turn([pair.after_frame], pair.camera, pair.before,
                      before_frame=pair.before_frame, locations=[located(pair)])
    assert plain.weighed is None
    reading = read_turn([pair.after_frame], pair.camera, pair.before,
                        before_frame=pair.before_frame, locations=[located(pair)],
                        weigh=built)
    assert staircase(reading.pieces) == staircase(plain.pieces) == staircase(pair.added)
    assert reading.weighed is not None
    # Read exactly, the truth is the reading: a tie, and no search to blame.
    assert reading.weighed.other == pytest.approx(reading.weighed.reading, abs=0.05)
    assert reading.weighed.reading > 0
    assert not reading.weighed.search_missed
    # A phantom brick on the plate far from the turn, where nothing changed, only costs.
    cells = [c for p in built for c in p.footprint()]
    phantom = next(brick for x in range(2, 30) for y in range(2, 30)
                   if pair.before.fits(brick := Piece(Kind.BRICK, x, y, 0))
                   and min(abs(x - cx) + abs(y - cy) for cx, cy in cells) > 8)
    far = [*built, phantom]
    worse = read_turn([pair.after_frame], pair.camera, pair.before,
                      before_frame=pair.before_frame, locations=[located(pair)], weigh=far)
    assert worse.weighed is not None
    assert worse.weighed.other < worse.weighed.reading
    assert not (worse.weighed.unseen or worse.weighed.search_missed)
    # The phantom alone: its own pixels, where nothing changed, do not show it.
    alone = read_turn([pair.after_frame], pair.camera, pair.before,
                      before_frame=pair.before_frame, locations=[located(pair)],
                      weigh=far[-1:])
    assert alone.weighed is not None and alone.weighed.unseen
    assert not alone.weighed.search_missed
    assert "weighed" not in reading.to_json()


def test_a_search_that_reaches_nothing_is_blamed_where_the_truth_judges_better(
        game: list[TurnPair], monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.vision import measure
    from bench.wrong_turns import wrong_form
    from vision.decode import Decoder

    monkeypatch.setattr(Decoder, "run", lambda self, hot: [])
    monkeypatch.setattr(Decoder, "search_nothing", lambda self, voxels: [])
    pair = game[0]
    reading = read_turn([pair.after_frame], pair.camera, pair.before,
                        before_frame=pair.before_frame, locations=[located(pair)],
                        weigh=[p for p in pair.added if p.kind not in ANIMAL_KINDS])
    assert reading.pieces == ()
    assert reading.weighed is not None and reading.weighed.search_missed
    tally = measure([pair], (True,), False)[True]
    assert (tally.exact, tally.search_missed, tally.truth_outjudged) == (0, 1, 0)
    # Read as nothing, the turn is counted in one form, and its report as not legal.
    built = [p for p in pair.added if p.kind not in ANIMAL_KINDS]
    assert tally.forms == Counter({wrong_form(built, []): 1})
    assert tally.report_fields["legal"] == 1
    # A reading of nothing is put to the players: its wrong report is not one scored
    # unasked.
    assert (tally.asked, tally.asked_right, tally.reports) == (1, 0, 0)


def test_the_camera_map_bench_reads_turns_on_the_map_read_at_the_set_up(
        game: list[TurnPair]) -> None:
    from bench.camera_map_turns import MapCounts, on_camera_map
    from bench.vision import measure

    counts = MapCounts()
    turns = list(on_camera_map(game, counts))
    assert (counts.games, counts.unread, counts.turns) == (1, 0, len(game)) == (1, 0, 3)
    # The set-up frame shows most of the card; what it names is nearly all right, and the
    # starting area keeps its place on the board.
    assert counts.known > 600 and counts.wrong < 0.02 * counts.known
    for turn, pair in zip(turns, game, strict=True):
        assert turn.ground is pair.ground and turn.before.ground is not pair.ground
        assert turn.before.pieces == pair.before.pieces
        assert turn.before.ground.start_area <= pair.ground.start_area
        assert any("?" in row for row in turn.before.ground.ground)
    tally = measure(turns[:1], (True,), False)[True]
    # Read exactly on the camera's map, its report (the start named by the decoration)
    # is the true map's.
    assert (tally.turns, tally.exact, tally.reports) == (1, 1, 1)
    assert "studs named" in counts.line()


def test_the_benchs_knocked_webcam_set_reads_through_the_knock(game: list[TurnPair]) -> None:
    """`bench.vision`'s outside set with the webcam knocked between the pictures: the
    short game's turns read exactly, as unknocked (the reader is told where the board
    lay before and brings that picture into line)."""
    from bench.vision import KNOCK, measure

    knocked = measure(game, (True,), False, KNOCK)[True]
    assert (knocked.turns, knocked.exact) == (3, 3)


def test_no_board_in_the_picture_is_not_found(game: list[TurnPair]) -> None:
    pair = game[0]
    blank = np.full_like(pair.after_frame, 90)
    reading = read_turn([blank], pair.camera, pair.before, before_frame=pair.before_frame)
    assert not reading.found
    assert reading.added == ()
    assert "not found" in reading.reason


def test_reconstruct_writes_the_scene_with_confidences(game: list[TurnPair], tmp_path,
                                                        capsys) -> None:
    pair = game[1]
    cv2.imwrite(str(tmp_path / "before.png"), pair.before_frame)
    cv2.imwrite(str(tmp_path / "after.png"), pair.after_frame)
    pair.camera.save(tmp_path / "camera.json")
    Scene.of(pair.before.pieces, "1").save(tmp_path / "before.json")
    out = tmp_path / "after.json"
    code = main(["reconstruct", str(tmp_path / "after.png"), "--camera",
                 str(tmp_path / "camera.json"), "--before", str(tmp_path / "before.json"),
                 "--before-image", str(tmp_path / "before.png"), "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    scene = json.loads(out.read_text())
    assert code in (0, 1)
    assert (code == 0) == (printed["reading"]["found"] and not printed["reading"]["uncertain"])
    assert all("confidence" in p for p in scene["pieces"])
    new = [p for p in scene["pieces"] if str(p.get("id", "")).startswith("r")]
    assert len(new) == len(printed["reading"]["added"])
    assert printed["report"] is not None


def test_reconstruct_reads_a_photo_taken_after_the_camera_was_knocked(
        game: list[TurnPair], tmp_path, capsys) -> None:
    """The photo before and the photo after from a camera turned a little between them
    (a phone, a knocked webcam): the command finds the board in both and reads the turn
    as if the camera had stood still."""
    from twin.cameras import turned_picture

    pair = game[1]
    cv2.imwrite(str(tmp_path / "before.png"), pair.before_frame)
    cv2.imwrite(str(tmp_path / "after.png"), turned_picture(pair.after_frame, pair.camera,
                                                            0.4, -0.3))
    pair.camera.save(tmp_path / "camera.json")
    Scene.of(pair.before.pieces, "1").save(tmp_path / "before.json")
    code = main(["reconstruct", str(tmp_path / "after.png"), "--camera",
                 str(tmp_path / "camera.json"), "--before", str(tmp_path / "before.json"),
                 "--before-image", str(tmp_path / "before.png"), "--out",
                 str(tmp_path / "after.json"), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and printed["reading"]["found"]
    read = tuple(piece_from_json({k: v for k, v in r.items() if k != "confidence"}, "read")
                 for r in printed["reading"]["added"])
    assert staircase(read) == staircase(pair.added)


def test_the_cycle_collector_is_held_off_while_reading_and_left_as_it_was() -> None:
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            with collector_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is enabled
            with pytest.raises(RuntimeError), collector_paused():
                raise RuntimeError
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_reconstruct_refuses_bad_input_in_one_line(tmp_path, capsys) -> None:
    (tmp_path / "camera.json").write_text("{}")
    Scene.of(()).save(tmp_path / "before.json")
    code = main(["reconstruct", str(tmp_path / "missing.png"), "--camera",
                 str(tmp_path / "camera.json"), "--before", str(tmp_path / "before.json"),
                 "--out", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "camera.json" in err


@pytest.mark.parametrize("colours", [("tan",) * 3, ("tan", "dark_orange", "dark_tan")])
def test_a_column_and_three_bricks_are_told_apart_by_their_levels_colours(colours) -> None:
    """Same outline, one piece or three: a column is one colour, and its lit top face
    or the board's green at its foot must not make it three bricks (nor the reverse)."""
    if len(set(colours)) == 1:
        added = [Piece(Kind.COLUMN, 14, 13, 0, color=colours[0])]
    else:
        added = [Piece(Kind.BRICK, 14, 13, z, color=c) for z, c in enumerate(colours)]
    reading = read_on_setup(added, RenderOptions(clutter=False, color_jitter=0.0,
                                                 settled=True))
    assert staircase(reading.pieces) == staircase(tuple(added))


@pytest.mark.parametrize("change", ["light", "webcam"])
def test_a_frame_changed_everywhere_is_left_to_the_players_at_once(
        change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another light over the whole table, or the webcam turned 4 degrees and its pose not
    told, is no turn: the reading says so within seconds instead of searching for pieces
    to explain the whole picture. It asks the picture itself (the share of the board's
    space that changed colour), not the evidence: a model that no longer takes a new
    light for new pieces, as a model trained with cards came to, sees only a few
    thousand new pixels there (here, the evidence is emptied to show it)."""
    import vision.turn as turn_mode

    before = Palace.setup(load_map("1"))
    camera, pose = random_camera(np.random.default_rng(11), elevation_deg=(35.0, 45.0),
                                 fill=(0.7, 0.8))
    options = RenderOptions(clutter=False, color_jitter=0.0, settled=True)
    before_frame = render(before, camera, pose, options, seed=4).image
    seen_from = pose if change == "light" else turned_webcam(pose, 4.0, 3.0)
    frame = render(before, camera, seen_from, options, seed=5 if change == "light" else 4).image
    where = BoardLocation(True, pose=pose, rotation=0, camera=camera)
    reading = read_turn([frame], camera, before, before_frame=before_frame,
                        locations=[where])
    assert reading.uncertain and not reading.added
    assert reading.reason == turn_mode.CHANGED_EVERYWHERE
    evidence = turn_mode._view_evidence

    def quiet(*args: object) -> object:
        ev = evidence(*args)  # type: ignore[arg-type]
        return replace(ev, hot=np.zeros_like(ev.hot),
                       weight=np.minimum(ev.weight, -1.0).astype(np.float32))

    monkeypatch.setattr(turn_mode, "_view_evidence", quiet)
    assert read_turn([frame], camera, before, before_frame=before_frame,
                     locations=[where]).reason == turn_mode.CHANGED_EVERYWHERE
    monkeypatch.setattr(turn_mode, "EVERYWHERE_SHARE", 1.0)
    assert read_turn([frame], camera, before, before_frame=before_frame,
                     locations=[where]).reason != turn_mode.CHANGED_EVERYWHERE


def test_an_empty_reading_asks_whether_a_staircase_is_hidden(
        game: list[TurnPair], monkeypatch: pytest.MonkeyPatch) -> None:
    """A staircase built behind the palace may show only its top, from which no move
    starts, or nothing at all: the camera loop reads a turn only once the picture
    changed and a turn adds a staircase, so an empty reading asks the players. Where
    nothing shows a trace (the frame before, re-exposed: a staircase wholly hidden) it
    says no piece was seen; with the doubt switched off it passed as surely nothing."""
    import vision.turn as turn_mode

    pair = game[0]
    frame = redevelop(pair.before_frame, np.random.default_rng(2))
    same = read_turn([frame], pair.camera, pair.before, before_frame=pair.before_frame,
                     locations=[located(pair)])
    assert same.found and not same.added and same.uncertain
    assert same.reason == turn_mode.NOTHING_READ
    monkeypatch.setattr(turn_mode, "NOTHING_READ_DOUBTED", False)
    sure = read_turn([frame], pair.camera, pair.before, before_frame=pair.before_frame,
                     locations=[located(pair)])
    assert sure.found and not sure.added and not sure.uncertain
    monkeypatch.undo()
    from vision import decode
    # Neither the greedy search nor the whole staircases find any.
    monkeypatch.setattr(decode.Decoder, "run", lambda self, hot: [])
    monkeypatch.setattr(decode.Decoder, "search_nothing", lambda self, voxels: [])
    hidden = read_turn([pair.after_frame], pair.camera, pair.before,
                       before_frame=pair.before_frame, locations=[located(pair)])
    assert hidden.found and not hidden.added and hidden.uncertain
    assert "no staircase could be read" in hidden.reason


def test_a_staircase_the_greedy_search_cannot_start_is_weighed_against_nothing(
        game: list[TurnPair], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the greedy search reads nothing though the board changed (a staircase behind
    the palace shows too little for any first move to gain), whole staircases are still
    weighed against reading nothing: the turn's staircase judges better and is read, every
    piece of it put to the players (it rests on too little of the picture to be trusted)."""
    from vision import decode

    pair = game[0]
    monkeypatch.setattr(decode.Decoder, "run", lambda self, hot: [])  # no move gains
    reading = read_turn([pair.after_frame], pair.camera, pair.before,
                        before_frame=pair.before_frame, locations=[located(pair)])
    assert reading.found
    assert staircase(tuple(r.piece for r in reading.added)) == staircase(pair.added)
    assert reading.uncertain
    assert all(r.confidence < UNCERTAIN_BELOW for r in reading.added)
