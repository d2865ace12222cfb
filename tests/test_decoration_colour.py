"""The decoration's colour under the table's light: LEGO's colours worked out from the
decorations standing (``vision.finish.plastic_references``), named by the pixels' votes
(``vision.finish.decoration_colour_seen``), and a decoration whose pixels plainly name
another colour than the rules give it put to the players (``vision.confidence``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.evidence import BoardLocation
from rules import Kind, Piece
from rules.pieces import COLOR_RGB, DecorationColor
from rules.staircase import analyse_added
from training.pairs import turn_pairs
from twin import RenderOptions, render
from vision import read_turn
from vision.confidence import colour_doubted
from vision.finish import BUILDING_COLOURS, COLOUR_OF_CHAR, TONE, SeenColour, plastic_references
from vision.reading import UNCERTAIN_BELOW, PieceReading


def seen_under(gains: tuple[float, float, float]) -> dict[str, np.ndarray]:
    """Each decoration and building colour's chromaticity (BGR shares) under a light of
    per-channel ``gains``, by the camera model the references assume."""
    out = {}
    names = {**{char: colour.value for char, colour in COLOUR_OF_CHAR.items()},
             **{name: name for name in BUILDING_COLOURS}}
    for key, name in names.items():
        bgr = np.array(gains) * (np.array(COLOR_RGB[name][::-1], float) + 1.0) ** TONE
        out[key] = bgr / bgr.sum()
    return out


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (1.4, 1.0, 0.6), (0.7, 1.1, 1.3)])
@pytest.mark.parametrize("standing", ["G", "L", "DG"])
def test_every_colour_follows_the_light_the_standing_decorations_show(gains, standing):
    truth = seen_under(gains)
    refs = plastic_references([(c, truth[c]) for c in standing])
    assert set(refs) == set(truth)
    for key in truth:
        assert np.allclose(refs[key], truth[key], atol=1e-9), key
    # The nearest reference names each decoration colour as the light shows it.
    for char in COLOUR_OF_CHAR:
        nearest = min(refs, key=lambda c: float(np.linalg.norm(refs[c] - truth[char])))
        assert nearest == char


def test_a_decoration_under_a_neighbours_leaves_does_not_move_the_light():
    """A gold decoration that shows more of a lime plant's leaves than of itself reads as
    lime; as the only gold it made gold's reference lime. With two others standing, the
    light is theirs."""
    truth = seen_under((1.2, 1.0, 0.8))
    standing = [("G", truth["L"]), ("D", truth["D"]), ("L", truth["L"])]
    refs = plastic_references(standing)
    for char in COLOUR_OF_CHAR:
        assert np.allclose(refs[char], truth[char], atol=1e-9), char


def test_with_no_decoration_standing_there_are_no_plastic_references():
    assert plastic_references([]) == {}


@pytest.mark.parametrize(("seen", "doubts"), [
    (SeenColour("gold", 0.8, 120, True), True),
    (SeenColour("dark_green", 0.8, 120, True), False),  # the same colour as given
    (SeenColour("gold", 0.3, 120, True), False),  # not plainly
    (SeenColour("gold", 1.0, 12, True), False),  # too few pixels to say
    (SeenColour("gold", 1.0, 120, False), False),  # named against the card's print
])
def test_a_decoration_is_doubted_only_where_its_pixels_plainly_name_another_colour(
        seen: SeenColour, doubts: bool) -> None:
    decoration = Piece(Kind.DECORATION, 4, 5, 2, color=DecorationColor.DARK_GREEN.value)
    arch = Piece(Kind.ARCH, 1, 5, 1)
    readings = (PieceReading(arch, 0.9, ()), PieceReading(decoration, 0.9, ()))
    out = colour_doubted(readings, seen)
    assert out[0] == readings[0]
    assert (out[1].confidence < UNCERTAIN_BELOW) is doubts
    if doubts:
        assert out[1].alternatives[0] == decoration.moved(color=seen.colour)
    else:
        assert out[1] == readings[1]


def test_a_decoration_of_the_wrong_colour_is_put_to_the_players() -> None:
    """Rule 6 broken on the table: the staircase is rebuilt with its decoration of
    another colour than its start's ground (gold for a plant, dark green for gold). The
    reading keeps the colour the rules name, but the decoration is doubted, the colour
    seen its first alternative; the same turn built by the rule is read with no doubt."""
    pair = next(iter(turn_pairs(1, 100, max_turns=1, elevation_deg=(50.0, 55.0),
                                options=RenderOptions(clutter=False))))
    decoration = next(p for p in pair.added if p.kind is Kind.DECORATION)
    wrong = (DecorationColor.DARK_GREEN.value if decoration.color == DecorationColor.GOLD.value
             else DecorationColor.GOLD.value)
    # As the turn pairs draw their frames: the same light and exposure before and after.
    options = RenderOptions(clutter=False, color_jitter=0.0, settled=True)
    before = render(pair.before, pair.camera, pair.pose, options, seed=7).image
    location = BoardLocation(True, pose=pair.pose, rotation=0, camera=pair.camera)
    for colour in (decoration.color, wrong):
        after_palace = pair.before.copy()
        for piece in pair.added:
            after_palace.place(replace(piece, color=colour) if piece is decoration else piece)
        after = render(after_palace, pair.camera, pair.pose, options, seed=7).image
        reading = read_turn([after], pair.camera, pair.before, before_frame=before,
                            locations=[location])
        read = next(r for r in reading.added if r.piece.kind is Kind.DECORATION)
        assert read.piece.color == decoration.color  # the rules' word on the start
        assert analyse_added(pair.before, list(reading.pieces)).legal
        if colour == wrong:
            assert read.alternatives[0] == read.piece.moved(color=wrong)
            assert read.confidence < UNCERTAIN_BELOW and reading.uncertain
        else:
            assert read.piece.moved(color=wrong) not in read.alternatives[:1]
            assert read.confidence >= UNCERTAIN_BELOW and not reading.uncertain
