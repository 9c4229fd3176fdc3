"""Fixtures for the account tests: uploads kept in a temporary folder, and real crafted image files."""

from __future__ import annotations

import io
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image


@pytest.fixture(autouse=True)
def _uploads_in_tmp(media_root: Path) -> Path:
    return media_root


def image_file(
    width: int, height: int, fmt: str = "PNG", colour: tuple[int, ...] = (31, 111, 74), **save: object
) -> bytes:
    """A real image of the given size and format, filled with one colour."""
    mode = "RGBA" if len(colour) == 4 else "RGB"
    out = io.BytesIO()
    Image.new(mode, (width, height), colour).save(out, format=fmt, **save)
    return out.getvalue()


def png_bomb(width: int = 20000, height: int = 20000) -> bytes:
    """A valid, small PNG whose header says width x height: 1-bit grey, every row zeros, deflated.

    20000x20000 is 400 million pixels (about 50 MB of raw rows) in a file of a few tens of kilobytes.
    """

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # bit depth 1, greyscale
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte "none" + packed pixels
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def noise_png(width: int = 1024, height: int = 1024) -> bytes:
    """Random pixels don't compress: a 1024x1024 noise PNG is just over 3 MB."""
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(out, format="PNG")
    return out.getvalue()


def jpeg_with_exif(orientation: int = 6) -> bytes:
    """A 300x200 JPEG, red left half and blue right half, with EXIF: orientation, camera make and a comment.

    Orientation 6 means "turn 90 degrees clockwise to show": shown upright it is 200x300, red on top.
    """
    image = Image.new("RGB", (300, 200), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 150, 200))
    exif = Image.Exif()
    exif[0x0112] = orientation  # Orientation
    exif[0x010F] = "SecretCam"  # Make
    exif[0x010E] = "Taken at 12 Secret Street"  # ImageDescription
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif.tobytes(), quality=95)
    return out.getvalue()


@pytest.fixture
def crafted() -> dict[str, Callable[..., bytes]]:
    """The image makers above, by name, for tests that need real files."""
    return {
        "image": image_file,
        "png_bomb": png_bomb,
        "noise_png": noise_png,
        "jpeg_with_exif": jpeg_with_exif,
    }
