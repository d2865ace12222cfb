"""The development palaces' command: bad input is one line and exit 2, before any render."""

from __future__ import annotations

from bench.full_dev import DEV, main


def test_an_unknown_development_palace_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    assert main(["--cache", str(tmp_path), "--only", "2004_120", "1999_5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1999_5" in err
    assert not any(tmp_path.iterdir())


def test_the_development_games_are_not_the_benchs() -> None:
    """The bench reads games 1000 on (``bench.vision``); settings are chosen on others."""
    assert all(seed >= 2000 for seed, _ in DEV)
