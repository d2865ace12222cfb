"""Reading the ground map off the board, '?' for unknown studs, and where the map is kept."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import calibration.ink_cells as ink_cells
import calibration.map_regions as map_regions
from calibration.camera import Pose
from calibration.ink_model import signed_lab
from calibration.map_naming import coherent, colour_groups, name_cells
from calibration.map_read import ViewRead, cell_in, map_picture, read_cells, read_map
from calibration.profile import Profile, TablePose
from palace.cli import main
from rules.maps import UNKNOWN_GROUND, MapError, map_from_json
from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece
from rules.random_map import random_map
from rules.staircase import analyse_turn
from twin import RenderOptions, random_camera, render
from twin.map_views import truth_cells


def test_map_read_from_a_setup_frame_matches_the_truth_on_visible_studs() -> None:
    rng = np.random.default_rng(1)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng)
    frame = render(Palace(ground, ground.setup), camera, pose, RenderOptions(clean=True), seed=1)
    reading = read_map([("setup", frame.image)], camera)
    where = cell_in(reading.pose, pose)
    got = reading.cells().reshape(-1)
    known = (got != UNKNOWN_GROUND) & (where >= 0)
    assert known.sum() > 700  # most of the board is read
    assert (got[known] == truth_cells(ground)[where[known]]).mean() > 0.98
    # The setup pieces stand on the start area: those studs are unknown, not guessed.
    for piece in ground.setup:
        for x, y in piece.footprint():
            cell = int(np.nonzero(where == y * 32 + x)[0][0])
            assert got[cell] == UNKNOWN_GROUND


INKS_BGR = {"L": (70.0, 170.0, 120.0), "D": (45.0, 90.0, 40.0), "G": (90.0, 185.0, 215.0)}


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (0.55, 1.0, 1.25), (1.25, 1.0, 0.85),
                                   (0.8, 1.05, 1.0)])
@pytest.mark.parametrize("seed", [1, 7, 8])  # three inks; light green and gold; two greens
def test_inks_are_named_by_their_order_under_any_white_balance(gains, seed) -> None:
    """A warm white balance gives light green the hue gold has under a neutral one: the
    names come from the inks' order within the frame, not from fixed hue limits."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=False, blocked=False)
    truth = truth_cells(ground)
    bgr = np.zeros((len(truth), 3))
    for ink, colour in INKS_BGR.items():
        cells = truth == ink
        bgr[cells] = np.array(colour) * gains + rng.normal(0, 3.0, (cells.sum(), 3))
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2LAB)[0]
    lab = lab.astype(np.float64)
    inked = truth != "X"
    lab[~inked] = np.nan  # the corner bricks' ground: never seen
    got = name_cells(lab)
    assert (got[inked] == truth[inked]).mean() > 0.99
    assert (got[~inked] == UNKNOWN_GROUND).all()


def _lab_of(truth: np.ndarray, inks: dict[str, tuple[float, float, float]],
            rng: np.random.Generator) -> np.ndarray:
    """Lab per cell (NaN where ``truth`` has no ink given) for cells printed in ``inks``."""
    bgr = np.zeros((len(truth), 3))
    for ink, colour in inks.items():
        cells = truth == ink
        bgr[cells] = np.array(colour) + rng.normal(0, 2.0, (cells.sum(), 3))
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2LAB)[0]
    lab = lab.astype(np.float64)
    lab[~np.isin(truth, list(inks))] = np.nan
    return lab


@pytest.mark.parametrize("seed", [5, 14])  # maps with all three inks and a blocked area
def test_dark_green_printed_near_black_is_dark_green_and_a_grey_area_blocked(seed) -> None:
    """Near black, dark green has no hue left (here a faint blue); a blocked area is
    printed a mid grey."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=False, blocked=True)
    truth = truth_cells(ground)
    rows = np.arange(len(truth)) // 32
    blocked = (truth == "X") & (rows > 3) & (rows < 28)  # not the corner bricks' ground
    assert blocked.sum() >= 10 and min((truth == ink).sum() for ink in "LDG") > 50
    truth = np.where((truth == "X") & ~blocked, "?", truth)  # the corner bricks' ground
    near_black = {"L": (70.0, 170.0, 120.0), "D": (31.0, 27.0, 26.0), "G": (90.0, 185.0, 215.0),
                  "X": (104.0, 108.0, 112.0)}
    got = name_cells(_lab_of(truth, near_black, rng))
    for ink in "LDGX":
        cells = truth == ink
        if cells.any():
            assert (got[cells] == ink).mean() > 0.95, ink


@pytest.mark.parametrize(("ink", "colour"), [("G", (70.0, 160.0, 215.0)),
                                             ("L", (70.0, 170.0, 120.0))])
def test_a_lone_ink_is_named_by_its_own_colour(ink, colour) -> None:
    """With nothing to order it against, a plainly orange ink is gold, else light green."""
    rng = np.random.default_rng(4)
    truth = np.full(32 * 32, ink)
    got = name_cells(_lab_of(truth, {ink: colour}, rng))
    assert (got == ink).mean() > 0.99


PLATE_BGR = (65.0, 120.0, 35.0)  # the plate's green, as its stud tops show it


def _plate_top(gains: tuple[float, float, float]) -> np.ndarray:
    """The stud tops' Lab colour (OpenCV 8-bit scale) under a white balance."""
    bgr = np.clip(np.array(PLATE_BGR) * gains, 0, 255).astype(np.uint8)
    return cv2.cvtColor(bgr[None, None], cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def _cast(inks: dict[str, tuple[float, float, float]],
          gains: tuple[float, float, float]) -> dict[str, tuple[float, float, float]]:
    return {ink: tuple(float(c) * g for c, g in zip(colour, gains, strict=True))
            for ink, colour in inks.items()}


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (1.3, 1.0, 0.7), (0.6, 1.0, 1.2),
                                   (0.7, 0.8, 0.9)])
@pytest.mark.parametrize("pair", ["DL", "LG"])
def test_two_inks_are_named_against_the_plates_stud_tops(pair, gains) -> None:
    """Light green beside gold and dark green beside light green, under neutral, warm
    and cool light. Under a warm light (blue cut, red kept) light green shows gold's hue
    and the inks' order alone named it gold; measured from the stud tops, which the
    same light turns alike, it is light green."""
    rng = np.random.default_rng(2)
    truth = np.array([pair[0]] * 400 + [pair[1]] * 400)
    got = name_cells(_lab_of(truth, _cast(INKS_BGR, gains), rng), _plate_top(gains))
    assert (got == truth).mean() > 0.99


@pytest.mark.parametrize("ink", ["D", "L"])
def test_a_lone_ink_is_told_dark_or_light_by_the_stud_tops(ink) -> None:
    """One ink shown alone: dark green far darker than the plate's stud tops is dark
    green (without the tops a lone green was taken for light green)."""
    rng = np.random.default_rng(6)
    truth = np.full(32 * 32, ink)
    dim = {"D": (20.0, 38.0, 18.0), "L": (70.0, 170.0, 120.0)}
    got = name_cells(_lab_of(truth, dim, rng), _plate_top((1.0, 1.0, 1.0)))
    assert (got == ink).mean() > 0.99


@pytest.mark.parametrize("seed", [4, 10])  # two greens
def test_groups_follow_each_ink_where_the_light_falls_off(seed) -> None:
    """A lamp near one edge: the far end of the light green is as dark as the near end of
    the dark green, so the board-wide groups mix them there; settled against each group's
    colour near every cell, they follow the inks."""
    rng = np.random.default_rng(seed)
    ground = random_map(rng, start_area=False, blocked=False)
    truth = truth_cells(ground)
    cells = np.flatnonzero(np.isin(truth, list(INKS_BGR)))
    truth = truth[cells]
    fall = np.linspace(1.15, 0.55, 32)[cells // 32]
    bgr = np.zeros((len(truth), 3))
    for ink, colour in INKS_BGR.items():
        mine = truth == ink
        bgr[mine] = np.array(colour) * fall[mine, None] + rng.normal(0, 3.0, (mine.sum(), 3))
    lab = signed_lab(cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None],
                                  cv2.COLOR_BGR2LAB)[0].astype(np.float64))

    def mixed(groups: np.ndarray) -> int:
        """Cells outside their group's majority ink."""
        return sum(int((groups == g).sum() - np.unique(truth[groups == g],
                                                       return_counts=True)[1].max())
                   for g in np.unique(groups))

    assert mixed(colour_groups(lab)[1]) > 40  # board-wide groups mix the inks here
    assert mixed(colour_groups(lab, cells)[1]) <= 3


def test_a_cell_much_paler_than_its_ink_is_unknown() -> None:
    """A small greyish patch inside a light green area takes the green's group (too few
    cells for a group of its own) but is far paler and darker than the green: it is
    left unknown rather than read as light green."""
    rng = np.random.default_rng(9)
    cells = np.full((32, 32), "L")
    cells[:, 20:] = "G"
    cells[12:14, 8:10] = "X"
    truth = cells.reshape(-1)
    inks = {"L": INKS_BGR["L"], "G": INKS_BGR["G"], "X": (75.0, 110.0, 100.0)}
    got = name_cells(_lab_of(truth, inks, rng), _plate_top((1.0, 1.0, 1.0)))
    assert (got[truth == "X"] == UNKNOWN_GROUND).all()
    for ink in "LG":
        assert (got[truth == ink] == ink).mean() > 0.99


@pytest.mark.parametrize("paler", [ink_cells.GREY_PALER, 0.0])
def test_a_grey_lighter_than_dark_green_in_its_group_is_unknown(monkeypatch,
                                                                paler: float) -> None:
    """A small blocked area joins dark green's group: a mid grey only a little paler
    (0.85 of its colourfulness) than the dark green and 0.2 (log) lighter, too close to
    it for the two-sided bound an ink's own cells keep. Grey is lighter than dark green
    and greyer, so such a cell is left unknown; the dark green's own cells, lit a little
    unevenly, are still read."""
    monkeypatch.setattr(ink_cells, "GREY_PALER", paler)
    rng = np.random.default_rng(4)
    names = np.array(["D"] * 300 + ["X"] * 8 + ["L"] * 300)
    lightness = np.where(names == "D", rng.normal(30.0, 1.0, len(names)), 30.0 * np.exp(0.2))
    lightness[names == "L"] = rng.normal(45.0, 1.0, 300)
    chroma = np.where(names == "X", 17.0, rng.normal(20.0, 0.8, len(names)))
    named = np.where(names == "X", "D", names)  # the grey taken into dark green's group
    out = ink_cells.unlike_their_ink(lightness, chroma, named)
    assert out[names == "X"].all() == bool(paler)
    assert not out[names == "D"].any() and not out[names == "L"].any()


@pytest.mark.parametrize("likely", [ink_cells.BLOCKED_LIKELY, np.inf])
def test_a_patch_in_dark_green_coloured_like_a_blocked_area_is_unknown(monkeypatch,
                                                                       likely: float) -> None:
    """A blocked area of a few studs joins dark green's group as colourful as the dark
    green but turned 35 degrees towards yellow and 0.2 (log) lighter: as a patch it is
    left unknown. A single stud of the same colour elsewhere is dark green's own noise
    and is still read, as are the dark green's own studs."""
    monkeypatch.setattr(ink_cells, "BLOCKED_LIKELY", likely)
    rng = np.random.default_rng(5)
    grid = np.full((32, 32), "D")
    grid[10:13, 10:12] = "X"  # six studs of a blocked area
    grid[25, 25] = "X"  # one odd stud alone
    truth = grid.reshape(-1)
    hue = np.radians(np.where(truth == "X", 105.0, 140.0) + rng.normal(0.0, 2.0, 1024))
    chroma = rng.normal(20.0, 0.8, 1024)
    lightness = np.where(truth == "X", 30.0 * np.exp(0.2), 30.0) + rng.normal(0.0, 0.5, 1024)
    lab = np.stack([lightness, chroma * np.cos(hue), chroma * np.sin(hue)], axis=1)
    out = ink_cells.blocked_patches(lab, np.full(1024, "D"), np.arange(1024))
    block = np.zeros((32, 32), bool)
    block[10:13, 10:12] = True
    assert out[block.reshape(-1)].all() == np.isfinite(likely)
    assert not out[~block.reshape(-1)].any()


def test_a_cell_between_two_inks_at_their_border_is_unknown() -> None:
    """Along the border of light green and gold, a few cells whose samples fell half on
    each ink show a colour between the two: as near the gold round them as the green,
    they are left unknown; the cells either side of them are read."""
    rng = np.random.default_rng(5)
    cells = np.full((32, 32), "L")
    cells[:, 16:] = "G"
    truth = cells.reshape(-1)
    lab = _lab_of(truth, {"L": INKS_BGR["L"], "G": INKS_BGR["G"]}, rng)
    border = np.flatnonzero((cells == "G") & (np.roll(cells, 1, axis=1) == "L")
                            & (np.arange(32) % 4 == 2)[:, None])
    lab[border] = (lab[border] + lab[border - 1]) / 2  # one sample's worth of each ink
    got = name_cells(lab, _plate_top((1.0, 1.0, 1.0)))
    assert (got[border] == UNKNOWN_GROUND).all()
    for ink in "LG":
        inside = (truth == ink) & ~np.isin(np.arange(1024), border)
        assert (got[inside] == ink).mean() > 0.99


@pytest.mark.parametrize("rows", [1, 3])
def test_white_beyond_the_starting_areas_size_is_unknown(rows: int) -> None:
    """The starting area is 7 studs in a row: a white strip that size is read as the
    starting area; three rows of white (an ink washed out by a glossy card under a bright
    lamp) are more than it can be, so they are left unknown, not read as the start."""
    rng = np.random.default_rng(6)
    cells = np.full((32, 32), "L")
    cells[:, 20:] = "D"
    cells[15:15 + rows, 12:19] = "S"
    truth = cells.reshape(-1)
    inks = {"L": INKS_BGR["L"], "D": INKS_BGR["D"], "S": (235.0, 238.0, 236.0)}
    got = name_cells(_lab_of(truth, inks, rng), _plate_top((1.0, 1.0, 1.0)))
    assert (got[truth == "S"] == ("S" if rows == 1 else UNKNOWN_GROUND)).all()
    assert (got[truth == "L"] == "L").mean() > 0.99


def test_studs_whose_tops_lie_in_a_shadow_are_unknown() -> None:
    """A piece's shadow across light green darkens the card to dark green's colour; the
    stud tops there are as dark, so those studs are not read, in one view, nor in two
    views where the second shows them in shadow too; a view showing them lit reads them,
    whatever the shaded views' number."""
    rng = np.random.default_rng(8)
    cells = np.full((32, 32), "L")
    cells[:, 22:] = "D"
    truth = cells.reshape(-1)
    shadow = np.zeros((32, 32), bool)
    shadow[8:14, 6:12] = True
    shadow = shadow.reshape(-1)
    inks = {"L": INKS_BGR["L"], "D": INKS_BGR["D"], "s": tuple(1.05 * c for c in INKS_BGR["D"])}
    lab = _lab_of(np.where(shadow, "s", truth), inks, rng)
    shown = np.ones(1024, bool)
    pose = Pose(np.zeros(3), np.array([0.0, 0.0, 500.0]))
    top = _plate_top((1.0, 1.0, 1.0))
    unmarked = read_cells([ViewRead(pose, lab, shown, top)])[0].reshape(-1)
    assert (unmarked[shadow] == "D").mean() > 0.9  # read unmarked, the shade is dark green
    shaded = ViewRead(pose, lab, shown, top, shadow)
    for views in ([shaded], [shaded, shaded]):
        got = read_cells(views)[0].reshape(-1)
        assert (got[shadow] == UNKNOWN_GROUND).all()
        assert (got[~shadow & (truth == "L")] == "L").mean() > 0.99
    lit = ViewRead(pose, _lab_of(truth, inks, rng), shown, top, np.zeros(1024, bool))
    for views in ([shaded, lit], [shaded, shaded, lit], [lit, shaded, shaded]):
        assert (read_cells(views)[0].reshape(-1)[shadow] == "L").all()


def test_corner_brick_ground_and_lone_studs_are_unknown() -> None:
    cells = np.full((32, 32), "L")
    cells[10:14, 10:14] = "D"  # a region: kept
    cells[20, 20] = "G"  # one stud unlike all four neighbours: a shadow or a leaf
    out = coherent(cells)
    assert (out[10:14, 10:14] == "D").all()
    assert out[20, 20] == UNKNOWN_GROUND and out[20, 21] == "L"
    for corner in (1, 30):
        assert out[corner, corner] == UNKNOWN_GROUND  # under a corner brick
    assert (out == UNKNOWN_GROUND).sum() == 13


@pytest.mark.parametrize("min_patch", [2, 1])
def test_a_stud_no_neighbour_reads_alike_is_unknown(monkeypatch, min_patch: int) -> None:
    """A stud seen alone between pieces, or read unlike every neighbour read, has no
    neighbour to vouch for it: a region is several studs wide. (Patches of two are let
    through here: :mod:`tests.test_map_regions` tests larger ones.)"""
    monkeypatch.setattr(map_regions, "MIN_PATCH", min_patch)
    unvouched = min_patch > 1
    cells = np.full((32, 32), UNKNOWN_GROUND)
    cells[10:13, 10:13] = "D"  # a region seen through a gap: kept
    cells[20, 20] = "G"  # one stud seen alone
    cells[5, 5:7] = "L"  # two alike: they vouch for each other
    cells[6, 6] = "D"  # its only neighbours read light green
    out = coherent(cells)
    assert (out[10:13, 10:13] == "D").all() and (out[5, 5:7] == "L").all()
    lone = UNKNOWN_GROUND if unvouched else "G"
    assert out[20, 20] == lone and out[6, 6] == (UNKNOWN_GROUND if unvouched else "D")


def test_random_maps_vary_and_keep_the_corner_bricks_blocked() -> None:
    a = random_map(np.random.default_rng(0), start_area=True, blocked=False)
    b = random_map(np.random.default_rng(1), start_area=False)
    assert a.ground != b.ground
    assert a.start_area and not b.start_area and not b.setup
    for ground in (a, b):
        assert ground.char(1, 1) == ground.char(30, 30) == "X"
    assert random_map(np.random.default_rng(0), start_area=True, blocked=False) == a


def _map_with(char: str) -> dict:
    ground = ["L" * 32 for _ in range(32)]
    ground[5] = "L" * 10 + char + "L" * 21
    return {"format": "palace-map/1", "ground": ground}


def test_unknown_stud_is_read_but_never_a_starting_point() -> None:
    ground = map_from_json(_map_with(UNKNOWN_GROUND), "read.json")
    assert ground.color(10, 5) is None and ground.buildable(10, 5)
    with pytest.raises(MapError, match="row 5"):
        map_from_json(_map_with("Z"), "bad.json")
    before = Palace(ground, [Piece(Kind.BRICK, 16, 16, 0, id="b0")])
    arch = Piece(Kind.ARCH, 10, 5, 0, axis=Axis.X, id="a1")
    after = Palace(ground, [*before.pieces, arch, Piece(Kind.BRICK, 14, 5, 0, id="x")])
    report = analyse_turn(before, after)
    text = " ".join(v.message for v in report.violations)
    assert "unknown" in text and "10,5" in text


def test_profile_keeps_the_map_read_for_a_table(tmp_path: Path) -> None:
    ground = map_from_json(_map_with(UNKNOWN_GROUND), "read.json")
    profile = Profile(tables={"kitchen": TablePose(Pose(np.zeros(3), np.array([0, 0, 500.0])),
                                                   2, ground)})
    path = tmp_path / "profile.json"
    profile.save(path)
    again = Profile.load(path)
    assert again.tables["kitchen"].map is not None
    assert again.tables["kitchen"].map.ground == ground.ground
    data = json.loads(path.read_text())
    data["tables"]["kitchen"]["map"]["ground"][3] = "LL"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="kitchen"):
        Profile.load(path)


def test_map_picture_marks_unknown_studs() -> None:
    cells = np.full((32, 32), "L")
    cells[0, 0] = UNKNOWN_GROUND
    picture = map_picture(cells, cell_px=4)
    assert picture.shape == (128, 128, 3)
    assert tuple(picture[1, 1]) != tuple(picture[10, 10])


def test_cli_map_read_bad_input_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "not-an-image.png"
    bad.write_text("hello")
    assert main(["map", "read", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not-an-image.png: not a PNG or JPEG" in err and err.count("\n") == 1


def test_cli_locate_without_a_map_says_the_turn_is_unresolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(1)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng)
    frame = render(Palace(ground, ground.setup), camera, pose, RenderOptions(), seed=1)
    cv2.imwrite(str(tmp_path / "f.png"), frame.image)
    camera.save(tmp_path / "cam.json")
    assert main(["locate", str(tmp_path / "f.png"), "--camera", str(tmp_path / "cam.json")]) == 0
    assert "rotation unresolved" in capsys.readouterr().out


def test_a_map_read_into_the_profile_resolves_the_turn_later(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(2)
    ground = random_map(rng, start_area=True)
    camera, pose = random_camera(rng)
    clean = render(Palace(ground, ground.setup), camera, pose, RenderOptions(clean=True), seed=2)
    cv2.imwrite(str(tmp_path / "setup.png"), clean.image)
    camera.save(tmp_path / "cam.json")
    profile = str(tmp_path / "profile.json")
    assert main(["map", "read", str(tmp_path / "setup.png"), "--camera", str(tmp_path / "cam.json"),
                 "--profile", profile, "--png", str(tmp_path / "map.png")]) == 0
    assert Profile.load(profile).tables["default"].map is not None
    # The picture is the card as the camera saw it (from above, turned its way round).
    from palace.camera_map import card_picture, picture_turn

    kept = Profile.load(profile).tables["default"]
    assert kept.map is not None
    drawn = cv2.imread(str(tmp_path / "map.png"))
    assert np.array_equal(drawn, card_picture(kept.map, picture_turn(camera, kept.pose), 8))
    capsys.readouterr()
    later = render(Palace(ground, ground.setup), camera, pose, RenderOptions(), seed=3)
    cv2.imwrite(str(tmp_path / "later.png"), later.image)
    assert main(["locate", str(tmp_path / "later.png"), "--profile", profile, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] and out["turn_resolved"]
