"""The digital twin: exact projection, z-buffer occlusion, labels and determinism."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import Camera, Pose, project
from rules.maps import MapError
from rules.pieces import BRICK_MM, STUD_HEIGHT_MM, STUD_MM, Axis, Kind, Piece
from rules.scene import Scene
from twin import KIND_LABELS, PART_LABELS, RenderOptions, orbit_pose, random_camera, render

STUD_TOP = PART_LABELS["stud_top"]


def _camera(width: int, height: int, hfov: float, dist: list[float] | None = None) -> Camera:
    base = Camera.default_for(width, height, hfov)
    k = base.camera_matrix.copy()
    k[0, 2] += 7.3  # an off-centre principal point catches half-pixel slips
    k[1, 2] -= 4.1
    return Camera(width, height, k, np.array(dist or [0, 0, 0, 0, 0], float))


def _stud_centre(frame, piece_index: int, expected: np.ndarray) -> np.ndarray | None:
    """Centroid of the stud-top pixels of one piece around ``expected``; None if cut off."""
    mask = ((frame.piece_ids == piece_index) & (frame.parts == STUD_TOP)).astype(np.uint8)
    x, y = round(float(expected[0])), round(float(expected[1]))
    h, w = mask.shape
    if not (2 <= x < w - 2 and 2 <= y < h - 2):
        return None
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    label = labels[y, x]
    assert label != 0, f"piece {piece_index}: no stud top at its projected centre {x},{y}"
    ys, xs = np.nonzero(labels == label)
    if xs.min() == 0 or ys.min() == 0 or xs.max() == w - 1 or ys.max() == h - 1:
        return None
    return np.array([xs.mean(), ys.mean()])


KNOBS_SCENE = Scene.of([
    Piece(Kind.ARCH, 10, 12, 0, axis=Axis.X, color="tan", id="a1"),
    Piece(Kind.ARCH, 20, 8, 0, axis=Axis.Y, color="reddish_brown", id="a2"),
])


@pytest.mark.parametrize("dist", [None, [-0.22, 0.07, 0.0012, -0.0008, 0.0]])
@pytest.mark.parametrize(("elevation", "azimuth"), [(88.0, 20.0), (55.0, 130.0), (32.0, 250.0)])
def test_stud_tops_land_where_opencv_projects_them(elevation, azimuth, dist):
    camera = _camera(1280, 720, 62, dist)
    pose = orbit_pose(elevation, azimuth, 330.0)
    frame = render(KNOBS_SCENE, camera, pose, RenderOptions(clean=True))
    checked = 0
    for index, piece in enumerate(frame.pieces):
        if piece.kind not in (Kind.CORNER, Kind.ARCH):
            continue
        for cx, cy in piece.knobs():
            centre = np.array([(cx + 0.5) * STUD_MM, (cy + 0.5) * STUD_MM,
                               piece.top * BRICK_MM + STUD_HEIGHT_MM])
            expected = project(camera, pose, centre)[0]
            found = _stud_centre(frame, index, expected)
            if found is None:
                continue
            checked += 1
            error = np.linalg.norm(found - expected)
            assert error < 0.5, f"{piece.label} stud {cx},{cy}: {error:.2f} px off"
    assert checked >= 8


def _low_view(azimuth: float, target: tuple[float, float, float], elevation: float = 14.0):
    camera = _camera(960, 540, 40)
    pose = orbit_pose(elevation, azimuth, 260.0, np.array(target))
    return camera, pose


def _id_at(frame, point: tuple[float, float, float]) -> int:
    u, v = project(frame.camera, frame.pose, np.array(point))[0]
    return int(frame.piece_ids[round(float(v)), round(float(u))])


def test_column_seen_through_an_arch_opening():
    arch = Piece(Kind.ARCH, 10, 10, 0, axis=Axis.X, color="tan", id="arch")
    column = Piece(Kind.COLUMN, 11, 11, 0, color="dark_tan", id="column")
    scene = Scene.of([arch, column])
    # Camera on the -y side, low, looking through the opening at the column.
    camera, pose = _low_view(270.0, (92.0, 88.0, 6.0))
    frame = render(scene, camera, pose, RenderOptions(clean=True))
    # Through the opening (x 88..104, under ~5.5 mm there): the column's front face.
    assert _id_at(frame, (92.0, 88.1, 1.5)) == 1
    # Above the opening the arch's front wall hides the column.
    assert _id_at(frame, (92.0, 80.0, 8.5)) == 0
    # The column rises above the arch.
    assert _id_at(frame, (92.0, 88.1, 20.0)) == 1


def test_arch_bridging_over_a_brick():
    legs = [Piece(Kind.BRICK, 10, 10, 0, color="tan", id="l1"),
            Piece(Kind.BRICK, 13, 10, 0, color="tan", id="l2")]
    under = Piece(Kind.BRICK, 11, 10, 0, color="dark_orange", id="under")
    arch = Piece(Kind.ARCH, 10, 10, 1, axis=Axis.X, color="reddish_brown", id="arch")
    # Listed with the arch first so that drawing order cannot be what gets it right.
    scene = Scene.of([arch, *legs, under])
    camera, pose = _low_view(270.0, (96.0, 84.0, 10.0), elevation=20.0)
    frame = render(scene, camera, pose, RenderOptions(clean=True))
    assert _id_at(frame, (92.0, 80.1, 4.0)) == 3  # the brick under the span
    assert _id_at(frame, (92.0, 80.1, 17.0)) == 0  # the arch's wall above it
    assert _id_at(frame, (84.0, 80.1, 4.0)) == 1  # a leg brick
    # From straight above, the arch's top hides the brick under it.
    top_camera = _camera(640, 360, 50)
    top_pose = orbit_pose(89.0, 0.0, 300.0, np.array([96.0, 84.0, 0.0]))
    top = render(scene, top_camera, top_pose, RenderOptions(clean=True))
    assert _id_at(top, (92.0, 84.0, 2 * BRICK_MM)) == 0


def test_staircase_arch_on_arch_keeps_its_opening():
    low = Piece(Kind.ARCH, 12, 15, 0, axis=Axis.X, color="tan", id="s1")
    high = Piece(Kind.ARCH, 15, 15, 1, axis=Axis.X, color="reddish_brown", id="s3")
    brick = Piece(Kind.BRICK, 18, 15, 0, color="dark_tan", id="s2")
    scene = Scene.of([high, brick, low])
    camera, pose = _low_view(270.0, (128.0, 124.0, 10.0), elevation=12.0)
    frame = render(scene, camera, pose, RenderOptions(clean=True))
    assert _id_at(frame, (124.0, 120.1, 4.0)) == 2  # the low arch's end leg
    assert _id_at(frame, (140.0, 120.1, 17.0)) == 0  # the high arch's wall
    assert _id_at(frame, (148.0, 120.1, 4.0)) == 1  # the brick under the high arch's end
    # Under the high arch's opening, at ground level, nothing of the palace stands.
    assert _id_at(frame, (136.0, 120.1, 2.0)) not in (0, 1, 2)


def test_labels_agree_with_each_other():
    camera, pose = random_camera(np.random.default_rng(3), 480, 270)
    scene = Scene.of([Piece(Kind.BRICK, 5, 5, 0, color="tan"),
                      Piece(Kind.DECORATION, 5, 5, 1, color="gold")])
    frame = render(scene, camera, pose, seed=3)
    pieces = frame.piece_ids >= 0
    assert pieces.any()
    assert np.all(frame.kinds[pieces] >= 2)
    assert np.all(frame.kinds[~pieces] <= 1)
    assert np.all(np.isfinite(frame.depth[frame.kinds >= 1]))
    assert np.all(np.isinf(frame.depth[frame.kinds == 0]))
    kinds = {frame.pieces[i].kind for i in np.unique(frame.piece_ids[pieces])}
    for kind in kinds:
        assert np.any(frame.kinds == KIND_LABELS[kind.value])
    assert frame.image.shape == (270, 480, 3) and frame.image.dtype == np.uint8


def test_same_seed_same_frame_and_seeds_differ():
    camera, pose = random_camera(np.random.default_rng(8), 320, 180)
    scene = Scene.of([Piece(Kind.COLUMN, 9, 9, 0, color="tan")])
    a = render(scene, camera, pose, seed=11)
    b = render(scene, camera, pose, seed=11)
    c = render(scene, camera, pose, seed=12)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.piece_ids, b.piece_ids)
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("wide", [False, True])
def test_a_relit_frame_is_the_same_frame_under_another_light(wide):
    """The room's light moved or dimmed between two pictures: the same seed draws the
    same table, clutter and noise, only the light differs (a relight of nothing changes
    nothing; a lamp swung round the table moves the shading of the pieces)."""
    from twin import Relight

    camera, pose = random_camera(np.random.default_rng(8), 320, 180)
    scene = Scene.of([Piece(Kind.COLUMN, 9, 9, 0, color="tan"),
                      Piece(Kind.ARCH, 14, 10, 0, axis=Axis.Y, color="dark_orange")])
    options = RenderOptions(wide=wide)
    a = render(scene, camera, pose, options, seed=11)
    same = render(scene, camera, pose, RenderOptions(wide=wide, relight=Relight()), seed=11)
    moved = render(scene, camera, pose,
                   RenderOptions(wide=wide, relight=Relight(azimuth_deg=70, diffuse=0.6)),
                   seed=11)
    assert np.array_equal(a.image, same.image)
    assert np.array_equal(a.piece_ids, moved.piece_ids)
    assert moved.settings["light"]["azimuth_deg"] == pytest.approx(
        a.settings["light"]["azimuth_deg"] + 70)
    pieces = a.piece_ids >= 0
    changed = np.abs(a.image.astype(int) - moved.image.astype(int)).max(axis=2)
    assert np.mean(changed[pieces] > 8) > 0.2


def test_a_players_shadow_darkens_one_side_of_the_board_softly():
    """A player leaning over the table: the same frame, a band of it darker by up to the
    shadow's share and the rest as it was, the edge between them soft."""
    from twin import Relight

    camera, pose = random_camera(np.random.default_rng(4), 320, 180)
    scene = Scene.of([Piece(Kind.COLUMN, 9, 9, 0, color="tan")])
    options = RenderOptions(clutter=False, noise=0.0, jpeg_quality=0)
    plain = render(scene, camera, pose, options, seed=3).image.astype(np.float32)
    shaded = render(scene, camera, pose,
                    RenderOptions(clutter=False, noise=0.0, jpeg_quality=0,
                                  relight=Relight(shadow=0.5)), seed=3).image.astype(np.float32)
    ratio = (shaded.mean(axis=2) + 1) / (plain.mean(axis=2) + 1)
    lit = plain.mean(axis=2) > 30
    assert np.mean(ratio[lit] > 0.97) > 0.1  # some of the picture is as it was
    assert np.mean(ratio[lit] < 0.7) > 0.1  # some lies in the shadow's core
    assert ratio[lit].min() > 0.4  # never more than the shadow's share
    assert np.mean((ratio[lit] > 0.6) & (ratio[lit] < 0.9)) > 0.02  # the soft edge


def test_a_players_shadow_takes_the_lamp_and_leaves_the_rooms_colour():
    """A shadow blocks the lamp, not the room: under a warm lamp with a bluish fill from
    a window the shadow is bluer than the light around it, by the channels' shares of
    the lamp; with the fill the lamp's own colour, it is grey. The channels lose the
    shadow's share on average either way."""
    from twin.shading import Light, shadow_colour

    warm = Light(elevation_deg=50.0, ambient=0.4, diffuse=0.8, color=(0.7, 0.9, 1.0),
                 fill=(1.0, 0.85, 0.6))
    left = shadow_colour(warm, 0.4)
    assert abs(float(left.mean()) - 0.6) < 1e-5
    assert left[0] > left[1] > left[2]  # blue (BGR) kept most, red least
    grey = shadow_colour(Light(elevation_deg=50.0, ambient=0.4, diffuse=0.8,
                               color=(0.7, 0.9, 1.0)), 0.4)
    assert np.allclose(grey, 0.6, atol=1e-5)
    assert np.all(shadow_colour(warm, 0.99) >= 0.0)  # never more than all of the lamp


def test_covered_corner_is_hidden_and_marked_occluded():
    camera = _camera(640, 360, 60)
    pose = orbit_pose(60.0, 45.0, 520.0)
    scene = Scene.of([])
    open_frame = render(scene, camera, pose, RenderOptions(clean=True))
    corner = next(i for i, p in enumerate(open_frame.pieces) if p.id == "corner0")
    assert np.count_nonzero(open_frame.piece_ids == corner) > 100
    covered = render(scene, camera, pose, RenderOptions(clean=True, cover_corners=(0,)), seed=4)
    assert np.count_nonzero(covered.piece_ids == corner) < 5
    assert covered.occluded is not None and covered.occluded.sum() > 500


def test_default_corners_are_added_and_indexed_after_the_scene():
    scene = Scene.of([Piece(Kind.BRICK, 16, 16, 0, color="tan")])
    camera, pose = random_camera(np.random.default_rng(0), 320, 180)
    frame = render(scene, camera, pose, RenderOptions(clean=True))
    assert [p.kind for p in frame.pieces] == [Kind.BRICK, *[Kind.CORNER] * 4]


def test_unknown_map_is_an_error():
    with pytest.raises(MapError):
        camera, pose = random_camera(np.random.default_rng(0), 64, 36)
        render(Scene(map="no-such-map"), camera, pose)


def test_pose_round_trip_through_json_renders_the_same():
    camera, pose = random_camera(np.random.default_rng(5), 320, 180)
    again = Pose.from_json(pose.to_json())
    scene = Scene.of([])
    a = render(scene, camera, pose, RenderOptions(clean=True))
    b = render(scene, Camera.from_json(camera.to_json()), again, RenderOptions(clean=True))
    assert np.array_equal(a.image, b.image)


def test_a_palace_renders_with_its_own_pieces_and_map():
    from rules.maps import load_map
    from rules.palace import Palace

    palace = Palace.setup(load_map("2"))
    camera, pose = random_camera(np.random.default_rng(1), 320, 180, distortion=0.0)
    frame = render(palace, camera, pose, RenderOptions(clean=True))
    assert frame.pieces == palace.pieces
    assert frame.scene.map == "2"
    seen = set(np.unique(frame.piece_ids[frame.piece_ids >= 0]).tolist())
    assert {i for i, p in enumerate(palace.pieces) if p.kind is Kind.CORNER} <= seen


def test_odd_cameras_and_poses_still_give_a_frame():
    """Tiny pictures, wide and narrow lenses, 8-term distortion, cameras under the table."""
    rng = np.random.default_rng(0)
    scene = Scene.of([Piece(Kind.ARCH, 12, 15, 0, axis=Axis.X, color="tan")])
    for i in range(12):
        width, height = [(16, 16), (64, 48), (120, 90)][i % 3]
        base = Camera.default_for(width, height, rng.uniform(20, 120))
        dist = rng.normal(0, 0.05, 8 if i % 4 == 0 else 5)
        camera = Camera(width, height, base.camera_matrix, dist)
        if i % 2:
            pose = Pose(rng.normal(0, 2, 3), rng.normal(0, 300, 3))
        else:
            pose = orbit_pose(rng.uniform(-10, 90), rng.uniform(0, 360), rng.uniform(5, 900))
        frame = render(scene, camera, pose, RenderOptions(clean=bool(i % 2)), seed=i)
        assert frame.image.shape == (height, width, 3)
        assert frame.piece_ids.shape == frame.depth.shape == (height, width)


def test_uncoloured_building_pieces_get_a_steady_building_colour():
    from rules.pieces import BUILDING_COLORS
    from twin.shading import LEGO_RGB, piece_color

    allowed = {tuple(np.array(LEGO_RGB[c][::-1], np.float32) / 255) for c in BUILDING_COLORS}
    colours = set()
    for i in range(40):
        piece = Piece(Kind.BRICK, i % 32, i // 32, 0, id=f"p{i}")
        colour = tuple(piece_color(piece))
        assert colour == tuple(piece_color(piece))  # the same piece, the same colour
        assert colour in allowed
        colours.add(colour)
    assert len(colours) == 4


@pytest.mark.parametrize("dist", [None, [-0.2, 0.05, 0.0, 0.0, 0.0]])
def test_depth_is_the_camera_z_of_what_the_pixel_shows(dist):
    camera = _camera(640, 360, 60, dist)
    pose = orbit_pose(50.0, 70.0, 420.0)
    brick = Piece(Kind.BRICK, 15, 15, 0, color="tan")
    frame = render(Scene.of([brick]), camera, pose, RenderOptions(clean=True))
    points = [
        (15.5 * STUD_MM, 15.5 * STUD_MM, BRICK_MM + STUD_HEIGHT_MM),  # the brick's stud top
        (15.5 * STUD_MM, 15.9 * STUD_MM, BRICK_MM),  # its top face, camera side of the stud
        (8.0 * STUD_MM, 24.0 * STUD_MM, 0.0),  # the card between four studs
        (20.5 * STUD_MM, 10.5 * STUD_MM, STUD_HEIGHT_MM),  # a baseplate stud top
    ]
    for point in points:
        u, v = project(camera, pose, np.array(point))[0]
        z = pose.to_camera(np.array(point))[2]
        got = frame.depth[round(float(v)), round(float(u))]
        # One pixel off centre moves the depth by about a pixel's footprint (< 1 mm here).
        assert abs(got - z) < 1.5, (point, got, z)



def test_the_cards_gloss_lifts_dark_inks_far_more_than_light_ones() -> None:
    """Gloss adds the light's own colour in linear light: a dark green gains far more
    lightness than a light green does, and the card changes far more than the rest."""
    from calibration.camera import lab_samples
    from calibration.turn import MAP_POINTS
    from twin.map_views import map_views
    from twin.mesh import KIND_BOARD, PART_CARD
    from twin.renderer import _sheen

    seed = next(s for s in range(50200, 50300) if _sheen(s) > 0.03)
    matt, _ = map_views(seed)
    gloss, _ = map_views(seed, sheen=True)
    card = (matt.frame.parts == PART_CARD) & (matt.frame.kinds == KIND_BOARD)
    change = np.abs(matt.frame.image.astype(int) - gloss.frame.image.astype(int)).max(axis=2)
    # Off the card only a metering camera's exposure moves, and far less.
    assert change[card].mean() > 4 * change[~card].mean()
    inks = np.array([c for row in matt.ground.ground for c in row])
    lift = {}
    for ink in "LD":
        light = [np.nanmedian(lab_samples(v.frame.image, v.camera, v.pose, MAP_POINTS)
                              .reshape(len(inks), -1, 3)[inks == ink][..., 0])
                 for v in (matt, gloss)]
        lift[ink] = light[1] - light[0]
    assert lift["D"] > 1.5 * max(lift["L"], 1.0)
