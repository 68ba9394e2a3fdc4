"""An image's size from its header, and a thumbnail's box (`pyclient.browser._widgets._image_size`), on CPython.

The headers are real: a PNG from `tests.helpers.png_bytes`, and GIF, JPEG and WebP headers as
their encoders write them (the bytes up to the size fields)."""

from __future__ import annotations

import struct

import pytest

from pyclient.browser._widgets._image_size import fit, image_size
from tests.helpers import png_bytes

GIF = b"GIF89a" + struct.pack("<HH", 33, 17) + b"\xf7\x00\x00"
# SOI, an APP0 (JFIF) segment, a DQT segment, then SOF0 with height 600 and width 800.
JPEG = (b"\xff\xd8" + b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
        + b"\xff\xdb\x00\x05\x00\x01\x02" + b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", 600, 800) + b"\x03\x01")
PROGRESSIVE_JPEG = JPEG.replace(b"\xff\xc0", b"\xff\xc2")
WEBP_LOSSY = (b"RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00" + b"\x00\x00\x00" + b"\x9d\x01\x2a"
              + struct.pack("<HH", 320, 240))
WEBP_LOSSLESS = b"RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f" + ((99) | (49 << 14)).to_bytes(4, "little")
WEBP_EXTENDED = b"RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00" + bytes(4) + (1919).to_bytes(3, "little") + (1079).to_bytes(3, "little")


@pytest.mark.parametrize("data, size", [
    (png_bytes(12, 8), (12, 8)),
    (GIF, (33, 17)),
    (JPEG, (800, 600)),
    (PROGRESSIVE_JPEG, (800, 600)),
    (b"\xff\xd8\xff\xff" + JPEG[2:], (800, 600)),      # fill bytes before a marker
    (WEBP_LOSSY, (320, 240)),
    (WEBP_LOSSLESS, (100, 50)),
    (WEBP_EXTENDED, (1920, 1080)),
])
def test_sizes_are_read_from_headers(data, size):
    assert image_size(data) == size


@pytest.mark.parametrize("data", [
    None, b"", b"not an image", png_bytes()[:20],                      # too short
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(8),                # says 0 x 0
    b"\xff\xd8\xff\xda\x00\x02",                                       # a scan before any frame
    b"\xff\xd8\x00\x00",                                               # not a marker
    b"<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>",
    JPEG[:-6],                                                         # cut inside the frame header
])
def test_what_cannot_be_read_has_no_size(data):
    assert image_size(data) is None


@pytest.mark.parametrize("size, box", [
    ((640, 480), (341, 256)),     # limited by the height
    ((1000, 100), (352, 35)),     # by the width
    ((200, 100), (200, 100)),     # fits: never scaled up
    ((12, 8), (48, 32)),          # tiny: scaled up to the least width
    ((10, 1000), (3, 256)),       # narrow and tall: the height wins over the least width
    ((1, 1), (48, 48)),
])
def test_thumbnail_boxes(size, box):
    assert fit(size, width=352, height=256, least=48) == box
