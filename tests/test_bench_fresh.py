"""The fresh-seed bench compares two trees only on what both finished."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench import fresh


def test_only_shards_both_trees_finished_are_counted(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    def shard(tree: Path, kind: str, seed: int) -> object | None:
        if kind == "pose":
            # The second tree fails its second shard: that shard leaves both columns.
            if tree.name == "b" and seed == fresh.FIRST_FRAME + fresh.FRAMES_A_SHARD:
                return None
            return {"frames": 25, "found": 24, "wrong": [f"{seed}"], "turn_right": 20,
                    "turn_wrong": 0, "tracked": 24, "tracked_found": 24, "tracked_wrong": []}
        return [{"tp": 3, "fp": 1, "fn": 0, "exact": 0, "reports": 1, "flagged": 1,
                 "wrong": 1, "wrong_flagged": 1, "seconds": 0.5}]

    monkeypatch.setattr(fresh, "run_shard", shard)
    args = argparse.Namespace(games=2, shards=3, jobs=2, seconds=None)
    fresh.measure_trees({"a": Path("a"), "b": Path("b")}, args)
    out = capsys.readouterr().out.splitlines()
    pose = [line for line in out if "board pose" in line]
    assert len(pose) == 2
    assert all("50 frames" in line and "found 48" in line for line in pose)
    assert all(f"{fresh.FIRST_FRAME + fresh.FRAMES_A_SHARD}" not in line for line in pose)
    turns = [line for line in out if "turn mode" in line]
    assert all("2 turns of 2 games" in line and "F1 0.8571" in line for line in turns)


def test_the_wrong_turns_forms_are_summed_and_an_older_trees_rows_count_none(
        capsys: pytest.CaptureFixture[str]) -> None:
    row = {"tp": 3, "fp": 1, "fn": 0, "exact": 0, "reports": 0, "flagged": 1, "wrong": 1,
           "wrong_flagged": 1, "seconds": 0.5}
    newer = {**row, "form: stack": 1, "report: credits": 1, "asked": 1, "asked_right": 0}
    fresh.show_vision("a", [[newer, newer], [row]])
    out = capsys.readouterr().out.splitlines()
    # Three wrong reports: two put to the players, the older tree's row counted unasked.
    assert any("turns put to the players 2, wrong reports not put to them 1;" in line
               for line in out)
    forms = [line for line in out if "by what differs" in line]
    assert forms == ["  wrong turns by what differs: stack 2, decoration 0, first step 0, "
                     "other 0; wrong reports by field: legal 0, credits 2, highest 0, bonus 0"]
