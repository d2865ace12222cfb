"""Reading a photo from disk with its size checked before a single pixel is decoded.

A decoder allocates what the file's header claims: a 60000 x 60000 PNG of a few
kilobytes asks OpenCV for 10 GiB, and a tiny 7 x 5 picture makes later steps (resizes,
adaptive thresholds) fail deep inside OpenCV. So the header is read by hand first (PNG's
IHDR chunk, JPEG's start-of-frame segment), the size is compared with the limits, and
only then is the picture decoded. Formats other than PNG and JPEG are refused by name
rather than handed to a decoder whose limits we do not know.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
"""The names of the pictures the loader reads (PNG and JPEG, told apart by content)."""
MAX_PIXELS = 25_000_000
"""A 24-megapixel phone photo still fits; beyond that the work (and memory) of finding the
board grows with no gain, since the board's studs are a few pixels wide long before."""
MIN_SIDE = 64
"""Below this the board's 32 studs would be under two pixels apart: nothing to find."""
MAX_FILE_BYTES = 200 * 1024 * 1024
"""A picture within :data:`MAX_PIXELS` is far smaller than this, whatever its format."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic ...); C4, C8
# and CC are tables, not frames.
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class ImageFileError(ValueError):
    """A picture that cannot be used; the message names the file and what is wrong."""


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """``(format, width, height)`` from a PNG or JPEG header, or None for another format.

    Raises :class:`ValueError` (without a file name) for a PNG or JPEG whose header is
    cut short or malformed.
    """
    if data.startswith(_PNG_SIGNATURE):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ValueError("a PNG without its IHDR header")
        width, height = struct.unpack(">II", data[16:24])
        return "PNG", width, height
    if data.startswith(b"\xff\xd8"):
        width, height = _jpeg_size(data)
        return "JPEG", width, height
    return None


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """Walks the JPEG segments (skipping each by its length, so that an EXIF thumbnail's
    own header is never mistaken for the picture's) up to the start-of-frame."""
    at = 2
    while at < len(data):
        if data[at] != 0xFF:
            raise ValueError(f"a JPEG with a broken segment at byte {at}")
        while at < len(data) and data[at] == 0xFF:  # fill bytes
            at += 1
        if at >= len(data):
            break
        marker = data[at]
        at += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # segments without a length
            continue
        if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame
            break
        if at + 2 > len(data):
            break
        (length,) = struct.unpack(">H", data[at : at + 2])
        if length < 2:
            raise ValueError(f"a JPEG segment of length {length} at byte {at}")
        if marker in _JPEG_SOF:
            if at + 7 > len(data):
                break
            height, width = struct.unpack(">HH", data[at + 3 : at + 7])
            return width, height
        at += length
    raise ValueError("a JPEG without a frame header")


@contextlib.contextmanager
def _decoder_quiet() -> Iterator[None]:
    """Silences what libpng and libjpeg print straight to the process's stderr ("libpng
    error: IDAT: CRC error") while they decode: the loader's own one-line error says it."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no usable stderr: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_image(
    path: str | Path, *, max_pixels: int = MAX_PIXELS, min_side: int = MIN_SIDE
) -> NDArray[np.uint8]:
    """The picture at ``path`` as 8-bit BGR, refused before decoding when its header's size
    is outside ``min_side`` .. ``max_pixels``; every failure is an :class:`ImageFileError`."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ImageFileError(f"{path}: not a file")
        if size > MAX_FILE_BYTES:
            raise ImageFileError(
                f"{path}: {size} bytes is too large for a picture (at most {MAX_FILE_BYTES})"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise ImageFileError(f"{path}: cannot read the picture ({exc.strerror or exc})") from None
    try:
        header = image_size(data)
    except ValueError as exc:
        raise ImageFileError(f"{path}: not a readable picture ({exc})") from None
    if header is None:
        raise ImageFileError(f"{path}: not a PNG or JPEG picture (those are the formats read)")
    kind, width, height = header
    if width < min_side or height < min_side:
        raise ImageFileError(
            f"{path}: the {kind} is {width}x{height} pixels; the board cannot be seen in "
            f"less than {min_side}x{min_side}"
        )
    if width * height > max_pixels:
        raise ImageFileError(
            f"{path}: the {kind} is {width}x{height} pixels, more than the "
            f"{max_pixels / 1e6:g} megapixels read; scale it down"
        )
    with _decoder_quiet():
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageFileError(f"{path}: the {kind} data is damaged and cannot be decoded")
    if image.shape[:2] != (height, width):
        found = f"{image.shape[1]}x{image.shape[0]}"
        raise ImageFileError(
            f"{path}: the {kind} header says {width}x{height} but the picture is {found}"
        )
    return image
