"""Pieces shading pieces: shadows fall away from the light, crevices darken, nothing
else of the frame moves."""

from __future__ import annotations

import cv2
import numpy as np

from rules.pieces import BRICK_MM, Axis, Kind, Piece
from rules.scene import Scene
from twin import RenderOptions, orbit_pose, random_camera, render
from twin.piece_light import (
    FIELD_MARGIN_MM,
    PieceLight,
    height_field,
    height_layers,
    shade_factors,
)
from twin.shading import Light

TOWER = np.array([[x, y, z] for x in (100.0, 116.0) for y in (100.0, 116.0)
                  for z in (0.0, 5 * BRICK_MM)])
"""A 2 x 2 stud column five bricks tall, from (100, 100) to (116, 116) mm."""
LOOK = PieceLight(occlusion=0.5, blur_mm=5.0, penumbra_mm=2.0)


def _light(azimuth: float) -> Light:
    return Light(azimuth_deg=azimuth, elevation_deg=40.0)


def test_height_field_holds_the_tallest_piece_over_each_point():
    low = TOWER.copy()
    low[:, 2] = np.minimum(low[:, 2], BRICK_MM)
    low[:, 0] += 8.0  # overlaps the tower's right half
    field = height_field([TOWER, low])

    def at(x: float, y: float) -> float:
        return float(field[int(y + FIELD_MARGIN_MM), int(x + FIELD_MARGIN_MM)])

    assert at(110, 110) == np.float32(5 * BRICK_MM)
    assert at(120, 110) == np.float32(BRICK_MM)
    assert at(60, 60) == 0


def test_the_field_without_a_piece_is_the_field_of_the_others():
    # Overlapping pieces, two of them of one height, and one over the board's edge.
    verts = [TOWER, _brick(90.0, 104.0), _brick(108.0, 96.0), _brick(-20.0, 50.0)]
    verts.append(verts[1] + np.array([4.0, 2.0, BRICK_MM]))
    field, second, top = height_layers(verts)
    assert np.array_equal(field, height_field(verts))
    for i in range(len(verts)):
        others = height_field([v for j, v in enumerate(verts) if j != i])
        assert np.array_equal(np.where(top == i, second, field), others)
    assert set(np.unique(top)) == {-1, 0, 1, 2, 3, 4}


def test_the_shadow_falls_on_the_side_away_from_the_light():
    # Light from +x (azimuth 0): the point at the tower's -x foot is shaded, the
    # point at its +x foot is lit; a point far away is lit and in the open.
    points = np.array([[96.0, 108.0, 0.0], [120.0, 108.0, 0.0], [20.0, 20.0, 0.0]])
    board = np.full(3, -1)
    direct, room = shade_factors(points, board, [TOWER], _light(0.0), LOOK)
    assert direct[0] < 0.05
    assert direct[1] > 0.95 and direct[2] > 0.95
    # Turning the light round moves the shadow to the other foot.
    direct, _ = shade_factors(points, board, [TOWER], _light(180.0), LOOK)
    assert direct[1] < 0.05 and direct[0] > 0.95
    assert room[0] < 0.9 and room[2] == 1.0


def test_a_piece_top_does_not_shade_itself():
    top = np.array([[108.0, 108.0, 5 * BRICK_MM]])
    direct, room = shade_factors(top, np.zeros(1, int), [TOWER], _light(30.0), LOOK)
    assert direct[0] > 0.95 and room[0] == 1.0


def _brick(x: float, y: float) -> np.ndarray:
    """A 2 x 4 stud brick's corners, (x, y) its low corner, long along x."""
    return np.array([[x + dx, y + dy, z] for dx in (0.0, 32.0) for dy in (0.0, 16.0)
                     for z in (0.0, BRICK_MM)])


def _foot(x: float, y: float) -> np.ndarray:
    """Points low on a brick's four sides (at (x, y), as :func:`_brick`)."""
    return np.array([[x + 16.0, y, 1.0], [x + 16.0, y + 16.0, 1.0],
                     [x, y + 8.0, 1.0], [x + 32.0, y + 8.0, 1.0]])


def test_a_lone_brick_sees_the_whole_room_and_one_beside_a_tower_does_not():
    # A wide blur: the brick's own prism, were it counted, would stand over its sides.
    look = PieceLight(occlusion=0.6, blur_mm=8.0, penumbra_mm=2.0)
    lone = [_brick(40.0, 40.0)]
    _, room = shade_factors(_foot(40.0, 40.0), np.zeros(4, int), lone, _light(0.0), look)
    assert np.all(room == 1.0)
    # Counted with its own piece, the same sides would darken as a crevice's foot.
    _, counted = shade_factors(_foot(40.0, 40.0), np.full(4, -1), lone, _light(0.0), look)
    assert counted.max() < 0.99 and counted.min() < 0.95
    # The same brick with its +x end against the tower: that end sees less of the room,
    # its far end none the less.
    beside = [TOWER, _brick(100.0 - 32.0 - 1.0, 100.0)]
    _, room = shade_factors(_foot(67.0, 100.0), np.ones(4, int), beside, _light(0.0), look)
    assert room[3] < 0.8
    assert room[2] == 1.0


def test_piece_light_darkens_piece_pixels_only():
    scene = Scene.of([
        Piece(Kind.BRICK, 10, 10, 0, axis=Axis.X, color="tan", id="b1"),
        Piece(Kind.BRICK, 10, 10, 1, axis=Axis.X, color="tan", id="b2"),
        Piece(Kind.BRICK, 10, 10, 2, axis=Axis.X, color="tan", id="b3"),
        Piece(Kind.BRICK, 12, 10, 0, axis=Axis.X, color="white", id="b4"),
    ])
    camera, _ = random_camera(np.random.default_rng(3), 640, 360)
    pose = orbit_pose(50.0, 200.0, 330.0)
    light = Light(azimuth_deg=180.0, elevation_deg=35.0, ambient=0.4, diffuse=0.6,
                  shadow=0.8)
    options = {"light": light, "noise": 0.0, "blur": 0.0, "jpeg_quality": 0}
    plain = render(scene, camera, pose, RenderOptions(**options), seed=5)
    lit = render(scene, camera, pose, RenderOptions(**options, room_light=True), seed=5)
    assert np.array_equal(plain.piece_ids, lit.piece_ids)
    assert np.array_equal(plain.parts, lit.parts)
    change = lit.image.astype(int) - plain.image.astype(int)
    pieces = plain.piece_ids >= 0
    # The lower bricks in the column's shadow and at its foot darken clearly; away from
    # the pieces (a cheap webcam's softening and motion smear reach a few pixels) only
    # its metering of the whole, slightly darker, frame moves a level.
    near = cv2.dilate(pieces.astype(np.uint8), np.ones((25, 25), np.uint8)) > 0
    assert change[pieces].min() <= -20
    assert np.abs(change[~near]).max() <= 2
    assert change[pieces].sum() < 0


def _shadow_tint(fill: tuple[float, float, float] | None) -> float:
    """Blue over red, as a log ratio, of the board in a tower's shadow against the same
    board without the tower."""
    tower = Scene.of([Piece(Kind.BRICK, 14, 14, z, axis=Axis.X, color="white", id=f"b{z}")
                      for z in range(4)])
    camera, _ = random_camera(np.random.default_rng(3), 640, 360)
    pose = orbit_pose(60.0, 30.0, 300.0)
    light = Light(azimuth_deg=200.0, elevation_deg=40.0, ambient=0.35, diffuse=0.65,
                  shadow=0.9, softness_mm=0.5, fill=fill)
    # No colour jitter: its draws per piece would shift every later draw of the empty
    # scene (its white balance among them).
    options = RenderOptions(light=light, noise=0.0, blur=0.0, jpeg_quality=0, clutter=False,
                            color_jitter=0.0)
    with_tower = render(tower, camera, pose, options, seed=2)
    without = render(Scene.of([]), camera, pose, options, seed=2)
    board = (with_tower.piece_ids < 0) & np.isfinite(with_tower.depth)
    ratio = np.log((with_tower.image.astype(float) + 4) / (without.image.astype(float) + 4))
    shade = board & (ratio.mean(axis=2) < -0.4)
    assert shade.sum() > 50
    return float(ratio[shade, 0].mean() - ratio[shade, 2].mean())


def test_a_fill_of_its_own_colour_tints_the_shadows():
    assert abs(_shadow_tint(None)) < 0.05
    assert _shadow_tint((1.0, 0.85, 0.6)) > 0.1
