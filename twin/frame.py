"""What a render returns (the picture and its exact ground truth) and how to ask for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.camera import Camera, Pose
from rules.pieces import Piece
from rules.scene import Scene
from twin.clutter import Hand, Laid
from twin.mesh import KIND_LABELS, PART_LABELS
from twin.shading import Light, Relight


@dataclass(frozen=True)
class RenderOptions:
    """Realism switches. ``None`` means "drawn at random from the seed".

    ``clean`` gives a noise-free, clutter-free frame under a fixed neutral light, the
    one to test geometry on. ``cover_corners`` lists corner bricks (0..3 in the order
    of the scene's corner pieces) to hide under a hand or a card, the case calibration
    has to survive.
    """

    clean: bool = False
    light: Light | None = None
    noise: float | None = None  # sensor noise sigma in 8-bit levels
    blur: float | None = None  # optical blur sigma in pixels
    jpeg_quality: int | None = None  # 0 = no JPEG round trip
    exposure: float | None = None  # multiplies the picture (1 = as lit)
    white_balance: tuple[float, float, float] | None = None  # BGR gains
    clutter: bool | None = None  # cards, loose bricks, hands, mugs on the table
    cover_corners: tuple[int, ...] = ()
    cover_with: str | None = None  # "hand" or "card" over covered corners; None = random
    distortion: bool = True  # apply the camera's lens distortion
    color_jitter: float | None = None  # per-piece colour variation (fraction)
    table: str | None = None  # "wood", "cloth", "plain", "pattern"; None = random
    hands: tuple[Hand, ...] = ()  # hands placed on purpose (a player at work), drawn always
    cards: tuple[Laid, ...] = ()  # things laid on purpose over the board's edge
    settled: bool = False  # hands at the frame's edges only, none reaching over the board
    wide: bool = False  # the wide look (twin.wide): drifting inks, stud tops, holes, hard light
    room_light: bool = False  # pieces shade pieces (twin.piece_light), a fill of its own colour
    card_sheen: bool = False  # with wide: the card's gloss lifts its inks towards the light
    deep_shadows: bool = False  # twin.deep_shadows: darker, sharper cast shadows, card occluded
    seams: bool | None = None  # twin.seams: dark joints between stacked pieces; None: with wide
    relight: Relight | None = None  # the light drawn (or given), then moved or dimmed


@dataclass
class Frame:
    """A rendered picture and everything that is known about it.

    ``piece_ids`` index :attr:`pieces` (the scene's pieces in order, then the default
    corner bricks if the scene had none); ``-1`` is no piece. ``kinds`` uses
    :attr:`labels` (0 background, 1 board, then one value per piece kind); ``parts``
    uses :attr:`part_labels` (stud tops and sides, card, holes). ``depth`` is the
    camera-frame z in millimetres, ``inf`` where no board or piece is seen (table and
    clutter). ``occluded`` marks clutter hiding board or pieces.
    """

    image: np.ndarray
    piece_ids: np.ndarray
    kinds: np.ndarray
    parts: np.ndarray
    depth: np.ndarray
    camera: Camera
    pose: Pose
    scene: Scene
    pieces: tuple[Piece, ...]
    occluded: np.ndarray | None = None
    labels: dict[str, int] = field(default_factory=lambda: dict(KIND_LABELS))
    part_labels: dict[str, int] = field(default_factory=lambda: dict(PART_LABELS))
    settings: dict[str, Any] = field(default_factory=dict)

    def truth(self) -> dict[str, Any]:
        """The ground truth as JSON: camera, pose, scene, legends and render settings."""
        return {
            "camera": self.camera.to_json(),
            "pose": self.pose.to_json(),
            "scene": self.scene.to_json(),
            "pieces": [
                {"index": i, "id": p.id, "kind": p.kind.value} for i, p in enumerate(self.pieces)
            ],
            "labels": self.labels,
            "part_labels": self.part_labels,
            "settings": self.settings,
        }
