"""Naming the map's inks where the reading's own references mislead: stud tops that
shine, two greens a glossy card squeezes together, a stray group that bends the naming,
a third ink hidden in one of two groups (light green and gold merged, parted by hue), a
group two inks name nearly as likely."""

from __future__ import annotations

import numpy as np
import pytest

import calibration.ink_bounds as ink_bounds
import calibration.ink_cells as ink_cells
import calibration.ink_model as ink_model
import calibration.map_inks as map_inks
import calibration.map_naming as map_naming
import calibration.third_ink as third_ink
from calibration.map_inks import name_groups, reference_top
from calibration.map_naming import colour_groups
from rules.maps import UNKNOWN_GROUND


def _cells(centres: list[tuple[float, float, float]], counts: list[int], noise: float,
           seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells (L, a, b on the 0..100 scale) round each centre, and their group."""
    rng = np.random.default_rng(seed)
    lab = np.concatenate([np.array(c) + rng.normal(0, noise, (n, 3))
                          for c, n in zip(centres, counts, strict=True)])
    labels = np.repeat(np.arange(len(counts)), counts).astype(np.int32)
    return lab, labels


# A map mostly dark green printed lifted (a mid green) beside a little gold, under a lamp
# whose highlight makes the stud tops near white and bluish (development map 50117).
LIFTED_DARK, GOLD, SHINING_TOP = (60.7, -36.0, 17.0), (85.3, -15.2, 22.8), (85.5, -32.0, -5.0)


@pytest.mark.parametrize("shine", [map_inks.TOP_SHINE, 0.0])
def test_stud_tops_that_shine_are_no_reference(monkeypatch, shine: float) -> None:
    """Against tops that shine, the lifted dark green's hue lies where light green's
    does; without them, its pair with the gold names it dark green."""
    monkeypatch.setattr(map_inks, "TOP_SHINE", shine)
    lab, labels = _cells([LIFTED_DARK, GOLD], [900, 80], 1.0, 3)
    names = name_groups(lab, labels, np.array(SHINING_TOP))
    dark, gold = names[labels == 0], names[labels == 1]
    assert (gold == "G").all()
    assert (dark == ("D" if shine else "L")).all()  # the tops taken as the plate's: wrong


def test_the_plates_own_green_on_the_tops_is_a_reference() -> None:
    top = np.array((44.0, -40.0, 22.0))
    assert reference_top(top) is top
    assert reference_top(np.array(SHINING_TOP)) is None
    assert reference_top(None) is None


@pytest.mark.parametrize("split", [map_naming.GREEN_SPLIT, 10.0])
def test_two_greens_a_glossy_card_squeezes_together_are_two_groups(monkeypatch,
                                                                   split: float) -> None:
    """A glossy card lifts dark green towards light green: 7.5 Lab units apart, too close
    for k-means groups that must stand 6 apart with lightness at half weight, but the
    one group's halves part them."""
    monkeypatch.setattr(map_naming, "GREEN_SPLIT", split)
    lab, truth = _cells([(45.0, -12.0, 12.0), (38.0, -10.0, 10.0)], [450, 400], 0.8, 5)
    white, groups, _, _ = colour_groups(lab)
    assert not white.any()
    if split < 7:
        assert len(np.unique(groups)) == 2
        agree = (groups == truth).mean()
        assert max(agree, 1 - agree) > 0.98
    else:
        assert (groups == 0).all()


# Dark green beside light green and gold, and a fleck of ten cells lit far lighter at a
# hue beyond dark green's (development map 50648, set-up view).
FLECKED = ([(15.5, -13.8, 12.5), (82.4, -36.5, 11.5), (75.4, 16.8, 44.2), (65.7, -33.0, 43.0)],
           [600, 10, 45, 100])
PLATE_TOP = (67.5, -51.0, 30.0)


@pytest.mark.parametrize("absurd", [ink_model.ABSURD_SCORE, -np.inf])
def test_a_stray_group_that_bends_the_naming_is_left_unnamed(monkeypatch, absurd: float
                                                             ) -> None:
    """The fleck lies lighter than the dark green at a hue beyond it: named light green it
    breaks the inks' order, and every naming the bounds allow names a broad ink wrong
    (the light green dark green; the small gold's hue keeps the dark green from being
    named gold with it). Left unnamed, its cells are unknown and the other groups are
    named by their colours."""
    monkeypatch.setattr(ink_model, "ABSURD_SCORE", absurd)
    lab, labels = _cells(*FLECKED, 1.0, 4)
    names = name_groups(lab, labels, np.array(PLATE_TOP))
    first = [str(names[labels == g][0]) for g in range(4)]
    assert all((names[labels == g] == first[g]).all() for g in range(4))
    if absurd > -np.inf:
        assert first == ["D", UNKNOWN_GROUND, "G", "L"]
    else:
        assert first[3] != "L"  # the bounds bent the naming round the fleck


def test_a_small_group_of_an_ink_is_still_named() -> None:
    """A small gold area beside two greens that fits its ink is named, not left unknown:
    the stray price is paid only where no naming fits (the gate itself is tested
    above, with and without it)."""
    lab, labels = _cells([(30.0, -25.0, 20.0), (60.0, -30.0, 45.0), (70.0, 10.0, 50.0)],
                         [400, 400, 12], 1.0, 6)
    names = name_groups(lab, labels, np.array((44.0, -40.0, 22.0)))
    assert [str(names[labels == g][0]) for g in range(3)] == ["D", "L", "G"]


# A glossy card under a dim light (development map 50563's glossy set-up view): light and
# dark green 6.5 Lab units apart, gold well away from both, the stud tops a deep green.
DIM_TOP = (28.2, -27.0, 14.0)
DIM_INKS = {"G": ((44.3, 1.0, 27.0), 3.0), "L": ((35.5, -11.0, 15.5), 2.0),
            "D": ((29.2, -11.0, 9.0), 2.0)}


def _striped(inks: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A board of one stripe of columns per ink (L, a, b per cell, row-major) and its truth."""
    columns = np.array_split(np.arange(32), len(inks))
    truth = np.empty((32, 32), "<U1")
    for ink, cols in zip(inks, columns, strict=True):
        truth[:, cols] = ink
    truth = truth.reshape(-1)
    rng = np.random.default_rng(seed)
    lab = np.array([rng.normal(DIM_INKS[t][0], DIM_INKS[t][1]) for t in truth])
    return lab, truth


@pytest.mark.parametrize("price", [third_ink.THIRD_INK_PRICE, -np.inf])
def test_a_third_ink_hidden_in_one_of_two_groups_is_parted(monkeypatch, price: float) -> None:
    """The two greens stand too near for the grouping's separation test, so they make one
    group beside the gold, named one ink, and the other green's cells are read wrong.
    Three groups, named the three inks by the ink model, part them."""
    monkeypatch.setattr(third_ink, "THIRD_INK_PRICE", price)
    lab, truth = _striped("GLD", 3)
    assert map_inks.group(lab).max() == 1
    white, groups, _, _ = colour_groups(lab, np.arange(len(lab)), np.array(DIM_TOP))
    names = name_groups(lab[~white], groups[~white], np.array(DIM_TOP))
    right = float((names == truth[~white]).mean())
    if price > -np.inf:
        assert groups.max() == 2 and right > 0.9
    else:
        assert groups.max() == 1 and right < 0.75


def test_two_inks_stay_two_groups() -> None:
    """Where the map shows two inks the three-group k-means cuts one of them in two, which
    the ink model does not name three inks: the two groups stay."""
    lab, truth = _striped("GL", 4)
    white, groups, _, _ = colour_groups(lab, np.arange(len(lab)), np.array(DIM_TOP))
    names = name_groups(lab[~white], groups[~white], np.array(DIM_TOP))
    assert groups.max() == 1
    assert (names == truth[~white]).mean() > 0.99


@pytest.mark.parametrize("guard", [True, False])
def test_a_shadow_cut_off_two_inks_is_no_third_ink(monkeypatch, guard: bool) -> None:
    """Two inks, one of them partly in a near-black shadow, grouped in two: the three-group
    split cuts the shadow off, and a near-black group is named dark green unscored, so
    without the guard it passes as the third ink."""
    monkeypatch.setattr(third_ink, "THIRD_NOT_BLACK", guard)
    monkeypatch.setitem(DIM_INKS, "S", ((14.0, -5.0, 6.0), 1.5))
    lab, truth = _striped("GLLS", 5)
    labels = (truth != "G").astype(np.int32)  # the gold, and the light green with its shade
    parted = third_ink.third_ink(lab, labels, np.arange(len(lab)), np.array(DIM_TOP))
    assert (parted is None) == guard


# A glossy card's light green beside gold under a dim light, the stud tops far darker
# than the card (fitting map 50255's glossy palace view, the groups' medians): the light
# green scores as dark green 0.2 (log) above light green.
GLOSSY_PAIR = ([(46.5, 6.0, 19.5), (40.2, -9.5, 9.0)], [150, 545])
GLOSSY_TOP = (23.9, -20.0, 12.0)


@pytest.mark.parametrize("margin", [ink_model.NAMING_MARGIN, 0.0])
def test_a_group_two_inks_name_nearly_as_likely_is_unknown(monkeypatch, margin: float) -> None:
    """Light green or dark green: the two namings score within a fraction of a log unit,
    a toss-up that names the whole ink wrong as often as right. Within the margin the
    group is left unknown; the gold, which every naming that close agrees on, is named.
    (The maps' prior against gold without light green is set aside: it would tip this
    toss-up towards light green.)"""
    monkeypatch.setattr(ink_model, "NAMING_MARGIN", margin)
    monkeypatch.setattr(ink_model, "GOLD_WITHOUT_LIGHT_PRICE", 0.0)
    lab, labels = _cells(*GLOSSY_PAIR, 0.5, 7)
    names = name_groups(lab, labels, np.array(GLOSSY_TOP))
    assert (names[labels == 0] == "G").all()
    assert (names[labels == 1] == (UNKNOWN_GROUND if margin > 0 else "D")).all()


def _blocks_beside_dark(gold_a: float, fall: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A dark-green stripe beside light green and gold in 6-stud blocks, gold only a few
    a* units redder than the light green, and the lightness falling off down the board
    (L, a, b per cell, row-major) with its truth."""
    inks = {"G": (38.5, gold_a, 21.5), "L": (38.0, -11.0, 20.0), "D": DIM_INKS["D"][0]}
    rows, cols = np.divmod(np.arange(1024), 32)
    truth = np.where(cols < 11, "D", np.where((rows // 6 + cols // 6) % 2 == 0, "L", "G"))
    rng = np.random.default_rng(seed)
    lab = np.array([rng.normal(inks[t], 1.5) for t in truth])
    lab[:, 0] += fall * (rows / 31 - 0.5)
    return lab, truth


@pytest.mark.parametrize("hue_split", [True, False])
def test_light_green_and_gold_merged_are_parted_by_hue(monkeypatch, hue_split: bool) -> None:
    """The light falling off down the board moves the lightness more than light green and
    gold stand apart, so they make one group and the three-group k-means cuts it by
    lightness, which names no three inks. Their hue averaged over each cell's
    neighbours parts them, and the ink model names the three."""
    monkeypatch.setattr(third_ink, "HUE_SPLIT", hue_split)
    lab, truth = _blocks_beside_dark(-5.0, 30.0, 3)
    white, groups, _, _ = colour_groups(lab, np.arange(len(lab)), np.array(DIM_TOP))
    names = name_groups(lab[~white], groups[~white], np.array(DIM_TOP))
    right = float((names == truth[~white]).mean())
    if hue_split:
        assert groups.max() == 2 and right > 0.95
    else:
        assert groups.max() == 1 and right < 0.75


def _opencv_lab(lab: np.ndarray) -> np.ndarray:
    """Signed Lab (L 0..100) as OpenCV's 8-bit scale, as the reader's cells come."""
    return lab * (255 / 100, 1.0, 1.0) + (0.0, 128.0, 128.0)


@pytest.mark.parametrize("toss_up", [True, False])
def test_a_third_ink_taken_by_a_hair_leaves_what_the_readings_part_on_unknown(
        monkeypatch, toss_up: bool) -> None:
    """Two groups or three is decided by a price on the namings' scores; where the three
    groups' naming lands within the naming margin of it, the choice is a toss-up (51006's
    palace view: one light green cut in two by hue, the lighter half named gold 0.4
    inside the price). The cells the two readings name differently are then unknown,
    the ink both name alike is still read."""
    monkeypatch.setattr(third_ink, "THIRD_INK_TOSS_UP", toss_up)
    lab, truth = _striped("GLD", 3)
    cells, top = np.arange(len(lab)), np.array(DIM_TOP)
    two, _ = map_inks.settled(lab, map_inks.group(lab), cells)
    three = third_ink.third_ink(lab, two, cells, top)
    assert three is not None
    two_score, three_score = (
        ink_model.INK_MODEL.naming(centres, top, shares)[1]
        for centres, shares in (map_inks.centres_and_shares(lab, labels)
                                for labels in (two, three[0])))
    # The price set so that the three groups are taken half a log unit inside it.
    monkeypatch.setattr(third_ink, "THIRD_INK_PRICE", two_score - three_score + 0.5)
    names = map_naming.name_cells(_opencv_lab(lab), _opencv_lab(top))
    # The two groups name the merged greens light green: the dark green is what parts.
    dark = truth == "D"
    assert (names[truth == "G"] == "G").mean() > 0.95
    assert (names[dark] == (UNKNOWN_GROUND if toss_up else "D")).mean() > 0.9


@pytest.mark.parametrize("strays", [True, False])
def test_a_small_blocked_area_far_from_dark_greens_colour_is_unknown(monkeypatch,
                                                                      strays: bool) -> None:
    """Three blocked studs are too few for a group of their own and join the dark
    green's, the nearest in colour; printed near black, the dark green is about as
    colourful as the grey and far darker (development map 51028's set-up view), so no
    paleness bound takes the grey out. It lies far from its group's colour round it,
    many times the dark green's own cells' spread: it is left unknown, and the inks'
    own cells are still read (the patch check for blocked colours is off, so that this
    check alone is tried)."""
    monkeypatch.setattr(ink_cells, "STRAYS", strays)
    monkeypatch.setattr(ink_cells, "BLOCKED_LIKELY", np.inf)
    inks = {"D": (12.0, -7.0, 5.0), "L": (35.0, -22.0, 25.0), "G": (45.0, 2.0, 30.0),
            "X": (24.0, 6.0, 7.0)}
    truth = np.array([["D"] * 12 + ["L"] * 10 + ["G"] * 10] * 32)
    truth[20:22, 4] = "X"
    truth[20, 5] = "X"
    truth = truth.reshape(-1)
    lab = np.random.default_rng(8).normal(0.0, 1.0, (1024, 3)) + [inks[t] for t in truth]
    names = map_naming.name_cells(_opencv_lab(lab), _opencv_lab(np.array((20.0, -18.0, 10.0))))
    assert (names[truth == "X"] == (UNKNOWN_GROUND if strays else "D")).all()
    for ink in "DLG":
        assert (names[truth == ink] == ink).mean() > 0.99


# Development map 51125's palace view: the stud tops shine (L* 63, chroma 20) and one dark
# green, cut in two by the light, makes two groups; 51238's glossy palace view: one dark
# green alone under shining tops.
DARK_HALVES, TOP_THAT_SHINES = [(23.3, -17.5, 11.5), (32.9, -20.5, 10.0)], (62.7, -20.0, 3.0)


@pytest.mark.parametrize("bound", [map_inks.SHINE_DARK, 0.0])
def test_groups_well_under_shining_tops_are_dark_green(monkeypatch, bound: float) -> None:
    """Against shining tops the pairs alone name the groups, and a dark green cut in two
    was named gold and dark green; well under the tops' lightness, both are dark green."""
    monkeypatch.setattr(map_inks, "SHINE_DARK", bound)
    top = np.array(TOP_THAT_SHINES)
    assert reference_top(top) is None
    lab, labels = _cells(DARK_HALVES, [550, 200], 1.0, 5)
    names = set(name_groups(lab, labels, top)) - {UNKNOWN_GROUND}
    assert (names == {"D"}) == (bound > 0)
    lone, one = _cells([(65.7, -20.0, 9.5)], [400], 1.0, 6)
    assert (set(name_groups(lone, one, np.array([90.2, -27.0, 0.0]))) == {"D"}) == (bound > 0)


def test_light_inks_at_the_shining_tops_lightness_are_left_to_the_pairs() -> None:
    """A frame lit nearly white (51141's set-up view): every ink stands near the shining
    tops' lightness, so none is bound to dark green and the pairs name all three."""
    centres = np.array([(81.6, -30.0, 7.5), (92.9, -33.5, 52.0), (95.3, -13.0, 42.5)])
    top = np.array([91.8, -35.0, -11.0])
    assert not map_inks.darker_than_shine(centres, top).any()
    assert not map_inks.darker_than_shine(centres * [0.5, 1, 1], None).any()
    assert map_inks.darker_than_shine(centres * [0.7, 1, 1], top).all()
    lab, labels = _cells(list(map(tuple, centres)), [330, 270, 180], 1.0, 7)
    named = name_groups(lab, labels, top)
    assert [set(named[labels == g]) for g in range(3)] == [{"D"}, {"L"}, {"G"}]


# One light ink beside a near-black dark green and no gold, in a frame whose warm lamp
# turns the card's light green 46 degrees from the stud tops, where the model's gold sits
# (development map 51179's set-up view).
WARM_LIGHT_BESIDE_BLACK = ([(11.8, -8.0, 9.0), (49.2, -6.0, 44.5)], [320, 570])
WARM_TOP = (34.5, -30.0, 22.0)


@pytest.mark.parametrize("price", [ink_model.GOLD_WITHOUT_LIGHT_PRICE, 0.0])
def test_gold_named_where_no_light_green_is_pays_the_maps_prior(monkeypatch,
                                                                price: float) -> None:
    """Against the tops alone the light ink is likelier gold; maps leave gold out more
    often than light green, and with that prior the two namings stand within the margin,
    so the group is left unknown rather than all of it read gold. The one-ink margin,
    which leaves such a lone ink unknown on its own, is held off to weigh the prior."""
    monkeypatch.setattr(ink_model, "GOLD_WITHOUT_LIGHT_PRICE", price)
    monkeypatch.setattr(ink_model, "ONE_INK_MARGIN", 0.0)
    lab, labels = _cells(*WARM_LIGHT_BESIDE_BLACK, 0.5, 3)
    names = name_groups(lab, labels, np.array(WARM_TOP))
    assert (names[labels == 0] == "D").all()
    assert (names[labels == 1] == (UNKNOWN_GROUND if price < 0 else "G")).all()


def test_gold_beside_light_green_pays_no_prior() -> None:
    """The prior prices only a naming that leaves light green out."""
    broad = np.array([True, True, True])
    assert ink_model.gold_without_light(("D", "G"), broad[:2])
    assert not ink_model.gold_without_light(("D", "L", "G"), broad)
    assert not ink_model.gold_without_light(("D", "G"), np.array([True, False]))


POOR_PAIR = ([(95.4, -10.5, 33.5), (85.3, -6.5, 28.0)], [394, 371])
"""51170's glossy palace view: light green and gold made nearly alike by the sheen, each
group a mix of both; the lighter group bluer, so the bounds name it light green."""
POOR_TOP = (60.8, -48.0, 39.0)


@pytest.mark.parametrize("widen", [True, False])
def test_a_naming_that_fits_poorly_is_contested_more_widely(monkeypatch, widen: bool) -> None:
    """No naming fits the two groups well (-17.7 over three terms): the best leads the
    next that names the redder group otherwise by 3.2 (log), more than the naming margin
    but well within the poor fit's, so the whole view is left unknown, not read gold.
    The gold-redder bound is held at 3 units, where it ruled out the swapped naming (the
    lighter group is 4 units bluer); at ``GOLD_REDDER_SLACK`` the swap scores within the
    model's own margin and leaves the view unknown without the poor fit's."""
    monkeypatch.setattr(ink_bounds, "GOLD_REDDER_SLACK", 3.0)
    lab, labels = _cells(*POOR_PAIR, 0.5, 3)
    names = name_groups(lab, labels, np.array(POOR_TOP), widen)
    assert (names[labels == 0] == UNKNOWN_GROUND).all()
    assert (names[labels == 1] == (UNKNOWN_GROUND if widen else "G")).all()


def test_a_naming_that_fits_well_keeps_the_naming_margin() -> None:
    """The same map's glossy set-up view: gold and light green a fit apart, named."""
    centres = [(91.4, -5.0, 34.0), (85.9, -17.0, 29.5)]
    lab, labels = _cells(centres, [267, 287], 0.5, 3)
    assert map_inks.naming_margin(np.array(centres), -9.0) is None
    names = name_groups(lab, labels, np.array((63.1, -50.0, 33.0)))
    assert (names[labels == 0] == "G").all() and (names[labels == 1] == "L").all()


# Gold printed at light green's own hue but far more colourful, under a bright lamp
# (map 53050's set-up view): by a* alone the gold is 4.5 units less red.
BRIGHT_GOLD_AT_LIGHTS_HUE = ([(94.9, -19.0, 73.5), (75.5, -14.5, 50.0), (41.0, -30.5, 27.0)],
                             [318, 338, 124])
BRIGHT_TOP = (88.6, -51.0, 26.0)


@pytest.mark.parametrize("slack", [ink_bounds.GOLD_REDDER_SLACK, 3.0])
def test_a_gold_as_green_as_light_green_but_more_colourful_is_named_gold(
        monkeypatch, slack: float) -> None:
    """The bound that gold is redder than light green leaves room for a gold whose a* is a
    few units under light green's only because it is far more colourful at the same hue;
    at a slack of 3 the right naming was ruled out and the gold was never read gold."""
    monkeypatch.setattr(ink_bounds, "GOLD_REDDER_SLACK", slack)
    lab, labels = _cells(*BRIGHT_GOLD_AT_LIGHTS_HUE, 0.5, 5)
    names = name_groups(lab, labels, np.array(BRIGHT_TOP))
    if slack > 3.0:
        assert [set(names[labels == g]) for g in range(3)] == [{w} for w in "GLD"]
    else:
        assert "G" not in set(names[labels == 0])
