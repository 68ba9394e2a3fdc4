"""An image's size read from its first bytes (PNG, GIF, JPEG, WebP), and the box a thumbnail of it fits in.

A card gives a tool result's image its box before the browser has decoded it (`<img width
height>`), so the chat does not grow under the reader once it has: a list that follows its
end stays at its end. Pure: no browser, tested on CPython (tests/unit/browser/widgets/test_image_size.py).
An image whose size cannot be read (another format, damaged bytes) gets no box, and the
browser sizes it once loaded.

```python
from pyclient.browser._widgets._image_size import fit, image_size

png = b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
print(image_size(png))                                   # (640, 480)
print(fit((640, 480), width=352, height=256, least=48))   # (341, 256)
print(image_size(b"not an image"))                       # None
```
"""

from __future__ import annotations

import struct

__all__ = ["fit", "image_size"]

# JPEG markers that start a frame and carry its size (SOF0-SOF15 but DHT, JPG and DAC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def image_size(data: bytes | None) -> tuple[int, int] | None:
    """The width and height in pixels of a PNG, GIF, JPEG or WebP, read from its header; None
    for anything else, or a header too short or that says 0."""
    if not data:
        return None
    try:
        size = _read(data)
    except (struct.error, IndexError):
        return None
    return size if size is not None and size[0] > 0 and size[1] > 0 else None


def _read(data: bytes) -> tuple[int, int] | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:6] in (b"GIF87a", b"GIF89a"):
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    if data.startswith(b"\xff\xd8"):
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    return None


def _jpeg(data: bytes) -> tuple[int, int] | None:
    offset = 2
    while offset + 4 <= len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        if marker == 0xFF:  # fill bytes before a marker
            offset += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            offset += 2
            continue
        (length,) = struct.unpack(">H", data[offset + 2:offset + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[offset + 5:offset + 9])
            return width, height
        if marker == 0xDA:  # the scan starts: no frame header before it
            return None
        offset += 2 + length
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":  # 24-bit width-1 and height-1
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    if chunk == b"VP8L" and data[20] == 0x2F:  # 14-bit width-1 and height-1
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # a key frame's 14-bit sizes
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def fit(size: tuple[int, int], *, width: int, height: int, least: int) -> tuple[int, int]:
    """`size` scaled to fit in `width` x `height` (never up, keeping its shape), and up to at
    least `least` pixels wide when it is narrower (a tiny image is there to be seen)."""
    w, h = size
    scale = min(1.0, width / w, height / h)
    if w * scale < least:
        scale = min(least / w, height / h) if h * least / w <= height else height / h
    return max(1, round(w * scale)), max(1, round(h * scale))
