"""The digital twin: renders any palace as a webcam would see it, with exact labels."""

from vision.twin.cameras import orbit_pose, random_camera
from vision.twin.frame import Frame, RenderOptions
from vision.twin.mesh import KIND_LABELS, PART_LABELS
from vision.twin.renderer import render
from vision.twin.shading import Light

__all__ = [
    "KIND_LABELS",
    "PART_LABELS",
    "Frame",
    "Light",
    "RenderOptions",
    "orbit_pose",
    "random_camera",
    "render",
]
