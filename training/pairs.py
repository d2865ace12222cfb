"""Seeded turns as a webcam sees them: the settled frame before the turn and after it.

Two settled frames of one table share the table, the light and what lies around the
board, and differ in the pieces added and in what the webcam does frame to frame. The
twin draws its table, light and clutter after one random draw per piece (its colour
tint), so the two frames are rendered with the tints off (the same draws then give the
same table and clutter) and the frame after is re-developed here: its own exposure and
white-balance drift, fresh sensor noise and a JPEG round trip.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose
from calibration.evidence import BoardLocation
from rules import GameRecord, Palace, Piece, load_map, simulate_game
from rules.maps import GroundMap
from rules.moves import Hand
from rules.pieces import BRICK_MM, pieces_added, pieces_built
from rules.random_map import random_map
from twin import Card, Frame, Phone, Relight, RenderOptions, Slab, random_camera, render
from twin.cameras import SecondWebcamFrames, around_board
from twin.clutter import Laid
from twin.wide import WIDE_FILL


@dataclass(frozen=True)
class TurnPair:
    """One turn: the palace before, the pieces truly added, both frames and the camera."""

    game: int
    turn: int
    before: Palace
    added: tuple[Piece, ...]
    before_frame: NDArray[np.uint8]
    after_frame: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    ground: GroundMap
    new_mask: NDArray[np.bool_]
    """Pixels of the frame after that show a piece this turn added (animals, which only
    move, are not pieces added)."""
    new_height: NDArray[np.float32] | None = None
    """Per pixel of ``new_mask``, the height above the plate of the surface seen there, in
    brick levels (9.6 mm; a brick on the plate shows 0 to 1 on its sides, 1 and a stud on
    its top); NaN elsewhere."""
    second: SecondWebcamFrames | None = None
    """The same turn as a second webcam sees it (``turn_pairs(..., second_view=...)``)."""
    hand: Hand | None = None
    """What the player who built could build with (:meth:`rules.game.Game.hand`): the
    camera loop knows it from the game, and a reading is weighed against it."""


class SeenTurn(Protocol):
    """A turn's frames as a pair holds them: a twin :class:`TurnPair` or a path-traced
    ``twin.cycles.frames.ValidationTurn``."""

    @property
    def camera(self) -> Camera: ...

    @property
    def pose(self) -> Pose: ...

    @property
    def before_frame(self) -> NDArray[np.uint8]: ...

    @property
    def after_frame(self) -> NDArray[np.uint8]: ...

    @property
    def second(self) -> SecondWebcamFrames | None: ...


@dataclass(frozen=True)
class Views:
    """What a turn's reading is handed: the frames after, each view's frame before, and
    each view's board where it truly lies."""

    frames: list[NDArray[np.uint8]]
    befores: list[NDArray[np.uint8]]
    locations: list[BoardLocation]


def webcam_views(turn: SeenTurn) -> list[Views]:
    """The turn as a table with one webcam sees it, and, where a second webcam filmed it
    too, as a table with both sees it; the true poses given."""
    first = BoardLocation(True, pose=turn.pose, rotation=0, camera=turn.camera)
    views = [Views([turn.after_frame], [turn.before_frame], [first])]
    second = turn.second
    if second is not None:
        other = BoardLocation(True, pose=second.pose, rotation=0, camera=turn.camera)
        views.append(Views([turn.after_frame, second.after_frame],
                           [turn.before_frame, second.before_frame], [first, other]))
    return views


def redevelop(image: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """Another exposure of the same scene: gain and white balance drift, new noise, JPEG."""
    gain = rng.uniform(0.92, 1.08) * rng.uniform(0.97, 1.03, 3)
    out = image.astype(np.float32) * gain[None, None, :]
    out += rng.normal(0, rng.uniform(1.0, 3.5), out.shape[:2])[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 96))
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out


SLAB_SHARE = 0.5
"""With ``things``, the share of the things laid or picked up that are slabs, not cards."""


def _card_moves(rng: np.random.Generator, always: bool, chance: float, phone: bool = False,
                things: bool = False) -> tuple[tuple[Laid, ...], tuple[Laid, ...]]:
    """The cards over the board's edge in a turn's frames after and before: one laid
    (always, or with ``chance``), one picked up (with ``chance``), or none. The card is
    drawn first, so that ``always`` lays the very card it laid before chances were drawn;
    ``phone`` lays a phone instead (:meth:`twin.Phone.over_an_edge`). ``things``:
    a chance's thing is a slab (:class:`twin.clutter.Slab`) :data:`SLAB_SHARE` of the
    time, drawn after the chance, so the turns without one are as without ``things``."""
    card: tuple[Laid, ...] = ((Phone if phone else Card).over_an_edge(rng),)
    if always:
        return card, ()
    if chance <= 0.0:
        return (), ()
    draw = float(rng.random())
    if things and draw < 2 * chance and rng.random() < SLAB_SHARE:
        card = (Slab.over_an_edge(rng),)
    return (card, ()) if draw < chance else ((), card) if draw < 2 * chance else ((), ())


def _new_pixels(after: Frame, record: GameRecord, turn: int) -> NDArray[np.bool_]:
    added = {p.id for p in pieces_built(record.scenes[turn].pieces,
                                        record.scenes[turn + 1].pieces)}
    index = [i for i, p in enumerate(after.pieces) if p.id in added]
    return np.isin(after.piece_ids, index)


def surface_height(frame: Frame, mask: NDArray[np.bool_]) -> NDArray[np.float32]:
    """The board-frame height (levels) of the surface each pixel of ``mask`` shows, from
    the render's depth: the pixel's ray, undistorted, taken to that depth and into the
    board's frame (z up from the plate's top). NaN outside ``mask`` or with no depth."""
    out = np.full(mask.shape, np.nan, np.float32)
    ys, xs = np.nonzero(mask & np.isfinite(frame.depth))
    if not len(ys):
        return out
    pts = np.stack([xs, ys], axis=1).astype(np.float64).reshape(-1, 1, 2)
    ray = cv2.undistortPoints(pts, frame.camera.camera_matrix,
                              frame.camera.dist_coeffs).reshape(-1, 2)
    z = frame.depth[ys, xs].astype(np.float64)
    cam = np.stack([ray[:, 0] * z, ray[:, 1] * z, z], axis=1)
    out[ys, xs] = frame.pose.to_board(cam)[:, 2] / BRICK_MM
    return out


def added_pieces(record: GameRecord, turn: int) -> tuple[Piece, ...]:
    """Pieces standing after ``turn`` that did not stand before it (by place, not id)."""
    return pieces_added(record.scenes[turn].pieces, record.scenes[turn + 1].pieces)


def turn_pairs(
    games: int,
    seed: int,
    *,
    width: int = 1280,
    height: int = 720,
    elevation_deg: tuple[float, float] = (30.0, 70.0),
    options: RenderOptions | None = None,
    max_turns: int | None = None,
    map_name: str = "1",
    wide: bool = False,
    only: Collection[tuple[int, int]] | None = None,
    second_view: float | None = None,
    relight: Relight | None = None,
    card_over_edge: bool = False,
    card_chance: float = 0.0,
    phone_over_edge: bool = False,
    laid_things: bool = False,
) -> Iterator[TurnPair]:
    """Every played turn of ``games`` seeded bot games, each from its own random webcam.

    ``wide`` is the table as wide as real ones: a new random ground map for every game
    (``map_name`` is then unused), the twin's wide look, framing from a third of the
    picture to past its edges. Both frames are of a settled table either way: hands lie
    at the edges, none reaches over the board (a reader waits until they have gone).
    ``only``: the turns to render, as (game, turn) pairs (the pair's ``game`` and
    ``turn``), the others passed over; each game draws its map and each turn its camera
    and frames from their own seeds, so a turn comes out the same either way (a test
    renders one turn of a development set without the turns before it).
    ``second_view``: degrees round the board a second webcam stands from the first; its
    frames come with each pair (:class:`SecondWebcamFrames`), the first view's as
    without it.
    ``relight``: the room's light changed between the pictures (a lamp moved or dimmed,
    the sun along a window); the frames after are rendered under it, every other draw
    as without it.
    ``card_over_edge``: a player's card laid over a side of the board between the
    pictures (:meth:`twin.Card.over_an_edge`, drawn on a stream of the turn's own), in
    the frames after; every other draw as without it.
    ``card_chance``: with this chance a turn's frames after show a card laid over a side
    since the picture before, and with the same chance its frames before show one that
    is picked up by the picture after (drawn as ``card_over_edge`` draws it); a training
    set's way of showing the model that a flat thing come or gone is no new piece.
    ``phone_over_edge``: as ``card_over_edge``, with a phone laid over a side of the
    board instead (a thing no model was trained on).
    ``laid_things``: what ``card_chance`` lays or picks up is a card or, half the time, a
    slab of any size, thickness and colour (a book, a box, a wallet).
    """
    base = options or RenderOptions()
    opts = RenderOptions(**{**base.__dict__, "color_jitter": 0.0, "settled": True,
                            "wide": wide or base.wide})
    fill = WIDE_FILL if wide else (0.7, 0.97)
    later = opts if relight is None else replace(opts, relight=relight)
    for game in range(games):
        if only is not None and not any(g == seed + game for g, _ in only):
            continue
        if wide:
            layout = np.random.default_rng([seed, game, 1 << 20])
            ground = random_map(layout, f"random-{seed + game}")
        else:
            ground = load_map(map_name)
        record = simulate_game(4, seed=seed + game, map_name=ground)
        played = [i for i, t in enumerate(record.turns) if t.report is not None
                  and not t.report.passed]
        for turn in played[:max_turns]:
            if only is not None and (seed + game, turn) not in only:
                continue
            rng = np.random.default_rng([seed, game, turn])
            camera, pose = random_camera(rng, width, height, elevation_deg=elevation_deg,
                                         fill=fill)
            frame_seed = int(rng.integers(1 << 30))
            palace_before = Palace(ground, record.scenes[turn].pieces)
            laid, lifted = _card_moves(np.random.default_rng([seed, game, turn, 0xCA4D]),
                                       card_over_edge or phone_over_edge, card_chance,
                                       phone_over_edge, laid_things)
            before = render(palace_before, camera, pose, replace(opts, cards=opts.cards + lifted),
                            seed=frame_seed)
            palace_after = Palace(ground, record.scenes[turn + 1].pieces)
            shown = replace(later, cards=later.cards + laid)
            after = render(palace_after, camera, pose, shown, seed=frame_seed)
            new_mask = _new_pixels(after, record, turn)
            second = None
            if second_view is not None:
                pose2 = around_board(pose, second_view)
                # Its own stream for the second picture's development, so that the first
                # view's frames are those drawn without it.
                develop = np.random.default_rng([seed, game, turn, 2])
                second = SecondWebcamFrames(
                    render(palace_before, camera, pose2, opts, seed=frame_seed).image,
                    redevelop(render(palace_after, camera, pose2, shown,
                                     seed=frame_seed).image, develop),
                    pose2)
            yield TurnPair(
                game=seed + game,
                turn=turn,
                before=palace_before,
                added=added_pieces(record, turn),
                before_frame=before.image,
                after_frame=redevelop(after.image, rng),
                camera=camera,
                pose=pose,
                ground=ground,
                new_mask=new_mask,
                new_height=surface_height(after, new_mask),
                second=second,
                hand=record.hands[turn],
            )


TURNS_PER_GAME = 20
"""Turns read of each bot game wherever twin turns are read in bulk (the turn bench, the
fitted confidence's rows, the fresh check): a game's later turns add little its earlier
ones did not, and more games bring more maps, cameras and tables."""
MAX_GAMES = 999
"""Games :func:`twin_turns` may draw on: a game on a random map may end early or never
start, and the next one's turns follow."""
FRESH_GAMES_SEED = 70_000
"""The first game of the fresh check (``bench.fresh``): nothing is fitted or chosen on
games from here on."""


def twin_turns(count: int, *, seed: int, width: int = 1280, height: int = 720,
               options: RenderOptions | None = None, second_view: float | None = None,
               relight: Relight | None = None, card_over_edge: bool = False,
               phone_over_edge: bool = False) -> Iterator[TurnPair]:
    """The first ``count`` turns of the wide twin's games from ``seed`` on, at most
    :data:`TURNS_PER_GAME` from each. One definition, so that the bench, the fit and the
    fresh check read turns drawn exactly alike, and another seed is another set."""
    pairs = turn_pairs(MAX_GAMES, seed, max_turns=TURNS_PER_GAME, wide=True,
                       width=width, height=height, options=options, second_view=second_view,
                       relight=relight, card_over_edge=card_over_edge,
                       phone_over_edge=phone_over_edge)
    yield from itertools.islice(pairs, count)
