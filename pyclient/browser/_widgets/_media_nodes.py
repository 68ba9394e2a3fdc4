"""Files in the chat: an image as a thumbnail, any other file as a chip with its name and size.

Used by the composer (the files about to be sent), the user's bubble (the files it sent) and
tool cards (the files a tool returned). An image with bytes is shown from a `blob:` URL that
pyclient makes from them (revoked once the image has loaded or failed, so nothing leaks); an image known
only by a remote URL is never loaded: it is a chip naming the address, as is a file a saved
thread did not keep. Names and addresses are text, never HTML. `file_node` shows a page's
file not read yet (a JS `File` the person attached) the same way, its thumbnail from a `blob:`
URL of the file itself.

```python
from pyclient import Document, Image
from pyclient.browser._widgets._media_nodes import media_node

node = media_node(Image(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8), filename="dot.png"))
print(node.className, node.querySelector("img").alt)                   # pyclient-media pyclient-media-image dot.png
print(media_node(Document(b"%PDF-1.7", filename="a.pdf")).textContent)  # a.pdf8 B
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tools._media import Media, format_size, kind_of_mime
from .._page._nodes import append_visible, el
from .._page._page_window import IN_PAGE, js_object
from .._page._visible import visible
from ._image_size import fit, image_size

__all__ = ["Box", "blob_url", "file_node", "media_list", "media_node"]

if IN_PAGE:
    import js
    from pyodide.ffi import create_once_callable, to_js



def blob_url(media: Media) -> str | None:
    """A `blob:` URL of the file's bytes (None without bytes); the caller revokes it."""
    data = media.data
    if data is None:
        return None
    array = js.Uint8Array.new(len(data))
    array.assign(data)
    blob = js.Blob.new(to_js([array]), js_object({"type": media.mime_type}))
    return str(js.URL.createObjectURL(blob))


def _thumbnail(tag: str, url: str, name: str | None, *, lazy: bool = True,
               failed: Callable[[], None] | None = None) -> Any:
    """An image shown from `url` (a `blob:` URL, revoked once the image has loaded or failed;
    `failed` is called if it failed)."""
    node = el(tag, "pyclient-media pyclient-media-image")
    image = el("img", "", alt=visible(name or "image"), src=url, decoding="async", loading="lazy" if lazy else "eager")

    def settled(event: Any) -> None:
        js.URL.revokeObjectURL(url)
        if failed is not None and event.type == "error":
            failed()

    # One callable for both events: an image fires one of them, once (its source never changes).
    settle = create_once_callable(settled)
    once = js_object({"once": True})
    image.addEventListener("load", settle, once)
    image.addEventListener("error", settle, once)
    node.append(image)
    if name:
        node.title = visible(name)  # the sender's name: an attribute holds no marker span, only its text
    return node


def _chip(tag: str, kind: str, name: str, detail: str, title: str) -> Any:
    node = el(tag, "pyclient-media pyclient-media-file")
    node.dataset.kind = kind
    node.append(el("span", "pyclient-media-icon", aria_hidden="true"))  # drawn by chat.css, coloured by kind
    name_box = el("span", "pyclient-media-name")
    append_visible(name_box, name)  # a file's name is the sender's: its bidi controls are shown
    node.append(name_box)
    node.append(el("span", "pyclient-media-size", detail))
    node.title = visible(title)
    return node


Box = tuple[int, int, int]
"""The box a thumbnail fits in: (width, height, least width), in CSS pixels."""


def media_node(media: Media, *, tag: str = "figure", box: Box | None = None) -> Any:
    """The node of one file: a thumbnail for an image with bytes, a chip for anything else.

    With `box`, an image whose size its header tells gets its `width` and `height` before it
    loads (`pyclient.browser._widgets._image_size`): the chat does not grow under the reader once it has.
    """
    url = blob_url(media) if media.kind == "image" else None
    if url is not None:
        node = _thumbnail(tag, url, media.filename)
        size = image_size(media.data) if box is not None else None
        if size is not None and box is not None:
            image = node.querySelector("img")
            image.width, image.height = fit(size, width=box[0], height=box[1], least=box[2])
        return node
    if not media.kept:
        detail = "not kept after reload"
    elif media.size is not None:
        detail = format_size(media.size)
    else:
        detail = "link, not loaded"
    node = _chip(tag, media.kind, media.filename or media.url or media.label(), detail,
                 f"{media.filename} ({media.mime_type})" if media.filename else media.label())
    if not media.kept:
        node.classList.add("pyclient-media-missing")
    return node


def file_node(file: Any, mime: str | None, *, tag: str = "div") -> Any:
    """The node of a page's JS `File` (not read): a thumbnail of an image shown from the file
    itself, else a chip with its name and size. An image the browser cannot show (a HEIC
    photo, say) becomes a chip when it fails to load.

    Args:
        file: the JS `File`.
        mime: its type, as the chat found it (None: not known).
        tag: the node's tag.
    """
    name = str(file.name)
    kind = kind_of_mime(mime) if mime else "document"
    chip = _chip(tag, kind, name, format_size(int(file.size)), f"{name} ({mime or 'type not known'})")
    if kind != "image":
        return chip
    node = _thumbnail(tag, str(js.URL.createObjectURL(file)), name, lazy=False,
                      failed=lambda: node.replaceWith(chip))
    return node


def media_list(files: tuple[Media, ...] | list[Media], cls: str, box: Box | None = None) -> Any:
    """A `<div>` of file nodes (`cls` names where it sits: a bubble, a card; `box` as for `media_node`)."""
    node = el("div", f"pyclient-media-list {cls}")
    for media in files:
        node.append(media_node(media, box=box))
    return node
