"""The development palaces' command: bad input is one line and exit 2, before any render;
its games are not the bench's, and what it lists of a palace reads as pieces."""

from __future__ import annotations

from bench.full_dev import DEV, _short, main, renderer_version
from bench.full_palace import BENCH_GAMES
from rules.pieces import Axis, Kind, Piece, place_key


def test_an_unknown_development_palace_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    assert main(["--cache", str(tmp_path), "--only", "2004_120", "1999_5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1999_5" in err
    assert not any(tmp_path.iterdir())


def test_a_kept_render_that_cannot_be_read_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    (tmp_path / f"v2002_10_{renderer_version()}.pkl").write_bytes(b"not a pickle")
    assert main(["--cache", str(tmp_path), "--only", "2002_10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "delete it" in err


def test_the_development_games_are_not_the_benchs() -> None:
    """Settings chosen on the development palaces are judged on the bench's own."""
    assert not {seed for seed, _ in DEV} & set(BENCH_GAMES)


def test_missed_and_extra_pieces_are_listed_in_words() -> None:
    arch = place_key(Piece(Kind.ARCH, 3, 4, 1, axis=Axis.Y))
    plant = place_key(Piece(Kind.DECORATION, 5, 6, 2, color="dark_green"))
    assert _short(arch) == "arch 3,4,1 y"
    assert _short(plant) == "decoration 5,6,2 dark_green"
