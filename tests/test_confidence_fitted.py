"""Confidence: the fitted model (vision/confidence_model.json, ``python3 -m training
fit_confidence``; docs/vision-log.md, "A fitted confidence (issue #12)")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rules import Kind
from tests.turn_fixtures import decoder_for, turns_with
from vision import confidence
from vision.confidence import rate_pieces
from vision.confidence_fit import (
    FEATURES,
    MODEL_FILE,
    ConfidenceModel,
    ConfidenceModelError,
    fitted_model,
    recorded_rows,
)
from vision.reading import UNCERTAIN_BELOW


def test_the_committed_model_loads_and_validates() -> None:
    model = fitted_model()
    assert model.features == FEATURES
    assert 0 < model.threshold < 1
    # Its threshold falls on the consumers' line: a chance just under it is flagged.
    row = np.asarray(model.mean)
    p = float(model.chance(row[None, :])[0])
    shifted = model.model_copy(update={"threshold": p})
    assert abs(shifted.confidence(row) - UNCERTAIN_BELOW) < 1e-6


@pytest.mark.parametrize("text", ["", "{}", '{"format": "palace-confidence/1"}'])
def test_a_broken_file_is_a_one_line_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(ConfidenceModelError) as caught:
        fitted_model(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ConfidenceModelError) as caught:
        fitted_model(tmp_path / "none.json")
    assert "\n" not in str(caught.value) and "fit_confidence" in str(caught.value)


def test_other_features_are_refused() -> None:
    data = ConfidenceModel.model_validate_json(MODEL_FILE.read_text()).model_dump()
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match="features"):
        ConfidenceModel.model_validate(data)


def test_a_piece_read_a_stud_off_is_flagged_and_its_alternatives_kept() -> None:
    """A staircase shown in full, read with its first piece a stud off its place: the
    fitted confidence flags that piece, and its alternatives are the rated ones (the
    true place among them)."""
    assert confidence.FITTED_CONFIDENCE
    before, added = turns_with(2)[0]
    decoder, _ = decoder_for(before, added, [])
    first = min(added, key=lambda p: (p.z, p.kind is Kind.DECORATION))
    wrong = [p.moved(x=p.x + 1) if p is first else p for p in added]
    with recorded_rows() as rows:
        rate_pieces(decoder, wrong, legal=False)
    assert len(rows) == len(wrong) and all(len(row) == len(FEATURES) for _, row in rows)
    # Rows being recorded keep the hand-made confidence, so the fitted one is asked apart.
    rated = rate_pieces(decoder, wrong, legal=False)
    at = wrong.index(first.moved(x=first.x + 1))
    assert rated[at].confidence < UNCERTAIN_BELOW
    with pytest.MonkeyPatch.context() as hand:
        hand.setattr(confidence, "FITTED_CONFIDENCE", False)
        by_hand = rate_pieces(decoder, wrong, legal=False)
    assert [r.confidence for r in rated] != [r.confidence for r in by_hand]
    assert rated[at].alternatives


def test_the_fit_refuses_the_development_and_bench_seeds(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from training.__main__ import main
    assert main(["fit_confidence", "--seed", "9000", "--l2", "1", "--threshold", "0.9",
                 "--out", "unused.json"]) == 2
    assert "60000" in capsys.readouterr().err


@pytest.mark.parametrize(("seed", "l2"), [("70000", "1"), ("60000", "0"), ("60000", "-1")])
def test_the_fit_refuses_the_fresh_games_and_no_penalty(
        capsys: pytest.CaptureFixture[str], seed: str, l2: str) -> None:
    from training.__main__ import main
    assert main(["fit_confidence", "--seed", seed, "--l2", l2, "--threshold", "0.9",
                 "--out", "unused.json"]) == 2
    err = capsys.readouterr().err
    assert "60000 to 69999" in err and "a penalty above 0" in err and len(err.splitlines()) == 1


def test_rows_cached_for_other_features_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cache named without its suffix is found where numpy wrote it, and rows read for
    another feature list are not fitted on."""
    from training.__main__ import main
    np.savez(tmp_path / "rows.npz", rows=np.zeros((2, 2)), right=np.array([True, False]),
             recipe="5 60000; margin share")
    out = tmp_path / "model.json"
    assert main(["fit_confidence", "--seed", "60000", "--turns", "5", "--l2", "1",
                 "--threshold", "0.9", "--out", str(out), "--rows",
                 str(tmp_path / "rows")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'rows.npz'}: recipe:") and not out.exists()


def test_a_fit_that_cannot_converge_says_so() -> None:
    """Rows one feature parts outright, with no penalty (which the command refuses): the
    weight runs on."""
    from training.confidence import fit
    from vision.confidence_fit import FEATURES
    rows = np.zeros((4, len(FEATURES)))
    rows[:, 0] = [0.0, 1.0, 2.0, 3.0]
    right = np.array([False, False, True, True])
    assert not fit(rows, right, 0.0, 0.5, "test").converged
    assert fit(rows, right, 1.0, 0.5, "test").converged


def test_rows_read_for_one_view_are_not_taken_for_two(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe names the second webcam: rows read from the first view alone are not
    fitted on as rows of turns also read from two."""
    from training.__main__ import main
    recipe = f"5 60000; {' '.join(FEATURES)}"
    np.savez(tmp_path / "rows.npz", rows=np.zeros((2, len(FEATURES))),
             right=np.array([True, False]), recipe=recipe)
    out = tmp_path / "model.json"
    assert main(["fit_confidence", "--seed", "60000", "--turns", "5", "--l2", "1",
                 "--threshold", "0.9", "--out", str(out), "--rows", str(tmp_path / "rows.npz"),
                 "--second-view", "180"]) == 2
    err = capsys.readouterr().err
    assert "also seen 180 degrees round" in err and not out.exists()
    with pytest.raises(SystemExit):
        main(["fit_confidence", "--seed", "60000", "--l2", "1", "--threshold", "0.9",
              "--out", str(out), "--second-view", "nan"])
    assert "-360 to 360" in capsys.readouterr().err


def test_a_turn_seen_by_two_webcams_gives_rows_from_each_reading() -> None:
    """Its first view's reading gives the rows a one-webcam table's would, and the
    reading from both views adds its own."""
    from dataclasses import replace

    from training.confidence import rows_of
    from training.pairs import turn_pairs
    from twin import RenderOptions
    pair = next(turn_pairs(1, 100, max_turns=1, elevation_deg=(45.0, 60.0), second_view=180.0,
                           options=RenderOptions(clutter=False)))
    one, right_one = rows_of([replace(pair, second=None)])
    both, right_both = rows_of([pair])
    assert len(one) >= 1 and len(both) > len(one)
    assert np.array_equal(both[:len(one)], one)
    assert np.array_equal(right_both[:len(one)], right_one)
