"""The worker's mirror document, connected to the page's renderer (`assets/renderer.js`).

`connect()` makes it once: a random token names this worker's node table on the page, batches
go as `postMessage({pyclient: token, ops: json})` to the worker's `XWorker` on the page (the
same port PyScript's proxies use, so a batch is applied before a later read reaches the page),
and the page's events come back on a `MessagePort` of their own, sent to the page in this
worker's hello (`{pyclient: token, port}`), which only the renderer hears: a page script holds
no port that speaks for the page's events. The renderer is the page's
`pyclientRenderer`, loaded by `pyclient.js`; a page without it gets it from the wheel's copy,
evaluated in the page once.

```python
from pyclient.browser._page._mirror._connect import renderer_source

print(renderer_source().startswith("// The main-thread half of pyclient's worker mode"))   # True
```
"""

from __future__ import annotations

import json
import secrets
from functools import cache
from pathlib import Path
from typing import Any

import js
from pyodide.ffi import create_proxy, to_js

from .._page_window import page_window
from ._document import MirrorDocument

__all__ = ["connect", "renderer", "renderer_source"]


def renderer_source() -> str:
    """The page half's JavaScript, as the wheel carries it."""
    return Path(__file__).parents[2].joinpath("assets", "renderer.js").read_text("utf-8")


@cache
def renderer() -> Any:
    """The page's `pyclientRenderer` (evaluated there from the wheel's copy if the page has none)."""
    window = page_window()
    found = getattr(window, "pyclientRenderer", None)
    if found is None:
        # The page did not load pyclient.js: the same code, evaluated there (needs what
        # PyScript itself needs of a Content-Security-Policy: 'unsafe-eval').
        window.Function(renderer_source())()
        found = window.pyclientRenderer
    return found


@cache
def connect() -> MirrorDocument:
    """This worker's mirror document (one per worker)."""
    page = renderer()
    token = f"w{secrets.token_hex(6)}"
    page.connect(token)
    options = to_js({"pyclient": token, "ops": ""}, dict_converter=js.Object.fromEntries)

    def post(ops: list[Any]) -> None:
        options.ops = json.dumps(ops, separators=(",", ":"), ensure_ascii=False)
        js.postMessage(options)

    document = MirrorDocument(post, adopt=lambda node: page.adopt(token, node),
                              read=lambda node_id: page.node(token, node_id), page=page_window().document)

    def received(message: Any) -> None:
        event = message.data
        fields = event.to_py(depth=1)
        if getattr(event, "files", None) is not None:
            fields["files"] = list(event.files)
        if getattr(event, "types", None) is not None:
            fields["types"] = [str(kind) for kind in event.types]
        if getattr(event, "detail", None) is not None:  # the chat shell's message: {id, text}
            fields["detail"] = {"id": int(event.detail.id), "text": str(event.detail.text)}
        if getattr(event, "scroll", None) is not None:
            fields["scroll"] = [float(value) for value in event.scroll]
        document.dispatch(fields)

    # The page's events come on a channel of this worker's own: its other end goes to the page in
    # the hello, which the renderer hears before any page script can and hides from them (see
    # renderer.js, "Trust"), so no script holds a port that speaks for the page's events.
    channel = js.MessageChannel.new()
    channel.port1.onmessage = create_proxy(received)  # lives as long as the worker
    hello = to_js({"pyclient": token, "port": channel.port2}, dict_converter=js.Object.fromEntries)
    js.postMessage(hello, to_js([channel.port2]))
    return document
