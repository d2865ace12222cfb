"""A simulated game table: bots play, and a fixed webcam films the board over time.

What a real webcam beside the table sees during a game, frame by frame: the set-up
lying still; then for each turn the player's hand coming in from their side of the
table, the staircase's pieces appearing one at a time under it (lowest first), the
hand leaving; the finished palace lying still; and now and then two hands sliding or
turning the board a little, or turning it by a quarter. Sensor noise and a slight
flicker of the light change every frame, as they do on a real camera.

The webcam, the light and the table are drawn once from the seed and stay put; the
board moves under them (its light is turned with it, so shadows keep falling the same
way in the room). The frames are an iterator of :class:`TableFrame`, shaped like the
capture sources' frames (``image``, ``time``, ``index``) with the truth beside them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Pose
from rules.bot import GameRecord, simulate_game
from rules.pieces import ANIMAL_KINDS, BOARD_MM, BRICK_MM, STUD_MM, Piece
from rules.scene import Scene
from twin.cameras import BOARD_CENTER as CENTRE
from twin.cameras import around_board, random_camera, turned_webcam
from twin.clutter import Card, Hand
from twin.frame import RenderOptions
from twin.renderer import render
from twin.shading import Light, Relight
from twin.table_settings import (
    DRIFT_STEPS,
    LEAN_BACK_MM,
    LEAN_S,
    PLAYER_SHADOW,
    TableSettings,
)

OUTWARD = ((-1.0, 0.0), (0.0, -1.0), (1.0, 0.0), (0.0, 1.0))
"""Side ``s`` of the table lies this way from the board; a hand from it points back."""


@dataclass(frozen=True)
class TableFrame:
    """A webcam frame of the simulated table and what was truly there."""

    image: NDArray[np.uint8]
    time: float
    index: int
    turns_done: int
    """Turns whose pieces are all on the board in this frame."""
    phase: str
    """still, hands (a player at work over the board) or moving (the board being moved)."""
    scene: Scene
    pose: Pose
    """Where the board truly is (board frame to camera)."""
    playing: int | None = None
    """The turn (from 0) whose player is at work over the board, if any."""
    placement: _Placement | None = None
    """Where the board lay (for :meth:`SimulatedTable.clean_picture`)."""
    second_image: NDArray[np.uint8] | None = None
    """The second webcam's picture taken with this one (``second_webcam_deg``)."""
    cards: tuple[Card, ...] = ()
    """The cards lying over the board's edge (``card_chance``)."""


@dataclass(frozen=True)
class _Placement:
    """Where the board lies on the table: turned by ``angle`` about its middle, slid."""

    angle: float = 0.0
    shift: tuple[float, float] = (0.0, 0.0)
    webcam_turn: tuple[float, float] = (0.0, 0.0)
    """How far the first webcam has been knocked since the set-up: its tilt and pan
    (radians, :func:`twin.cameras.turned_webcam`), which turn everything it sees alike."""

    def rotation(self) -> NDArray[np.float64]:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    def to_board(self, world: NDArray[np.float64]) -> NDArray[np.float64]:
        shift = np.array([*self.shift, 0.0])
        return self.rotation().T @ (world - CENTRE - shift) + CENTRE

    def to_world(self, board: NDArray[np.float64]) -> NDArray[np.float64]:
        shift = np.array([*self.shift, 0.0])
        return self.rotation() @ (board - CENTRE) + CENTRE + shift

    def blend(self, other: _Placement, t: float) -> _Placement:
        return _Placement(self.angle + (other.angle - self.angle) * t,
                          (self.shift[0] + (other.shift[0] - self.shift[0]) * t,
                           self.shift[1] + (other.shift[1] - self.shift[1]) * t),
                          self.webcam_turn)


class SimulatedTable:
    """Bots' game filmed by one webcam (or two: ``TableSettings.second_webcam_deg``);
    iterate it for frames (``turns`` caps the turns)."""

    def __init__(self, seed: int = 0, players: int = 3, map_name: str = "1",
                 turns: int | None = None, settings: TableSettings | None = None) -> None:
        self.settings = settings or TableSettings()
        self.seed = seed
        # No Frog: taking it is said on the page, which the simulated players do not do.
        self.record: GameRecord = simulate_game(players, seed, map_name, frog_chance=0.0)
        self.turns = len(self.record.turns) if turns is None else min(turns,
                                                                       len(self.record.turns))
        rng = np.random.default_rng(seed + 7919)
        s = self.settings
        self.camera, self.camera_pose = random_camera(
            rng, s.width, s.height, elevation_deg=(48.0, 75.0), fill=(0.72, 0.88),
            distortion=0.6, roll_deg=4.0)
        self.second_pose = (None if s.second_webcam_deg is None
                            else around_board(self.camera_pose, s.second_webcam_deg))
        """The second webcam's pose while the board lies where it first lay."""
        light = Light.random(rng)
        self.light = replace(light, elevation_deg=max(light.elevation_deg, 40.0))
        self.table = str(rng.choice(["wood", "cloth", "plain"]))
        self.blur = float(rng.uniform(0.3, 0.8))
        self.exposure = float(rng.uniform(0.9, 1.1))
        self.sides = self._seats(players)
        self._render_seed = int(rng.integers(1 << 30))
        self._still_cache: dict[tuple[object, ...], NDArray[np.uint8]] = {}
        self._room = Relight()
        """How far the room's light has changed since the set-up, and how deep a player's
        shadow lies over the board now (``shadow``)."""
        self._cards: tuple[Card, ...] = ()
        """The cards lying over the board's edge now (``card_chance``)."""

    def _seats(self, players: int) -> list[int]:
        """The table sides the players sit at: every side but the webcam's."""
        eye = self.camera_pose.camera_center[:2] - CENTRE[:2]
        camera_side = int(np.argmax([eye @ np.array(o) for o in OUTWARD]))
        free = [s for s in range(4) if s != camera_side]
        return [free[i % 3] for i in range(players)]

    # -- pictures ----------------------------------------------------------------------
    def board_pose(self, placement: _Placement, second: bool = False) -> Pose:
        """The board's pose for the fixed webcam (or the second one) when the board lies
        at ``placement``."""
        pose = self.second_pose if second else self.camera_pose
        assert pose is not None, "the table has no second webcam"
        # The board turned about its middle is the webcam turned the other way round it.
        turned = around_board(pose, math.degrees(placement.angle))
        shift = np.array([*placement.shift, 0.0])
        board = Pose.from_matrix(turned.rotation, turned.tvec + pose.rotation @ shift)
        if second or placement.webcam_turn == (0.0, 0.0):
            return board
        tilt, pan = placement.webcam_turn
        return turned_webcam(board, math.degrees(pan), math.degrees(tilt))

    def _picture(self, pieces: tuple[Piece, ...], placement: _Placement,
                 hands: tuple[Hand, ...], second: bool = False,
                 cards: tuple[Card, ...] | None = None) -> NDArray[np.uint8]:
        cards = self._cards if cards is None else cards
        key = (pieces, placement, second, self._room, cards)
        if not hands and key in self._still_cache:
            return self._still_cache[key]
        # The room's change (and a leaning player's shadow) on top: its swing adds to
        # the board's turn, so the order does not matter.
        light = replace(self.light,
                        azimuth_deg=self.light.azimuth_deg - math.degrees(placement.angle))
        options = RenderOptions(light=light, noise=0.0, blur=self.blur, jpeg_quality=0,
                                exposure=self.exposure, white_balance=(1.0, 1.0, 1.0),
                                clutter=False, color_jitter=0.0, table=self.table,
                                hands=hands, cards=cards, relight=self._room)
        scene = Scene(map=self.record.map, pieces=pieces)
        image = render(scene, self.camera, self.board_pose(placement, second), options,
                       seed=self._render_seed).image
        if not hands:
            if len(self._still_cache) > 8:
                self._still_cache.clear()
            self._still_cache[key] = image
        return image

    def clean_picture(self, frame: TableFrame, pieces: tuple[Piece, ...] | None = None
                      ) -> NDArray[np.uint8]:
        """``frame`` without hands, sensor noise or flicker (with ``pieces`` instead of its
        own, if given): what a reading of it would see with a perfect webcam."""
        placement = frame.placement or _Placement()
        return self._picture(frame.scene.pieces if pieces is None else pieces, placement, (),
                             cards=frame.cards)

    def render_still(self, pieces: tuple[Piece, ...], hands: tuple[Hand, ...] = ()) -> NDArray[
            np.uint8]:
        """One frame of the board where it first lay, with these pieces and hands."""
        return self._webcam(self._picture(pieces, _Placement(), hands), 0)

    def _webcam(self, image: NDArray[np.uint8], index: int, second: bool = False
                ) -> NDArray[np.uint8]:
        """This frame's sensor noise and flicker on a rendered picture (the second
        webcam's its own)."""
        rng = np.random.default_rng((self.seed, index, 1) if second else (self.seed, index))
        gain = 1.0 + float(np.clip(rng.normal(0.0, self.settings.flicker), -0.1, 0.1))
        noise = rng.normal(0.0, self.settings.noise, image.shape[:2]).astype(np.float32)
        out = image.astype(np.float32) * gain + noise[:, :, None]
        return cv2.convertScaleAbs(out)

    # -- hands -------------------------------------------------------------------------
    def _hand(self, seat: int, world_palm: NDArray[np.float64], placement: _Placement,
              wobble: float = 0.0) -> Hand:
        """A hand from ``seat``'s side with its palm at ``world_palm`` (table frame)."""
        side = self.sides[seat]
        out = np.array(OUTWARD[side])
        heading_world = math.atan2(-out[1], -out[0]) + wobble
        palm = placement.to_board(world_palm)
        # The forearm runs back to the player's edge of the board and beyond.
        middle = placement.to_world(CENTRE)[:2]
        to_edge = float(np.clip(BOARD_MM / 2 - (world_palm[:2] - middle) @ out, 0, None))
        return Hand((float(palm[0]), float(palm[1]), float(palm[2])),
                    heading_world - placement.angle, 1.0, to_edge + 220.0, 110.0,
                    seed=self.seed * 10 + seat)

    # -- the game ----------------------------------------------------------------------
    def __iter__(self) -> Iterator[TableFrame]:
        s = self.settings
        rng = np.random.default_rng(self.seed + 104729)
        placement = _Placement()
        index = 0
        scenes = self.record.scenes

        def frame(pieces: tuple[Piece, ...], turns_done: int, phase: str,
                  hands: tuple[Hand, ...] = (), where: _Placement | None = None,
                  playing: int | None = None) -> TableFrame:
            nonlocal index
            at = where or placement
            image = self._webcam(self._picture(pieces, at, hands), index)
            second = None if self.second_pose is None else self._webcam(
                self._picture(pieces, at, hands, second=True), index, second=True)
            out = TableFrame(image, index / s.fps, index, turns_done, phase,
                             Scene(map=self.record.map, pieces=pieces), self.board_pose(at),
                             playing, at, second, self._cards)
            index += 1
            return out

        # Its own draws, so that a table without knocks plays as it always has.
        knocks = np.random.default_rng(self.seed + 15485863)
        lights = np.random.default_rng(self.seed + 32452843)
        cards = np.random.default_rng(self.seed + 49979687)
        pieces = scenes[0].pieces
        for _ in range(max(1, round(s.setup_s * s.fps))):
            yield frame(pieces, 0, "still")
        for turn in range(self.turns):
            seat = self.record.turns[turn].seat
            after = scenes[turn + 1].pieces
            placement = self._jostled(placement, knocks)
            if s.card_chance > 0:
                # The card lying there is picked up, and perhaps another laid, under the
                # hand at work (the frames of the turn show it from their first).
                laid = cards.uniform() < s.card_chance
                self._cards = (Card.over_an_edge(cards),) if laid else ()
            yield from self._turn_frames(frame, rng, seat, turn, pieces, after, placement)
            pieces = after
            yield from self._still_frames(frame, lights, pieces, turn + 1)
            if turn + 1 < self.turns and rng.uniform() < s.move_chance:
                target = self._new_placement(rng, placement)
                yield from self._move_frames(frame, seat, turn + 1, pieces, placement, target)
                placement = target
                for _ in range(max(1, round(s.still_s * s.fps))):
                    yield frame(pieces, turn + 1, "still")

    def _still_frames(self, frame: Callable[..., TableFrame], lights: np.random.Generator,
                      pieces: tuple[Piece, ...], turns_done: int) -> Iterator[TableFrame]:
        """The finished palace lying still: perhaps first under the shadow of the player
        who built it, who then leans back (``player_shadow_chance``); perhaps looked at
        closely by another (``onlooker_chance``); the room's light drifting over the
        second half of the spell (``light_drift_deg``), and then perhaps changing at
        once (``light_switch_chance``) for a still spell as long again."""
        s = self.settings
        count = max(1, round(s.still_s * s.fps))
        switch = s.light_switch_chance > 0 and lights.uniform() < s.light_switch_chance
        if s.player_shadow_chance > 0 and lights.uniform() < s.player_shadow_chance:
            # Still leaning over the table after building (longer than the settle
            # detector waits for an arm to leave), then leaning back.
            yield from self._leaning(frame, pieces, turns_done, coming=False)
        if s.onlooker_chance > 0 and lights.uniform() < s.onlooker_chance:
            for _ in range(count // 2):
                yield frame(pieces, turns_done, "still")
            yield from self._leaning(frame, pieces, turns_done, coming=True)
        start = self._room
        half = count // 2
        for k in range(count):
            if s.light_drift_deg > 0 and k >= half:
                # Once the palace has had time to settle: a real drift is far slower than
                # the simulated still spell, and lets the board settle first.
                step = min(DRIFT_STEPS, (k - half) * DRIFT_STEPS // (count - half) + 1)
                self._room = replace(start, azimuth_deg=start.azimuth_deg
                                     + s.light_drift_deg * step / DRIFT_STEPS)
            yield frame(pieces, turns_done, "still")
        if switch:
            swing = float(lights.choice([-1.0, 1.0]) * lights.uniform(20.0, 60.0))
            self._room = replace(self._room, azimuth_deg=self._room.azimuth_deg + swing,
                                 diffuse=float(np.clip(self._room.diffuse
                                                       * lights.uniform(0.6, 1.4), 0.3, 1.6)))
            for _ in range(count):
                yield frame(pieces, turns_done, "still")

    def _leaning(self, frame: Callable[..., TableFrame], pieces: tuple[Piece, ...],
                 turns_done: int, coming: bool) -> Iterator[TableFrame]:
        """A player leaning over the table for :data:`LEAN_S`, their shadow over one side
        of the board, then leaning back: the shadow's edge withdraws past the board in a
        second (and, ``coming``, first comes over it as fast)."""
        s = self.settings
        move, lean = round(s.fps), round(LEAN_S * s.fps)
        reaches = [*(LEAN_BACK_MM * (move - k) / move for k in range(move) if coming),
                   *(0.0 for _ in range(lean)),
                   *(LEAN_BACK_MM * (k + 1) / move for k in range(move))]
        for withdrawn in reaches:
            self._room = replace(self._room, shadow=PLAYER_SHADOW, shadow_back_mm=withdrawn)
            yield frame(pieces, turns_done, "still")
        self._room = replace(self._room, shadow=0.0, shadow_back_mm=0.0)

    def _turn_frames(self, frame: Callable[..., TableFrame], rng: np.random.Generator, seat: int,
                     turn: int, before: tuple[Piece, ...], after: tuple[Piece, ...],
                     placement: _Placement) -> Iterator[TableFrame]:
        """A hand comes in, the turn's pieces appear under it one by one, it leaves.

        The hand's path is worked out on the table (the player's side is a side of the
        table, not of the board, which may have been turned)."""
        s = self.settings
        kept = [p for p in before if p in set(after)]
        added = sorted((p for p in after if p not in set(before)),
                       key=lambda p: (p.kind in ANIMAL_KINDS, p.z))
        spots = [placement.to_world(_centre_mm(p)) for p in added] or [
            placement.to_world(CENTRE + rng.uniform(-60, 60, 3) * (1, 1, 0))]
        outside = self._outside(seat, np.mean(spots, axis=0), placement)

        def hand(palm: NDArray[np.float64]) -> tuple[Hand, ...]:
            return (self._hand(seat, palm, placement, rng.normal(0, 0.1)),)

        first = self._palm_over(spots[0], seat)
        for k in range(s.enter_frames):
            t = (k + 1) / (s.enter_frames + 1)
            yield frame(tuple(kept), turn, "hands", hand(outside + (first - outside) * t),
                        playing=turn)
        shown = list(kept)
        for spot, piece in zip(spots, added or [None], strict=True):
            for k in range(s.frames_per_piece):
                if k == 1 and piece is not None:
                    shown.append(piece)
                palm = self._palm_over(spot, seat) + np.array([*rng.normal(0, 6, 2), 0.0])
                yield frame(tuple(shown), turn, "hands", hand(palm), playing=turn)
            if piece is not None and piece not in shown:
                shown.append(piece)
        last = self._palm_over(spots[-1], seat)
        for k in range(s.enter_frames):
            t = (k + 1) / (s.enter_frames + 1)
            yield frame(after if added else before, turn + (1 if added else 0), "hands",
                        hand(last + (outside - last) * t), playing=turn)

    def _move_frames(self, frame: Callable[..., TableFrame], seat: int, turns_done: int,
                     pieces: tuple[Piece, ...], start: _Placement,
                     target: _Placement) -> Iterator[TableFrame]:
        """Two hands take the board by its sides and slide or turn it."""
        side = np.array(OUTWARD[self.sides[seat]])
        grips = [CENTRE + np.array([*(side * (BOARD_MM / 2 + 20)), 30.0]),
                 CENTRE + np.array([*(-side * (BOARD_MM / 2 + 20)), 30.0])]
        steps = 6
        for k in range(steps + 2):
            t = min(max((k - 1) / (steps - 1), 0.0), 1.0)
            at = start.blend(target, t)
            hands = []
            for g, grip in enumerate(grips):
                world = at.to_world(grip)
                hand = self._hand(seat, world, at, 0.0)
                if g == 1:  # the other hand reaches over from the far side
                    hand = replace(hand, heading=hand.heading + math.pi, seed=hand.seed + 1)
                hands.append(hand)
            yield frame(pieces, turns_done, "moving", tuple(hands), at)

    def _jostled(self, at: _Placement, draws: np.random.Generator) -> _Placement:
        """Where the webcam and the board are once a player builds: the webcam knocked
        (``webcam_bump_deg``, from where it was set up) and the board pushed
        (``board_push_mm``, from where it lay)."""
        s = self.settings
        if s.webcam_bump_deg > 0:
            heading = draws.uniform(0, 2 * math.pi)
            size = math.radians(draws.uniform(0, s.webcam_bump_deg))
            at = replace(at, webcam_turn=(size * math.cos(heading), size * math.sin(heading)))
        if s.board_push_mm > 0:
            heading = draws.uniform(0, 2 * math.pi)
            size = draws.uniform(0, s.board_push_mm)
            turn = math.radians(draws.uniform(-0.1, 0.1) * s.board_push_mm)
            shift = np.clip(np.array(at.shift) + size * np.array([math.cos(heading),
                                                                 math.sin(heading)]), -25, 25)
            at = replace(at, angle=at.angle + turn, shift=(float(shift[0]), float(shift[1])))
        return at

    def _new_placement(self, rng: np.random.Generator, at: _Placement) -> _Placement:
        s = self.settings
        if rng.uniform() < s.quarter_turn_chance:
            angle = at.angle + float(rng.choice([-1, 1])) * math.pi / 2
        else:
            angle = at.angle + math.radians(float(np.clip(rng.normal(0, 4), -8, 8)))
        shift = np.clip(np.array(at.shift) + rng.normal(0, 10, 2), -25, 25)
        return _Placement(angle, (float(shift[0]), float(shift[1])), at.webcam_turn)

    def _outside(self, seat: int, spot: NDArray[np.float64],
                 placement: _Placement) -> NDArray[np.float64]:
        """Where the hand starts (table frame): beyond the player's edge of the board, in
        line with the spot."""
        out = np.array(OUTWARD[self.sides[seat]])
        middle = placement.to_world(CENTRE)[:2]
        along = spot[:2] - out * ((spot[:2] - middle) @ out)
        edge = along + out * (BOARD_MM / 2 + 110.0)
        return np.array([edge[0], edge[1], 90.0])

    def _palm_over(self, spot: NDArray[np.float64], seat: int) -> NDArray[np.float64]:
        """The palm just behind and above a piece's place (table frame), fingertips over
        it."""
        out = np.array(OUTWARD[self.sides[seat]])
        palm = spot[:2] + out * 70.0
        return np.array([palm[0], palm[1], spot[2] + 40.0])


def _centre_mm(piece: Piece) -> NDArray[np.float64]:
    """The middle of a piece's top, in board millimetres."""
    cells = np.array(piece.footprint(), float)
    x, y = (cells.mean(axis=0) + 0.5) * STUD_MM
    return np.array([x, y, piece.top * BRICK_MM])
