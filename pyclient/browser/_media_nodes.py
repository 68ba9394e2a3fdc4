"""Files in the chat: an image as a thumbnail, any other file as a chip with its name and size.

Used by the composer (the files about to be sent), the user's bubble (the files it sent) and
tool cards (the files a tool returned). An image with bytes is shown from a `blob:` URL that
pyclient makes from them (revoked once the image has loaded, so nothing leaks); an image known
only by a remote URL is never loaded: it is a chip naming the address, as is a file a saved
thread did not keep. Names and addresses are text, never HTML.

```python
from pyclient import Document, Image
from pyclient.browser._media_nodes import media_node

node = media_node(Image(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8), filename="dot.png"))
print(node.className, node.querySelector("img").alt)                   # pyclient-media pyclient-media-image dot.png
print(media_node(Document(b"%PDF-1.7", filename="a.pdf")).textContent)  # 📄a.pdf8 B
```
"""

from __future__ import annotations

from typing import Any

import js
from pyodide.ffi import create_once_callable, to_js

from .._media import Media, format_size
from ._nodes import el

__all__ = ["blob_url", "media_node", "media_list"]

_ICONS = {"image": "🖼", "audio": "🎵", "video": "🎬", "document": "📄"}


def blob_url(media: Media) -> str | None:
    """A `blob:` URL of the file's bytes (None without bytes); the caller revokes it."""
    data = media.data
    if data is None:
        return None
    array = js.Uint8Array.new(len(data))
    array.assign(data)
    blob = js.Blob.new(to_js([array]), to_js({"type": media.mime_type}, dict_converter=js.Object.fromEntries))
    return str(js.URL.createObjectURL(blob))


def media_node(media: Media, *, tag: str = "figure") -> Any:
    """The node of one file: a thumbnail for an image with bytes, a chip for anything else."""
    url = blob_url(media) if media.kind == "image" else None
    if url is not None:
        node = el(tag, "pyclient-media pyclient-media-image")
        image = el("img", "", alt=media.filename or "image", src=url, decoding="async", loading="lazy")
        revoke = create_once_callable(lambda *_: js.URL.revokeObjectURL(url))
        image.addEventListener("load", revoke, to_js({"once": True}, dict_converter=js.Object.fromEntries))
        node.append(image)
        if media.filename:
            node.title = media.filename
        return node
    node = el(tag, "pyclient-media pyclient-media-file")
    node.dataset.kind = media.kind
    node.append(el("span", "pyclient-media-icon", _ICONS[media.kind], aria_hidden="true"))
    node.append(el("span", "pyclient-media-name", media.filename or media.url or media.label()))
    if not media.kept:
        node.classList.add("pyclient-media-missing")
        node.append(el("span", "pyclient-media-size", "not kept after reload"))
    elif media.size is not None:
        node.append(el("span", "pyclient-media-size", format_size(media.size)))
    else:
        node.append(el("span", "pyclient-media-size", "link, not loaded"))
    node.title = f"{media.label()} ({media.mime_type})"
    return node


def media_list(files: tuple[Media, ...] | list[Media], cls: str) -> Any:
    """A `<div>` of file nodes (`cls` names where it sits: a bubble, a card)."""
    box = el("div", f"pyclient-media-list {cls}")
    for media in files:
        box.append(media_node(media))
    return box
