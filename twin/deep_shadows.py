"""Deep shadows: a small lamp's hard, dark cast shadows and the room hidden from the card.

The twin's lamps leave a fifth or more of their light in a cast shadow (the sky's share
and what the shadow's strength keeps), and the card under a piece darkens only by the
blurred footprint of what stands on it. A small lamp with a dim room, as a path tracer
renders it, does more: on the independent Cycles turn pairs a new piece's shadow on the
card falls to half the lit card's brightness in its core (the darkest 2 % of the card
around new pieces at 0.51 or less in a quarter of turns, 0.26 at worst; the twin's
0.59 and 0.43), and the card seen through an arch's opening to 0.55 of the open card
(a quarter of frames 0.40 or less, 0.18 at worst; the twin's 0.63, 0.55 and 0.31). A
reader that never saw card that dark takes it for a new piece.

:class:`DeepShadows` is drawn once per frame from a stream of its own when
``RenderOptions(deep_shadows=True)``: how far the lamp's shadows go towards black
(from the light as drawn to nearly none of the lamp left), how dim the room's light is
against the lamp, how sharp the shadows' edges are, and how much of the room's light
the card loses under and beside the pieces (:func:`ground_occlusion`: the palace's
height field, blurred, over the card, and the card under an arch or an overhang, which
sees the room only through the opening's ends).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from rules.pieces import BOARD_MM, STUD_HEIGHT_MM
from twin.board import CONTACT_SHARE
from twin.piece_light import FIELD_MARGIN_MM, PieceLight, height_field
from twin.shading import Light


@dataclass(frozen=True)
class DeepShadows:
    """One frame's draw (see the module's docstring)."""

    hardness: float
    """0: the lamp's shadow as drawn; 1: almost none of the lamp left in it."""
    room: float
    """The room's light is multiplied by this (1: as drawn; down to a quarter)."""
    softness_mm: float
    """The shadows' penumbra (the lamp's size over its height, at the palace's scale)."""
    occlusion: float
    """Share of the room's light the card loses where the palace hides the room fully."""
    blur_mm: float
    """How far around a point of the card the occlusion looks."""
    under: float
    """Share of the room's light the card under an arch or an overhang loses."""

    @classmethod
    def random(cls, rng: np.random.Generator) -> DeepShadows:
        hardness = float(rng.uniform(0.0, 1.0))
        return cls(
            hardness=hardness,
            room=float(1.0 - 0.75 * hardness * rng.uniform(0.3, 1.0)),
            softness_mm=float(np.exp(rng.uniform(np.log(0.15), np.log(3.0)))),
            occlusion=float(rng.uniform(0.0, 0.4)),
            blur_mm=float(rng.uniform(3.0, 8.0)),
            under=float(rng.uniform(0.1, 0.8)),
        )

    def deepen(self, light: Light) -> Light:
        """``light`` with its cast shadows darker and sharper and its room dimmer. The
        frame's exposure follows the lit parts (auto gain), so the shadows, not the
        whole picture, darken."""
        return replace(light,
                       shadow=float(light.shadow + (0.97 - light.shadow) * self.hardness),
                       ambient=float(light.ambient * self.room),
                       softness_mm=self.softness_mm)

    def piece_light(self, look: PieceLight) -> PieceLight:
        """The pieces' shading of each other (with the room's light on) as deep and as
        sharp as the card's."""
        return replace(look, occlusion=max(look.occlusion, self.occlusion),
                       penumbra_mm=min(look.penumbra_mm, 1.0 + self.softness_mm))


def ground_occlusion(verts: list[np.ndarray], look: DeepShadows, margin_mm: float,
                     px_per_mm: int) -> np.ndarray:
    """How much of the room's light each point of the card loses (0..1), as a map in the
    board's shadow-map space (``margin_mm`` around the board, ``px_per_mm``).

    Beside a piece the card loses with the height of what stands around it (the palace's
    height field blurred over :attr:`DeepShadows.blur_mm`: none up to a stud's height and
    0.3 mm, all from 8 mm above that);
    under an arch or an overhang (inside a piece's outline, where the card can only be
    seen through an opening) it loses :attr:`DeepShadows.under` at least.
    """
    field = height_field(verts)
    around = cv2.GaussianBlur(field, (0, 0), look.blur_mm, borderType=cv2.BORDER_CONSTANT)
    deep = np.clip((around - np.float32(STUD_HEIGHT_MM + 0.3)) / np.float32(8.0), 0, 1)
    deep *= np.float32(look.occlusion)
    covered = cv2.GaussianBlur((field > 0).astype(np.float32), (0, 0), 1.0)
    lost = np.maximum(deep, covered * np.float32(look.under))
    # From the height field's grid (1 px per mm, FIELD_MARGIN_MM) to the shadow map's.
    size = int((BOARD_MM + 2 * margin_mm) * px_per_mm)
    at = (np.arange(size, dtype=np.float32) / np.float32(px_per_mm)
          + np.float32(FIELD_MARGIN_MM - margin_mm))
    map_x = np.broadcast_to(at[None, :], (size, size))
    map_y = np.broadcast_to(at[:, None], (size, size))
    return cv2.remap(lost, np.ascontiguousarray(map_x), np.ascontiguousarray(map_y),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)


def deepen_contact(contact: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """The board's contact map (1 takes :data:`CONTACT_SHARE` of the room's light) with
    ``lost`` (a share of the room's light) joined in: whichever takes more."""
    return np.maximum(contact, lost / np.float32(CONTACT_SHARE)).astype(np.float32)
