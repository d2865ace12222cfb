"""From a pose within a few pixels to a judged answer: lattice, sides, turn, evidence.

Every way of finding the board (an outline, the lattice alone, the map, the last frame's
pose) ends here, so that every answer rests on the same fit and the same checks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from calibration.alias import best_stud_move, check_boundary, four_sides_elsewhere
from calibration.board_model import in_front, moved_pose, renumber_corners
from calibration.camera import Camera, Pose
from calibration.edges import edge_support
from calibration.evidence import (
    EDGE_MODEL,
    STUD_TOPS_CLARITY,
    BoardLocation,
    implausible_view,
    judge,
    lattice_problem,
    residual_allowed,
)
from calibration.far_side import far_side_problem
from calibration.grid import SETTLED_PX, SETTLING_BLOCKS, GridFit, refine_on_grid
from calibration.rim_agrees import rim_moves, rim_problem, rim_witnesses
from calibration.rim_place import now_or_later, places_thin_fit, rim_overrules_tops
from calibration.side_pinning import PAIRED_BLOCKS, one_side_each_way, pinned_check
from calibration.stud_rows import rows_move, rows_problem
from calibration.stud_tops import (
    ON_GAPS_PLACEMENT,
    QUARTER_ON_GAPS_PLACEMENT,
    on_the_gaps,
    quarters_problem,
    top_colours,
    tops_problem,
)
from calibration.turn import canonical_turn
from calibration.turn_agreement import judge_turn
from calibration.vouching import (
    BLIND_SHARP_CLARITY,
    BLURRED_SIDES_CLARITY,
    MIN_SOFT_GRID_BLOCKS,
    PLACED_BLOCKS,
    RIM_SOFT_BLOCKS,
    SIDES_VOUCHED_CLARITY,
    SOFT_LATTICE_CLARITY,
    VOUCHED_GRID_BLOCKS,
    as_soft,
    rim_may_vouch_for_soft_lattice,
    rim_may_vouch_for_thin_lattice,
    sides_vouch_for_blurred_lattice,
    sides_vouch_for_soft_lattice,
)
from rules.maps import GroundMap

BLIND_RETRY_CLARITY = 6.5
"""Under this clarity a refused lattice is fitted again blind to the stud tops. A little
over :data:`~calibration.evidence.STUD_TOPS_CLARITY`: a dev board 11 px a stud settled
from a lattice start on the gaps at 6.03, half a stud off along both axes, with three
sides stepping where it put them (the fourth unclear), and was refused for its sides;
the blind fit from the same start is the board's."""
MISREAD_OVER_USUAL = 1.15
"""How many times the usual fit's clarity the top-blind template must read the same
blocks for the usual template to count as misreading them rather than the studs as
blurred. Stud tops darker than the card on a small board (6 px a stud) turn the usual
template's peaks onto the gaps in most blocks, and its clarity falls to 3.7 where the
blind template reads 4.5 to 4.9 and, fitted, places the board within a pixel (dev
boards 3009 and 3060, 6 px a stud, blurred 1.4 and 1.6 px). Blurred studs soften both
templates alike; a blind fit under a soft lattice's clarity so excused must also have
settled (residual under :data:`~calibration.grid.SETTLED_PX`), and so must the usual fit
it is measured against (within the residual :func:`~calibration.evidence.lattice_problem`
allows, :func:`_blind_refit`): a usual fit whose blocks never agreed reads low because
it is loose, not because it misreads the tops. A dev board 8.2 px a stud (3018), from a
perturbed truth, gave a usual fit loose by 1.35 px over 9 blocks at 3.8 and a blind fit
1.29 times sharper, settled over 13 blocks with every side and the stud tops agreeing,
2.5 px off."""
BLIND_GATE_BLOCKS = SETTLING_BLOCKS - 1
"""The fewest blocks a refused usual fit must agree on for the top-blind refit to be
tried. A blind fit reading under :data:`BLIND_SHARP_CLARITY` is judged a soft lattice,
which needs ten blocks, and of 44 blind fits after usual ones on 4 to 6 blocks none got
there: after a usual fit on 6 it is judged only if it reads that sharply. A dark-topped
board 12.7 px a stud (dev 20158) settles the usual fit from its nearest start over 6
blocks, 1.8 px off, where the blind one reads 7.5 over 11 blocks, 0.43 px off; the blind
template reads the usual fit's own 6 blocks at 5.7 only, so the refit must be made to
know."""
ON_GAPS_READ = SIDES_VOUCHED_CLARITY
"""The clarity from which the top-blind template's reading counts as a misread usual fit
when the stud tops' colour puts the usual fit on the gaps (placement under
:data:`~calibration.stud_tops.ON_GAPS_PLACEMENT`), however little sharper than the usual
one it reads (:data:`MISREAD_OVER_USUAL` asks 1.15 times). From the truth, the usual fits
of soft dev boards with dark tops sat on the gaps at placements 0.00 to 0.16 while the
blind fits there read 0.94 to 1.0; dev 20145 (7.6 px a stud) reads 4.1 usual and 4.6 blind
(1.11 times). The blind fit so excused is judged as a soft lattice and must have settled,
as a misread one must."""
SETTLE_ROUNDS = 5
"""Lattice rounds a candidate may take to settle (two always, more while the fit improves)."""
FURTHER_IN = "the board may lie further in than its sides put it"
"""The refusal of a pose whose far side (:mod:`calibration.far_side`) says the rim lies
studs away from where the sides put it: the search then tries the sides' runner-up place
(:func:`calibration.pose.lattice_starts`)."""


def finish(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    ground: GroundMap | None,
    focal_refined: bool,
    *,
    quarters: bool = False,
) -> BoardLocation:
    """From a pose within a few pixels: lattice alignment, evidence, the quarter turn.

    With ``quarters``, each quarter of the board is also asked whether its stud tops sit
    on the gaps, for lattices under a clarity of 6: in the tracker's whole fit from the
    last pose (whose refusal costs only a fresh search) and in the search's last resort,
    the rim at full size (where every outline and the lattice have failed, and a pose
    tilted onto the gaps at one end was taken 8 px off).
    """
    grid = refine_on_grid(gray, camera, pose, max_rounds=SETTLE_ROUNDS, blind_too=True)
    result = _judged(image, gray, camera, grid, ground, focal_refined, quarters)
    if (
        result.found
        or grid is None
        or grid.clarity >= BLIND_RETRY_CLARITY
        or grid.blocks < BLIND_GATE_BLOCKS
    ):
        return result
    blind = functools.cache(
        lambda: refine_on_grid(gray, camera, pose, max_rounds=SETTLE_ROUNDS, top_blind=True))
    # Last, a thin soft blind fit that the rim places along both axes (places_thin_fit),
    # tried where the blind template reads the usual fit's blocks as the sides may vouch.
    placed = functools.cache(lambda: _placed_refit(
        image, gray, camera, blind(), ground, focal_refined, quarters
    ) if grid.blind_clarity >= BLURRED_SIDES_CLARITY else None)
    # A soft lattice refused: tops darker than the card, blurred into their holes, draw
    # the usual shade template onto the gaps between studs (dev frames settled there
    # from the truth itself, half a stud off). Fitted again from the same start with a
    # template blind to the tops, it is judged by the same checks, the stud tops' colour
    # among them. Most refused starts are soft because they are wrong: the second fit
    # (15 ms with its checks) is tried only where the blind template already read the
    # usual fit's blocks sharply (20 of 267 refused dev starts; it lost none of the
    # boards a second fit of every such start found), after a usual fit on a few blocks
    # (BLIND_GATE_BLOCKS). Where neither template reads the blocks sharply, the stud
    # tops' colour may say that the usual fit sits on the gaps (ON_GAPS_READ). Only the
    # refit from the same start is tried: one from where the colour puts the studs took
    # the bench's frame 1009, moved as the tracked frame is, 2.4 px off.
    on_gaps = functools.cache(lambda: on_the_gaps(image, camera, grid.pose))
    if (
        grid.blind_clarity < SOFT_LATTICE_CLARITY
        and not _misread(grid, grid.blind_clarity)
        and (grid.blind_clarity < ON_GAPS_READ or not on_gaps())
    ):
        return now_or_later(placed) or result
    second = _blind_refit(image, gray, camera, blind(), grid, ground, focal_refined, quarters,
                          on_gaps)
    return second or now_or_later(placed) or result


def _placed_refit(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    blind: GridFit | None,
    ground: GroundMap | None,
    focal_refined: bool,
    quarters: bool,
) -> BoardLocation | None:
    """The top-blind fit ``blind``, judged where the rim places it (else None)."""
    if blind is None or not in_front(blind.pose) or not places_thin_fit(
            image, gray, camera, blind):
        return None
    second = _judged(image, gray, camera, blind, ground, focal_refined, quarters, True, True)
    return second if second.found else None


def _blind_refit(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    blind: GridFit | None,
    grid: GridFit,
    ground: GroundMap | None,
    focal_refined: bool,
    quarters: bool,
    on_gaps: Callable[[], bool],
) -> BoardLocation | None:
    """The top-blind fit ``blind`` (from the start of the refused usual fit ``grid``),
    judged, where it is worth judging and is found (else None). ``on_gaps`` says (when
    asked) whether the stud tops' colour puts the usual fit on the gaps: the usual
    template misread the tops."""
    # A loose usual fit reads low because its blocks disagree, not because it misreads
    # the tops: only a settled one is measured against (MISREAD_OVER_USUAL).
    misread = blind is not None and (
        (_misread(grid, blind.clarity) and grid.residual_px <= residual_allowed(grid.blocks))
        or (blind.clarity >= ON_GAPS_READ and on_gaps())
    )
    if blind is None or (
        blind.clarity < SOFT_LATTICE_CLARITY
        and not (misread and blind.residual_px <= SETTLED_PX)
    ):
        # Soft to both templates alike, the studs are blurred, not misread: a second fit
        # there settled 1.9 px off a board 7 px a stud (dev), over 14 blocks, and was
        # taken. Only a blind template reading them clearly sharper than the usual one
        # (or the usual fit on the gaps by the stud tops' colour) says that the usual one
        # misread the tops, and only a settled fit (that board's blind fit, drawn with
        # the seams, reads 4.9 against 4.1, over 12 blocks at 0.51 px, 1.6 px off).
        return None
    if grid.blocks < SETTLING_BLOCKS and blind.clarity < BLIND_SHARP_CLARITY:
        # After a usual fit on 6 blocks, a blind fit judged as a soft lattice has never
        # got there (BLIND_GATE_BLOCKS): only a sharp one is judged.
        return None
    thin = blind.blocks < MIN_SOFT_GRID_BLOCKS and blind.clarity < STUD_TOPS_CLARITY
    if thin and not (blind.blocks >= RIM_SOFT_BLOCKS
                     and rim_witnesses(rim_moves(gray, camera, blind.pose))):
        # Over 11 blocks at 5.3 a blind fit of a board 7 px a stud (dev) was taken tilted,
        # 0.5 px off at one corner and 3.6 px at the opposite one, every quarter's stud
        # tops agreeing: only the plate's rim, fitted all round, sees that tilt.
        return None
    second = _judged(image, gray, camera, blind, ground, focal_refined, quarters, True)
    return second if second.found else None


def _misread(grid: GridFit, blind_clarity: float) -> bool:
    """Whether the top-blind template reads the board sharply enough over the usual fit's
    own clarity for the usual template to have misread the tops (a small board's dark
    tops), not the studs to be blurred (:data:`MISREAD_OVER_USUAL`); the blind fit must
    still be clear enough for the sides to vouch for it."""
    return (
        blind_clarity >= SIDES_VOUCHED_CLARITY
        and blind_clarity >= MISREAD_OVER_USUAL * grid.clarity
    )


def _judged(
    image: NDArray[np.uint8],
    gray: NDArray[np.float32],
    camera: Camera,
    grid: GridFit | None,
    ground: GroundMap | None,
    focal_refined: bool,
    quarters: bool,
    top_blind: bool = False,
    placed: bool = False,
) -> BoardLocation:
    """:func:`finish` from a lattice fit; with ``top_blind``, a fit with the top-blind
    template, judged as a soft lattice unless it reads :data:`BLIND_SHARP_CLARITY`.

    The blind template's peaks are sharper than the usual one's on the same studs: a dev
    board's 4.6 became 5.5, 2.7 px off over 10 blocks with all four sides and the stud
    tops agreeing, which a sharp lattice's rules take. A soft lattice's rules (most of
    the board, all four sides, the stud tops) refuse it.
    """
    if grid is not None and top_blind:
        grid = as_soft(grid)
    if grid is None or not in_front(grid.pose):
        return BoardLocation(False, "the stud grid was not found where the board outline puts it")
    hopeless = lattice_problem(grid, True, BLURRED_SIDES_CLARITY,
                               PLACED_BLOCKS if placed else VOUCHED_GRID_BLOCKS)
    if hopeless:
        # Not even the rest of the picture could vouch for this lattice: the sides, the
        # map and the corner bricks are not worth their time. Most starts a search tries
        # end here, so this keeps a search's misses cheap.
        return BoardLocation(False, hopeless)
    boundary = check_boundary(image, camera, grid.pose)
    if not boundary.passed:
        # A board far off shows its far side's bands a pixel apart at half size, and a
        # soft, small board's sides blur into the card's first row there: look again at
        # full size before taking the lattice for a stud off, or its sides for unclear.
        # (On the wide twin, right poses over 16 lattice blocks had two sides "off" at
        # half size and all four right at full size.)
        sharp = check_boundary(image, camera, grid.pose, halved=False)
        if sharp.passed or (sharp.holds(grid.blocks) and not boundary.holds(grid.blocks)):
            boundary = sharp
    boundary, paired_move = pinned_check(image, camera, grid, boundary, corners=True)
    paired_moves = [paired_move] if paired_move != (0, 0) else []
    if not boundary.holds(grid.blocks):
        # Not clearly on the edge's stud: try where the board's boundary puts it, by
        # the sides' summed steps and then by their pairs' (a palace just inside one
        # side outsteps its rim in the sum, never in a pair).
        summed = best_stud_move(image, camera, grid.pose)
        # And where the rows of stud tops end, over most of the board (a start only).
        rows = [rows_move(image, camera, grid.pose)] if grid.blocks >= PAIRED_BLOCKS else []
        rows = [m for m in rows if m != (0, 0)]
        for move in dict.fromkeys([summed, *paired_moves, *rows]):
            moved = refine_on_grid(
                gray, camera, moved_pose(grid.pose, *move), top_blind=top_blind
            )
            if moved is None or not in_front(moved.pose):
                continue
            if top_blind:
                moved = as_soft(moved)
            moved_check = check_boundary(image, camera, moved.pose)
            moved_check, _ = pinned_check(image, camera, moved, moved_check)
            if moved_check.holds(moved.blocks):
                grid, boundary = moved, moved_check
                break
    support = edge_support(gray, camera, grid.pose, EDGE_MODEL, 6.0, 4.0)
    # The plate's rim fitted at full size (about 5 ms), once, and only if asked below.
    rim = functools.cache(lambda: rim_moves(gray, camera, grid.pose))
    # A sharp lattice seen in few blocks, or a soft one in 10 or 11, all four sides where
    # it puts the board: the plate's rim may vouch for its plane.
    witness = (
        rim_may_vouch_for_thin_lattice(grid, boundary)
        or rim_may_vouch_for_soft_lattice(grid, boundary)
    ) and rim_witnesses(rim())
    # The pose stands on the plate, the studs and the corner bricks alone: the map only
    # says which way round, and vouches for nothing. (With a right map allowed to vouch
    # for thin or soft lattices and sides excused as arms, 4 of 600 wide-twin frames
    # were wrong poses.) So the geometry is judged as if there were no map.
    reason, seen, quality = judge(grid, support, 0.0, boundary, 0.0, witness, placed)
    if not reason and grid.clarity < SOFT_LATTICE_CLARITY:
        # Soft studs on a small board leave the plane's tilt open (a board a few
        # hundred pixels across has been found tilted 5 px off with all four sides and
        # three corner bricks agreeing), and can lock the lattice on the gaps between
        # studs: a soft lattice is taken only over most of the board with all four
        # sides where it puts them, and with the stud tops' colour, which the lattice
        # fit never reads, putting the studs where it does.
        # Where the rim vouches for the plane (witness), the whole board's stud tops
        # suffice: the quarters refused right blind fits of 10 blocks (dev 20118). The
        # blurred allowance of 11 blocks is the usual template's (_blind_refit).
        strict = sides_vouch_for_soft_lattice(grid, boundary) or witness or placed
        blurred = sides_vouch_for_blurred_lattice(grid, boundary) and not (
            top_blind and grid.blocks < MIN_SOFT_GRID_BLOCKS)
        if not strict and not blurred:
            reason = f"the studs are soft (clarity {grid.clarity:.1f})"
        else:
            # Softer still, or over fewer blocks: every quarter of the board must put
            # its stud tops where the lattice does, not only the whole board.
            colours = top_colours(image, camera, grid.pose)
            tops = tops_problem(image, camera, grid.pose, colours=colours) or (
                "" if strict else quarters_problem(image, camera, grid.pose, colours=colours)
            )
            if tops:
                reason = f"the studs are soft (clarity {grid.clarity:.1f}) and {tops}"
    elif not reason and grid.clarity < STUD_TOPS_CLARITY:
        # A little sharper, the lattice can still settle on the gaps between studs over
        # the whole board, every side stepping where it puts them too (half a stud off
        # is no whole stud for the sides to see). The colours tell, asked only whether
        # the studs sit on the gaps, unless the rim read along the board's axes says
        # otherwise; with ``quarters`` also in each quarter (a plane tilted onto the gaps
        # at one end; asked of every first detection, they cost right boards).
        colours = top_colours(image, camera, grid.pose)
        tops = tops_problem(image, camera, grid.pose, ON_GAPS_PLACEMENT, colours)
        overruled = bool(tops) and rim_overrules_tops(gray, camera, grid, boundary, colours, rim)
        tops = "" if overruled else tops or (
            quarters_problem(image, camera, grid.pose, QUARTER_ON_GAPS_PLACEMENT,
                             quarters_told=0, colours=colours) if quarters else ""
        )
        if tops:
            reason = f"the stud lattice may lie on the gaps (clarity {grid.clarity:.1f}): {tops}"
    if (
        not reason
        and not boundary.passed
        and not boundary.outweighs(grid.blocks)
        and not boundary.paired
        and not one_side_each_way(grid, boundary)
    ):
        # Two sides where the lattice puts them (and two elsewhere) have been a board
        # six studs off on the wide twin, and a side off in one half taken for an arm
        # over it a board one stud off: three sides where the lattice puts them and
        # none elsewhere.
        reason = (
            f"the board's sides do not pin the stud grid ({', '.join(boundary.detail)})"
        )
    if not reason:
        far = far_side_problem(image, gray, camera, grid.pose, boundary)
        if far:
            reason = f"{FURTHER_IN} ({far})"
    if not reason:
        reason = four_sides_elsewhere(image, camera, grid.pose, boundary)
    if not reason:
        reason = rows_problem(image, camera, grid.pose)
    if not reason and grid.clarity < STUD_TOPS_CLARITY:
        # Dark stud tops blur into one blob with their sides and holes, and the lattice
        # can settle a millimetre off along the line of sight on every block alike.
        reason = rim_problem(rim())
    turn, resolved, problem = judge_turn(
        image, camera, grid.pose, ground, grid.studs, grid.blocks, standing=not reason
    )
    reason = reason or problem
    pose = turn.pose if resolved else canonical_turn(camera, grid.pose)
    reason = reason or implausible_view(camera, pose)
    # Corner bricks are reported in the resolved board frame's numbering.
    seen = sorted(renumber_corners(seen, grid.pose, pose))
    if reason:
        return BoardLocation(
            False, reason, quality=quality, corner_bricks=seen, map_margin=turn.margin
        )
    return BoardLocation.located(
        camera, pose, grid, seen, quality, focal_refined, turn.margin, turn.score,
        turn_resolved=resolved, turn_evened=resolved and turn.evened,
    )
