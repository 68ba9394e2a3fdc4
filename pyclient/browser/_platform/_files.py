"""The page's own files as `pyclient.Attachment`s: a JS `File` or `Blob`, or a `<canvas>` as a PNG.

`BrowserPlatform.read_media` hands them to the core: an item of `thread.send(...,
attachments=[...])` (what the chat's file picker, paste and drop collect) or what a handler
returned. A `File` keeps its name and type; a `Blob` its type; a canvas becomes an `Image`
(`canvas.toDataURL("image/png")`). Anything else is returned as it is.
See https://developer.mozilla.org/en-US/docs/Web/API/Blob/arrayBuffer

```python
import js
from pyodide.ffi import to_js
from pyclient.browser._platform._files import read_media

blob = js.Blob.new(to_js(["hello"]), to_js({"type": "text/plain"}, dict_converter=js.Object.fromEntries))
media = await read_media(js.File.new(to_js([blob]), "hi.txt", to_js({"type": "text/plain"}, dict_converter=js.Object.fromEntries)))
print(media.filename, media.mime_type, media.data)     # hi.txt text/plain b'hello'
```
"""

from __future__ import annotations

from typing import Any

import js
from pyodide.ffi import JsException, JsProxy

from ..._base._errors import ToolError
from ..._tools._media import Attachment, Image, Media

__all__ = ["is_page_file", "read_media"]


def is_page_file(value: Any) -> bool:
    """Whether `value` is a JS `Blob` (a `File` is one) or a canvas."""
    return isinstance(value, JsProxy) and _tag(value) in _FILE_TAGS


# `Object.prototype.toString` names a value's class ("[object File]") without `instanceof`,
# which Python cannot write, and without `Function()`, which a strict CSP forbids.
_FILE_TAGS = frozenset({"Blob", "File", "HTMLCanvasElement", "OffscreenCanvas"})


def _tag(value: Any) -> str:
    return str(js.Object.prototype.toString.call(value))[8:-1]


async def read_media(value: Any) -> Any:
    """`value` with each JS `File`, `Blob` or `<canvas>` in it (itself, or a list's items) read as
    `Media`; anything else as it is.

    Raises:
        ToolError: a file could not be read (the page revoked it, or it is gone), or a canvas
            the browser does not let the page read (tainted by a cross-origin image).
    """
    if isinstance(value, (list, tuple)):
        return [await read_media(item) for item in value]
    if not is_page_file(value):
        return value
    return await _read(value)


async def _read(value: Any) -> Media:
    tag = _tag(value)
    if tag in ("HTMLCanvasElement", "OffscreenCanvas") and not (value.width and value.height):
        raise ToolError(f"an empty canvas ({value.width}×{value.height} pixels), which holds no image")
    try:
        if tag == "HTMLCanvasElement":
            return Image.from_data_url(str(value.toDataURL("image/png")), _canvas_name(value))
        if tag == "OffscreenCanvas":
            value = await value.convertToBlob()
    except JsException as exc:  # SecurityError: an image from another site was drawn on it
        raise ToolError(
            f"a canvas the browser does not let the page read ({getattr(exc, 'name', 'Error')}: "
            f"{getattr(exc, 'message', exc)}): it shows an image from another site"
        ) from None
    name = str(value.name) if tag == "File" and value.name else None
    try:
        buffer = await value.arrayBuffer()
    except Exception as exc:  # NotReadableError: the file changed or is gone
        raise ToolError(f"a file ({name or 'blob'}) that could not be read: {exc}") from None
    data = js.Uint8Array.new(buffer).to_bytes()
    kind = str(value.type or "") or None
    return Attachment(data, kind, name)


def _canvas_name(canvas: Any) -> str:
    return f"{canvas.id or 'canvas'}.png"
