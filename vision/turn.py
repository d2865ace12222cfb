"""Turn mode: the pieces a turn added to a known palace, read from the frames after it.

The palace before the turn is known exactly, and so is the pose; what is read is only
the change. Each frame after the turn is compared with the settled frame before it (or,
when the loop has none, with the last frame :class:`~vision.look.TableLook` learned of
this palace) to give change evidence per pixel (:mod:`vision.change`); the decoder
(:mod:`vision.decode`) finds the physically possible set of new pieces that best
explains that change in every view at once; the staircase's rules then name the
decoration and its colour, and each piece's confidence is how much better it explains
the pictures than its nearest alternative (:mod:`vision.confidence`).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera
from calibration.evidence import BoardLocation
from rules.maps import GroundMap
from rules.moves import Hand
from rules.palace import Palace
from rules.pieces import BOARD_STUDS, Piece, Voxel
from rules.staircase import analyse_added
from vision.change import change_evidence, changed_share, evened_light, region
from vision.confidence import colour_doubted, rate_pieces
from vision.decode import Decoder
from vision.evidence import (
    COST_LEVEL,
    COST_OVER_OLD,
    HOT_LEVEL,
    LEAF_GAIN,
    Evidence,
    changed_at_all,
    colour_features,
    hot_cells,
    off_board_set_aside,
)
from vision.finish import name_decoration
from vision.look import TableLook
from vision.new_pieces import new_piece_evidence, new_piece_weights
from vision.reading import (
    UNCERTAIN_BELOW,
    PieceReading,
    TurnReading,
    Weighed,
    board_not_found,
)
from vision.silhouettes import View
from vision.unread_studs import opened_palace
from vision.views import (
    BeforeFrames,
    BeforeLocations,
    aligned_before,
    board_box,
    board_space,
    given_or_located,
    pictures_before,
    resolve_turns,
    usable_views,
    working_scale,
)

HEADROOM_LEVELS = 6
MIN_UNEXPLAINED = 2
"""Changed voxels that an empty reading leaves unexplained from which it is uncertain: a
staircase built behind the palace can show only its top, which no move starts from,
while a settled board with nothing new lights none (0 on re-exposed frames of 6
development turns; 4 where a turn hidden behind the palace was read as nothing)."""
FAINT_LEVEL = 0.2
MIN_FAINT_PIXELS = 10
"""A patch of this many working pixels the model gives more than :data:`FAINT_LEVEL` makes
an empty reading uncertain: a plant's leaf tip over the palace's far side is often all
a hidden staircase shows. On 160 development turns (four twin looks) every frame of a
settled board re-exposed (new gain, white balance, noise, JPEG) had no pixel over 0.03;
of the 9 turns read as nothing, 4 had such a patch (16 to 76 pixels), the other 5 none
over 10. The 34 Cycles turns' frames before, re-exposed the same way, show no patch
either. Only the space over the plate counts (:func:`board_space`)."""
OLD_EDGE_PX = 2
OLD_EDGE_NEARER_MM = 8.0
"""Pixels this close to an old surface this much nearer than what they show (about a
stud: a voxel's own distance steps by less over one piece's faces) are an old piece's
soft edge (:func:`_spare_old_edges`)."""
NEW_WITHIN_PX = 3
"""How near a faintly new pixel must be for an old piece's soft edge not to deny a new
piece: on games 21000, 2 px read 3 more turns exactly and 4 px 5, but two others wrong
(a staircase's top read a level high, and one a step short); 3 px read 6 more."""
FAINT_READING_AT_MOST = 0.25
"""The most confidence a piece may have that only the search against nothing
(:meth:`vision.decode.Decoder.search_nothing`) read: the picture showed too little for
the greedy search to start anywhere, so the staircase rests on a few faint pixels and
the rules' bonus, and the players are asked about every piece of it. On games 21000
(first 100 turns and the turns read as nothing) that search read one turn exactly and
put a wrong arch at 0.94 in another."""
NOTHING_READ_DOUBTED = True
"""Whether a reading of nothing new is put to the players even where the pictures show no
trace of a change. The camera loop reads a turn only once the settled picture changed,
and every turn adds a staircase, so a reading of nothing is a staircase not seen: one
built wholly behind the palace changes no pixel the view shows (games 7000 turn 39 and
9000 turn 17, four pieces each: no changed voxel, no faint pixel, nothing in the
classical change), and passed as a sure reading of nothing. A shadow that came and
stayed is asked about too; the players then discard it."""
NOTHING_READ = ("no new piece was seen, yet a turn adds a staircase: is it hidden "
                "behind the palace? (or the light changed)")
"""The reason a reading of nothing gives (:data:`NOTHING_READ_DOUBTED`)."""
NOTHING_BUT_LAID = ("something was laid over or lifted off the board's edge, and no new "
                    "piece was seen: is a staircase hidden behind the palace?")
"""The reason a reading of nothing gives where a patch of change was set aside as
something over the board's edge (:func:`vision.evidence.off_board_set_aside`): a card
laid down or picked up. Put to the players all the same, as any reading of nothing."""
MAX_HOT_CELLS = 1000
"""More changed voxels than this and the frames do not show one turn but a changed
scene (the light, the exposure, a moved camera against a stale frame before): the
search would take minutes to explain it, so the reading is left to the players. One
turn's pieces light up 50 to 500 (497 the most on 80 development turns)."""
CHANGED_EVERYWHERE = ("the picture changed almost everywhere (the light or the camera?): "
                      "not read")
EVERYWHERE_SHARE = 0.2
"""A changed scene, whatever the evidence makes of it: more than this share of the space
over the board changed colour (:func:`vision.change.changed_share`). Measured: one
turn's pieces, a card laid over the edge, a player's shadow or a lamp swung change 0.10
of it at most (twin, Cycles 0.03); a table lit anew 0.49 to 0.51, the webcam turned 0.3
degrees unaligned 0.27 to 0.30, 4 degrees 0.69 to 0.73. A model that no longer takes a
changed light for new pieces leaves :data:`MAX_HOT_CELLS` unreached there."""


def read_turn(
    frames: Sequence[NDArray[np.uint8]],
    camera: Camera,
    before: Palace,
    *,
    before_frame: BeforeFrames = None,
    before_locations: BeforeLocations = None,
    ground: GroundMap | None = None,
    look: TableLook | None = None,
    locations: Sequence[BoardLocation | None] | None = None,
    model: bool = True,
    weigh: Sequence[Piece] | None = None,
    hand: Hand | None = None,
) -> TurnReading:
    """The pieces added to ``before`` as ``frames`` (views after the turn) show them.

    ``before_frame`` is the settled frame before the turn, taken with the board where the
    first of ``frames`` whose board is found sees it; or one such frame per view (None
    for a view that has none): each view is compared with its own, and a view with none
    is not read. Several webcams round the table each give a view and its frame before:
    what one view hides behind the palace, another shows. ``before_locations``, where the
    board lay in those frames (one, or one per view), lets a frame before taken from a
    webcam turned or shifted a little since be brought to where the frame after sees the
    board before they are compared (:func:`vision.views.aligned_before`); without it the
    two are taken to see the board alike. ``locations`` are the poses
    the camera loop already has for ``frames`` (None, or None entries, to locate the
    board here). ``model`` reads the change with the learned new-piece network, else
    with the classical evidence.
    ``hand``: what the player who built could build with, where a game knows it
    (:meth:`rules.game.Game.hand`); a reading that needs more is weighed as one the game
    would refuse (:class:`vision.stacks.Supply`).
    ``weigh``: other added pieces (a bench's truth) to judge against the reading on its
    own evidence (:attr:`TurnReading.weighed`), after its time is taken.
    """
    with collector_paused():
        reading, decoder = _read_turn(frames, camera, before, before_frame,
                                      before_locations, ground, look, locations, model,
                                      hand)
        if weigh is not None and decoder is not None:
            reading = replace(reading, weighed=Weighed(
                decoder.weighed(reading.pieces), decoder.weighed(list(weigh)),
                decoder.score_of(list(weigh))))
        # The turn's candidates go with their decoder, one by one, before the collector
        # runs again: left to it, the first collection walks all of them.
        del decoder
    return reading


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while a turn is read, and let run again after.

    The decoder makes and drops hundreds of thousands of small lists and tuples a turn;
    each few hundred start a collection, and every so often one walks the whole heap,
    which cost about a fifth of a turn's time (median 0.68 against 0.55 s of CPU over 16
    development turns). Nothing the reading does depends on when garbage goes; the
    turn's candidates and ways hold no reference cycles, so they go with its decoder,
    and what little it leaves in cycles is collected once the collector runs again
    (1-2 ms; 11-69 ms when every candidate held its scorer). The pause is the whole
    process's: while a turn is read (half a second), the dashboard's other threads'
    cycles wait too, and the first of them to allocate afterwards pays the collection.
    The camera loop reads one turn at a time, so pauses never overlap."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_turn(frames: Sequence[NDArray[np.uint8]], camera: Camera, before: Palace,
               before_frame: BeforeFrames, before_locations: BeforeLocations,
               ground: GroundMap | None,
               look: TableLook | None, locations: Sequence[BoardLocation | None] | None,
               model: bool, hand: Hand | None) -> tuple[TurnReading, Decoder | None]:
    """The reading, and the decoder whose objective chose it (None where nothing was
    decoded: no board, no frame to compare with, a changed scene)."""
    started = time.perf_counter()
    ground = ground or before.ground
    if not frames:
        return TurnReading(False, "no frames", (), True, None, 0.0), None
    located = given_or_located(frames, camera, ground, locations)
    kept = usable_views(located)
    if not kept:
        return board_not_found(located, started), None
    usable = resolve_turns([(frames[i], located[i]) for i in kept], camera, before)
    first = usable[0][1]
    references = pictures_before(before, before_frame, before_locations, look, len(frames),
                                 kept)
    if all(r is None for r, _ in references):
        return TurnReading(False, "no frame of the palace before the turn to compare with",
                           (), True, first, time.perf_counter() - started), None
    top = max((p.top for p in before), default=0)
    evidence: list[Evidence] = []
    pairs: list[tuple[View, NDArray[np.float32], NDArray[np.float32]]] = []
    # Each view's space over the board, where a new piece can show: asked by the changed
    # share and by both set-asides (the model's evidence and the classical change's).
    spaces: list[NDArray[np.bool_]] = []
    laid = False
    for (frame, loc), (reference, then) in zip(usable, references, strict=True):
        cam = loc.camera or camera
        assert loc.pose is not None
        box = board_box(cam, loc.pose, top + HEADROOM_LEVELS)
        if box is None or reference is None:
            continue
        if then is not None and then.found and then.pose is not None:
            reference = aligned_before(reference, then.camera or camera, then.pose, cam,
                                       loc.pose, box)
        scale = working_scale(cam, loc.pose)
        after = region(frame, box, scale)
        view = View(cam, loc.pose, box, scale)
        view.paint_old(before.pieces)
        # A player's shadow over one side of the board, or a lamp dimmed there since the
        # picture before, is no new piece: the picture before takes that light first.
        pairs.append((view, after, evened_light(region(reference, box, scale), after)))
        spaces.append(board_space(view, top + HEADROOM_LEVELS))
        if changed_share(after, pairs[-1][2], spaces[-1]) > EVERYWHERE_SHARE:
            return TurnReading(True, CHANGED_EVERYWHERE, (), True, first,
                               time.perf_counter() - started), None
        seen = _view_evidence(*pairs[-1], model)
        kept = off_board_set_aside(seen, spaces[-1],
                                   changed_at_all(*pairs[-1][1:]) if model else None)
        laid = laid or kept is not seen
        evidence.append(replace(kept, picture=frame))
    if not evidence:
        return TurnReading(False, "the board is not in view", (), True, first,
                           time.perf_counter() - started), None
    hot = hot_cells(evidence, top)
    if len(hot) > MAX_HOT_CELLS:
        return TurnReading(True, CHANGED_EVERYWHERE, (), True, first,
                           time.perf_counter() - started), None
    decoder = Decoder(opened_palace(before), evidence, hand=hand)
    pieces = decoder.run(hot)
    # The first view kept (a view whose board is out of sight was dropped above) names
    # the decoration: its picture and its view are the same camera's.
    picture = evidence[0].picture
    assert picture is not None
    readings = _rated(decoder, before, pieces, picture, evidence[0].view)
    changed = not readings and (len(hot) >= MIN_UNEXPLAINED or (
        model and _faint_patch(evidence, spaces) >= MIN_FAINT_PIXELS))
    if changed:
        # Something changed, yet nothing was read: weigh whole staircases against nothing,
        # hung from the arches on the voxels the faint pixels show.
        pieces = decoder.search_nothing(hot | _faint_cells(evidence, top))
        if pieces:
            readings = _rated(decoder, before, pieces, picture, evidence[0].view,
                              FAINT_READING_AT_MOST)
    if not readings and not changed and model:
        readings, decoder = _read_classically(before, pairs, spaces, evidence, top, picture,
                                              decoder)
    if not readings and laid:
        return TurnReading(True, NOTHING_BUT_LAID, (), True, first,
                           time.perf_counter() - started), decoder
    if not readings and changed:
        return TurnReading(True, "something changed on the board, but no staircase could "
                           "be read from it (hidden behind the palace?)", (), True, first,
                           time.perf_counter() - started), decoder
    if not readings and NOTHING_READ_DOUBTED:
        return (TurnReading(True, NOTHING_READ, (), True, first, time.perf_counter() - started),
                decoder)
    uncertain = any(r.confidence < UNCERTAIN_BELOW for r in readings)
    return (TurnReading(True, "", readings, uncertain, first, time.perf_counter() - started),
            decoder)


def _read_classically(before: Palace,
                      pairs: Sequence[tuple[View, NDArray[np.float32], NDArray[np.float32]]],
                      spaces: Sequence[NDArray[np.bool_]],
                      evidence: Sequence[Evidence], top: int, picture: NDArray[np.uint8],
                      decoder: Decoder) -> tuple[tuple[PieceReading, ...], Decoder]:
    """The staircase the classical change (:func:`vision.change.change_evidence`) reads
    where the model saw nothing new at all, every piece put to the players.

    The camera loop reads a turn only once the picture changed, and a turn adds a
    staircase: a reading of nothing with no trace in the model's map means the model
    missed it, not that nothing was built. A first arch on the plate half hidden by the
    palace can show only 10 to 24 pixels, which the model finds surely old (two of the
    three development turns read as nothing, games 6000 / 7000: 0.0016 and 0.09 at most
    over the plate; the third shows none of its staircase), while the classical change
    finds 0.96 to 1.0 on the pieces' pixels. The classical change also lights up the
    light's and the exposure's changes, so what it reads rests on weaker evidence: no
    more than :data:`FAINT_READING_AT_MOST` for any piece. The decoder that judged what
    is returned comes back with it: the classical one where it read something, else
    ``decoder`` (the model's, which read nothing)."""
    classical = [replace(off_board_set_aside(_view_evidence(view, after, reference, False),
                                             space), picture=ev.picture)
                 for (view, after, reference), space, ev
                 in zip(pairs, spaces, evidence, strict=True)]
    hot = hot_cells(classical, top)
    if not hot or len(hot) > MAX_HOT_CELLS:
        return (), decoder
    classical_decoder = Decoder(opened_palace(before), classical, hand=decoder.supply.hand)
    # Where no first move gains (the arch's few pixels light one voxel at most), whole
    # staircases round the changed voxels, a level below them too, are weighed against
    # nothing.
    pieces = classical_decoder.run(hot) or classical_decoder.search_nothing(_near(hot, (-1, 0)))
    if not pieces:
        return (), decoder
    return (_rated(classical_decoder, before, pieces, picture, classical[0].view,
                   FAINT_READING_AT_MOST),
            classical_decoder)


def _rated(decoder: Decoder, game: Palace, pieces: Sequence[Piece], picture: NDArray[np.uint8],
           view: View, at_most: float = 1.0) -> tuple[PieceReading, ...]:
    """The decoder's pieces as the turn's readings: the staircase's decoration named
    (:func:`vision.finish.name_decoration`, from ``picture`` as ``view`` sees it), each
    piece rated against its rivals (the decoration doubted where its pixels plainly name
    another colour: :func:`vision.confidence.colour_doubted`), and no piece trusted
    beyond ``at_most`` (a reading that rests on faint or classical evidence only is put
    to the players whole).
    ``game`` is the palace before on the game's own map, whose unknown studs the
    decoder's map has opened (:mod:`vision.unread_studs`): legal is what the game will
    say, the decoration naming such a starting stud."""
    pieces, seen = name_decoration(decoder.before, pieces, picture, view, game.ground)
    legal = analyse_added(game, pieces).legal
    readings = colour_doubted(rate_pieces(decoder, pieces, legal=legal), seen)
    if at_most >= 1.0:
        return readings
    return tuple(replace(r, confidence=min(r.confidence, at_most)) for r in readings)


def _view_evidence(view: View, after: NDArray[np.float32], before: NDArray[np.float32],
                   model: bool) -> Evidence:
    """What each pixel of one view says about new pieces, in the decoder's units.

    With the model, a pixel's weight is the log-odds of its probability of showing a new
    piece, except an old piece's soft edge beside faintly new pixels, raised to 0
    (:func:`_spare_old_edges`). Without it, the classical change (0..1) less a cost: a
    covered pixel that did not change costs three times what a changed one earns over
    the board, where any new piece changes the picture, and far less over the old
    palace, where a new brick in front of an old one of its colour changes nothing.
    """
    if model:
        change = new_piece_evidence(after, before).ravel()
        weight = new_piece_weights(change)
        weight = _spare_old_edges(view, weight)
    else:
        change = change_evidence(after, before).ravel()
        weight = change - np.where(np.isfinite(view.old_depth.ravel()), COST_OVER_OLD,
                                   COST_LEVEL)
    return Evidence(view, weight.astype(np.float32), change > HOT_LEVEL,
                    np.maximum(change - HOT_LEVEL, 0) * LEAF_GAIN, colour_features(after))


def _spare_old_edges(view: View, weight: NDArray[np.float32]) -> NDArray[np.float32]:
    """The model's weights with the denial lifted (raised to zero at least) at the pixels
    within :data:`OLD_EDGE_PX` of an old surface nearer by :data:`OLD_EDGE_NEARER_MM`,
    where a pixel :data:`NEW_WITHIN_PX` away or less is faintly new (:func:`_faint`).

    The picture is softened and the model's map is soft, so for a pixel or two past an
    old piece's outline both show the old piece: a new piece behind that edge is denied
    by pixels that cannot show it (a ground arch tucked against the palace, its far half
    a strip along old edges, read as a brick). Where nothing new shows beside the edge,
    the pixel still denies: a staircase the palace hides all of but its edges earns
    nothing there, and the legal bonus alone does not read it."""
    reach = 2 * OLD_EDGE_PX + 1
    nearest = cv2.erode(view.old_depth, np.ones((reach, reach), np.uint8),
                        borderType=cv2.BORDER_REPLICATE)
    edge = nearest < view.old_depth - OLD_EDGE_NEARER_MM
    faint = (weight > _faint_weight()).reshape(view.shape).astype(np.uint8)
    within = 2 * NEW_WITHIN_PX + 1
    spared = (edge & (cv2.dilate(faint, np.ones((within, within), np.uint8)) > 0)).ravel()
    return np.where(spared, np.maximum(weight, 0), weight).astype(np.float32)


def _faint_weight() -> float:
    """The model's weight (:func:`new_piece_weights`) at :data:`FAINT_LEVEL`."""
    return float(new_piece_weights(np.array([FAINT_LEVEL], np.float32))[0])


def _faint(ev: Evidence) -> NDArray[np.bool_]:
    """The view's pixels (flat) the model finds more than :data:`FAINT_LEVEL` likely new,
    read from its weights, which are the model's log-odds (:func:`new_piece_weights`; the
    old edges :func:`_spare_old_edges` raised to 0 count as faint too, harmlessly: they are
    spared only within reach of faintly new pixels)."""
    return ev.weight > _faint_weight()


def _faint_patch(evidence: Sequence[Evidence], spaces: Sequence[NDArray[np.bool_]]) -> int:
    """Pixels in the largest patch, within each view's space over the plate (``spaces``,
    :func:`vision.views.board_space`), that the model finds more than :data:`FAINT_LEVEL`
    likely new (:func:`_faint`); only for a reading of nothing: the one reading it can
    change."""
    return max(_largest_patch(_faint(ev).reshape(ev.view.shape) & space)
               for ev, space in zip(evidence, spaces, strict=True))


def _faint_cells(evidence: Sequence[Evidence], top: int) -> set[Voxel]:
    """Voxels mostly on the faint pixels (:func:`_faint`, :func:`hot_cells` on them) and
    their neighbours on the board: the most a staircase hidden behind the palace shows."""
    return _near(hot_cells(evidence, top, [_faint(ev) for ev in evidence]), (0,))


def _near(cells: set[Voxel], levels: Sequence[int]) -> set[Voxel]:
    """``cells`` and their neighbours on the board, a stud aside and ``levels`` up: a
    piece half hidden lights only some of its own voxels, and a first arch only those a
    level above its own (so the classical re-read looks a level down too)."""
    return {(x + dx, y + dy, z + dz) for x, y, z in cells for dx in (-1, 0, 1)
            for dy in (-1, 0, 1) for dz in levels
            if 0 <= x + dx < BOARD_STUDS and 0 <= y + dy < BOARD_STUDS and z + dz >= 0}


def _largest_patch(mask: NDArray[np.bool_]) -> int:
    """Pixels in the largest 8-connected patch of ``mask``."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8),
                                                          connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if count > 1 else 0

