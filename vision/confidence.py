"""How sure each piece of a reading is: its margin over the nearest other reading.

For every piece read, the alternatives are the pieces a misreading would most likely
give instead: the same piece a stud over in x or y, a level up or down, an arch turned
about either leg, a column for a brick and back, a column for three bricks in a run and
back, and no piece at all; for a legal staircase's decoration and the arch it stands on,
the staircase one step shorter or longer. Each alternative
that can physically stand in its place (with everything else of the reading) is scored
on the same evidence; the margin of the reading over the best of them, against the size
of the piece's outline, is its confidence. A piece hidden behind a tower has no pixels
to win by, so its margin and its confidence are near zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from rules.palace import Palace
from rules.pieces import Axis, DecorationColor, Kind, Piece, place_key
from rules.staircase import analyse_added
from vision.candidates import PLANT, built_on, stack_swap, staircase_end, supports
from vision.decode import Decoder
from vision.reading import UNCERTAIN_BELOW, PieceReading

MAX_ALTERNATIVES = 3
ILLEGAL_CONFIDENCE = 0.45
"""The most any piece of a reading the rules refuse is trusted: players build legal
staircases, so a refused reading has most likely misread a piece, and one view does not
say which (on the development turns 19 of 27 wrong pieces were in refused readings).
Below :data:`vision.reading.UNCERTAIN_BELOW`, so the players are asked."""
RIVAL_GAP = 50.0
"""A piece that another reading the decoder grew leaves out, while scoring within this
much of the best (half a brick in full view; the legal bonus included), is doubted in
proportion to how close that reading came: the evidence did not decide. On the 80
development turns (games 7000 on) this flags 8 more of 131 wrong pieces (102 to 110)
and 16 more of 332 right ones."""
JUDGED_RIVALS = True
"""Whether a legal reading's pieces are weighed against their rivals with the rules'
word in both (:meth:`vision.decode.Decoder.judged`), as the decoder chose them: a rival
that breaks the staircase loses the legal bonus there too. On the three development
sets of 40 turns (games 6000, 7000, 8000 on) it doubts 10 fewer of 594 right pieces
and as many wrong ones."""
END_RIVALS = True
"""Whether a legal reading's decoration, and the arch it stands on, are weighed against
the staircase one step shorter and one step longer (:func:`_one_step_off`). On eight
development sets of 40 turns with seams (games 6000, 7000, 8000, 10000 to 14000 on) it
flags 7 more of 137 wrong pieces (101 to 108) and 15 more of 1546 right ones."""
SHIFT_RIVALS = True
"""Whether the last arch and its decoration are also weighed a stud over together (in x
or y): a short staircase read a stud off has no rival otherwise, since neither can move
alone. On the eight development sets with seams it flags 2 more of 137 wrong pieces and
1 more of 1546 right ones; under deep shadows none either way."""
START_DOUBT = True
"""Whether a legal reading's decoration is doubted when its staircase's start is
(:func:`_start_open`). On eight development sets of 40 turns with seams it flags 3 more
of 137 wrong pieces (decorations named from a misread start) and 4 more of 1546 right
ones; under deep shadows 1 more of 34 wrong and no right one."""
SURE_SHARE = 0.18
"""A margin of this share of a piece's outline (in evidence units) gives 63 % confidence.
On the three development sets, with the rivals judged: 0.12 / 0.16 / 0.18 / 0.2 / 0.24
doubt 39 / 41 / 43 / 43 / 43 of 51 wrong pieces and 63 / 64 / 65 / 70 / 84 of 594 right
ones. With the six-epoch model trained on deep shadows, a fourth development set of 40 turns under
the room's light and deep shadows (games 9000 on, the Cycles look's hard shadows drawn
by the twin) is doubted 22 of 31 wrong pieces at 0.18 and 28 of 31 at 0.32; over the
four sets 0.32 stops 2 more wrong turns of 160 from going through unasked and asks about
14 more turns that were read right (39 against 25): more alarms than it is worth. The
committed nine-epoch model doubts 56 of the four sets' 75 wrong pieces at 0.18."""
LONE_STEP_DOUBT = True
"""Whether the decoration of a legal reading that is one arch on the ground and nothing
more is trusted no more than :data:`ILLEGAL_CONFIDENCE` (:func:`_lone_step`). On eleven
development sets (games 6000 to 16000 on, 460 turns) it flags 4 more of 241 wrong
pieces (199 to 203) and 2 more of 2340 right ones; on nine of them such readings'
decorations were wrong 9 times in 11."""
LEVEL_RIVALS = True
"""Whether each piece is also weighed against the reading with a level of bricks at or
under it taken out and everything above it a level lower (:func:`_level_out`). On
eleven development sets (games 6000 to 16000 on) it flags 4 more of 241 wrong pieces
(one staircase top read a level too high) and no right one; taking out any level, not
only one of bricks, flagged 4 right ones too."""

SHADE_DOUBT = True
"""Whether three bricks read where a column could stand are doubted when their levels
differ only in light and no seam shows (:func:`_shade_only`), trusted no more than
:data:`ILLEGAL_CONFIDENCE`. On eight development sets of 40 turns (games 6000, 7000,
8000, 10000, 11000, 12000 with seams, 9000 under deep shadows with and without) it
flags 15 more of 143 wrong pieces (111 to 126) and 13 more of 1531 right ones (151 to
164); the readings are the same. On the bench's 200 twin turns, measured after it was
chosen, it flags no more wrong piece and 12 more right ones; on the Cycles turns none
either way."""
HUE_WITHIN = 20.0
"""Chromaticity (:meth:`vision.colours.LevelColours.hue_spread`) within which three
bricks' levels count as one hue. On those sets the true columns read as three bricks
whose levels differ only in light (a shadow across one or two) spread 11.6-16.3, right
stacks of bricks 22-106 but for four with a reddish-brown brick in shade, its hue washed
towards grey (10-17); tan and dark tan are 5 apart. At 25 as many wrong pieces and 5
more right ones are flagged."""
HUE_DARK = 45.0
"""A level darker than this (its side's three channels summed) tells no hue: a true
column in deep shade (game 6000 turn 27, levels summing to 31-35) spread 45-63 in hue,
as far as bricks of their own colours do. Without it the doubt flags 3 fewer wrong
pieces and 7 fewer right ones on those sets."""


def _shade_only(decoder: Decoder, pieces: Sequence[Piece], i: int) -> bool:
    """Whether brick ``i`` is in a run of three that could as well be a column in shade:
    its levels differ in light but hardly in hue (:data:`HUE_WITHIN`), and the seams
    (:mod:`vision.seams`) did not show at its joints. A column whose levels a shadow
    darkens one by one prices as three bricks of different colours do, and three bricks
    of tan and dark tan price so too; only a seam tells them apart, and where none
    shows the reading is a guess (the colours' price, not the evidence's margin, made
    it). A column whose levels' hue no view shows (hidden, or too dark) is doubted too:
    its colours cannot have told it."""
    if pieces[i].kind is not Kind.BRICK:
        return False
    scorer = decoder.scorer
    for _, column in _restacked(pieces, i):
        if (scorer.colours.hue_spread(column, HUE_DARK) < HUE_WITHIN
                and scorer.seams.seen(column) < 0.5):
            return True
    return False


def _variants(piece: Piece) -> Iterator[Piece]:
    for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
        yield piece.moved(x=piece.x + dx, y=piece.y + dy, z=piece.z + dz, id="")
    if piece.kind is Kind.ARCH:
        other = Axis.Y if piece.axis is Axis.X else Axis.X
        for lx, ly in piece.legs():
            for shift in (0, -3):
                if other is Axis.X:
                    yield piece.moved(x=lx + shift, y=ly, axis=other, id="")
                else:
                    yield piece.moved(x=lx, y=ly + shift, axis=other, id="")
    if piece.kind is Kind.BRICK:
        yield piece.moved(kind=Kind.COLUMN, id="")
    if piece.kind in (Kind.BRICK, Kind.COLUMN):
        # An arch with a leg on this cell: from above, a leg looks like a brick.
        for shift in range(4):
            yield Piece(Kind.ARCH, piece.x - shift, piece.y, piece.z, axis=Axis.X)
            yield Piece(Kind.ARCH, piece.x, piece.y - shift, piece.z, axis=Axis.Y)
    if piece.kind is Kind.COLUMN:
        yield piece.moved(kind=Kind.BRICK, id="")


def _decoration_rivals(pieces: Sequence[Piece], i: int) -> Iterator[Piece]:
    """Where the decoration ``pieces[i]`` of a legal reading could stand instead: on the
    other end knob of the arch it stands on, in either outline (a plant's or a round
    one's). Leaving it out, or moving it off an end knob, is no rival there: every
    staircase ends with one decoration on its last arch's end knob, and the arch has its
    own doubts. Nor is its other outline on the same knob: the rules name a legal
    staircase's decoration by the colour where it starts, whatever the outline."""
    piece = pieces[i]
    for arch in pieces:
        if arch.kind is not Kind.ARCH or arch.top != piece.z:
            continue
        knobs = arch.knobs()
        if (piece.x, piece.y) in knobs:
            x, y = knobs[1] if (piece.x, piece.y) == knobs[0] else knobs[0]
            yield Piece(Kind.BRICK, x, y, piece.z)
            yield Piece(Kind.DECORATION, x, y, piece.z, color=PLANT)


def _crowned_arch(pieces: Sequence[Piece], crown: Piece) -> Piece | None:
    """The arch of ``pieces`` whose end knob carries ``crown``."""
    for arch in pieces:
        if (arch.kind is Kind.ARCH and arch.top == crown.z
                and (crown.x, crown.y) in arch.knobs()):
            return arch
    return None


def _one_step_off(before: Palace, pieces: Sequence[Piece], i: int, end: int
                  ) -> Iterator[tuple[list[Piece], Piece]]:
    """The reading with its staircase one step shorter or longer, for the decoration
    ``pieces[end]`` (as the decoder scores it) or the arch it stands on, ``pieces[i]``,
    and the piece that stands for it: the last arch left out and the decoration on the
    knob it stood on, one more arch from the decoration's knob with the decoration on
    its far end, or the two a stud over together. Where a staircase ends is where one
    view misleads most: the last arch's far half over a step the palace hides, or a
    decoration's outline on the first knob of an arch the palace hides."""
    crown = pieces[end]
    arch = _crowned_arch(pieces, crown)
    if i != end and pieces[i] is not arch:
        return
    outlines = (Kind.BRICK, ""), (Kind.DECORATION, PLANT)
    # The reading without its last step (the arch and the decoration on it).
    rest = [p for p in pieces if p is not crown and p is not arch]
    if arch is not None and not any(p.z == arch.top and p is not crown
                                    and set(p.footprint()) & set(arch.footprint())
                                    for p in pieces):
        for x, y in arch.legs():
            if (x, y) != (crown.x, crown.y):
                for kind, colour in outlines:
                    alt = Piece(kind, x, y, arch.z, color=colour)
                    yield [*rest, alt], alt
    if SHIFT_RIVALS and arch is not None:
        # The last arch and its decoration a stud over together: neither moves alone.
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            moved = arch.moved(x=arch.x + dx, y=arch.y + dy, id="")
            top = crown.moved(x=crown.x + dx, y=crown.y + dy, id="")
            if min(moved.x, moved.y) >= 0:
                yield [*rest, moved, top], (top if i == end else moved)
    if i != end:
        return
    uncrowned = [p for p in pieces if p is not crown]
    built = built_on(before, uncrowned)
    if built is None:
        return
    x, y, z = crown.x, crown.y, crown.z
    for step in (Piece(Kind.ARCH, x, y, z, axis=Axis.X),
                 Piece(Kind.ARCH, x - 3, y, z, axis=Axis.X),
                 Piece(Kind.ARCH, x, y, z, axis=Axis.Y),
                 Piece(Kind.ARCH, x, y - 3, z, axis=Axis.Y)):
        if not step.on_plate():
            continue
        fx, fy = next(c for c in step.knobs() if c != (x, y))
        # The far leg on an open knob, or on a stack the reading left out (bricks and
        # columns the far half of the arch hid, or that the palace hides).
        for way in supports(built[0], fx, fy, z, 0):
            for kind, colour in outlines:
                alt = Piece(kind, fx, fy, z + 1, color=colour)
                yield [*uncrowned, *way, step, alt], alt


def _restacked(pieces: Sequence[Piece], i: int) -> Iterator[tuple[list[Piece], Piece]]:
    """The reading with piece ``i``'s stack told the other way
    (:func:`~vision.candidates.stack_swap`), and the piece that stands for it: a column
    as three bricks, any run of three bricks it is in as a column. A level hidden behind
    this turn's other pieces, or a shadow across it, leaves the two open."""
    piece = pieces[i]
    if piece.kind is Kind.COLUMN:
        bases = [piece]
    elif piece.kind is Kind.BRICK:
        at = {p.z: p for p in pieces
              if p.kind is Kind.BRICK and (p.x, p.y) == (piece.x, piece.y)}
        bases = [at[z] for z in range(piece.z - 2, piece.z + 1) if z in at]
    else:
        return
    for base in bases:
        found = stack_swap(base, pieces)
        if found is not None:
            olds, instead = found
            yield [p for p in pieces if not any(p is q for q in olds)] + instead, instead[0]


def _rival_cap(piece: Piece, readings: Sequence[tuple[float, set[tuple[object, ...]]]]
               ) -> float:
    """The most ``piece`` is trusted given the readings the decoder grew (each its score
    and its pieces' place keys): below :data:`~vision.reading.UNCERTAIN_BELOW` by as much
    as a reading without it came close to the best."""
    if not readings:
        return 1.0
    best = max(score for score, _ in readings)
    key = _cell_key(piece)
    gaps = [best - score for score, keys in readings if key not in keys]
    if not gaps or min(gaps) >= RIVAL_GAP:
        return 1.0
    return UNCERTAIN_BELOW * max(min(gaps), 0.0) / RIVAL_GAP


def _cell_key(piece: Piece) -> tuple[object, ...]:
    """What a rival reading must hold to hold ``piece``: a decoration as the 1x1 piece on
    its knob, whatever its outline (the readings hold one as the decoder read it, a
    brick, a round one or a plant; the rules name it afterwards, by where the staircase
    starts)."""
    if piece.kind is Kind.DECORATION:
        return place_key(piece.moved(kind=Kind.BRICK, color=""))
    return place_key(piece)


def _outline(piece: Piece) -> Piece:
    """The piece as the decoder scores it: a round decoration has a brick's outline."""
    if piece.kind is Kind.DECORATION:
        return piece.moved(kind=Kind.BRICK, color="") if piece.color == "gold" else (
            piece.moved(color=PLANT))
    return piece


def _rivals(decoder: Decoder, shape: Sequence[Piece], i: int, end: int | None,
            score: Callable[[Sequence[Piece]], float]) -> list[tuple[float, Piece | None]]:
    """The readings that stand with ``shape[i]`` told otherwise (None: left out), each
    with its ``score``; ``end`` is where a legal reading's decoration is (None: no legal
    staircase)."""
    others = list(shape[:i]) + list(shape[i + 1:])
    trials: list[tuple[list[Piece], Piece | None]] = []
    if END_RIVALS and end is not None:
        trials += list(_one_step_off(decoder.before, shape, i, end))
    if end == i:
        trials += [([*others, alt], alt) for alt in _decoration_rivals(shape, i)]
    else:
        trials.append((others, None))
        trials += [([*others, alt], alt) for alt in _variants(shape[i])
                   if alt.x >= 0 and alt.y >= 0 and alt.z >= 0]
        trials += list(_restacked(shape, i))
    if LEVEL_RIVALS:
        trials += list(_level_out(shape, i, end))
    return [(score(trial), alt) for trial, alt in trials
            if built_on(decoder.before, trial) is not None]


def _level_out(shape: Sequence[Piece], i: int, end: int | None
               ) -> Iterator[tuple[list[Piece], Piece | None]]:
    """The reading with a level of bricks at or under ``shape[i]`` taken out and
    everything above it a level lower, and what stands for the piece then (None: taken
    out). A staircase's top read a level too high on bricks under its arch's legs has
    no other rival: every piece of it holds up another, so none can be left out or
    moved alone. A level with an arch or a decoration in it is the staircase's own
    (``end``: where a legal reading's decoration is, whose gold one has a brick's
    outline in ``shape``)."""
    piece = shape[i]
    for level in range(1, piece.z + 1):
        if any(p.kind is Kind.COLUMN and p.z < level < p.top for p in shape):
            continue
        out = [p for p in shape if p.z == level]
        if not out or any(p.kind is not Kind.BRICK for p in out):
            continue
        if end is not None and shape[end].z == level:
            continue
        trial = [p if p.z < level else p.moved(z=p.z - 1, id="")
                 for p in shape if p.z != level]
        alt = None if piece.z == level else piece.moved(z=piece.z - 1, id="")
        yield trial, alt


def _named(alt: Piece, piece: Piece) -> Piece:
    """An alternative as the players would name it: a decoration's outlines as
    decorations (a round one is gold; a plant keeps the green read, or light green)."""
    if piece.kind is not Kind.DECORATION:
        return alt
    if alt.kind is Kind.DECORATION:
        green = piece.color if piece.color != DecorationColor.GOLD.value else PLANT
        return alt.moved(color=green)
    if alt.kind is Kind.BRICK:
        return alt.moved(kind=Kind.DECORATION, color=DecorationColor.GOLD.value)
    return alt.moved(kind=piece.kind, color=piece.color)


def rate_pieces(decoder: Decoder, pieces: Sequence[Piece], *, legal: bool = True
                ) -> tuple[PieceReading, ...]:
    """Each piece with its confidence and its closest alternatives, best first;
    ``legal`` is whether the rules accept the reading as a staircase."""
    shape = [_outline(p) for p in pieces]
    score = decoder.judged if JUDGED_RIVALS and legal else decoder.score_of
    whole = score(shape)
    readings = [(s, {_cell_key(p) for p in read}) for s, read in decoder.readings]
    # A legal staircase's decoration is doubted only by readings that end on one
    # elsewhere: one with none is no staircase at all (:func:`_decoration_rivals`).
    ending = [r for r, (_, read) in zip(readings, decoder.readings, strict=True)
              if staircase_end(read) is not None]
    end = next((i for i, p in enumerate(pieces) if p.kind is Kind.DECORATION), None)
    end = end if legal else None
    out = []
    for i, piece in enumerate(pieces):
        crown = end == i
        rivals = _rivals(decoder, shape, i, end, score)
        rivals.sort(key=lambda r: -r[0])
        best_rival = rivals[0][0] if rivals else -math.inf
        size = max(decoder.view_area(shape[i]), 1.0)
        margin = whole - best_rival
        confidence = 1.0 - math.exp(-max(margin, 0.0) / (SURE_SHARE * size))
        if not legal:
            confidence = min(confidence, ILLEGAL_CONFIDENCE)
        confidence = min(confidence, _rival_cap(piece, ending if crown else readings))
        if SHADE_DOUBT and _shade_only(decoder, shape, i):
            confidence = min(confidence, ILLEGAL_CONFIDENCE)
        alternatives = tuple(_named(a, piece) for _, a in rivals[:MAX_ALTERNATIVES]
                             if a is not None)
        out.append(PieceReading(piece.moved(id=""), round(confidence, 4), alternatives))
    if end is not None and ((LONE_STEP_DOUBT and _lone_step(pieces))
                            or (START_DOUBT and _start_open(decoder.before, pieces, out))):
        out[end] = replace(out[end], confidence=min(out[end].confidence,
                                                    ILLEGAL_CONFIDENCE))
    return tuple(out)


def _start_open(before: Palace, pieces: Sequence[Piece],
                rated: Sequence[PieceReading]) -> bool:
    """Whether a rival scores at least as well as the piece the staircase starts from
    (its confidence is nothing): the rules name the decoration by the colour where the
    staircase starts, so the decoration's colour is then the evidence's guess too."""
    start = analyse_added(before, pieces).start
    return start is not None and any(
        p.z == 0 and start in p.footprint() and r.confidence <= 0.0
        for p, r in zip(pieces, rated, strict=True))


def _lone_step(pieces: Sequence[Piece]) -> bool:
    """Whether the reading is a staircase of one arch on the ground and its decoration.
    Players take the staircase worth the most credits, one an arch, so one that short is
    rare; and a decoration on a ground arch's knob stands where the next step's near leg
    would, the rest of that step often behind the palace or the step itself. The
    reading has then more likely lost its upper steps than found the whole staircase."""
    return (len(pieces) == 2 and any(p.kind is Kind.DECORATION for p in pieces)
            and any(p.kind is Kind.ARCH and p.z == 0 for p in pieces))
