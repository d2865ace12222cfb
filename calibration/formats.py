"""The camera, pose and profile files as typed models, bounded to what a webcam can be.

A camera file decides how much memory a render takes and whether OpenCV's warps and
remaps finish at all: a singular, NaN or 1e308 matrix made them hang or raise deep
inside. So the bounds are physical: a positive focal length between a fish-eye's and a
long telephoto's for the image's width, the principal point inside the image, the
image no larger than the pictures read (:data:`~calibration.image_file.MAX_PIXELS`),
distortion coefficients of a size a lens can have, and a pose within a room's reach.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from calibration.image_file import MAX_PIXELS
from rules.formats import MapModel, Name, QuarterTurns, finite_number, whole_number

PROFILE_FORMAT = "palace-profile/1"
MIN_IMAGE_SIDE = 16
MAX_IMAGE_SIDE = 16384
FOCAL_RANGE = (0.05, 30.0)
"""Focal length over the image's longer side: 0.05 is a 170-degree fish-eye, 30 a
2-degree telephoto; a webcam is near 0.9."""
MAX_DISTORTION = 100.0
"""Real lenses' coefficients stay within a few units (rational models within tens)."""
ROOM_MM = 20_000.0
"""A camera 20 m from the board sees it as a few pixels: any pose beyond is a typo."""
MAX_ROTATION = 10.0
"""A rotation vector's entries: 2 pi is a full turn, larger ones only wrap around."""

ImageSide = whole_number(MIN_IMAGE_SIDE, MAX_IMAGE_SIDE)
Row = Annotated[list[finite_number(-1e9, 1e9)], Field(min_length=3, max_length=3)]
Distortion = finite_number(-MAX_DISTORTION, MAX_DISTORTION)
Rotation = finite_number(-MAX_ROTATION, MAX_ROTATION)
Millimetres = finite_number(-ROOM_MM, ROOM_MM)


class CameraModel(BaseModel):
    """A camera file: image size, 3x3 camera matrix and OpenCV distortion coefficients."""

    model_config = ConfigDict(extra="allow", title="camera")

    width: ImageSide
    height: ImageSide
    camera_matrix: Annotated[list[Row], Field(min_length=3, max_length=3)] = Field(
        description="[[fx, skew, cx], [0, fy, cy], [0, 0, 1]] in pixels"
    )
    dist_coeffs: Annotated[
        list[Distortion],
        Field(min_length=4, max_length=14),
    ] = Field(default_factory=lambda: [0.0] * 5, description="k1 k2 p1 p2 [k3 [k4 k5 k6 ...]]")

    @model_validator(mode="after")
    def _a_lens_could_have_it(self) -> CameraModel:
        if self.width * self.height > MAX_PIXELS:
            raise ValueError(
                f"a {self.width}x{self.height} camera is more than the "
                f"{MAX_PIXELS / 1e6:g} megapixels a picture may have"
            )
        if len(self.dist_coeffs) not in (4, 5, 8, 12, 14):
            raise ValueError(
                f"dist_coeffs has {len(self.dist_coeffs)} values; OpenCV takes 4, 5, 8, 12 or 14"
            )
        (fx, skew, cx), (k10, fy, cy), last = self.camera_matrix
        if k10 != 0 or last != [0, 0, 1]:
            raise ValueError(
                "camera_matrix must be [[fx, skew, cx], [0, fy, cy], [0, 0, 1]], found "
                f"{self.camera_matrix}"
            )
        side = max(self.width, self.height)
        low, high = FOCAL_RANGE[0] * side, FOCAL_RANGE[1] * side
        for name, f in (("fx", fx), ("fy", fy)):
            if not low <= f <= high:
                raise ValueError(
                    f"camera_matrix {name} is {f:g} px; a {self.width}x{self.height} camera's "
                    f"focal length is between {low:g} and {high:g} px"
                )
        if not 0.5 <= fx / fy <= 2.0 or abs(skew) > 0.1 * fx:
            raise ValueError(
                f"camera_matrix fx {fx:g}, fy {fy:g}, skew {skew:g}: pixels that far from "
                "square are not a camera"
            )
        if not (0 <= cx <= self.width and 0 <= cy <= self.height):
            raise ValueError(
                f"camera_matrix principal point ({cx:g}, {cy:g}) must lie inside the "
                f"{self.width}x{self.height} image"
            )
        return self


class PoseModel(BaseModel):
    """A pose file: board-to-camera rotation vector and translation (mm), OpenCV's."""

    model_config = ConfigDict(extra="allow", title="pose")

    rvec: Annotated[
        list[Rotation],
        Field(min_length=3, max_length=3),
    ] = Field(description="rotation vector (radians), as cv2.solvePnP returns")
    tvec: Annotated[
        list[Millimetres],
        Field(min_length=3, max_length=3),
    ] = Field(description="translation (mm)")


class TableModel(BaseModel):
    """One table in a profile: the last pose, which way round the board lay, its map."""

    model_config = ConfigDict(extra="allow", title="table")

    pose: PoseModel
    rotation: QuarterTurns = 0
    map: MapModel | None = Field(None, description="the ground map the camera read here")


class ProfileModel(BaseModel):
    """``palace-profile/1``: a player's camera and the last pose at each table."""

    model_config = ConfigDict(extra="allow", title=PROFILE_FORMAT)

    format: Literal["palace-profile/1"]
    camera: CameraModel | None = None
    tables: Annotated[dict[Name, TableModel], Field(max_length=1000)] = {}
