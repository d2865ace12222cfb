"""When to read a turn: hands and motion over the board, and the board settling again.

A turn may only be read from a picture of the finished palace with nothing over it.
Everything here works on the board's own small picture (:mod:`vision.cells`: one cell
per stud, plus a ring of table around the plate, resampled in the board's frame), so
that the same cell is the same place on the board however the camera or the board
moved, and each cell's mean colour averages away the studs, sensor noise and the last
tenth of a pixel of the tracked pose:

- **motion**: cells that changed since the last frame. Colours are divided by the
  board's median colour first, so a flickering lamp or the webcam's auto-exposure
  reacting to a hand does not count, while a hand, a sleeve or a piece being put
  down does, whatever its colour.
- **the board lost**: a frame whose board the tracker could not explain (a hand over
  most of it) is never still.
- **an arm at rest**: a hand held still over the board differs from the last settled
  picture in a patch that runs from the board out to the edge of the ring, which a
  piece standing on the board does not. Such a picture waits (up to
  ``SettleSettings.arm_wait_s``: a very tall palace seen from low down may reach the
  ring's edge on its own, and a player leaning over the table casts a shadow as smooth
  as an arm). When the wait runs out, and when what rested leaves a picture taken that
  way, the two pictures are evened to one light (:func:`light_steps`): a shadow come or
  gone and nothing else changed is the light, ``relit``.

The board has **settled** when no cell moved for ``still_frames`` frames and
``still_s`` seconds. That picture is compared with the reference, the newest still
picture from before the motion (while the board lies still after a settle, each still
frame becomes the reference, so a light creeping round the table never piles up): a
changed board is a turn to read; an unchanged one (a hand came and went, the board was
slid and put back square) only refreshes the reference; a changed one after less motion
than anyone could build in (``least_busy_s``) is the room's light changing, ``relit``.

Run alone on a folder or a video to see what it decides, frame by frame::

    python3 -m vision.settle --frames DIR [--camera CAM.json] [--map 1]
"""

from __future__ import annotations

import sys
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.board_model import CENTRE
from calibration.camera import Camera, Pose, rotation_angle_deg
from vision.cells import BOARD_SLICE, board_cells, cell_steps, light_steps, reaches_out


@dataclass(frozen=True)
class SettleSettings:
    """How still is still, and how different is a change. Colour steps are in units of
    the board's median colour (0.1 = a tenth of the plate's brightness)."""

    still_frames: int = 5
    still_s: float = 0.8
    motion_step: float = 0.08
    """A cell moved when a channel changed by more than this since the last frame."""
    motion_cells: int = 2
    """A frame is still when fewer cells than this moved."""
    change_step: float = 0.12
    """A cell of the board changed when a channel differs this much from the reference."""
    change_cells: int = 3
    """A settled board changed when at least this many of its cells did."""
    moved_mm: float = 4.0
    moved_deg: float = 2.0
    """Beyond these the board moved since the reference: the table ring no longer says
    where an arm is."""
    push_mm: float = 12.0
    push_deg: float = 3.0
    """A board moved no further than these was pushed while pieces were pressed onto its
    studs, not carried elsewhere: a settle that changed is still read as a turn, against
    the picture before brought into line (``vision.views.aligned_before``; a push leaves
    a pixel or two of parallax on tall pieces). A push alone settles unchanged (the cells
    are the board's) and is taken as the move it was."""
    knock_mm: float = 3.0
    """Unless the webcam's centre, in the board's frame, stayed within this: then the
    webcam was turned on its mount (a table leant on, a clamp knocked), not the board
    moved. A webcam's turn moves every point it sees alike, so the reader brings the
    picture before into line with the frame after (``vision.views.aligned_before``) and
    the turn is read as usual; a board slid or turned moves the webcam's centre in its
    frame as far, and tall pieces then shift against the plate."""
    arm_wait_s: float = 8.0
    """How long a still patch reaching out of the board blocks a read before it is taken
    for the palace itself."""
    keep_frames: int = 3
    """Still frames handed to the reader (the newest last)."""
    light_tolerance: float = 0.5
    """Where the light changed, a cell's colour follows it less exactly (a highlight
    clipped in one picture and not the other, a cell half in a tall piece's shade): a
    cell of the picture evened to the new light (:func:`light_steps`) changed when it
    differs by ``change_step`` plus this share of the light's own change there."""
    light_cells: int = 6
    """Fewer board cells than this changed once the pictures are evened to one light is
    the light alone (a turn changes at least 9): asked when something rested over the
    board's edge for the whole arm wait (a player leaning in to look, building nothing),
    and of a settle compared with a picture taken that way (the player leant back)."""
    least_busy_s: float = 0.5
    """A board that settles changed after less motion than this (from the first frame
    with something over it to the first still one) was not built on: nobody reaches in,
    puts a staircase down and leaves in half a second. The room's light changed (a lamp
    switched on, a curtain drawn, the sun out of a cloud), which moves every shadow on
    the palace at once; the new picture becomes the reference and nothing is read."""


@dataclass
class Snapshot:
    """One frame as the detector keeps it: the picture, the pose and its cells."""

    image: NDArray[np.uint8]
    pose: Pose
    cells: NDArray[np.float32]
    time: float
    location: object = None
    """Whatever the caller attached (the tracker's BoardLocation); handed back untouched."""


@dataclass
class Observation:
    """What one frame showed. ``event`` is ``""`` on most frames; ``"baseline"`` the first
    time the board settles; ``"changed"`` when it settled different from ``before``;
    ``"unchanged"`` when it settled as it was; ``"relit"`` when the light alone changed:
    it settled changed after too short a spell of motion for anyone to have built, or a
    shadow came over the board's edge or left it and nothing else changed."""

    state: str
    """searching, tracking, hands or settling (the session's camera states)."""
    detail: str = ""
    event: str = ""
    moving_cells: int = 0
    changed_cells: int = 0
    before: Snapshot | None = None
    frames: list[Snapshot] = field(default_factory=list)
    moved: bool = False
    """The board was moved or turned since ``before``."""


def _within(a: Pose, b: Pose, mm: float, deg: float) -> bool:
    """Whether the board's middle moved no further than ``mm`` between poses ``a`` and
    ``b``, and the board turned no further than ``deg``."""
    shift = float(np.linalg.norm(a.to_camera(CENTRE[None]) - b.to_camera(CENTRE[None])))
    return shift <= mm and rotation_angle_deg(a.rotation, b.rotation) <= deg


def board_moved(a: Pose, b: Pose, settings: SettleSettings) -> bool:
    """Whether the board's middle moved or the board turned beyond the settings' limits,
    other than by the webcam turning on its mount (``knock_mm``)."""
    if _within(a, b, settings.moved_mm, settings.moved_deg):
        return False
    return float(np.linalg.norm(a.camera_center - b.camera_center)) > settings.knock_mm


def board_pushed(a: Pose, b: Pose, settings: SettleSettings) -> bool:
    """Whether a moved board moved no further than a push (``push_mm``, ``push_deg``)."""
    return _within(a, b, settings.push_mm, settings.push_deg)


def pictures_compare(a: Pose, b: Pose, settings: SettleSettings) -> bool:
    """Whether pictures of the board under poses ``a`` and ``b`` can be compared, the one
    brought into line with the other (``vision.views.aligned_before``): the board has not
    moved (a webcam turned on its mount is no move), or moved no further than a push."""
    return not board_moved(a, b, settings) or board_pushed(a, b, settings)


class SettleDetector:
    """Frame by frame: is something over the board, and has it settled into a change?"""

    def __init__(self, settings: SettleSettings | None = None) -> None:
        self.settings = settings or SettleSettings()
        self.reference: Snapshot | None = None
        self._previous: NDArray[np.float32] | None = None
        self._still: deque[Snapshot] = deque()
        self._still_since: float | None = None
        self._spell = 0
        self._arm_since: float | None = None
        self._reported = False
        """The current still spell was already reported (one event per spell)."""
        self._busy_since: float | None = None
        """When something first moved over the board (or hid it) since the last report."""
        self._rested = False
        """The reference was taken with something resting over the board's edge (the arm
        wait ran out on it): a player's shadow, say, or a tall palace seen from low."""

    def update(self, image: NDArray[np.uint8], camera: Camera, pose: Pose | None,
               time_s: float, *, found: bool = True, location: object = None) -> Observation:
        """One frame. ``pose`` may be the last known one with ``found`` false (the tracker
        could not explain this frame): the frame then only measures motion."""
        if pose is None:
            self._break(time_s)
            self._previous = None
            return Observation("searching", "no board in view")
        cells = board_cells(image, camera, pose)
        previous, self._previous = self._previous, cells
        moving = 0 if previous is None else int(
            (cell_steps(cells, previous) > self.settings.motion_step).sum())
        if not found:
            self._break(time_s)
            return Observation("hands", "the board is hidden", moving_cells=moving)
        if previous is None:
            self._break(time_s)
            return Observation("settling", "a first look at the board")
        if moving >= self.settings.motion_cells:
            self._break(time_s)
            return Observation("hands", f"{moving} cells moving", moving_cells=moving)
        return self._still_frame(Snapshot(image, pose, cells, time_s, location), moving)

    def _break(self, time_s: float) -> None:
        if self._busy_since is None:
            self._busy_since = time_s
        self._still.clear()
        self._still_since = None
        self._spell = 0
        self._arm_since = None
        self._reported = False

    def _still_frame(self, snap: Snapshot, moving: int) -> Observation:
        s = self.settings
        if self._still_since is None:
            self._still_since = snap.time
        self._spell += 1
        self._still.append(snap)
        while len(self._still) > max(s.keep_frames, 1):
            self._still.popleft()
        if self._reported:
            # The same palace, still: it is the picture before the next turn now, so that
            # a light creeping round the table while the players think (the sun along a
            # window) is not read with that turn.
            self.reference = snap
            return Observation("tracking", "settled", moving_cells=moving)
        held = snap.time - self._still_since
        if self._spell < s.still_frames or held < s.still_s:
            return Observation("settling", f"still for {held:.1f} s", moving_cells=moving)
        return self._settled(snap, moving)

    def _settled(self, snap: Snapshot, moving: int) -> Observation:
        s = self.settings
        before = self.reference
        frames = list(self._still)
        if before is None:
            self.reference = snap
            self._reported = True
            self._busy_since = None
            return Observation("tracking", "board settled: the set-up", "baseline",
                               moving_cells=moving, frames=frames)
        steps = cell_steps(snap.cells, before.cells) > s.change_step
        changed = int(steps[BOARD_SLICE, BOARD_SLICE].sum())
        moved = board_moved(snap.pose, before.pose, s)
        rests = changed >= s.change_cells and not moved and reaches_out(steps)
        shadow = ""
        if rests and self._rested:
            # The picture before had something resting over the edge: if it was a
            # player's shadow, this is the player leaning back, and it is the light
            # alone that changed; else what reaches out is judged with the light evened.
            if self._light_only(snap, before):
                rests, shadow = False, "the shadow over the board's edge left"
            else:
                rests = reaches_out(light_steps(snap.cells, before.cells) > s.change_step)
        if rests:
            if self._arm_since is None:
                self._arm_since = snap.time
            if snap.time - self._arm_since < s.arm_wait_s:
                return Observation("hands", "something rests over the board's edge",
                                   moving_cells=moving, changed_cells=changed)
            if self._light_only(snap, before):
                # Rested this long and nothing but the light changed: a player leaning
                # over the table to look, building nothing.
                shadow = "a shadow rests over the board's edge, nothing else changed"
        self.reference = snap
        self._reported = True
        self._rested = rests
        assert self._still_since is not None
        busy = 0.0 if self._busy_since is None else self._still_since - self._busy_since
        self._busy_since = None
        event = "changed" if changed >= s.change_cells else "unchanged"
        detail = f"board settled, {changed} cells changed"
        if shadow:
            event, detail = "relit", f"{detail}: {shadow}"
        elif event == "changed" and not moved and busy < s.least_busy_s:
            event, detail = "relit", f"{detail} after {busy:.1f} s of motion: the light changed"
        return Observation("tracking", detail, event,
                           moving_cells=moving, changed_cells=changed, before=before,
                           frames=frames, moved=moved)

    def _light_only(self, snap: Snapshot, before: Snapshot) -> bool:
        """Whether, evened to one light, fewer board cells changed than a piece makes."""
        s = self.settings
        lit = light_steps(snap.cells, before.cells, s.light_tolerance) > s.change_step
        return int(lit[BOARD_SLICE, BOARD_SLICE].sum()) < s.light_cells


def main(argv: list[str] | None = None) -> int:
    """Run the detector alone over a recording: what it decides, frame by frame."""
    import argparse
    import time

    from calibration.pose import locate_board
    from calibration.tracking import SEARCH_AFTER_S, BoardTracker
    from rules.maps import MapError, load_map
    from vision.capture import CaptureError, open_source

    parser = argparse.ArgumentParser(prog="python3 -m vision.settle",
                                     description=main.__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--frames", help="a folder of pictures, in name order")
    source.add_argument("--video", help="a video file")
    parser.add_argument("--fps", type=float, default=10.0, help="the folder's frame rate")
    parser.add_argument("--camera", help="lens file (default: a guess refined on the board)")
    parser.add_argument("--map", default="1", help="ground map: 1..4 or a map file")
    args = parser.parse_args(argv)
    try:
        ground = load_map(args.map)
        camera = Camera.load(args.camera) if args.camera else None
        frames = open_source(video=args.video, frames=args.frames, fps=args.fps)
        detector = SettleDetector()
        tracker: BoardTracker | None = None
        spent, count, last, seen_at = 0.0, 0, "", 0.0
        for frame in frames:
            cam = camera or Camera.default_for(frame.image.shape[1], frame.image.shape[0])
            if tracker is None:
                found = locate_board(frame.image, cam, ground, refine_focal=camera is None)
                tracker = BoardTracker(found.camera or cam, ground, found) if found.found \
                    else None
                location = found
            else:
                # Searched for afresh only once unexplained for a second (the camera
                # loop also spaces its searches; a recording can wait): a hand over the
                # board passes, a moved board does not.
                location = tracker.update(frame.image,
                                          search=frame.time - seen_at >= SEARCH_AFTER_S)
            if location.found:
                seen_at = frame.time
            held = tracker.last if tracker is not None else None
            pose = location.pose if location.found else (held.pose if held else None)
            started = time.perf_counter()
            lens = location.camera or (held.camera if held is not None else None) or cam
            obs = detector.update(frame.image, lens, pose, frame.time, found=location.found)
            spent += time.perf_counter() - started
            count += 1
            line = f"{obs.state}{' ' + obs.event if obs.event else ''}"
            if line != last or obs.event:
                print(f"frame {frame.index} ({frame.time:.2f} s): {line}: {obs.detail}")
                last = line
    except (CaptureError, MapError, ValueError) as exc:
        print(f"vision.settle: {exc}", file=sys.stderr)
        return 2
    print(f"{count} frames, {1000 * spent / max(count, 1):.1f} ms a frame in the detector")
    return 0


if __name__ == "__main__":
    sys.exit(main())
