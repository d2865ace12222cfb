"""The pieces that keep the stud lattice on the right stud: block consensus, boundary test."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import grid, lattice_view, stud_cell
from calibration.alias import (
    SIZE_PINNING_BLOCKS,
    BoundaryCheck,
    best_stud_shift,
    check_boundary,
    judge_sides,
)
from calibration.board_model import stud_centres
from calibration.camera import Pose, project
from calibration.evidence import (
    BLURRED_LATTICE_CLARITY,
    PLATE_GROUP,
    VOUCHED_GRID_BLOCKS,
    WEAK_MAP_SCORE,
    gray_float,
    judge,
    lattice_problem,
    map_problem,
)
from calibration.grid import GridFit, align_on_grid, consensus_offsets
from calibration.turn import MIN_SHOWN_CELLS, VISIBLE_STUD, cell_colours, hide_covered
from calibration.vouching import (
    CRISP_MAP_MARGIN,
    TRUSTED_GRID_BLOCKS,
    VOUCHED_RMS_PX,
    vouches_for_soft_lattice,
)
from rules.maps import load_map
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, STUD_HEIGHT_MM, STUD_MM
from tests.calibration_frames import setup_frame

twin = pytest.importorskip("twin")

GROUND = load_map("1")


def block_centres() -> np.ndarray:
    idx = (np.arange(4) + 0.5) * 64.0
    xs, ys = np.meshgrid(idx, idx)
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def test_consensus_unwraps_a_smooth_shift_and_drops_the_odd_block():
    centres = block_centres()
    # A start pose a little turned and shifted: the lattice offset grows across the
    # board past half a stud, where a block alone would fold it back.
    field = np.stack([3.0 + 0.012 * centres[:, 1], -3.5 + 0.01 * centres[:, 0]], axis=1)
    seen = (field + STUD_MM / 2) % STUD_MM - STUD_MM / 2
    seen[5] += np.array([2.5, -1.5])  # a hand over one block
    usable = np.ones(len(centres), bool)
    usable[9] = False  # a block whose peak was unclear
    keep, unwrapped = consensus_offsets(centres, seen, usable)
    expected = usable.copy()
    expected[5] = False
    assert np.array_equal(keep, expected)
    # One smooth field with no block folded back; which whole stud the field starts on
    # is the boundary's question, not the lattice's.
    diff = unwrapped[keep] - field[keep]
    assert np.abs(diff - diff[0]).max() < 1e-6
    assert np.abs(diff[0] / STUD_MM - np.round(diff[0] / STUD_MM)).max() < 1e-6
    assert np.ptp(field[:, 0]) > 0  # offsets cross the half-stud fold somewhere
    assert np.any(np.abs(field) > STUD_MM / 2)


def test_consensus_needs_three_blocks():
    centres = block_centres()
    usable = np.zeros(len(centres), bool)
    usable[:2] = True
    keep, _ = consensus_offsets(centres, np.zeros((len(centres), 2)), usable)
    assert not keep.any()


@pytest.fixture(scope="module")
def frame():
    return setup_frame(7)


def shifted(pose: Pose, dx: float, dy: float) -> Pose:
    return Pose(pose.rvec, pose.tvec + pose.rotation @ np.array([dx, dy, 0.0]))


def test_the_boundary_tells_the_edge_stud_from_its_neighbours(frame):
    assert check_boundary(frame.image, frame.camera, frame.pose).passed
    for dx, dy in ((STUD_MM, 0), (0, -STUD_MM), (-2 * STUD_MM, STUD_MM)):
        check = check_boundary(frame.image, frame.camera, shifted(frame.pose, dx, dy))
        assert not check.passed and check.bad >= 2, (dx, dy, check.detail)


def test_best_stud_shift_returns_to_the_edge_stud(frame):
    off = shifted(frame.pose, STUD_MM, -2 * STUD_MM)
    back = best_stud_shift(frame.image, frame.camera, off)
    studs = stud_centres()
    err = np.linalg.norm(
        project(frame.camera, back, studs) - project(frame.camera, frame.pose, studs), axis=1
    )
    assert float(np.median(err)) < 0.01


def test_no_pose_a_stud_or_two_off_passes_the_sides_among_arms_and_cards():
    """Cluttered frames (arms, sleeves, cards, loose bricks): every whole-stud move fails.

    The side test lets an edge that is not the board's (a card two studs out, a region
    of the map inside) go unheeded; it must still catch every pose that is off.
    """
    moves = [(dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if (dx, dy) != (0, 0)]
    right = 0
    for seed in range(6):
        rng = np.random.default_rng(500 + seed)
        camera, pose = twin.random_camera(rng)
        image = twin.render(Palace(GROUND, list(GROUND.setup)), camera, pose, seed=seed).image
        right += check_boundary(image, camera, pose).passed
        for dx, dy in moves:
            check = check_boundary(image, camera, shifted(pose, dx * STUD_MM, dy * STUD_MM))
            assert not check.passed, (seed, dx, dy, check.detail)
            assert not check.holds(16), (seed, dx, dy, check.detail)
    assert right >= 5


def test_cells_under_a_card_show_no_stud_and_leave_the_map_vote():
    camera, pose = twin.random_camera(np.random.default_rng(21))
    frame = twin.render(
        Palace(GROUND, list(GROUND.setup)), camera, pose, twin.RenderOptions(clutter=False), seed=2
    )
    # A plain grey card over the cells x 4..13, y 4..13 (the board's corner bricks stay clear).
    corners = np.array([[4, 4, 0], [14, 4, 0], [14, 14, 0], [4, 14, 0]]) * STUD_MM
    corners[:, 2] = STUD_HEIGHT_MM + 0.5
    image = frame.image.copy()
    cv2.fillConvexPoly(
        image, np.round(project(camera, pose, corners)).astype(np.int32), (128, 128, 128)
    )
    studs = lattice_view.lattice_offsets(gray_float(image), camera, pose).studs
    cells = np.arange(BOARD_STUDS * BOARD_STUDS)
    x, y = cells % BOARD_STUDS, cells // BOARD_STUDS
    under = (x >= 5) & (x <= 12) & (y >= 5) & (y <= 12)  # a stud inside the card's edge
    clear = (x >= 16) & (y >= 16) & (x < 28) & (y < 28)  # away from bricks and the palace
    assert (studs[under] < VISIBLE_STUD).mean() > 0.95
    assert (studs[clear] >= VISIBLE_STUD).mean() > 0.9
    colours = cell_colours(image, camera, pose)
    hidden = hide_covered(colours, studs)
    assert np.isnan(hidden[under]).all(axis=1).mean() > 0.95
    assert np.isfinite(hidden[clear]).all(axis=1).mean() > 0.9


def test_too_few_studs_showing_keeps_every_cell():
    colours = np.random.default_rng(1).normal(size=(BOARD_STUDS * BOARD_STUDS, 3))
    studs = np.full(len(colours), 0.9)
    studs[: MIN_SHOWN_CELLS - 1] = 3.0
    assert np.array_equal(hide_covered(colours, studs), colours)
    studs[: MIN_SHOWN_CELLS + 1] = 3.0
    assert np.isnan(hide_covered(colours, studs)).any()


def side_row(own: float, at: int = 2, other: float = 3.0) -> list[float]:
    """One half side's steps moved -2..2 studs, ``own`` at index ``at``, the rest ``other``."""
    row = [other] * 5
    row[at] = own
    return row


def test_an_arm_over_half_a_side_is_excused_only_where_the_lattice_pins_the_size():
    good = [side_row(40.0), side_row(40.0)]
    # Side 1: its first half steps a stud further out (a sleeve on the table there).
    arm = [[3.0, 3.0, 5.0, 30.0, 3.0], side_row(40.0)]
    profiles = np.array([good, arm, good, good])
    check = judge_sides(profiles)
    assert check.bad == 1 and check.excused == 1 and not check.passed
    assert check.holds(SIZE_PINNING_BLOCKS)
    assert not check.holds(SIZE_PINNING_BLOCKS - 1)
    # The same half with the opposite side covered: nothing vouches for the place.
    covered = [side_row(4.0, other=4.0), side_row(4.0, other=4.0)]
    check = judge_sides(np.array([good, arm, good, covered]))
    assert check.excused == 0 and not check.holds(16)
    # Both halves a stud over is the whole board a stud off: never excused.
    check = judge_sides(np.array([good, [arm[0], arm[0]], good, good]))
    assert check.excused == 0 and not check.holds(16)


def test_two_neighbouring_sides_pin_the_board_only_with_a_trusted_lattice():
    good = [side_row(40.0), side_row(40.0)]
    covered = [side_row(4.0, other=4.0), side_row(4.0, other=4.0)]
    check = judge_sides(np.array([good, good, covered, covered]))
    assert check.both_axes and check.good == 2 and not check.passed
    assert check.holds(SIZE_PINNING_BLOCKS) and not check.holds(SIZE_PINNING_BLOCKS - 1)
    # Two opposite sides leave the move along them open, whatever the lattice.
    check = judge_sides(np.array([good, covered, good, covered]))
    assert not check.both_axes and not check.holds(16)


def test_align_on_grid_slides_the_pose_onto_the_studs_and_keeps_its_plane(frame):
    turned = Pose(frame.pose.rvec + np.array([0.004, -0.003, 0.0]), frame.pose.tvec)
    start = shifted(turned, 2.5, -1.5)
    aligned = align_on_grid(gray_float(frame.image), frame.camera, start)
    assert np.array_equal(aligned.rvec, start.rvec)
    studs = stud_centres()

    def err(pose: Pose) -> float:
        moved = project(frame.camera, pose, studs) - project(frame.camera, frame.pose, studs)
        return float(np.median(np.linalg.norm(moved, axis=1)))

    assert err(aligned) < 0.5 * err(start)


def test_extra_lattice_rounds_settle_a_fit_that_two_rounds_leave_unfinished(frame):
    start = shifted(Pose(frame.pose.rvec + np.array([0.03, -0.02, 0.01]), frame.pose.tvec), 3, -2)
    gray = gray_float(frame.image)
    two = grid.refine_on_grid(gray, frame.camera, start)
    more = grid.refine_on_grid(gray, frame.camera, start, max_rounds=5)
    assert two is not None and more is not None
    assert two.residual_px > grid.SETTLED_PX
    assert more.residual_px < 0.5 * two.residual_px and more.blocks >= grid.SETTLED_BLOCKS
    studs = stud_centres()
    truth = project(frame.camera, frame.pose, studs)
    err_two = np.median(np.linalg.norm(project(frame.camera, two.pose, studs) - truth, axis=1))
    err_more = np.median(np.linalg.norm(project(frame.camera, more.pose, studs) - truth, axis=1))
    assert err_more < err_two


def test_a_thin_lattice_needs_a_clear_map():
    assert map_problem(10.0, 1.0, blocks=TRUSTED_GRID_BLOCKS) == ""
    assert "barely shows" in map_problem(10.0, 1.0, blocks=TRUSTED_GRID_BLOCKS - 1)
    assert map_problem(10.0, WEAK_MAP_SCORE, blocks=TRUSTED_GRID_BLOCKS - 1) == ""


def test_a_soft_lattice_passes_only_where_the_rest_of_the_picture_vouches_for_it():
    pose = Pose(np.zeros(3), np.array([0.0, 0.0, 500.0]))
    soft = GridFit(pose, VOUCHED_GRID_BLOCKS, 0.5 * VOUCHED_RMS_PX, BLURRED_LATTICE_CLARITY + 0.2)
    assert "blurred" in lattice_problem(soft)
    assert lattice_problem(soft, vouched=True) == ""
    loose = GridFit(pose, VOUCHED_GRID_BLOCKS, 1.2 * VOUCHED_RMS_PX, soft.clarity)
    few = GridFit(pose, VOUCHED_GRID_BLOCKS - 1, soft.residual_px, soft.clarity)
    blurred = GridFit(pose, 16, soft.residual_px, BLURRED_LATTICE_CLARITY - 0.2)
    for fit in (loose, few, blurred):
        assert lattice_problem(fit, vouched=True) != ""
    all_four = BoundaryCheck(4, 0, ("0:good", "1:good", "2:good", "3:good"), True)
    three = BoundaryCheck(3, 0, ("0:good", "1:good", "2:good", "3:unclear"), True)
    assert vouches_for_soft_lattice(all_four, CRISP_MAP_MARGIN)
    assert not vouches_for_soft_lattice(all_four, 0.9 * CRISP_MAP_MARGIN)
    assert not vouches_for_soft_lattice(three, 2 * CRISP_MAP_MARGIN)


def test_the_full_size_look_tells_a_far_boards_edge_stud_from_its_neighbours():
    # A board far off and low in the picture: its far side's bands lie a pixel or two
    # apart in the half-size picture, where that side may stay unclear.
    camera, pose = twin.random_camera(
        np.random.default_rng(9), elevation_deg=(30, 40), fill=(0.35, 0.4)
    )
    far = twin.render(
        Palace(GROUND, list(GROUND.setup)), camera, pose, twin.RenderOptions(clean=True), seed=9
    )
    half = check_boundary(far.image, far.camera, far.pose)
    full = check_boundary(far.image, far.camera, far.pose, halved=False)
    assert full.good == 4 and full.good >= half.good, (half.detail, full.detail)
    for dx, dy in ((STUD_MM, 0), (-STUD_MM, 0), (0, STUD_MM), (0, -STUD_MM)):
        moved = check_boundary(far.image, far.camera, shifted(far.pose, dx, dy), halved=False)
        assert not moved.holds(16) and moved.bad >= 1, (dx, dy, moved.detail)


def test_one_corner_brick_confirms_a_board_that_three_sides_and_a_full_lattice_pin():
    pose = Pose(np.zeros(3), np.array([0.0, 0.0, 500.0]))
    one_corner = {0: 0.1, 1: 0.0, 2: 0.8, 3: 0.2, PLATE_GROUP: 0.6}
    three = BoundaryCheck(3, 0, ("0:good", "1:good", "2:unclear", "3:good"), True)
    full = GridFit(pose, TRUSTED_GRID_BLOCKS + 3, 0.2, 7.0)
    thin = GridFit(pose, TRUSTED_GRID_BLOCKS - 1, 0.2, 7.0)
    reason, seen, _ = judge(full, one_corner, 20.0, three, 5.0)
    assert reason == "" and seen == [2]
    assert "corner brick" in judge(thin, one_corner, 20.0, three, 5.0)[0]
    two_sides = BoundaryCheck(2, 0, ("0:good", "1:good", "2:unclear", "3:unclear"), True)
    assert "corner brick" in judge(full, one_corner, 20.0, two_sides, 5.0)[0]
    no_corner = {0: 0.1, 1: 0.0, 2: 0.1, 3: 0.2, PLATE_GROUP: 0.6}
    assert "corner brick" in judge(full, no_corner, 20.0, three, 5.0)[0]


def test_spectra_of_quarter_turned_parallaxes_are_turned_spectra():
    """Spectra reused across a quarter turn must be the ones made from scratch."""
    rng = np.random.default_rng(4)
    keys = tuple((int(a), int(b)) for a, b in rng.integers(-40, 40, (16, 2)))
    stud_cell._SPECTRA.clear()
    stud_cell.template_stack.cache_clear()
    stud_cell.template_stack(keys)
    made = len(stud_cell._SPECTRA)
    for turned in (
        tuple((-b, a) for a, b in keys),
        tuple((-a, -b) for a, b in keys),
        tuple((b, -a) for a, b in keys),
    ):
        stack = stud_cell.template_stack(turned)
        distance = stud_cell._torus_distance(np.array(turned, float) / 10)
        direct = np.concatenate(
            [stud_cell.stud_spectra(distance), stud_cell.shade_spectra(distance)]
        )
        np.testing.assert_allclose(stack, direct, atol=1e-10)
    assert len(stud_cell._SPECTRA) == made  # nothing new was made for the turns


def test_spectra_cache_forgets_without_losing_what_a_look_needs(monkeypatch):
    """A full cache is emptied before a look's spectra are made, never in between."""
    monkeypatch.setattr(stud_cell, "MAX_CACHED_SPECTRA", 20)
    stud_cell._SPECTRA.clear()
    stud_cell.template_stack.cache_clear()
    rng = np.random.default_rng(8)
    keys = tuple((int(a), int(b)) for a, b in rng.integers(-60, 60, (16, 2)))
    for _ in range(6):
        # Half of each look's parallaxes are the last look's: a board moving a little.
        fresh = tuple((int(a), int(b)) for a, b in rng.integers(-60, 60, (8, 2)))
        keys = keys[8:] + fresh
        assert stud_cell.template_stack(keys).shape == (32, 16, 16)
        assert len(stud_cell._SPECTRA) <= 20
