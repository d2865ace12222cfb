"""Full mode's geometry channels: where each pixel's ray runs, made in one place, fed alike
to the surface model in training and in reading, and turned with a training crop."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import numpy as np
import pytest

import training.evaluate as evaluation
import training.full_pairs as full_pairs
import vision.surface as surface
from calibration.camera import Camera, Pose, project
from rules.pieces import BRICK_MM
from training.dataset import RegionPair, load, save
from twin.cameras import random_camera
from vision.bare import plate_points
from vision.carve import LEVELS, board_box, view_data, working_scale
from vision.new_pieces import CHANNELS
from vision.silhouettes import View
from vision.surface import LEVEL_PX, geometry_channels, wants_geometry

torch = pytest.importorskip("torch")
from training.network import NewPieceNet, export_onnx  # noqa: E402
from training.train import sample, turned_geometry  # noqa: E402


def test_a_camera_straight_above_shifts_a_raised_point_away_from_its_centre() -> None:
    """A lens-free camera at height H straight above (cx, cy) of the picture: a ground
    point at pixel p, raised one level, moves to cx + (p - cx) H / (H - level), a shift of
    (p - cx) level / (H - level) frame pixels (and the picture's y runs against the
    board's, which the shift does not see)."""
    f, cx, cy, eye = 900.0, 320.0, 240.0, np.array([200.0, 150.0, 500.0])
    camera = Camera(640, 480, np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]]), np.zeros(5))
    down = np.diag([1.0, -1.0, -1.0])
    view = View(camera, Pose.from_matrix(down, -down @ eye), (40, 20, 600, 460), 0.5)
    got = geometry_channels(view, plate_points(view)[0])
    h, w = view.shape
    assert got.shape == (h, w, 2)
    u = (np.arange(w) + 0.5) / 0.5 + 40
    v = (np.arange(h) + 0.5) / 0.5 + 20
    grow = BRICK_MM / (eye[2] - BRICK_MM) * 0.5 / LEVEL_PX
    assert np.allclose(got[..., 0], ((u - cx) * grow)[None, :], atol=1e-4)
    assert np.allclose(got[..., 1], ((v - cy) * grow)[:, None], atol=1e-4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_channels_taken_from_the_studs_plane_are_those_of_each_ray_to_the_plate(
        seed: int) -> None:
    """A lensed camera at a random elevation: the channels made from the learned board's
    plate points (the studs' mid-height plane, taken down each ray to the plate) are the
    raised plate point's shift as undistorting every pixel onto the plate itself gives."""
    camera, pose = random_camera(np.random.default_rng(seed), elevation_deg=(30.0, 70.0))
    box = board_box(camera, pose, LEVELS)
    assert box is not None
    view = View(camera, pose, box, working_scale(camera, pose))
    ground, _ = plate_points(view, 0.0)
    h, w = view.shape
    raised = np.concatenate([ground.reshape(-1, 2), np.full((h * w, 1), BRICK_MM)], axis=1)
    us, vs = np.meshgrid((np.arange(w) + 0.5) / view.scale + box[0],
                         (np.arange(h) + 0.5) / view.scale + box[1])
    centres = np.stack([us.ravel(), vs.ravel()], axis=1)
    want = (project(camera, pose, raised) - centres) * (view.scale / LEVEL_PX)
    want = np.clip(want, -surface.GEOMETRY_CLIP, surface.GEOMETRY_CLIP).reshape(h, w, 2)
    got = geometry_channels(view, plate_points(view)[0])
    assert np.abs(got - want).max() < 1e-5
    assert np.abs(want).max() > 0.5


def _geometry_model(path: Path) -> str:
    torch.manual_seed(0)
    export_onnx(NewPieceNet(height_map=True, extra_channels=2), str(path))
    return str(path)


def test_the_reader_feeds_a_geometry_model_the_channels_its_training_pairs_carry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One view of a training game: the reader's region, learned board and geometry for
    that frame are the pair's own; the committed model (made before the channels) is fed
    none."""
    drawn = []

    def kept(palace, camera, pose, options, seed):  # type: ignore[no-untyped-def]
        frame = real_render(palace, camera, pose, options, seed=seed)
        drawn.append((frame.image, camera, pose, palace.ground))
        return frame

    real_render = full_pairs.render
    monkeypatch.setattr(full_pairs, "render", kept)
    pair = next(islice(full_pairs.full_region_pairs(1, seed=4000), 1))
    assert pair.geometry is not None
    model = _geometry_model(tmp_path / "geo.onnx")
    assert wants_geometry(model) and not wants_geometry(surface.SURFACE_MODEL)
    fed = []

    def spy(image, bare, *, model, extra=None):  # type: ignore[no-untyped-def]
        fed.append((image, bare, extra))
        return real_maps(image, bare, model=model, extra=extra)

    real_maps = surface.new_piece_maps
    monkeypatch.setattr(surface, "new_piece_maps", spy)
    frame, camera, pose, ground = drawn[0]
    vd = view_data(frame, camera, pose, ground, model=model)
    assert vd is not None and vd.surface is not None
    image, bare, extra = fed[-1]
    assert np.array_equal(np.clip(np.rint(image), 0, 255), pair.after)
    assert np.array_equal(np.clip(np.rint(bare), 0, 255), pair.before)
    assert extra is not None and np.array_equal(extra, pair.geometry)
    assert view_data(frame, camera, pose, ground, model=surface.SURFACE_MODEL) is not None
    assert fed[-1][2] is None


def _pair(geometry: np.ndarray | None) -> RegionPair:
    rng = np.random.default_rng(1)
    image = rng.integers(0, 255, (40, 50, 3), dtype=np.uint8)
    mask = np.zeros((40, 50), np.float32)
    mask[10:20, 10:20] = 1.0
    return RegionPair(image, image, mask, np.where(mask > 0, 2.0, np.nan).astype(np.float32),
                      geometry)


def test_a_saved_pair_keeps_its_geometry_and_a_crop_carries_it(tmp_path: Path) -> None:
    shift = np.stack(np.meshgrid(np.linspace(-1, 1, 50), np.linspace(-2, 0, 40)),
                     axis=2).astype(np.float32)
    save(_pair(shift), tmp_path / "pair_00000.npz")
    back = load(tmp_path / "pair_00000.npz")
    assert back.geometry is not None and np.allclose(back.geometry, shift, atol=2e-3)
    x, _, _ = sample(back, np.random.default_rng(0), height_map=True, geometry=True)
    assert x.shape[0] == CHANNELS + 2
    plain, _, _ = sample(back, np.random.default_rng(0), height_map=True)
    assert plain.shape[0] == CHANNELS
    assert np.array_equal(plain, x[:CHANNELS])
    with pytest.raises(ValueError, match="no geometry"):
        sample(_pair(None), np.random.default_rng(0), geometry=True)


@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_a_turned_crop_turns_its_shifts_with_it(k: int, flip: bool) -> None:
    """A picture that grows by one along each pixel's shift still does so once the crop
    and its geometry are turned and mirrored alike."""
    yy, xx = np.mgrid[0:9, 0:9].astype(np.float32)
    picture = 2 * xx + 3 * yy
    dx, dy = 1.0, 2.0
    geometry = np.stack([np.full_like(xx, dx), np.full_like(xx, dy)])
    assert 2 * dx + 3 * dy == 8
    pic = np.rot90(picture[None], k, axes=(1, 2))[0]
    if flip:
        pic = pic[:, ::-1]
    g = turned_geometry(geometry, k, flip)
    sx, sy = int(g[0, 4, 4]), int(g[1, 4, 4])
    assert np.allclose(g[0], sx) and np.allclose(g[1], sy)
    assert pic[4 + sy, 4 + sx] - pic[4, 4] == 8


def test_evaluate_feeds_a_geometry_model_the_pairs_channels(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Held-out pixel scores of a model trained with the geometry: the pairs' own
    channels go in (the network's input would not fit without them), and pairs that
    carry none are refused by name."""
    model = _geometry_model(tmp_path / "geo.onnx")
    shift = np.zeros((40, 50, 2), np.float32)
    shift[..., 1] = 0.7
    fed = []

    def spy(image, bare, *, model, extra=None):  # type: ignore[no-untyped-def]
        fed.append(extra)
        return real_maps(image, bare, model=model, extra=extra)

    real_maps = evaluation.new_piece_maps
    monkeypatch.setattr(evaluation, "new_piece_maps", spy)
    scores, _, _, errors, area = evaluation.score_pairs([_pair(shift)], model)
    assert fed and fed[0] is shift
    assert errors is not None and len(errors) == 100 and 0.0 <= area <= 1.0
    assert scores["model"].tp + scores["model"].fn == 100
    with pytest.raises(ValueError, match="carry none"):
        evaluation.score_pairs([_pair(None)], model)


def test_the_roc_area_counts_ties_half() -> None:
    truth = np.array([True, True, False, False, False])
    assert evaluation.roc_area(np.array([0.9, 0.4, 0.4, 0.1, 0.2], np.float32), truth) == (
        pytest.approx((3 + 2 + 0.5) / 6))
    assert evaluation.roc_area(np.array([0.9, 0.8, 0.1, 0.2, 0.3], np.float32), truth) == 1.0
    assert np.isnan(evaluation.roc_area(np.zeros(3, np.float32), np.ones(3, bool)))
