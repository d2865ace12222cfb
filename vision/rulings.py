"""The rules' say on a reading the greedy search grew: the decoration, and the supports.

The search grows what the picture shows; two things a staircase always has, the
picture often hides, and only the rules can ask for them: the decoration on the last
arch's end knob (that arch itself often hides it), and the lower steps under an arch's
legs (the search props an arch whose lower steps it cannot see on the fewest pieces, a
lone brick; the steps a player built there are mostly behind it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rules.pieces import DecorationColor, Kind, Piece
from vision.candidates import PLANT, built_on, staircase_end, supports
from vision.scored_piece import Candidate, PieceKey, Pixels, piece_key

if TYPE_CHECKING:
    from vision.decode import Decoder

RESUPPORT_DEPTH = 2
"""Steps of a staircase :func:`resupport` tries under a finished reading's
arches."""
CROWN_TOLERANCE = 0.3
"""How far below zero the mean evidence of a decoration's visible pixels may fall and
the rules' decoration still be put on: every staircase ends with one, and it stands on
the last arch's end knob, often behind that very arch."""


def off_rim(outline: Pixels, shown: Pixels, width: int) -> Pixels:
    """The pixels of ``shown`` (a part of ``outline``, flat in a view ``width`` wide)
    whose four neighbours all lie in ``outline``: those that may deny a decoration. A
    pixel on the rim mixes the piece with what stands behind it, and a pose a pixel off
    moves it, so the learned evidence there says little; yet where an arch covers most
    of its decoration, the rim is all it leaves (game 21000 turn 195: 5 pixels at -0.51,
    the whole outline at 0.62; turn 91: 50 at -0.31, of which the 31 off the rim average
    -0.18)."""
    if not len(shown):
        return shown
    # Looked up in the sorted outline: a decoration's few hundred pixels, asked of every
    # proposal's top, where ``np.isin`` costs fifteen times as much.
    ordered = np.sort(outline)
    neighbours = shown[None, :] + np.array([1, -1, width, -width], np.intp)[:, None]
    at = np.minimum(np.searchsorted(ordered, neighbours), len(ordered) - 1)
    column = shown % width
    inner = (ordered[at] == neighbours).all(axis=0) & (column > 0) & (column < width - 1)
    return shown[inner]


def crown(decoder: Decoder) -> None:
    """Puts the rules' decoration on the highest arch of the reading when none was
    read and its visible pixels do not speak against it: the decoration stands on
    the last arch's end knob, where that arch itself often hides it, and every
    staircase ends with one."""
    if staircase_end(decoder.added) is not None:
        return
    decoder.scorer.sync(decoder.masks)
    best: tuple[tuple[int, float], Piece] | None = None
    for arch, piece in _decorations_on(decoder, decoder.added):
        cand = decoder.scorer.candidate(piece)
        fresh = 0
        evidence = decoder.scorer.fresh(cand) + cand.price
        for i, (shown, inner) in enumerate(_shown_off_rim(decoder, cand)):
            fresh += len(inner)
            # The rim's pixels neither deny the decoration nor pay for it.
            evidence -= float(decoder.evidence[i].weight[shown].sum()
                              - decoder.evidence[i].weight[inner].sum())
        if fresh and evidence < -CROWN_TOLERANCE * fresh:
            continue
        rank = (arch.top, evidence)
        if best is None or rank > best[0]:
            best = (rank, piece)
    if best is not None:
        decoder.apply([best[1]])


JUDGED_CROWN = True
"""Whether a chosen reading that still has no decoration is given a mostly hidden one
where that judges better (:func:`judged_crown`); off only to measure what it brings."""
MOSTLY_HIDDEN = 0.25
"""The share of a decoration's outline, off its rim and not behind the reading's other
pieces, under which its pixels are too few to deny it (:func:`judged_crown`)."""


def judged_crown(decoder: Decoder) -> bool:
    """Puts on the chosen reading the decoration the decoder's objective judges best,
    among those the reading's own pieces mostly hide (less than :data:`MOSTLY_HIDDEN`
    of the outline shown off its rim), where the reading has none and one judges better
    than none; returns whether it did. :func:`crown` and the staircase search leave out
    a decoration whose shown pixels deny it, so that the legal bonus does not put one
    where the picture plainly shows nothing new; but behind the final arch a decoration
    shows a sliver (a dozen pixels), too few to tell it from the arch's own edge, and a
    reading without it is no staircase at all. Weighed whole (every piece's evidence
    with the rules' word), the reading then says which end knob and outline."""
    if not JUDGED_CROWN or staircase_end(decoder.added) is not None:
        return False
    current = list(decoder.added)
    best_score, best = decoder.judged(current), None
    for _, piece in _decorations_on(decoder, current):
        cand = decoder.scorer.candidate(piece)
        seen = sum(len(inner) for _, inner in _shown_off_rim(decoder, cand))
        if seen >= MOSTLY_HIDDEN * cand.size:
            continue
        score = decoder.judged([*current, piece], best_score)
        if score > best_score:
            best_score, best = score, piece
    return best is not None and decoder.take([*current, best])


def _decorations_on(decoder: Decoder, pieces: Sequence[Piece]) -> Iterator[tuple[Piece, Piece]]:
    """Each arch of ``pieces`` with each decoration that fits on one of its open end
    knobs, in a plant's outline and the round one."""
    for arch in pieces:
        if arch.kind is not Kind.ARCH:
            continue
        for x, y in arch.knobs():
            if not decoder.state.is_open_knob(x, y, arch.top):
                continue
            for colour in (PLANT, DecorationColor.GOLD.value):
                piece = Piece(Kind.DECORATION, x, y, arch.top, color=colour)
                if decoder.state.fits(piece):
                    yield arch, piece


def _shown_off_rim(decoder: Decoder, cand: Candidate) -> list[tuple[Pixels, Pixels]]:
    """Per view, the candidate's pixels the reading's pieces leave in view, and those
    of them off its rim (:func:`off_rim`)."""
    out = []
    for i, px in enumerate(cand.pixels):
        shown = px[~decoder.masks[i][px]]
        out.append((shown, off_rim(px, shown, decoder.evidence[i].view.shape[1])))
    return out


def resupport(decoder: Decoder) -> float:
    """Tries, under each leg of each arch read (lowest first), every other way to
    hold it up (``RESUPPORT_DEPTH`` steps of staircase down), and keeps the reading
    that is judged best; returns its score. The greedy search props an arch whose
    lower steps it cannot see on the fewest pieces, a lone brick; the steps a player
    built there are mostly hidden behind it, and only the rules can ask for them."""
    current = list(decoder.added)
    best = decoder.judged(current)
    done: set[PieceKey] = set()
    while True:
        # The arches a way brought in are tried too, lowest first: a step found under
        # a leg has legs of its own, and the steps under them are the next to be hidden.
        todo = [p for p in current if p.kind is Kind.ARCH and piece_key(p) not in done]
        if not todo:
            return best
        key = piece_key(min(todo, key=lambda p: p.z))
        done.add(key)
        for leg in range(2):
            arch = next((p for p in current if piece_key(p) == key), None)
            if arch is None:
                break
            x, y = arch.legs()[leg]
            under = [p for p in current if p is not arch and p.top <= arch.z
                     and (x, y) in p.footprint()]
            keep = [p for p in current if p not in under]
            below = built_on(decoder.before, [p for p in keep if p.top <= arch.z])
            if below is None:
                continue
            # The best way, not the first that beats the reading: a stack comes first
            # and often beats a lone brick, where the steps a player built beat both.
            found: tuple[float, list[Piece]] | None = None
            for way in supports(below[0], x, y, arch.z, RESUPPORT_DEPTH):
                trial = keep + way
                if sorted(map(piece_key, way)) == sorted(map(piece_key, under)):
                    continue
                floor = best if found is None else found[0]
                score = decoder.judged(trial, floor)
                if score > floor and built_on(decoder.before, trial) is not None:
                    found = (score, trial)
            if found is not None and decoder.take(found[1]):
                best, current = found[0], list(decoder.added)
