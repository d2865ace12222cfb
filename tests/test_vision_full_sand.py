"""Full mode's change from the learned bare board where the light or the print makes a piece
look like the board: a tan piece before the sand print, darker than the sand, which the
colour alone takes for a shadow (the stud lattice it hides says otherwise), and a green
light that turns the tans' pixels greener than the fixed plant margin (the light-green
print, lit alike, says how far)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import Camera
from rules import Kind, Piece, load_map
from twin import RenderOptions, render
from twin.cameras import random_camera
from vision.carve import GREEN_MARGIN, view_data
from vision.change import change_evidence, lattice_change
from vision.full import corners_only

SAND = np.array([60.0, 150.0, 200.0], np.float32)
"""A sand print's card (BGR) between the plate's green studs."""
STUD = np.array([50.0, 110.0, 30.0], np.float32)


def _lattice(card: np.ndarray, h: int = 96, w: int = 288, period: int = 9) -> np.ndarray:
    """A print of colour ``card`` with the plate's green studs through it, a stud cell
    ``period`` pixels (about the working scale's), softened as the region is."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(yy % period - (period - 1) / 2, xx % period - (period - 1) / 2)
    image = np.where((d < 2.6)[..., None], STUD, card).astype(np.float32)
    return cv2.GaussianBlur(image, (0, 0), 0.8)


def test_a_sand_coloured_piece_darker_than_the_sand_hides_the_lattice_a_shadow_keeps() -> None:
    bare = _lattice(SAND)
    frame = bare.copy()
    frame[:, :48] *= 0.55  # a piece's shadow over the print: the lattice, darker
    frame[:, 240:] = SAND * 0.8  # a tan piece before the print: sand's hue, a little darker
    colour = change_evidence(frame, bare)
    lattice = lattice_change(frame, bare, np.ones(bare.shape[:2], bool))
    piece = (slice(8, -8), slice(248, -8))
    shadow = (slice(8, -8), slice(4, 40))
    board = (slice(8, -8), slice(60, 228))
    # The colour alone takes the piece for a shadow: most of its pixels read unchanged
    # (not those where a green stud was, whose colour the piece's differs from).
    assert float(np.mean(colour[piece] < 0.5)) > 0.6
    # The lattice is gone there, and kept under the shadow and on the bare print.
    assert float(np.mean(np.maximum(colour, lattice)[piece] >= 0.5)) > 0.95
    assert float(lattice[shadow].max()) == 0.0
    assert float(lattice[board].max()) == 0.0


def test_the_lattice_says_nothing_where_not_darker_on_a_flat_print_or_off_the_sand() -> None:
    bare = _lattice(SAND)
    brighter = bare.copy()
    brighter[:, 240:] = SAND * 1.1  # brighter than the print: the colour's own case
    everywhere = np.ones(bare.shape[:2], bool)
    assert float(lattice_change(brighter, bare, everywhere).max()) == 0.0
    dark_print = _lattice(np.array([45.0, 100.0, 35.0], np.float32))  # studs like the print
    flat = dark_print.copy()
    flat[:, 240:] = dark_print[:, 240:].mean(axis=(0, 1)) * 0.8
    assert float(lattice_change(flat, dark_print, everywhere).max()) == 0.0
    piece = bare.copy()
    piece[:, 240:] = SAND * 0.8  # as in the test above, but off the sand print
    assert float(lattice_change(piece, bare, ~everywhere).max()) == 0.0


def test_a_green_light_does_not_read_tan_pieces_as_plants() -> None:
    ground = load_map("1")
    palace = corners_only(ground)
    tans = [Piece(Kind.BRICK, x, y, 0, color=c)
            for x in range(10, 22, 2) for y, c in ((12, "tan"), (16, "dark_tan"))]
    for p in tans:
        palace.place(p)
    cam, pose = random_camera(np.random.default_rng(3), elevation_deg=(50.0, 55.0))
    assert isinstance(cam, Camera)
    # A light (or a webcam's balance) that lifts green by a fifth and takes red down.
    frame = render(palace, cam, pose, RenderOptions(clutter=False, white_balance=(0.9, 1.2, 0.8)),
                   seed=0)
    vd = view_data(frame.image, cam, pose, ground)
    assert vd is not None
    ids = {i for i, p in enumerate(frame.pieces) if p.kind is Kind.BRICK}
    mask = np.isin(frame.piece_ids, list(ids)).astype(np.uint8) * 255
    mask = cv2.erode(mask, np.ones((5, 5), np.uint8))
    x0, y0, x1, y1 = vd.view.box
    h, w = vd.change.shape
    mask = cv2.resize(mask[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_AREA) > 250
    image = vd.image.reshape(-1, 3)
    greenness = (image[:, 1] - image[:, 2]) / (image.sum(axis=1) + 6.0) * 300.0
    # The tans' pixels are greener than the fixed margin under this light ...
    assert float(np.mean(greenness[mask.ravel()] > GREEN_MARGIN)) > 0.3
    # ... and still read as a building piece's, not a plant's.
    assert float(np.mean(vd.green[mask] > 0)) < 0.05
    assert float(np.mean(vd.change[mask] >= 0.5)) > 0.8
