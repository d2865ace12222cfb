"""How sure each piece of a reading is: its margin over the nearest other reading.

For every piece read, the alternatives are the pieces a misreading would most likely
give instead (:mod:`vision.rival_readings`: the same piece a stud over, a level up or
down, an arch turned, a column for bricks and back, no piece at all, a staircase a step
shorter or longer, ...). Each alternative that can physically stand in its place (with
everything else of the reading) is scored on the same evidence; the margin of the
reading over the best of them, against the size of the piece's outline, is its
confidence. A piece hidden behind a tower has no pixels to win by, so its margin and its
confidence are near zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from rules.palace import Palace
from rules.pieces import DecorationColor, Kind, Piece, place_key
from rules.staircase import analyse_added
from vision.candidates import PLANT, staircase_end
from vision.column_doubts import SHADE_DOUBT, column_price_doubted, shade_only
from vision.confidence_fit import rated_by_fit
from vision.decode import Decoder
from vision.finish import SeenColour
from vision.reading import UNCERTAIN_BELOW, PieceReading
from vision.rival_readings import rival_readings

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
HAND_IN_DOUBTS = False
"""Whether a piece's rivals are weighed with the builder's hand priced in as the decoder
chose by it (:data:`vision.decode.BEYOND_HAND_PRICE`). The hand chooses the reading; a
rival it prices down still shows what else the pixels could be."""
JUDGED_RIVALS = True
"""Whether a legal reading's pieces are weighed against their rivals with the rules'
word in both (:meth:`vision.decode.Decoder.judged`), as the decoder chose them: a rival
that breaks the staircase loses the legal bonus there too. On the three development
sets of 40 turns (games 6000, 7000, 8000 on) it doubts 10 fewer of 594 right pieces
and as many wrong ones."""
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
FITTED_CONFIDENCE = True
"""Whether each piece's confidence is the fitted model's (:mod:`vision.confidence_fit`,
over the hand-made confidence and its parts) rather than the hand-made one. On the four
development sets of 60 turns (games 9000-12000) it flags 118 of 127 wrong pieces
against 107 and 219 of 1144 right ones against 150; held out (games 8000, 15000) 42 of
51 against 34 and 92 of 504 against 64 (docs/vision-log.md, "A fitted confidence")."""
LONE_STEP_DOUBT = True
"""Whether the decoration of a legal reading that is one arch on the ground and nothing
more is trusted no more than :data:`ILLEGAL_CONFIDENCE` (:func:`_lone_step`). On eleven
development sets (games 6000 to 16000 on, 460 turns) it flags 4 more of 241 wrong
pieces (199 to 203) and 2 more of 2340 right ones; on nine of them such readings'
decorations were wrong 9 times in 11."""

GROUND_ARCH_OUTLINE = True
"""Whether a brick or column on the ground under a leg of the next step is weighed
against an arch on the ground from its cell with the margin against the arch's outline
(:func:`_ground_arch_cap`). On four development sets (games 6000, 7000, 8000 on, 9000
under deep shadows, 160 turns) it flags 2 more of 51 wrong pieces (45 to 47) and 2 more
of 805 right ones (82 to 84)."""

NOTHING_SHARE = 0.8
"""A piece's margin over the rival that stands for it with nothing (the reading without
it, or with its level taken out: :mod:`vision.rival_readings`) is also measured against
this share of its outline: 63 % confidence at 0.8 of the outline, under
:data:`~vision.reading.UNCERTAIN_BELOW` below 0.55. A piece in full view wins over
nothing by about its outline's evidence; one that wins by a fraction of it was, for the
most part, not seen, and a staircase's top read a level too high on bricks wins by no
more (the level-out reading differs by one level's strip). On six development sets
(games 21000, 6000, 7000, 9000 deep, and 30 turns each at 640x480 and under a strong
blur) 58 pieces had such a rival among their six nearest: the wrong ones won by 0 to
0.51 of their outline, the right ones by 0 to 0.37 (7, all but one doubted already) or by
1.21 and more (docs/vision-log.md, "The doubts measured as one test (issue #12)")."""
START_COLOUR_DOUBT = True
"""Whether a legal reading's decoration is trusted no more than the piece its staircase
starts from is against its rivals that would start the staircase on ground of another
colour (:func:`_start_colour_cap`). The rules name the decoration by that colour, so a
start the evidence barely chose is a colour it barely chose; the decoration's own rivals
(its other knob, a step shorter or longer) never change the colour. On seven
development sets (games 6000, 7000, 9000 deep, 21000, and 640x480, blurred and
coloured-light sets) it flags 4 more of 164 wrong pieces (three of them off the twin's
look) and 14 more of 2029 right ones (docs/vision-log.md, "Where flagging fails off the
twin (issue #12, second round)")."""
START_COLOUR_SHARE = 0.3
"""The share of the start piece's outline its margin over such a rival is measured
against: 63 % confidence at 0.3, under :data:`~vision.reading.UNCERTAIN_BELOW` below
0.21 of the outline. 0.18 / 0.3 / 0.5 / 0.8 flag 3 / 4 / 4 / 4 more wrong pieces on the
seven sets and 13 / 14 / 25 / 37 more right ones."""
LOWER_DOUBT = True
"""Whether a piece's margin over the same piece a level lower (the staircase with the
level under it taken out, :func:`vision.rival_readings._level_out`) is also measured
against :data:`NOTHING_SHARE` of its outline, as the margin over nothing is
(:func:`_outline_cap`). On the seven sets it flags 3 more of 164 wrong pieces (a blurred
staircase's top read a level high) and 2 more of 2029 right ones."""
SEEN_COLOUR_DOUBT = True
"""Whether a decoration whose own pixels plainly name another colour than the rules give
it (:meth:`vision.finish.SeenColour.contradicts`) is trusted no more than
:data:`ILLEGAL_CONFIDENCE` (:func:`colour_doubted`)."""


def colour_doubted(readings: Sequence[PieceReading], seen: SeenColour | None
                   ) -> tuple[PieceReading, ...]:
    """``readings`` with the decoration doubted where its pixels plainly name another
    colour than the one it was given, that colour its first alternative.

    The rules name the decoration by the ground its staircase starts on, so a decoration
    that looks another colour means a misread start (the whole staircase a stud or a
    step off, behind the palace, or a brick read as a first arch) or a player who broke
    rule 6: either way the players are asked, as for a reading the rules refuse. Applied
    after the fitted confidence (:mod:`vision.confidence_fit`), which never saw the
    picture's colour: on the 240 development turns it asks about 3 of the 4 wrong
    reports the confidence let through, and no turn read right more; on 1,200 fresh
    turns 5 of 14, for 5 turns read right."""
    if not SEEN_COLOUR_DOUBT or seen is None:
        return tuple(readings)
    out = []
    for reading in readings:
        piece = reading.piece
        if piece.kind is Kind.DECORATION and seen.contradicts(piece.color):
            other = piece.moved(color=seen.colour)
            reading = replace(reading, confidence=min(reading.confidence, ILLEGAL_CONFIDENCE),
                              alternatives=(other, *(a for a in reading.alternatives
                                                     if a != other))[:MAX_ALTERNATIVES])
        out.append(reading)
    return tuple(out)


def _rival_cap(gap: float) -> float:
    """The most a piece is trusted given how close the best grown reading without it
    came (:func:`_rival_gap`): below :data:`~vision.reading.UNCERTAIN_BELOW` by as much
    as that reading came close to the best."""
    return 1.0 if gap >= 1.0 else UNCERTAIN_BELOW * gap


def _cell_key(piece: Piece) -> tuple[object, ...]:
    """What a rival reading must hold to hold ``piece``: a decoration as the 1x1 piece on
    its knob, whatever its outline (the readings hold one as the decoder read it, a
    brick, a round one or a plant; the rules name it afterwards, by where the staircase
    starts)."""
    if piece.kind is Kind.DECORATION:
        return place_key(piece.moved(kind=Kind.BRICK, color=""))
    return place_key(piece)


def _outline(piece: Piece) -> Piece:
    """The piece as the decoder scores it: a decoration as a round one or a plant
    (which green it is, the outline cannot tell)."""
    if piece.kind is Kind.DECORATION and piece.color != DecorationColor.GOLD.value:
        return piece.moved(color=PLANT)
    return piece


def _named(alt: Piece, piece: Piece) -> Piece:
    """An alternative as the players would name it: a decoration's outlines as
    decorations (a round one is gold; a plant keeps the green read, or light green)."""
    if piece.kind is not Kind.DECORATION:
        return alt
    if alt.kind is Kind.DECORATION:
        if alt.color == DecorationColor.GOLD.value:
            return alt
        green = piece.color if piece.color != DecorationColor.GOLD.value else PLANT
        return alt.moved(color=green)
    return alt.moved(kind=piece.kind, color=piece.color)


def rate_pieces(decoder: Decoder, pieces: Sequence[Piece], *, legal: bool = True
                ) -> tuple[PieceReading, ...]:
    """Each piece with its confidence and its closest alternatives, best first;
    ``legal`` is whether the rules accept the reading as a staircase."""
    shape = [_outline(p) for p in pieces]
    score = (partial(decoder.judged, hand=HAND_IN_DOUBTS) if JUDGED_RIVALS and legal
             else decoder.score_of)
    whole = score(shape)
    readings = [(s if HAND_IN_DOUBTS else s + decoder.hand_price(read),
                 {_cell_key(p) for p in read}) for s, read in decoder.readings]
    # A legal staircase's decoration is doubted only by readings that end on one
    # elsewhere: one with none is no staircase at all (:mod:`vision.rival_readings`).
    ending = [r for r, (_, read) in zip(readings, decoder.readings, strict=True)
              if staircase_end(read) is not None]
    end = next((i for i, p in enumerate(pieces) if p.kind is Kind.DECORATION), None)
    end = end if legal else None
    out = []
    scored: list[list[tuple[float, list[Piece]]]] = []
    # Some rivals are the same reading for several pieces (a level taken out, a
    # staircase a step shorter): each is scored once.
    once: dict[tuple[Piece, ...], float] = {}

    def score_once(trial: list[Piece]) -> float:
        key = tuple(trial)
        if key not in once:
            once[key] = score(trial)
        return once[key]

    parts: list[dict[str, float]] = []
    for i, piece in enumerate(pieces):
        crown = end == i
        trials = rival_readings(decoder.before, shape, i, end, decoder.supply)
        scored_trials = [(score_once(trial), trial, alt) for trial, alt in trials]
        scored.append([(s, trial) for s, trial, _ in scored_trials])
        rivals = sorted(((s, alt) for s, _, alt in scored_trials), key=lambda r: -r[0])
        best_rival = rivals[0][0] if rivals else -math.inf
        gap = _rival_gap(piece, ending if crown else readings)
        part = {"sure": _sureness(decoder, whole - best_rival, shape[i]),
                "margin_share": (whole - best_rival) / max(decoder.view_area(shape[i]), 1.0),
                "outline_cap": _outline_cap(decoder, shape[i], whole, rivals),
                "ground_arch_cap": (_ground_arch_cap(decoder, shape, i, whole, rivals)
                                    if GROUND_ARCH_OUTLINE else 1.0),
                "legal": float(legal),
                "rival_cap": _rival_cap(gap),
                "rival_gap": gap,
                "shade": float(SHADE_DOUBT and shade_only(decoder, shape, i)),
                "column_cap": (ILLEGAL_CONFIDENCE if column_price_doubted(
                    decoder, shape, i, whole, rivals) else 1.0),
                "end_doubt": 0.0, "start_colour_cap": 1.0}
        parts.append(part)
        confidence = min(part["sure"], part["outline_cap"], part["ground_arch_cap"],
                         part["rival_cap"], part["column_cap"],
                         ILLEGAL_CONFIDENCE if not legal or part["shade"] else 1.0)
        alternatives = tuple(_named(a, piece) for _, a in rivals[:MAX_ALTERNATIVES]
                             if a is not None)
        out.append(PieceReading(piece.moved(id=""), round(confidence, 4), alternatives))
    if end is not None and ((LONE_STEP_DOUBT and _lone_step(pieces))
                            or (START_DOUBT and _start_open(decoder.before, pieces, out))):
        parts[end]["end_doubt"] = 1.0
        out[end] = replace(out[end], confidence=min(out[end].confidence,
                                                    ILLEGAL_CONFIDENCE))
    if end is not None and START_COLOUR_DOUBT:
        cap = _start_colour_cap(decoder, pieces, shape, whole, scored)
        parts[end]["start_colour_cap"] = cap
        out[end] = replace(out[end], confidence=round(min(out[end].confidence, cap), 4))
    return rated_by_fit(decoder, shape, out, parts, FITTED_CONFIDENCE)


def _rival_gap(piece: Piece, readings: Sequence[tuple[float, set[tuple[object, ...]]]]
               ) -> float:
    """How close the best grown reading without ``piece`` came, as a share of
    :data:`RIVAL_GAP` (1 where none came that close)."""
    best = max((score for score, _ in readings), default=0.0)
    key = _cell_key(piece)
    gaps = [best - score for score, keys in readings if key not in keys]
    return min(max(min(gaps, default=RIVAL_GAP), 0.0) / RIVAL_GAP, 1.0)


def _outline_cap(decoder: Decoder, outline: Piece, whole: float,
                 rivals: Sequence[tuple[float, Piece | None]]) -> float:
    """The most a piece is trusted against the rivals that take it away (1 where none
    stands): nothing in its place, and (:data:`LOWER_DOUBT`) the same piece a level
    lower, which takes the level under it out. Its margin over the best of them is
    weighed against :data:`NOTHING_SHARE` of ``outline``, a piece in full view's worth,
    not a share of it: a piece seen where it stands wins by about its outline's
    evidence, and one that wins by a fraction of it was mostly not seen, or sits at a
    height the pictures did not fix (a staircase's top a level too high on bricks, a
    blurred frame's top read a level high)."""
    caps = [_sureness(decoder, whole - score, outline, NOTHING_SHARE)
            for score, alt in rivals
            if alt is None or (LOWER_DOUBT and _level_lower(alt, outline))]
    return min(caps, default=1.0)


def _level_lower(alt: Piece, piece: Piece) -> bool:
    """Whether ``alt`` is ``piece`` held a level lower."""
    return alt.kind is piece.kind and (alt.x, alt.y, alt.z) == (piece.x, piece.y, piece.z - 1)


def _start_colour_cap(decoder: Decoder, pieces: Sequence[Piece], shape: Sequence[Piece],
                      whole: float, scored: Sequence[Sequence[tuple[float, list[Piece]]]]
                      ) -> float:
    """The most a legal reading's decoration is trusted given the piece its staircase
    starts from: the margin of the reading over that piece's best rival that would start
    the staircase on ground of another colour (a rival that is no staircase names none),
    against :data:`START_COLOUR_SHARE` of the start piece's outline (1 where no rival
    names another colour). The colour is the rules' word on the start, so it is as sure
    as the start is against the readings that would change it."""
    report = analyse_added(decoder.before, _probed(pieces))
    if report.start is None or report.start_color is None:
        return 1.0
    cap = 1.0
    for i, piece in enumerate(shape):
        if piece.z != 0 or report.start not in piece.footprint():
            continue
        other = [s for s, trial in scored[i]
                 if analyse_added(decoder.before, _probed(trial)).start_color
                 not in (None, report.start_color)]
        if other:
            cap = min(cap, _sureness(decoder, whole - max(other), piece, START_COLOUR_SHARE))
    return cap


def _probed(pieces: Sequence[Piece]) -> list[Piece]:
    """``pieces`` with each decoration gold, as :func:`vision.finish.name_decoration`
    asks the rules where the staircase starts (the colour is then theirs to name)."""
    return [p.moved(color=DecorationColor.GOLD.value) if p.kind is Kind.DECORATION else p
            for p in pieces]


def _ground_arch_cap(decoder: Decoder, shape: Sequence[Piece], i: int, whole: float,
                     rivals: Sequence[tuple[float, Piece | None]]) -> float:
    """The most a brick or column on the ground under a leg of the next step is trusted
    against an arch on the ground with a leg on its cell: the margin over each such
    rival against the arch's outline, not the piece's. The step above hides the arch's
    near half and often the palace its far half, so its outline shows as the brick's
    near end; what tells the two apart is the arch's far half alone, and a margin the
    size of a brick's outline is a margin on half an arch's pixels. An arch whose far
    leg stands where the reading has a piece of its own on the ground
    (:func:`vision.rival_readings._leg_arches`: two bricks for its two ends) is weighed
    as any rival is: there the far end shows, as that piece."""
    piece = shape[i]
    if piece.kind not in (Kind.BRICK, Kind.COLUMN) or piece.z != 0:
        return 1.0
    if not any(a.kind is Kind.ARCH and a.z == piece.top and (piece.x, piece.y) in a.legs()
               for a in shape):
        return 1.0
    cap = 1.0
    for score, alt in rivals:
        if (alt is not None and alt.kind is Kind.ARCH and alt.z == 0
                and (piece.x, piece.y) in alt.legs()
                and not any(p is not piece and p.z == 0 and set(p.footprint()) & set(alt.legs())
                            for p in shape)):
            cap = min(cap, _sureness(decoder, whole - score, alt))
    return cap


def _sureness(decoder: Decoder, margin: float, outline: Piece,
              share: float = SURE_SHARE) -> float:
    """A margin as a confidence, against ``share`` of the size of ``outline`` in the
    view (:data:`SURE_SHARE` unless said): a margin a piece's outline would win by in
    full view is worth more on a small piece than on a large one."""
    size = max(decoder.view_area(outline), 1.0)
    return 1.0 - math.exp(-max(margin, 0.0) / (share * size))


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
