"""The camera loop's read explainer (bench.watch_reads): each wrong read put down to the
first input that was not true, and the simulated table's noise-free pictures."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from bench.watch_reads import LoopRead, _right, classify
from palace.draft import DOUBT_BELOW
from rules import simulate_game
from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import ANIMAL_KINDS, place_key
from twin.table import SimulatedTable
from twin.table_settings import TableSettings

RIGHT = LoopRead(game=1, turns_done=2, pose_px=0.1, settled=True, palace_right=True,
                 before_right=True, exact=True, in_doubt=False)


def test_a_read_is_put_down_to_the_first_input_that_was_not_true():
    wrong = replace(RIGHT, exact=False, true_pose=False, bench_inputs=False)
    assert classify(RIGHT) == "right"
    assert classify(wrong) == "turn mode"
    assert classify(replace(wrong, exact=True, in_doubt=True)) == "turn mode, in doubt"
    assert classify(replace(wrong, bench_inputs=True)) == "frames"
    assert classify(replace(wrong, true_pose=True, bench_inputs=True)) == "pose"
    assert classify(replace(wrong, before_right=False, true_pose=True)) == "before"
    assert classify(replace(wrong, settled=False, before_right=False)) == "settle"
    assert classify(replace(wrong, palace_right=False, settled=False)) == "palace"
    # No picture before (a reading still waiting for the players) is no fault of it.
    assert classify(replace(wrong, before_right=None)) == "turn mode"


def test_a_reading_is_right_only_when_exact_legal_and_nothing_in_it_is_doubted():
    record = simulate_game(3, 5, "1", frog_chance=0.0)
    turn = next(t for t in record.turns if not t.passed)
    number = record.turns.index(turn)
    palace = Palace(load_map("1"), record.scenes[number].pieces)
    built = [p for p in turn.placed if p.kind not in ANIMAL_KINDS]
    truth = {place_key(p) for p in built}

    def reading(confidences, uncertain=False):
        return SimpleNamespace(uncertain=uncertain, added=[
            SimpleNamespace(piece=p, confidence=c)
            for p, c in zip(built, confidences, strict=False)])

    sure = [0.95] * len(built)
    assert _right(reading(sure), palace, truth) == (True, False)
    assert _right(reading([DOUBT_BELOW - 0.05, *sure[1:]]), palace, truth) == (True, True)
    assert _right(reading([DOUBT_BELOW, *sure[1:]]), palace, truth) == (True, False)
    assert _right(reading(sure, uncertain=True), palace, truth) == (True, True)
    assert _right(reading(sure[:-1]), palace, truth)[0] is False


def test_the_table_gives_a_frame_without_noise_hands_or_flicker():
    settings = TableSettings(width=320, height=180, setup_s=0.3, still_s=0.3)
    table = SimulatedTable(seed=3, turns=1, settings=settings)
    frames = list(table)
    still = [f for f in frames if f.phase == "still" and f.turns_done == 1]
    hands = next(f for f in frames if f.phase == "hands")
    a, b = (table.clean_picture(f) for f in still[:2])
    assert np.array_equal(a, b)  # the same scene, whatever the frame's noise
    assert not np.array_equal(still[0].image, still[1].image)
    assert np.abs(a.astype(int) - still[0].image).mean() < 6
    # The scene of the frame, with nothing over it; or another palace in its place.
    assert np.array_equal(table.clean_picture(hands, still[0].scene.pieces), a)
    before = table.clean_picture(still[0], table.record.scenes[0].pieces)
    assert not np.array_equal(before, a)
