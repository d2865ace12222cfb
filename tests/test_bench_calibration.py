"""The calibration bench's tally of misses: each reason with the frames it came from."""

from __future__ import annotations

import pytest

from bench.calibration import Column, Speed, report
from calibration.evidence import BoardLocation


def test_misses_list_the_frames_by_reason(capsys: pytest.CaptureFixture[str]) -> None:
    column = Column()
    for name, reason in (
        ("3049", "the stud grid does not fit (residual 2.62 px over 4 blocks, 0.40 allowed)"),
        ("3104", "the stud grid does not fit (residual 2.35 px over 5 blocks, 0.50 allowed)"),
        ("3079", "the studs are too blurred or too small to pin the grid (clarity 4.3)"),
    ):
        column.add(None, None, BoardLocation(False, reason), 1.0, name)  # type: ignore[arg-type]
    assert column.missed == {
        "the stud grid does not fit": ["3049", "3104"],
        "the studs are too blurred or too small to pin the grid": ["3079"],
    }
    speed = Speed(aruco_ms=[1.0])
    report("t", [column, column, column], speed)
    assert "3049 3104" not in capsys.readouterr().out
    report("t", [column, column, column], speed, misses=True)
    out = capsys.readouterr().out
    assert "not found x2: the stud grid does not fit" in out
    assert "3049 3104" in out
