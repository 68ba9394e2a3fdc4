"""The page's window, seen from the main thread or from a PyScript worker.

On the main thread `js` is the page's global scope. In a worker (`<script type="py" worker>`)
`js` is the worker's own: it has `fetch`, `URL` and `Blob` but no `MutationObserver`, and its
`location` is the worker script's, not the page's. There PyScript's `pyscript.window` is a
proxy of the page's window (synchronous once the page is cross-origin isolated). pyclient takes
the page's constructors and address from `page_window()`, and resolves an agent's relative
URL against the page (`page_url`), so `Agent(url="/agent")` means the same in both.
See https://docs.pyscript.net/latest/user-guide/workers/

```python
from pyclient.browser._page._page_window import IN_WORKER, page_url, page_window

print(IN_WORKER, page_window().location.origin == page_url("/").rstrip("/"))   # False True
```
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

__all__ = ["IN_PAGE", "IN_WORKER", "js_object", "page_url", "page_window"]

IN_PAGE: bool = sys.platform == "emscripten"
"""Python runs in a page (Pyodide); on CPython the widgets build on the mirror, for their tests."""

if IN_PAGE:
    import js
    from pyodide.ffi import to_js
    from pyscript import RUNNING_IN_WORKER, window

IN_WORKER: bool = IN_PAGE and bool(RUNNING_IN_WORKER)
"""Python runs in a PyScript worker, not on the page's main thread."""


def js_object(values: dict[str, Any]) -> Any:
    """`values` as a JS object (a DOM method's options); as they are on CPython, for the mirror."""
    return to_js(values, dict_converter=js.Object.fromEntries) if IN_PAGE else values


def page_window() -> Any:
    """The page's window: `js` on the main thread, PyScript's proxy of it in a worker."""
    return window if IN_WORKER else js


def page_url(url: str) -> str:
    """`url` made absolute against the page's address (a worker's own is its script's).

    In a worker the address is read from the page once: each read through PyScript's proxy
    waits for the page's main thread, which may be a frame's rendering away.
    """
    if "://" in url:
        return url
    try:
        return str(js.URL.new(url, _page_address()).href)
    except Exception:  # not a URL at all: fetch() says so in its own words
        return url


@cache
def _worker_address() -> str:
    return str(window.location.href)


def _page_address() -> str:
    return _worker_address() if IN_WORKER else str(js.location.href)
