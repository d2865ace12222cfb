"""Random webcam placements around the board, in the ranges players really use.

A webcam on a stand or a phone held over the table sees the board from straight above
down to about 30 degrees over the table, from any side (players turn the board), with a
55-80 degree lens and a little barrel distortion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, Pose, rays_through
from rules.pieces import BOARD_MM

BOARD_CENTER = np.array([BOARD_MM / 2, BOARD_MM / 2, 0.0])


def orbit_pose(
    elevation_deg: float,
    azimuth_deg: float,
    distance_mm: float,
    target: np.ndarray = BOARD_CENTER,
    roll_deg: float = 0.0,
) -> Pose:
    """A camera on a sphere around ``target``, looking at it, image-up pointing away.

    Defined without a singularity at the top: at 90 degrees the image's up is still the
    direction away from the azimuth, so yaw stays meaningful in a top-down view.
    """
    el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
    back = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    eye = np.asarray(target, float) + distance_mm * back
    forward = -back
    up = np.array([-math.sin(el) * math.cos(az), -math.sin(el) * math.sin(az), math.cos(el)])
    right = np.cross(forward, up)
    down = -up
    roll = math.radians(roll_deg)
    right, down = (math.cos(roll) * right + math.sin(roll) * down,
                   -math.sin(roll) * right + math.cos(roll) * down)
    rotation = np.stack([right, down, forward])
    return Pose.from_matrix(rotation, -rotation @ eye)


def around_board(pose: Pose, degrees: float) -> Pose:
    """The same webcam moved ``degrees`` round the board's centre, about the table's
    vertical, at the same height and distance: a second webcam on another side of the
    table (the light and the table stay where they are)."""
    rotation, _ = cv2.Rodrigues(pose.rvec)
    a = math.radians(degrees)
    turn = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0],
                     [0.0, 0.0, 1.0]])
    return Pose.from_matrix(rotation @ turn,
                            rotation @ (BOARD_CENTER - turn @ BOARD_CENTER) + pose.tvec)


def turned_webcam(pose: Pose, pan_deg: float, tilt_deg: float) -> Pose:
    """The pose under which the same webcam sees the board once turned on its mount (a
    table leant on, a clamp knocked): panned about its own vertical axis, tilted about its
    horizontal one, its centre where it was."""
    knock, _ = cv2.Rodrigues(np.radians([tilt_deg, pan_deg, 0.0]))
    return Pose.from_matrix(knock @ pose.rotation, knock @ pose.tvec)


def turned_picture(image: NDArray[np.uint8], camera: Camera, pan_deg: float,
                   tilt_deg: float) -> NDArray[np.uint8]:
    """The picture the webcam of :func:`turned_webcam` takes, resampled from ``image``
    through the lens: a webcam's turn about its centre moves every point alike whatever
    its distance, so this is the picture it would take, but for the strip that comes into
    view at the border (the border's pixels repeated)."""
    knock, _ = cv2.Rodrigues(np.radians([tilt_deg, pan_deg, 0.0]))
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pixels = np.stack([xs.ravel(), ys.ravel()], axis=1)
    # A ray of the turned webcam, as the webcam saw it before the turn: knock^T r.
    rays = rays_through(camera, pixels) @ knock
    seen, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), camera.camera_matrix,
                                camera.dist_coeffs)
    where = seen.reshape(h, w, 2).astype(np.float32)
    return cv2.remap(image, where[..., 0], where[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


@dataclass(frozen=True)
class SecondWebcamFrames:
    """A turn's frames from a second webcam of the same make on another side of the
    table (:func:`around_board`), under the same light: what a turn pair carries beside
    its first webcam's frames."""

    before_frame: NDArray[np.uint8]
    after_frame: NDArray[np.uint8]
    pose: Pose


def random_camera(
    rng: np.random.Generator,
    width: int = 1280,
    height: int = 720,
    *,
    elevation_deg: tuple[float, float] = (30.0, 90.0),
    azimuth_deg: tuple[float, float] = (0.0, 360.0),
    hfov_deg: tuple[float, float] = (55.0, 80.0),
    fill: tuple[float, float] = (0.7, 0.97),
    distortion: float = 1.0,
    roll_deg: float = 6.0,
) -> tuple[Camera, Pose]:
    """A webcam and where it stands; the board is (mostly) in view.

    ``fill`` is how far towards the picture's edge the board's outermost corner reaches
    (above 1 crops it); ``distortion`` scales the random lens distortion (0 = none).
    """
    hfov = rng.uniform(*hfov_deg)
    camera = Camera.default_for(width, height, hfov)
    k = camera.camera_matrix.copy()
    k[0, 2] += rng.normal(0, width * 0.01)
    k[1, 2] += rng.normal(0, height * 0.01)
    k[1, 1] *= 1 + rng.normal(0, 0.003)
    dist = np.zeros(5)
    if distortion > 0:
        dist[0] = rng.uniform(-0.22, 0.05) * distortion
        dist[1] = rng.uniform(-0.03, 0.08) * distortion
        dist[2:4] = rng.normal(0, 0.001, 2) * distortion
    camera = Camera(width, height, k, dist)
    pose = random_pose(rng, camera, elevation_deg=elevation_deg, azimuth_deg=azimuth_deg,
                       fill=fill, roll_deg=roll_deg)
    return camera, pose


def random_pose(
    rng: np.random.Generator,
    camera: Camera,
    *,
    elevation_deg: tuple[float, float] = (30.0, 90.0),
    azimuth_deg: tuple[float, float] = (0.0, 360.0),
    fill: tuple[float, float] = (0.7, 0.97),
    roll_deg: float = 6.0,
) -> Pose:
    """Where a given webcam might stand, the board (mostly) in its view.

    ``fill`` is how far towards the picture's edge the board's outermost corner reaches
    (1 = touching it), measured in the perspective view itself: seen obliquely, the near
    corners are much larger than the far ones.
    """
    elevation = rng.uniform(*elevation_deg)
    azimuth = rng.uniform(*azimuth_deg)
    roll = rng.normal(0, roll_deg / 2)
    target = BOARD_CENTER + np.array([rng.normal(0, 8), rng.normal(0, 8), 0.0])
    reach = rng.uniform(*fill)
    k = camera.camera_matrix
    corners = np.array([[x, y, z] for x in (0.0, BOARD_MM) for y in (0.0, BOARD_MM)
                        for z in (0.0, 12.0)])
    f = min(k[0, 0], k[1, 1])
    distance = f * BOARD_MM / min(camera.width, camera.height)
    for _ in range(6):
        pose = orbit_pose(elevation, azimuth, distance, target, roll)
        cam = pose.to_camera(corners)
        u = (k[0, 0] * cam[:, 0] / cam[:, 2] + k[0, 2] - camera.width / 2) / (camera.width / 2)
        v = (k[1, 1] * cam[:, 1] / cam[:, 2] + k[1, 2] - camera.height / 2) / (camera.height / 2)
        extent = float(np.max(np.maximum(np.abs(u), np.abs(v))))
        distance *= (extent / reach) ** 0.9
    return orbit_pose(elevation, azimuth, distance, target, roll)
