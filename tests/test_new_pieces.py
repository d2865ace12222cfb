"""The learned new-piece evidence: the committed model loads (a broken one is refused in
one line), it finds the pieces a turn added better than the classical change evidence on
turns it never saw, and the recipe that makes it runs end to end."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import models
from training.__main__ import main as recipe
from training.dataset import region_pair, region_pairs
from training.evaluate import PixelScore
from training.pairs import turn_pairs
from vision.change import change_evidence
from vision.new_pieces import CHANNELS, MODEL, new_piece_evidence

HAS_TORCH = importlib.util.find_spec("torch") is not None


def test_the_committed_model_loads_once_with_one_thread() -> None:
    session = models.load(MODEL)
    assert models.load(MODEL) is session
    (given,) = session.get_inputs()
    assert given.shape[1] == CHANNELS
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert models.model_path(MODEL).stat().st_size < 2_000_000


@pytest.mark.parametrize("content", [None, b"", b"not a model at all\n" * 50])
def test_a_missing_or_broken_model_file_is_one_line_naming_it(tmp_path: Path,
                                                              content: bytes | None) -> None:
    path = tmp_path / "broken.onnx"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(models.ModelError) as err:
        models.load(str(path))
    message = str(err.value)
    assert str(path) in message
    assert "\n" not in message


@pytest.fixture(scope="module")
def held_out() -> list:
    # Two turns on the widened twin (the first of these two games plays none on its
    # random map) and two in the old look from a webcam size the model never trained on.
    pairs = [region_pair(p) for p in turn_pairs(2, 151, max_turns=2, wide=True)]
    pairs += [region_pair(p) for p in turn_pairs(1, 151, max_turns=2, width=960,
                                                 height=720)]
    return [p for p in pairs if p is not None]


def test_the_model_finds_new_pieces_better_than_the_classical_change(held_out: list) -> None:
    assert len(held_out) == 4
    learned, classical = PixelScore(), PixelScore()
    for pair in held_out:
        after, before = pair.after.astype(np.float32), pair.before.astype(np.float32)
        evidence = new_piece_evidence(after, before)
        assert evidence.shape == pair.mask.shape
        assert evidence.dtype == np.float32
        assert float(evidence.min()) >= 0.0 and float(evidence.max()) <= 1.0
        truth = pair.mask >= 0.5
        learned.add(evidence, truth)
        classical.add(change_evidence(after, before), truth)
    assert learned.f1 > classical.f1, (learned.line("model"), classical.line("classical"))
    assert learned.f1 > 0.5, learned.line("model")


def test_a_re_exposed_frame_after_changes_the_model_little(held_out: list) -> None:
    pair = held_out[0]
    before = pair.before.astype(np.float32)
    after = pair.after.astype(np.float32)
    tinted = np.clip(after * np.array([0.8, 1.0, 1.2], np.float32), 0, 255)
    same = new_piece_evidence(after, before) > 0.5
    moved = new_piece_evidence(tinted, before) > 0.5
    assert np.count_nonzero(same != moved) < 0.1 * max(np.count_nonzero(same), 1)


def test_the_recipe_refuses_held_out_seeds_and_empty_data(tmp_path: Path, capsys) -> None:
    assert recipe(["create_dataset", "--pairs", "2", "--seed", "5001",
                   "--out", str(tmp_path / "d")]) == 2
    assert "5001" in capsys.readouterr().err
    assert recipe(["evaluate", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and err.count("\n") == 1
    assert not (tmp_path / "d").exists()
    (tmp_path / "pair_00000.npz").write_bytes(b"PK\x03\x04 truncated")
    assert recipe(["evaluate", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pair_00000.npz" in err and err.count("\n") == 1


@pytest.mark.skipif(not HAS_TORCH, reason="the training recipe needs torch (the train extra)")
def test_the_recipe_runs_end_to_end_on_a_tiny_data_set(tmp_path: Path, capsys) -> None:
    data, model = tmp_path / "data", tmp_path / "tiny.onnx"
    assert recipe(["create_dataset", "--pairs", "2", "--seed", "300000", "--look", "old",
                   "--out", str(data)]) == 0
    assert len(list(data.glob("pair_*.npz"))) == 2
    assert recipe(["train", "--data", str(data), "--out", str(model), "--seed", "3",
                   "--epochs", "1"]) == 0
    assert model.stat().st_size > 1000
    capsys.readouterr()
    assert recipe(["evaluate", "--data", str(data), "--model", str(model)]) == 0
    report = capsys.readouterr().out
    assert "2 pairs" in report
    assert report.count("F1") == 2
    assert "height" not in report  # the committed recipe's model has one map
    two = tmp_path / "two.onnx"
    assert recipe(["train", "--data", str(data), "--out", str(two), "--seed", "3",
                   "--epochs", "1", "--height-map"]) == 0
    capsys.readouterr()
    assert recipe(["evaluate", "--data", str(data), "--model", str(two)]) == 0
    assert "height (levels) on new pixels" in capsys.readouterr().out  # against its label


@pytest.mark.skipif(not HAS_TORCH, reason="the training recipe needs torch (the train extra)")
def test_training_from_worker_processes_repeats_and_reads_several_folders(tmp_path: Path,
                                                                          capsys) -> None:
    """Crops made in worker processes come from generators seeded by the run's seed and
    the worker's number, so the same command makes the same model; pairs come from every
    folder named; a device torch does not have is a one-line error."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert recipe(["create_dataset", "--pairs", "2", "--seed", "300020", "--look", "old",
                   "--out", str(a)]) == 0
    assert recipe(["create_dataset", "--pairs", "2", "--seed", "300030", "--look", "old",
                   "--out", str(b)]) == 0
    capsys.readouterr()
    made = []
    for name in ("one", "two"):
        out = tmp_path / f"{name}.onnx"
        assert recipe(["train", "--data", str(a), str(b), "--out", str(out), "--seed", "3",
                       "--epochs", "1", "--workers", "2"]) == 0
        made.append(out.read_bytes())
    # 4 crops a pair in 12-crop batches: both folders' 4 pairs make 2 steps, one folder's 1.
    assert capsys.readouterr().out.count(": 2 steps,") == 2
    assert made[0] == made[1]
    assert recipe(["train", "--data", str(a), "--out", str(tmp_path / "x.onnx"), "--seed",
                   "3", "--device", "no-such-device"]) == 2
    err = capsys.readouterr().err
    assert "--device no-such-device" in err and err.count("\n") == 1
    assert not (tmp_path / "x.onnx").exists()


@pytest.mark.parametrize(("option", "look"), [("room_light", "old"), ("deep_shadows", "wide")])
def test_the_light_options_change_the_pictures_and_not_the_labels(option, look) -> None:
    """The room's light and the deep shadows draw the same pieces in other light: the
    new pixels' labels stay, the pictures do not."""
    plain = next(region_pairs(1, 300010, look=look))
    lit = next(region_pairs(1, 300010, look=look, **{option: "on"}))
    assert np.array_equal(plain.mask, lit.mask)
    assert not np.array_equal(plain.after, lit.after)
    with pytest.raises(ValueError, match=option):
        next(region_pairs(1, 300010, **{option: "sometimes"}))


def test_a_card_laid_over_the_board_s_edge_is_no_new_piece_to_the_model() -> None:
    """The model was trained with cards laid over the board's edge between the pictures
    and picked up (``create_dataset --cards mix``): on held-out turns with a card laid,
    the classical change lights the card up, the model mostly does not (the model
    before, trained without cards, found 90 % or more of a card's pixels new)."""
    plain = [region_pair(p) for p in turn_pairs(1, 152, max_turns=3, wide=True)]
    carded = [region_pair(p) for p in turn_pairs(1, 152, max_turns=3, wide=True,
                                                 card_over_edge=True)]
    model_on_cards, classical_on_cards, kept = [], [], []
    for bare, laid in zip(plain, carded, strict=True):
        assert bare is not None and laid is not None
        step = np.abs(laid.after.astype(np.int16) - bare.after.astype(np.int16)).max(axis=2)
        card = (step > 25) & (laid.mask < 0.05)
        assert card.sum() > 500
        after, before = laid.after.astype(np.float32), laid.before.astype(np.float32)
        evidence = new_piece_evidence(after, before)
        model_on_cards.append(float((evidence[card] > 0.5).mean()))
        classical_on_cards.append(float((change_evidence(after, before)[card] > 0.5).mean()))
        new = laid.mask >= 0.5
        kept.append(float((evidence[new] > 0.5).mean()))
    assert min(classical_on_cards) > 0.8, classical_on_cards
    assert np.mean(model_on_cards) < 0.4, model_on_cards
    # The new pieces beside the card are still found.
    assert min(kept) > 0.7, kept


@pytest.mark.skipif(not HAS_TORCH, reason="the training recipe needs torch (the train extra)")
def test_the_networks_widths_and_what_is_laid_are_the_recipes_to_choose(tmp_path: Path,
                                                                         capsys) -> None:
    """``train --widths`` makes a wider network that the reader runs as it runs the
    committed one; ``create_dataset --laid`` is written beside the set."""
    data = tmp_path / "data"
    assert recipe(["create_dataset", "--pairs", "2", "--seed", "300040", "--look", "old",
                   "--laid", "things", "--out", str(data)]) == 0
    assert json.loads((data / "dataset.json").read_text())["laid"] == "things"
    sizes = {}
    for name, extra in (("plain", []), ("wide", ["--widths", "16", "24", "32", "48"])):
        out = tmp_path / f"{name}.onnx"
        assert recipe(["train", "--data", str(data), "--out", str(out), "--seed", "3",
                       "--epochs", "1", *extra]) == 0
        sizes[name] = out.stat().st_size
        region = np.full((60, 70, 3), 120, np.uint8)
        chance = new_piece_evidence(region, region, model=str(out))
        assert chance.shape == (60, 70) and np.isfinite(chance).all()
    assert sizes["wide"] > 1.7 * sizes["plain"]
    with pytest.raises(ValueError, match="laid 'books'"):
        next(region_pairs(1, 300040, laid="books"))
