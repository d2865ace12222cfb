"""Where the camera is: intrinsics, the board's pose from its corner bricks, profiles."""

from calibration.camera import Camera, CameraFileError, Pose, project

__all__ = ["Camera", "CameraFileError", "Pose", "project"]
