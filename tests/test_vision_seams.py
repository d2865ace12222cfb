"""The seam cue: three bricks of one colour are told from a column by the dark lines at
their joints, and where no line is drawn the cue says nothing."""

from __future__ import annotations

import numpy as np
import pytest

from rules import Kind, Piece
from rules.pieces import BRICK_MM
from tests.turn_fixtures import read_on_setup
from twin import RenderOptions
from twin.seams import SeamLook
from vision.reading import UNCERTAIN_BELOW
from vision.seams import SEAM_FROM, joint_dip, masked_medians, quantile


@pytest.fixture
def plain_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """A seam plainly darker than the faces (frames draw anything from that to none)."""
    monkeypatch.setattr(SeamLook, "random", classmethod(
        lambda cls, rng: cls(darkness=0.4, width_mm=0.5)))


def _read(added: list[Piece], seams: bool) -> list[tuple[str, int]]:
    options = RenderOptions(clutter=False, color_jitter=0.0, settled=True, seams=seams)
    return sorted((p.kind.value, p.z) for p in read_on_setup(added, options).pieces)


@pytest.mark.usefixtures("plain_look")
def test_three_bricks_of_one_colour_are_read_by_their_seams() -> None:
    stack = [Piece(Kind.BRICK, 14, 13, z, color="tan") for z in range(3)]
    assert _read(stack, seams=True) == [("brick", 0), ("brick", 1), ("brick", 2)]
    # Without the lines nothing tells them from a column, which fewer pieces favour.
    assert _read(stack, seams=False) == [("column", 0)]


@pytest.mark.usefixtures("plain_look")
def test_a_column_among_seamed_pieces_stays_a_column() -> None:
    assert _read([Piece(Kind.COLUMN, 14, 13, 0, color="tan")], seams=True) == [("column", 0)]


def _profile(dips: dict[float, float], seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A face 80 bright with noise, 3 samples a pixel at 1.5 pixels a millimetre, and a
    dark pixel row at each height in ``dips`` (share of the light lost)."""
    heights = np.arange(1.0, 3 * BRICK_MM - 1.0, 1 / 4.5)
    profile = 80 + np.random.default_rng(seed).normal(0, 1.0, len(heights))
    for at, dark in dips.items():
        profile *= 1 - dark * np.exp(-0.5 * ((heights - at) / 0.4) ** 2)
    return profile.astype(np.float32), heights, 1.5


def test_both_joints_must_be_darker_than_the_rest_of_the_face() -> None:
    joints = {BRICK_MM: 0.25, 2 * BRICK_MM: 0.25}
    assert joint_dip(*_profile(joints, 1)) > 0.15
    assert joint_dip(*_profile({BRICK_MM: 0.25}, 1)) < 0.03
    assert joint_dip(*_profile({}, 1)) < 0.03
    # Dark rows all over the face (a texture, a grille's shadow) single out no joint.
    rows = {BRICK_MM * k / 4: 0.25 for k in range(1, 12)}
    assert joint_dip(*_profile(rows, 1)) < 0.03
    # A shadow's edge along a joint (light above, dark below) is no seam either.
    profile, heights, per_mm = _profile({BRICK_MM: 0.25}, 2)
    profile[heights > 2 * BRICK_MM] *= 1.6
    assert joint_dip(profile, heights, per_mm) < 0.03


def test_a_joint_no_darker_than_its_face_is_no_seam() -> None:
    # A dark column's side in a frame without seams (brightness summed over the three
    # channels, 1.04 px a millimetre): a step or two of noise on a face this dark is a
    # large share of its light, and its joints, merely as dark as the face beside them,
    # used to pass the other rows by more than a seam does.
    profile = np.array([
        39, 34, 30, 26, 23, 19, 17, 21, 19, 21, 22, 22, 22, 24, 22, 21, 20, 22, 22, 23, 21,
        19, 18, 18, 19, 17, 17, 18, 19, 19, 19, 19, 22, 24, 24, 24, 24, 27, 29, 27, 24, 28,
        29, 30, 32, 31, 30, 30, 31, 30, 30, 30, 29, 29, 29, 30, 30, 28, 28, 28, 26, 25, 28,
        28, 28, 28, 27, 26, 25, 23, 23, 22, 25, 28, 26, 21, 20, 18, 15, 15, 17, 18, 20, 20],
        dtype=np.float32)
    per_mm = 1.04
    heights = np.arange(1.0, 3 * BRICK_MM - 1.0, 1 / (3 * per_mm))
    assert len(heights) == len(profile)
    assert joint_dip(profile, heights, per_mm) < SEAM_FROM
    # The same face with a line at each joint still shows them.
    seamed = profile * (1 - 0.4 * np.exp(-0.5 * ((heights - BRICK_MM) / 0.5) ** 2)
                        - 0.4 * np.exp(-0.5 * ((heights - 2 * BRICK_MM) / 0.5) ** 2))
    assert joint_dip(seamed.astype(np.float32), heights, per_mm) > 0.1


def test_masked_medians_are_numpys_medians_of_the_masked_entries() -> None:
    rng = np.random.default_rng(4)
    for _ in range(200):
        values = rng.normal(300, 40, (int(rng.integers(1, 30)), 9)).astype(np.float32)
        mask = rng.random(values.shape) < rng.uniform(0.0, 1.0)
        got = masked_medians(values, mask)
        for row, keep, median in zip(values, mask, got, strict=True):
            if keep.any():
                assert median == np.median(row[keep])
            else:
                assert np.isnan(median)


def _rated_stack(monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...],
                 seams_seen: float) -> list[float]:
    """Three bricks of ``colours`` on the set-up palace, read with their levels priced as
    surely different (as a shadow across one level prices a column), and the seam cue
    answering ``seams_seen``; the confidences of the bricks read, as a legal reading's."""
    from vision import confidence, turn
    from vision.colours import LevelColours
    from vision.seams import SeamLines

    monkeypatch.setattr(LevelColours, "steps", lambda self, piece: 1.0)
    monkeypatch.setattr(SeamLines, "seen", lambda self, piece: seams_seen)
    # The doubts against the stack a level shorter and against the same brick a level
    # lower (a top read a level too high) are rules of their own
    # (tests/test_confidence_calibration.py, tests/test_confidence_start.py): a 1x1 stack
    # beats those rivals by one level's strip, about a third of a brick's outline here,
    # so they would doubt the upper bricks whatever the seams say. Only the column's
    # doubt is weighed here, as the hand-made confidence's cap it is (the fitted one
    # weighs it among the others: vision.confidence_fit). The cap for another whole
    # reading the decoder made that scores close (`confidence._rival_cap`) is left out
    # too: how close one comes on these frames is the learned model's, not the seams'
    # (a model retrained with cards brought one within 0.72 and capped all three at 0.36).
    monkeypatch.setattr(confidence, "_outline_cap", lambda *args: 1.0)
    monkeypatch.setattr(confidence, "_rival_cap", lambda gap: 1.0)
    monkeypatch.setattr(confidence, "FITTED_CONFIDENCE", False)
    kept: dict[str, object] = {}

    def keep(decoder, pieces, *, legal=True):  # type: ignore[no-untyped-def]
        kept["args"] = (decoder, list(pieces))
        return confidence.rate_pieces(decoder, pieces, legal=legal)

    monkeypatch.setattr(turn, "rate_pieces", keep)
    added = [Piece(Kind.BRICK, 14, 13, z, color=c) for z, c in enumerate(colours)]
    read_on_setup(added, RenderOptions(clutter=False, color_jitter=0.0, settled=True,
                                       seams=False))
    decoder, pieces = kept["args"]  # type: ignore[misc]
    assert sorted((p.kind.value, p.z) for p in pieces) == [("brick", z) for z in range(3)]
    return [r.confidence for r in confidence.rate_pieces(decoder, pieces, legal=True)]


def test_three_bricks_that_differ_only_in_light_are_doubted_without_seams(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Tan and dark tan differ in light, hardly in hue: as a column in shade does.
    assert max(_rated_stack(monkeypatch, ("tan", "dark_tan", "tan"), 0.0)) < UNCERTAIN_BELOW
    # Seams at the joints tell them.
    assert min(_rated_stack(monkeypatch, ("tan", "dark_tan", "tan"), 1.0)) >= UNCERTAIN_BELOW
    # So do hues of their own.
    assert min(_rated_stack(monkeypatch, ("reddish_brown", "dark_orange", "tan"), 0.0)
               ) >= UNCERTAIN_BELOW


def test_quantile_is_numpys_linear_quantile_to_the_bit() -> None:
    rng = np.random.default_rng(5)
    for k in range(2000):
        values = rng.normal(0.0, 0.05, int(rng.integers(1, 60)))
        if k % 3 == 0:
            values = np.round(values, 2)  # ties, and neighbours that are equal
        share = (0.75, 0.25, 0.5, float(rng.random()))[k % 4]
        assert quantile(values.tolist(), share) == float(np.quantile(values, share))


def _stack_evidence(monkeypatch: pytest.MonkeyPatch) -> object:
    """The evidence a turn read over a stack of three tan bricks with seams drawn."""
    from vision import confidence, turn

    kept: dict[str, object] = {}

    def keep(decoder, pieces, *, legal=True):  # type: ignore[no-untyped-def]
        kept["evidence"] = decoder.evidence
        return confidence.rate_pieces(decoder, pieces, legal=legal)

    monkeypatch.setattr(turn, "rate_pieces", keep)
    stack = [Piece(Kind.BRICK, 14, 13, z, color="tan") for z in range(3)]
    read_on_setup(stack, RenderOptions(clutter=False, color_jitter=0.0, settled=True,
                                       seams=True))
    return kept["evidence"]


@pytest.mark.usefixtures("plain_look")
def test_places_looked_at_together_get_what_each_gets_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.seams import SeamLines

    evidence = _stack_evidence(monkeypatch)
    places = [(x, y, z) for x in range(11, 18) for y in range(10, 17) for z in range(2)]
    together = SeamLines(evidence)  # type: ignore[arg-type]
    together.look(places)
    seen = [together.seen(Piece(Kind.COLUMN, x, y, z)) for x, y, z in places]
    alone = [SeamLines(evidence).seen(Piece(Kind.COLUMN, x, y, z))  # type: ignore[arg-type]
             for x, y, z in places]
    assert seen == alone
    assert seen[places.index((14, 13, 0))] > 0.0  # the stack's seams show: a whole look


@pytest.mark.usefixtures("plain_look")
def test_faces_left_unsampled_for_their_box_change_no_dip(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A face is not sampled when no changed pixel lies in its box: every place's dip
    is the one it gets with every face sampled."""
    from vision.seams import SeamLines

    evidence = _stack_evidence(monkeypatch)
    places = [(x, y, z) for x in range(8, 21) for y in range(7, 20) for z in range(3)]
    boxed = SeamLines(evidence)._dips(0, places)  # type: ignore[arg-type]
    tested: list[int] = []

    def every(self, view, corners, finite):  # type: ignore[no-untyped-def]
        tested.append(int((~self_may(self, view, corners, finite) & finite).sum()))
        return np.ones(len(corners), bool)

    self_may = SeamLines._may_be_new
    monkeypatch.setattr(SeamLines, "_may_be_new", every)
    full = SeamLines(evidence)._dips(0, places)  # type: ignore[arg-type]
    assert boxed == full
    assert sum(tested) > 100  # most faces are left out by their box
    assert max(full) > SEAM_FROM  # the stack's own seams are among them
