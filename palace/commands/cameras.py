"""The camera files a command's images were taken with: one for every image, or one per
image in their order (a table with several webcams). ``palace reconstruct`` and
``palace map read`` take them alike."""

from __future__ import annotations

from calibration.camera import Camera
from palace.cli import UsageError


def cameras_per_image(files: list[str] | None, images: int) -> list[Camera]:
    """The lenses named by a repeated ``--camera`` option (none when not given)."""
    if not files:
        return []
    if len(files) not in (1, images):
        raise UsageError(f"--camera: give one (every image's) or one per image "
                         f"({images} images, {len(files)} given)")
    return [Camera.load(path) for path in files]
