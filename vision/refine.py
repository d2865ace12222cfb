"""Edits of a whole reading that the greedy search cannot make: slide it, or lower a step.

The search grows a reading piece by piece and never takes one back, so two mistakes
that one view invites survive it even where the evidence, judged whole, prefers the
truth:

- the whole staircase read one stud along: a straight run of pieces covers nearly the
  same pixels one stud on, and only its two ends tell;
- a step read one or two levels too high on bricks that the turn did not build: the
  higher arch, further back, covers nearly what the lower one does, and the bricks
  under its legs fill the gap below.

So the chosen reading is edited as a whole: slid one stud each way, each arch lowered by
one or two levels (with what stands on it, dropping the bricks under its legs), each
piece that nothing stands on left out (a stray piece that the evidence pays for can
still cost the reading its legality, which the search never weighs), each run of bricks
in a line taken as an arch over it, each two bricks an arch's length apart as the arch
on them, each lone brick on the plate under a step's leg as an arch on the plate (the
usual first step, seen end on), each arch on the plate under a lone brick as a brick
(the two alike where both are hidden), each decoration moved to its arch's other end
knob, each decoration taken as the near end of a final arch with the decoration on its
far end (a final arch seen end on shows little else), and each lowest step raised a level
onto a brick and a first step (seen from above, a step covers nearly what it would a
level lower on the plate); an edit that moves the staircase's start tries the
decoration in both outlines. An edit is kept when the whole reading, judged with the
rules' word in it, scores better. On the development turns where the read staircase
was wrong, the true one scored better than the one read in most cases: the search, not
the evidence, had missed it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Protocol

from rules.palace import Palace
from rules.pieces import Axis, Kind, Piece
from vision.candidates import both_outlines, built_on, replaced, step_legs

SLIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
STEP_STACK = 3
"""The height of the stack :func:`stacks_as_steps` takes as steps: a brick, an arch a
level up and a brick on its knob (game 12000 turn 54, the only such turn of the
development sets)."""
MAX_DROP = 2
"""Levels an arch is lowered at most: the bricks a search props a step on are one or
two high."""
ARCH_LENGTH = 4
MAX_EDITS = 4
"""Edits kept at most: each must raise the score, so this only bounds the time."""


class Reading(Protocol):
    """What an edit needs of the decoder: its reading, a judge and a way to take one."""

    before: Palace
    added: list[Piece]

    def judged(self, pieces: Sequence[Piece], floor: float = ...) -> float: ...

    def take(self, pieces: Sequence[Piece]) -> bool: ...


def refine(reading: Reading, score: float) -> float:
    """Applies the best-scoring edit while one scores better; returns the final score."""
    for _ in range(MAX_EDITS):
        current = list(reading.added)
        best: tuple[float, list[Piece]] | None = None
        for trial in edits(current):
            if built_on(reading.before, trial) is None:
                continue
            judged = reading.judged(trial, score if best is None else max(score, best[0]))
            if judged > score and (best is None or judged > best[0]):
                best = (judged, trial)
        if best is None or not reading.take(best[1]):
            break
        score = best[0]
    return score


def edits(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """The whole reading slid one stud each way, each arch lowered, each piece that
    nothing stands on left out, each run of bricks as an arch, each two bricks an arch's
    length apart as the arch on them, each decoration on its arch's other end knob, each
    decoration as a final arch's near end (:func:`_final_arches`), each lowest step a
    level up (:func:`_steps_raised`), each lone brick on the plate under a step's leg as a
    first step on the plate, and each arch on the plate under a lone brick as a brick."""
    if not pieces:
        return
    for dx, dy in SLIDES:
        # The slide moves the staircase's start, and the decoration's colour may follow.
        yield from both_outlines([p.moved(x=p.x + dx, y=p.y + dy, id="") for p in pieces])
    for piece in pieces:
        if not _standing_on(pieces, piece):
            yield [p for p in pieces if p is not piece]
    bricks = _brick_cells(pieces)
    run_arches = list(_run_arches(bricks))
    for arch in run_arches:
        # An arch whose opening the search could not see reads as bricks along its length.
        yield _as_arch(pieces, arch)
    yield from _arches_on_legs(pieces, bricks, set(run_arches))
    yield from _decorations_turned(pieces)
    yield from _arches_lowered(pieces)
    yield from _final_arches(pieces)
    yield from _steps_raised(pieces)
    yield from _ground_steps(pieces)
    yield from _plate_arches_as_bricks(pieces)


def _brick_cells(pieces: Sequence[Piece]) -> set[tuple[int, int, int]]:
    """Where the bricks stand: (x, y, level) of each."""
    return {(p.x, p.y, p.z) for p in pieces if p.kind is Kind.BRICK}


def _run_arches(bricks: set[tuple[int, int, int]]) -> Iterator[Piece]:
    """The arches on the plate over each run of 2 to :data:`ARCH_LENGTH` bricks in a line
    at one level, every way such an arch can cover the run."""
    for axis, (dx, dy) in ((Axis.X, (1, 0)), (Axis.Y, (0, 1))):
        for x, y, z in sorted(bricks):
            if (x - dx, y - dy, z) in bricks:
                continue  # not the start of a run
            length = 1
            while (x + length * dx, y + length * dy, z) in bricks:
                length += 1
            if not 2 <= length <= ARCH_LENGTH:
                continue
            for back in range(ARCH_LENGTH - length + 1):
                arch = Piece(Kind.ARCH, x - back * dx, y - back * dy, z, axis=axis)
                if arch.on_plate():
                    yield arch


def _as_arch(pieces: Sequence[Piece], arch: Piece) -> list[Piece]:
    """``pieces`` with ``arch`` in place of whatever stands in its cells at its level."""
    cells = set(arch.footprint())
    return [*(p for p in pieces if not (p.z <= arch.z < p.top and cells & set(p.footprint()))),
            arch]


def _arches_on_legs(pieces: Sequence[Piece], bricks: set[tuple[int, int, int]],
                    over_runs: set[Piece]) -> Iterator[list[Piece]]:
    """Each two bricks at one level an arch's length apart in a line, taken as the arch
    whose legs they stand in (the pieces in its cells at that level left out): an arch
    whose opening shows nothing the search could tell, behind older pieces or under the
    steps above, reads as the two bricks its legs are (game 21000 turn 191: a first
    step on the ground read so, the truth judging 0.2 better). An arch over a run of
    bricks (``over_runs``, a full run of four among them) is tried before it, as a run's
    arch (:func:`edits`); ``bricks`` as :func:`_brick_cells` gives them."""
    span = ARCH_LENGTH - 1
    for axis, (dx, dy) in ((Axis.X, (1, 0)), (Axis.Y, (0, 1))):
        for x, y, z in sorted(bricks):
            if (x + span * dx, y + span * dy, z) not in bricks:
                continue
            arch = Piece(Kind.ARCH, x, y, z, axis=axis)
            if arch not in over_runs:
                yield _as_arch(pieces, arch)


def _ground_steps(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each lone brick on the plate under a leg of an arch a level up, taken as an arch
    on the plate with an end knob there, each way it can lie, the decoration in both
    outlines (:func:`vision.candidates.both_outlines`): the usual first step (the
    starting set-up's arch on the ground with the next one's leg on its end knob) seen
    end on, or with its far half behind the palace, shows little more than that leg,
    and the search props the step above on the brick its near leg looks like. The
    arch moves the staircase's start to its far end, which may lie on ground of
    another colour: the decoration's colour, and so its outline, follows."""
    legs = step_legs(pieces)
    for brick in pieces:
        if brick.kind is not Kind.BRICK or brick.z != 0 or (brick.x, brick.y) not in legs:
            continue
        others = [p for p in pieces if p is not brick]
        for axis, (dx, dy) in ((Axis.X, (1, 0)), (Axis.Y, (0, 1))):
            for back in (0, ARCH_LENGTH - 1):
                arch = Piece(Kind.ARCH, brick.x - back * dx, brick.y - back * dy, 0,
                             axis=axis)
                if arch.on_plate():
                    yield from both_outlines([*others, arch])


def _plate_arches_as_bricks(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each arch on the plate with a brick on one end knob and nothing on the other taken
    as a lone brick under that brick, the decoration in both outlines: behind the
    palace both show nothing, and the search, weighing them alike, may take the arch
    (game 10000 turn 59: the arch moved the staircase's start onto other ground, and the
    decoration's colour with it)."""
    for arch in pieces:
        if arch.kind is not Kind.ARCH or arch.z != 0:
            continue
        knobs = set(arch.knobs())
        on = [p for p in pieces if p.z == arch.top and not knobs.isdisjoint(p.footprint())]
        if len(on) != 1 or on[0].kind is not Kind.BRICK:
            continue
        others = [p for p in pieces if p is not arch]
        yield from both_outlines([*others, Piece(Kind.BRICK, on[0].x, on[0].y, 0)])


def _decorations_turned(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each decoration on an arch's end knob moved to the arch's other end knob: which
    end the staircase arrives at, one view often cannot say."""
    for deco in pieces:
        if deco.kind is not Kind.DECORATION:
            continue
        for arch in pieces:
            knobs = arch.knobs() if arch.kind is Kind.ARCH else ()
            if deco.z == arch.top and (deco.x, deco.y) in knobs:
                x, y = arch.other_end((deco.x, deco.y))
                others = [p for p in pieces if p is not deco]
                yield [*others, deco.moved(x=x, y=y, id="")]


def _arches_lowered(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each arch lowered by one or two levels with what stands on it
    (:func:`_lowered`), the columns under its legs taken as the three bricks they stand
    for where it has any (a step read a level too high on a column: game 22000 turn
    27)."""
    for arch in pieces:
        if arch.kind is not Kind.ARCH:
            continue
        split = _columns_as_bricks(pieces, set(arch.legs()))
        for drop in range(1, min(MAX_DROP, arch.z) + 1):
            lowered = _lowered(pieces, arch, drop)
            if lowered is None and len(split) > len(pieces):
                lowered = _lowered(split, arch, drop)
            if lowered is not None:
                yield lowered


def _columns_as_bricks(pieces: Sequence[Piece], cells: set[tuple[int, int]]) -> list[Piece]:
    """``pieces`` with each column on one of ``cells`` as the three bricks of its
    levels."""
    out: list[Piece] = []
    for p in pieces:
        if p.kind is Kind.COLUMN and (p.x, p.y) in cells:
            out += [Piece(Kind.BRICK, p.x, p.y, p.z + k) for k in range(p.top - p.z)]
        else:
            out.append(p)
    return out


def _final_arches(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each decoration taken as the end knob of a final arch at its level, leading away
    each way, with the decoration moved onto that arch's far end knob (in both
    outlines): a final arch whose opening and near leg the view does not show, over an
    older piece of its colour or end on, leaves its far end knob's decoration looking
    like one on the step below, and the search, paid for the decoration's outline
    there, never tries the arch (games 12000 turn 54, 13000 turns 5, 16 and 57)."""
    for deco in pieces:
        if deco.kind is not Kind.DECORATION:
            continue
        for way in SLIDES:
            arch = _arch_from((deco.x, deco.y), way, deco.z)
            if not arch.on_plate():
                continue
            far = arch.other_end((deco.x, deco.y))
            yield from both_outlines(replaced(
                pieces, [deco], [arch, deco.moved(x=far[0], y=far[1], z=arch.top, id="")]))


def _steps_raised(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each lowest step (an arch with a brick or the decoration on one end knob and
    nothing on the other) a level higher, with what a staircase puts under it: a brick
    under that knob's leg (the brick on it moved down there; the decoration raised with
    the arch) and, under its other leg, an arch at its old level leading away each way
    but back along it (the decoration in both outlines). Seen from above, a step
    covers nearly the pixels it would a level lower and nearer, and the step under it
    and the brick beside show little; the search, paid for the arch's outline on the
    plate, never props it up (games 13000 turns 10 and 24: a two-step staircase's final
    arch; 17000 turn 57: the brick under the next step's leg read on the arch's knob)."""
    for arch in pieces:
        if arch.kind is not Kind.ARCH:
            continue
        on = {k: [p for p in pieces if p.z == arch.top and k in p.footprint()]
              for k in arch.knobs()}
        held = [k for k, found in on.items() if found]
        if len(held) != 1 or len(on[held[0]]) != 1:
            continue
        knob, rider = held[0], on[held[0]][0]
        if rider.kind is Kind.DECORATION:
            raised = [Piece(Kind.BRICK, *knob, arch.z), rider.moved(z=rider.z + 1, id="")]
        elif rider.kind is Kind.BRICK:
            raised = [rider.moved(z=arch.z, id="")]
        else:
            continue
        near = arch.other_end(knob)
        back = _toward(near, knob)
        raised.append(arch.moved(z=arch.z + 1, id=""))
        for way in SLIDES:
            if way == back:
                continue
            step = _arch_from(near, way, arch.z)
            if step.on_plate():
                yield from both_outlines(replaced(pieces, [arch, rider], [step, *raised]))


def _lowered(pieces: Sequence[Piece], arch: Piece, drop: int) -> list[Piece] | None:
    """``arch`` and all that stands on it ``drop`` levels lower, the bricks of the turn
    that filled those levels under its legs left out; None when a leg stood on
    something else there (an arch, a column, an older piece)."""
    under: list[Piece] = []
    for x, y in arch.legs():
        for level in range(arch.z - drop, arch.z):
            found = [p for p in pieces if (p.x, p.y, p.z) == (x, y, level)]
            if len(found) != 1 or found[0].kind is not Kind.BRICK:
                return None
            under.extend(found)
    riders = _standing_on(pieces, arch)
    moved = {id(p) for p in riders} | {id(arch)}
    gone = {id(p) for p in under}
    out = [p for p in pieces if id(p) not in moved and id(p) not in gone]
    out += [p.moved(z=p.z - drop, id="") for p in (arch, *riders)]
    return out


def _standing_on(pieces: Sequence[Piece], base: Piece) -> list[Piece]:
    """The pieces resting on ``base``, and on those, all the way up."""
    held = [base]
    for piece in sorted(pieces, key=lambda p: p.z):
        if piece is base or piece.z < base.top:
            continue
        if any(piece.z == h.top and cell in h.knobs() for h in held
               for cell in piece.legs()):
            held.append(piece)
    return held[1:]


def stacks_as_steps(pieces: Sequence[Piece]) -> Iterator[list[Piece]]:
    """Each stack of :data:`STEP_STACK` levels on the plate (a column, or bricks) with a
    step's leg on it, taken as the staircase going on down there: a brick, an arch on it
    a level up leading away each way, a brick on that arch's knob under the leg, and an
    arch on the plate under the new arch's far leg (each way but back), the decoration
    in both outlines. From above, the lower steps of a staircase that climbs towards
    the camera hide behind the stack they lead to, and the search, finding the stack's
    outline paid for, reads it as one column (game 12000 turn 54: the truth judged 644.2,
    the column 488.0). A final edit (:mod:`vision.turned`), not one of :func:`edits`:
    the greedy readings rarely end on such a stack."""
    legs = {(x, y, p.z) for p in pieces if p.kind is Kind.ARCH for x, y in p.legs()}
    stacks: dict[tuple[int, int], list[Piece]] = {}
    for p in pieces:
        if p.kind in (Kind.BRICK, Kind.COLUMN):
            stacks.setdefault((p.x, p.y), []).append(p)
    for (x, y), stack in stacks.items():
        stack.sort(key=lambda p: p.z)
        if (stack[0].z != 0 or stack[-1].top != STEP_STACK or (x, y, STEP_STACK) not in legs
                or any(a.top != b.z for a, b in itertools.pairwise(stack))):
            continue
        kept = [p for p in pieces if all(p is not s for s in stack)]
        for dx, dy in SLIDES:  # the four ways along the axes
            far = (x + (ARCH_LENGTH - 1) * dx, y + (ARCH_LENGTH - 1) * dy)
            for ex, ey in SLIDES:
                if (ex, ey) == (-dx, -dy):
                    continue
                trial = [*kept, Piece(Kind.BRICK, x, y, 0), _arch_from((x, y), (dx, dy), 1),
                         Piece(Kind.BRICK, x, y, 2), _arch_from(far, (ex, ey), 0)]
                if all(p.on_plate() for p in trial):
                    yield from both_outlines(trial)


def _toward(start: tuple[int, int], end: tuple[int, int]) -> tuple[int, int]:
    """The unit step along an axis from ``start`` towards ``end`` (cells in a line)."""
    return ((end[0] > start[0]) - (end[0] < start[0]), (end[1] > start[1]) - (end[1] < start[1]))


def _arch_from(cell: tuple[int, int], way: tuple[int, int], z: int) -> Piece:
    """The arch at level ``z`` with an end knob on ``cell`` lying ``way`` from it."""
    span = ARCH_LENGTH - 1
    return Piece(Kind.ARCH, min(cell[0], cell[0] + span * way[0]),
                 min(cell[1], cell[1] + span * way[1]), z,
                 axis=Axis.X if way[0] else Axis.Y)
