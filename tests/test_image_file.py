"""The picture loader: sizes checked from the header before decoding, clear refusals."""

from __future__ import annotations

import struct
import time
import zlib

import cv2
import numpy as np
import pytest

from calibration import ImageFileError, load_image
from calibration.image_file import MAX_PIXELS, image_size
from palace.cli import main


def png_header(width: int, height: int) -> bytes:
    """A PNG that is only a signature and an IHDR chunk claiming ``width`` x ``height``."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))


def jpeg_claiming(width: int, height: int) -> bytes:
    """A real small JPEG whose frame header is rewritten to claim another size."""
    ok, data = cv2.imencode(".jpg", np.full((80, 96, 3), 128, np.uint8))
    assert ok
    raw = bytearray(data.tobytes())
    at = raw.index(b"\xff\xc0")
    raw[at + 5 : at + 9] = struct.pack(">HH", height, width)
    return bytes(raw)


def write_picture(path, height: int, width: int) -> None:
    image = np.random.default_rng(0).integers(0, 255, (height, width, 3), dtype=np.uint8)
    assert cv2.imwrite(str(path), image)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_a_good_picture_loads_as_bgr(tmp_path, suffix):
    path = tmp_path / f"p{suffix}"
    write_picture(path, 90, 120)
    image = load_image(path)
    assert image.shape == (90, 120, 3) and image.dtype == np.uint8


@pytest.mark.parametrize(("width", "height"), [(60000, 60000), (30000, 30000)])
def test_a_png_claiming_a_huge_size_is_refused_before_decoding(tmp_path, width, height):
    path = tmp_path / "huge.png"
    path.write_bytes(png_header(width, height) + b"\0" * 100)
    with pytest.raises(ImageFileError, match=rf"{width}x{height} pixels.*megapixels"):
        load_image(path)


def test_a_10000_square_jpeg_is_refused_at_once(tmp_path):
    path = tmp_path / "big.jpg"
    path.write_bytes(jpeg_claiming(10000, 10000))
    assert image_size(path.read_bytes()) == ("JPEG", 10000, 10000)
    started = time.perf_counter()
    with pytest.raises(ImageFileError, match="10000x10000"):
        load_image(path)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("height", "width"), [(1, 1), (1, 10000), (5, 7), (10000, 1)])
def test_a_picture_too_small_for_the_board_is_refused(tmp_path, height, width):
    path = tmp_path / "tiny.png"
    write_picture(path, height, width)
    with pytest.raises(ImageFileError, match=f"{width}x{height} pixels; the board cannot"):
        load_image(path)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"GIF89a" + b"\0" * 40, "not a PNG or JPEG"),
        (b"", "not a PNG or JPEG"),
        (b"\x89PNG\r\n\x1a\n\0\0", "IHDR"),
        (b"\xff\xd8\xff\xe0\0\x10JFIF", "without a frame header"),
        (b"\xff\xd8\x00\x00", "broken segment"),
    ],
)
def test_unknown_or_cut_pictures_are_named(tmp_path, data, words):
    path = tmp_path / "bad.png"
    path.write_bytes(data)
    with pytest.raises(ImageFileError, match=words):
        load_image(path)


def test_a_damaged_png_body_is_refused(tmp_path):
    path = tmp_path / "damaged.png"
    path.write_bytes(png_header(200, 100) + b"garbage" * 10)
    with pytest.raises(ImageFileError, match="damaged"):
        load_image(path)


def test_missing_and_folder_paths_are_named(tmp_path):
    with pytest.raises(ImageFileError, match="no such file"):
        load_image(tmp_path / "nope.png")
    with pytest.raises(ImageFileError, match="not a file"):
        load_image(tmp_path)


def test_the_limits_can_be_set_by_the_caller(tmp_path):
    path = tmp_path / "p.png"
    write_picture(path, 100, 100)
    with pytest.raises(ImageFileError, match=r"0\.005 megapixels"):
        load_image(path, max_pixels=5000)
    assert load_image(path, min_side=100).shape == (100, 100, 3)
    assert MAX_PIXELS >= 24_000_000  # a 24-megapixel phone photo still loads


@pytest.mark.parametrize("make", ["huge_png", "huge_jpeg", "tiny", "text"])
def test_locate_refuses_bad_pictures_with_one_line_and_exit_2(tmp_path, capsys, make):
    path = tmp_path / "photo.png"
    if make == "huge_png":
        path.write_bytes(png_header(60000, 60000))
    elif make == "huge_jpeg":
        path.write_bytes(jpeg_claiming(10000, 10000))
    elif make == "tiny":
        write_picture(path, 5, 7)
    else:
        path.write_text("hello")
    assert main(["locate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"palace locate: {path}: ") and "\n" not in err
