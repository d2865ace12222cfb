"""Where the camera is: intrinsics, the board's pose from its corner bricks, profiles."""

from calibration.camera import Camera, CameraFileError, Pose, project
from calibration.image_file import ImageFileError, load_image

__all__ = ["Camera", "CameraFileError", "ImageFileError", "Pose", "load_image", "project"]
