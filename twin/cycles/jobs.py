"""What one Blender job of the validation renderer holds, and how its webcam develops it.

Everything here is drawn from the caller's generator in a fixed order, so that a seed
gives the same frame again: the webcam (intrinsics, distortion, a place over the table),
the plate, studs and printed card, the table, the clutter on it, the pieces' finishes
and the light; then the development of Blender's picture (white balance, metering or
fixed exposure, lens distortion, blur, noise).
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.camera import Camera, Pose
from rules.maps import GroundMap
from rules.pieces import (
    BOARD_MM,
    BOARD_STUDS,
    STUD_DIAMETER_MM,
    STUD_HEIGHT_MM,
    STUD_MM,
    Kind,
    Piece,
    missing_corners,
    place_key,
)
from rules.scene import Scene
from twin.cycles.card import card_texture
from twin.mesh import piece_mesh

PLATE_BOTTOM_MM = -1.6
CARD_Z_MM = 0.25
SCRIPT = Path(__file__).with_name("render_scene.py")
MARGIN = 0.05  # extra picture on each side, so that distortion never pulls in black

PIECE_RGB = {
    "dark_orange": (165, 88, 32), "tan": (222, 198, 148), "dark_tan": (142, 128, 98),
    "reddish_brown": (92, 48, 28), "light_green": (168, 212, 38), "dark_green": (30, 112, 52),
    "gold": (184, 140, 58), "corner": (22, 108, 50), "monkey": (142, 128, 98),
    "butterfly": (250, 130, 30), "frog": (150, 50, 120),
}
CLUTTER_RGB = [(240, 240, 235), (200, 30, 20), (20, 80, 180), (245, 205, 50), (30, 30, 35)]


def _piece_rgb(piece: Piece, rng: np.random.Generator) -> tuple[float, ...]:
    if piece.kind is Kind.CORNER:
        name = "corner"
    elif piece.kind in (Kind.MONKEY, Kind.BUTTERFLY, Kind.FROG):
        name = piece.kind.value
    else:
        name = piece.color or str(rng.choice(["dark_orange", "tan", "dark_tan", "reddish_brown"]))
    rgb = np.array(PIECE_RGB.get(name, (128, 128, 128)), float) * rng.uniform(0.93, 1.07)
    return tuple(float(v) for v in np.clip(rgb, 0, 255))


def draw_intrinsics(rng: np.random.Generator, width: int, height: int) -> Camera:
    """A webcam's lens: field of view 50 to 80 degrees, an off-centre principal point and,
    six times in ten, barrel distortion."""
    hfov = math.radians(rng.uniform(50, 80))
    f = width / 2 / math.tan(hfov / 2)
    k = np.array([[f, 0, width / 2 + rng.normal(0, 6)], [0, f, height / 2 + rng.normal(0, 6)],
                  [0, 0, 1]])
    dist = np.zeros(5)
    if rng.random() < 0.6:
        dist[0], dist[1] = rng.uniform(-0.12, 0.0), rng.uniform(0.0, 0.05)
    return Camera(width, height, k, dist)


def draw_pose(rng: np.random.Generator, camera: Camera,
              elevation_deg: tuple[float, float] = (28.0, 88.0), azimuth: float | None = None,
              fill: tuple[float, float] | None = None) -> Pose:
    """Where ``camera`` stands: the board's outermost corner ``fill`` of the way to the
    picture's edge (by default from a third of the picture to past its edges), looking
    from ``azimuth`` (radians; random by default) near the board's middle.

    The azimuth is drawn whether or not one is given, so that a seed keeps its frame
    whatever ``azimuth`` and ``elevation_deg`` are; a given ``fill`` draws one framing
    where the default draws three and picks one, so the draws after it differ.
    """
    width, height = camera.width, camera.height
    k = camera.camera_matrix
    f = float(k[0, 0])
    elevation = math.radians(rng.uniform(*elevation_deg))
    drawn_azimuth = rng.uniform(0, 2 * math.pi)
    azimuth = drawn_azimuth if azimuth is None else azimuth
    if fill is None:
        framing = float(rng.choice([rng.uniform(0.35, 0.7), rng.uniform(0.7, 1.0),
                                    rng.uniform(1.0, 1.3)]))
    else:
        framing = float(rng.uniform(*fill))
    target = np.array([BOARD_MM / 2, BOARD_MM / 2, 0]) + np.r_[rng.normal(0, 10 + 40 * max(
        0, framing - 1) * 3, 2), 0]
    back = np.array([math.cos(elevation) * math.cos(azimuth),
                     math.cos(elevation) * math.sin(azimuth), math.sin(elevation)])
    corners = np.array([[x, y, 0.0] for x in (0, BOARD_MM) for y in (0, BOARD_MM)])
    distance = 600.0
    roll = rng.normal(0, 0.07)
    for _ in range(8):
        pose = Pose.look_at(target + distance * back, target)
        if roll:
            c, s = math.cos(roll), math.sin(roll)
            r = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ pose.rotation
            pose = Pose.from_matrix(r, -r @ (target + distance * back))
        cam = pose.to_camera(corners)
        u = (f * cam[:, 0] / cam[:, 2] + k[0, 2] - width / 2) / (width / 2)
        v = (f * cam[:, 1] / cam[:, 2] + k[1, 2] - height / 2) / (height / 2)
        extent = float(np.max(np.maximum(np.abs(u), np.abs(v))))
        distance *= (extent / framing) ** 0.9
    return pose


def draw_camera(rng: np.random.Generator, width: int, height: int,
            elevation_deg: tuple[float, float] = (28.0, 88.0)) -> tuple[Camera, Pose]:
    """A webcam whose board fills from a third of the picture to past its edges."""
    camera = draw_intrinsics(rng, width, height)
    return camera, draw_pose(rng, camera, elevation_deg)


def _pieces_json(pieces: tuple[Piece, ...], rng: np.random.Generator,
                 looks: dict[tuple[object, ...], dict[str, Any]]) -> list[dict[str, Any]]:
    """The pieces' meshes and finishes; ``looks`` keeps each piece's finish across scenes."""
    out = []
    for i, piece in enumerate(pieces):
        mesh = piece_mesh(piece, i, np.zeros(3, np.float32))
        key = place_key(piece)
        if key not in looks:
            gold = piece.kind is Kind.DECORATION and piece.color == "gold"
            looks[key] = {"rgb": _piece_rgb(piece, rng),
                          "roughness": 0.25 if gold else float(rng.uniform(0.2, 0.45)),
                          "specular": 0.9 if gold else 0.5}
        out.append(looks[key] | {
            "polys": [p.tolist() for p in mesh.polys],
            "cylinders": [[*c.base, c.radius, c.height] for c in mesh.cylinders],
        })
    return out


def _light(rng: np.random.Generator) -> dict[str, Any]:
    sky = {"rgb": [float(v) for v in np.clip(rng.normal([205, 220, 245], 20), 120, 255)],
           "strength": float(rng.uniform(0.15, 1.2))}
    lamps = []
    warm = [float(v) for v in np.clip(rng.normal([255, 235, 205], 20), 150, 255)]
    if rng.random() < 0.5:
        lamps.append({"type": "SUN", "energy": float(rng.uniform(1.5, 6.0)), "rgb": warm,
                      "angle_deg": float(rng.uniform(0.3, 3.0)),
                      "elevation_deg": float(rng.uniform(30, 85)),
                      "azimuth_deg": float(rng.uniform(0, 360))})
    else:
        a = rng.uniform(0, 2 * math.pi)
        r, h = rng.uniform(0, 700), rng.uniform(700, 1800)
        lamps.append({"type": "POINT", "energy": float(rng.uniform(40, 160) * (h / 1000) ** 2),
                      "rgb": warm, "radius_mm": float(rng.uniform(3, 40)),
                      "position_mm": [128 + r * math.cos(a), 128 + r * math.sin(a), h]})
    return {"sky": sky, "lamps": lamps}


def _table(rng: np.random.Generator) -> dict[str, Any]:
    kind = rng.choice(["bright", "wood", "dark", "cloth"])
    base = {"bright": (235, 232, 225), "wood": (185, 140, 90), "dark": (70, 55, 45),
            "cloth": tuple(rng.uniform(40, 220, 3))}[kind]
    a = np.clip(np.array(base, float) * rng.uniform(0.85, 1.1), 0, 255)
    b = np.clip(a * rng.uniform(0.75, 0.95), 0, 255)
    return {"pattern": "wood" if kind == "wood" else "noise", "scale": float(rng.uniform(2, 12)),
            "rgb_a": a.tolist(), "rgb_b": b.tolist(), "roughness": float(rng.uniform(0.3, 0.8)),
            "half_mm": 3000.0}


def _clutter(rng: np.random.Generator) -> list[dict[str, Any]]:
    boxes = []
    for _ in range(int(rng.integers(0, 6))):
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(200, 420)
        cx, cy = 128 + r * math.cos(a), 128 + r * math.sin(a)
        if rng.random() < 0.6:  # a card
            w, h, z = 31.0, 44.0, 0.6
        else:  # a stray brick
            w, h, z = 8.0 * rng.integers(1, 3), 8.0 * rng.integers(1, 5), 11.3
        boxes.append({"lo": [cx - w, cy - h, PLATE_BOTTOM_MM], "hi": [cx + w, cy + h,
                      PLATE_BOTTOM_MM + z],
                      "rgb": list(CLUTTER_RGB[int(rng.integers(len(CLUTTER_RGB)))]),
                      "roughness": float(rng.uniform(0.3, 0.7))})
    return boxes


def develop_settings(rng: np.random.Generator, margin: tuple[int, int],
                      seed: int) -> dict[str, Any]:
    return {"margin": list(margin), "metered": bool(rng.random() < 0.5),
            "target": float(rng.uniform(0.35, 0.6)),
            "white_balance": rng.uniform(0.88, 1.12, 3).tolist(),
            "blur": float(rng.uniform(0, 0.9)), "noise": float(rng.uniform(1, 4)),
            "seed": seed}


def blender_camera(camera: Camera, pose: Pose, margin: tuple[int, int]) -> dict[str, Any]:
    """The job's camera: ``camera`` at ``pose``, its film ``margin`` pixels larger on each
    side (the room its distortion is remapped from)."""
    mw, mh = margin
    k = camera.camera_matrix
    # OpenCV counts pixel centres from 0, Blender's film from the picture's edge.
    return {"width": camera.width + 2 * mw, "height": camera.height + 2 * mh,
            "fx": float(k[0, 0]), "cx": float(k[0, 2] + mw + 0.5),
            "cy": float(k[1, 2] + mh + 0.5), "rotation": pose.rotation.tolist(),
            "tvec_mm": pose.tvec.tolist()}


def table_jobs(rng: np.random.Generator, ground: GroundMap, camera: Camera, pose: Pose,
                work: Path, samples: int, seed: int,
                piece_sets: list[tuple[Piece, ...]]) -> tuple[list[dict[str, Any]], list[int]]:
    """One Blender job per set of pieces, all on the same table, light, card and clutter.

    A piece standing in several sets keeps its colour and finish (a turn adds pieces, it
    does not repaint the others). Returns the jobs and the margin rendered around the
    camera's picture for its distortion.
    """
    tex = work / "card.png"
    cv2.imwrite(str(tex), cv2.cvtColor(np.flipud(card_texture(ground, rng)), cv2.COLOR_RGBA2BGRA))
    width, height = camera.width, camera.height
    margin = MARGIN if np.any(camera.dist_coeffs) else 0.0
    mw, mh = round(width * margin), round(height * margin)
    common = {
        "seed": seed, "samples": samples, "threads": 2,
        "exposure_stops": float(rng.uniform(-0.6, 0.6)),
        "camera": blender_camera(camera, pose, (mw, mh)),
        "plate": {"rgb": [float(v) for v in rng.normal([24, 108, 52], 6)],
                  "roughness": float(rng.uniform(0.25, 0.45)), "size_mm": BOARD_MM,
                  "bottom_mm": PLATE_BOTTOM_MM},
        "stud": {"radius_mm": STUD_DIAMETER_MM / 2, "height_mm": STUD_HEIGHT_MM,
                 "roughness": float(rng.uniform(0.08, 0.3)), "specular": 0.6,
                 "centres_mm": [[(x + 0.5) * STUD_MM, (y + 0.5) * STUD_MM]
                                for y in range(BOARD_STUDS) for x in range(BOARD_STUDS)]},
        "card": {"texture": str(tex), "size_mm": BOARD_MM, "z_mm": CARD_Z_MM,
                 "roughness": float(rng.uniform(0.45, 0.8)), "specular": 0.4},
        "table": _table(rng), "clutter": _clutter(rng),
    }
    looks: dict[tuple[object, ...], dict[str, Any]] = {}
    pieces = [_pieces_json((*ps, *missing_corners(ps)), rng, looks) for ps in piece_sets]
    light = _light(rng)
    return [common | {"pieces": p} | light for p in pieces], [mw, mh]


def develop(png: Path, camera: Camera, settings: dict[str, Any]) -> np.ndarray:
    """Blender's picture as a webcam delivers it (BGR uint8, the camera's size)."""
    raw = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)[..., :3].astype(np.float32) / 65535.0
    lin = raw ** 2.2 * np.array(settings["white_balance"], np.float32)
    if settings["metered"]:
        lum = float(np.mean(lin @ np.array([0.11, 0.59, 0.3], np.float32)))
        lin *= (settings["target"] ** 2.2) / max(lum, 1e-4)
    lin *= settings.get("gain", 1.0)  # a later frame's exposure drift
    img = np.clip(lin, 0, 1) ** (1 / 2.2) * 255
    mw, mh = settings["margin"]
    if mw or mh:
        ys, xs = np.mgrid[0:camera.height, 0:camera.width].astype(np.float32)
        pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
        k = camera.camera_matrix
        ideal = cv2.undistortPoints(pts, k, camera.dist_coeffs, P=k).reshape(
            camera.height, camera.width, 2)
        img = cv2.remap(img, ideal[..., 0] + mw, ideal[..., 1] + mh, cv2.INTER_LINEAR)
    if settings["blur"] > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), settings["blur"])
    rng = np.random.default_rng(settings["seed"])
    img = img + rng.normal(0, settings["noise"], img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def drifted(settings: dict[str, Any], rng: np.random.Generator, seed: int) -> dict[str, Any]:
    """The same webcam a few seconds later: exposure and white balance drift, new noise."""
    return settings | {
        "white_balance": (np.array(settings["white_balance"])
                          * rng.uniform(0.97, 1.03, 3)).tolist(),
        "target": settings["target"] * float(rng.uniform(0.96, 1.04)),
        "gain": float(rng.uniform(0.93, 1.07)),
        "noise": settings["noise"] * float(rng.uniform(0.8, 1.25)), "seed": seed}


def run_blender(blender: str, job: dict[str, Any], work: Path, name: str) -> Path:
    """Renders ``job`` in a Blender of its own; the 16-bit PNG it wrote."""
    (work / f"{name}.json").write_text(json.dumps(job))
    png = work / f"{name}.png"
    done = subprocess.run([blender, "-b", "-noaudio", "-P", str(SCRIPT), "--",
                           str(work / f"{name}.json"), str(png)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode or not png.exists():
        raise RuntimeError(f"{name}: blender failed:\n{done.stdout[-3000:]}")
    return png


def scene_json(scene: Scene, stem: str) -> dict[str, Any]:
    """``scene`` as a file beside its map, ``STEM.map.json``."""
    return scene.to_json() | {"map": f"{stem}.map.json"}
