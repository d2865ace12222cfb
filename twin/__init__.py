"""The digital twin: renders any palace as a webcam would see it, with exact labels."""

from twin.cameras import around_board, orbit_pose, random_camera
from twin.clutter import Card, Hand, Phone, Slab
from twin.frame import Frame, RenderOptions
from twin.mesh import KIND_LABELS, PART_LABELS
from twin.renderer import render
from twin.shading import Light, Relight
from twin.table import SimulatedTable, TableFrame
from twin.table_settings import TableSettings

__all__ = [
    "KIND_LABELS",
    "PART_LABELS",
    "Card",
    "Frame",
    "Hand",
    "Light",
    "Phone",
    "Relight",
    "RenderOptions",
    "SimulatedTable",
    "Slab",
    "TableFrame",
    "TableSettings",
    "around_board",
    "orbit_pose",
    "random_camera",
    "render",
]
