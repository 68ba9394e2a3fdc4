"""Errors of a page's Python shown where they can be read: `show_startup_errors()`.

When a page's `<script type="py">` raises, PyScript appends the traceback to `<body>` as a
`div.py-error` styled `white-space: pre`: the fix, which comes last, runs off the right edge,
and below a chat that fills the window the box is not seen at all. A page that loads
`pyclient.js` has its `renderer.js` place every box from the first (and make it, in a worker):
the exception's line first, the traceback folded, in the element marked `data-pyclient-errors`
(`show_startup_errors(element)` sets it), else under the first chat's header, else in the first
thread element, else at the end of the page, in view. On a page without it, this module's
watcher of `<body>` (on from `import pyclient`) wraps and places the box by the same rules.
The console keeps what PyScript wrote (docs/troubleshooting.md, "Errors at start-up").

```python
from pyclient.browser import show_startup_errors

show_startup_errors("#chat")    # errors go into #chat, before any Chat or thread is made there
```
"""

from __future__ import annotations

from typing import Any

import js
from pyodide.ffi import create_proxy, to_js

from ..._base._errors import ConfigurationError
from ..._binding._elements import THREAD_ATTRIBUTE
from .._page._document import scroll_into_view
from .._page._page_window import IN_WORKER, page_window
from ._page_dom import find_element, missing

__all__ = ["show_startup_errors"]

ERROR_CLASS = "py-error"
"""The class of PyScript's error box (its `error` plugin appends one to `<body>` per error)."""

_CHAT = ".pyclient-chat"  # the Chat's root (pyclient.browser._chat._chat), not imported: the chat is big


class _Watch:
    """The one observer of the page's `<body>` (its proxy lives as long as the page) and where
    the page asked for its errors."""

    def __init__(self) -> None:
        self.observer: Any = None
        self.proxy: Any = None
        self.element: Any = None


_watch = _Watch()


def show_startup_errors(element: Any = None) -> None:
    """Show PyScript's error boxes wrapped, in the chat's element: the one `element` names, else
    the page's first `Chat`, else its first thread element, else where PyScript put them.

    pyclient calls it (with no element) when it is imported in the page; a page calls it to
    name the element its errors go to before any chat exists there (the first lines of its
    script, before the imports of its tools). Boxes already on the page are moved at once.

    Args:
        element: a DOM element or CSS selector (the chat's container, say); None: the page's
            first chat or thread element at the time of each error.

    Raises:
        ConfigurationError: `element` is a selector that matches nothing, or not an element.
    """
    if IN_WORKER or getattr(js, "pyclientRenderer", None) is not None:
        # The page's renderer.js (pyclient.js's) places and folds the boxes, from the first one,
        # in the element with this mark; this watcher is for a page without it.
        if element is not None:
            _mark(element)
        return
    document = getattr(js, "document", None)
    if document is None or missing(document.body):  # a script in <head> before <body>
        return
    _watch.element = None if element is None else find_element(element, "show_startup_errors()")
    if _watch.observer is None:
        _watch.proxy = create_proxy(_on_body_change)
        _watch.observer = js.MutationObserver.new(_watch.proxy)
        _watch.observer.observe(document.body, to_js({"childList": True}, dict_converter=js.Object.fromEntries))
    for box in document.body.querySelectorAll(f":scope > .{ERROR_CLASS}"):
        _show(box)


def _mark(element: Any) -> None:
    """Mark the page's `element` (a selector, or a node of the page) as where a worker's errors go."""
    if isinstance(element, str):
        found = page_window().document.querySelector(element)
        if missing(found):
            raise ConfigurationError(f"show_startup_errors(): no element matches the selector {element!r}. "
                                     "Create the element first, or pass the element itself.")
        element = found
    for marked in page_window().document.querySelectorAll("[data-pyclient-errors]"):
        marked.removeAttribute("data-pyclient-errors")
    getattr(element, "_dom_element", element).setAttribute("data-pyclient-errors", "")


def _on_body_change(records: Any, observer: Any) -> None:
    for record in records:
        for node in record.addedNodes:
            if node.nodeType == 1 and node.classList.contains(ERROR_CLASS):
                _show(node)


def _show(box: Any) -> None:
    """Wrap `box` (PyScript styles it inline, so inline too), move it, show its end."""
    box.style.whiteSpace = "pre-wrap"
    box.style.overflowWrap = "anywhere"
    scope = _watch.element if _watch.element is not None and _watch.element.isConnected else None
    if scope is None:
        chat = js.document.querySelector(_CHAT)
    else:
        chat = scope if scope.matches(_CHAT) else scope.querySelector(_CHAT)
    if not missing(chat):
        header = chat.querySelector(":scope > .pyclient-header")
        if missing(header):
            chat.prepend(box)
        else:
            header.after(box)
    elif scope is not None:
        scope.prepend(box)
    elif not missing(thread := js.document.querySelector(f"[{THREAD_ATTRIBUTE}]")):
        thread.prepend(box)
    else:  # at the end of the page, maybe below what fills the window: at most 60% of it, in view
        box.style.maxHeight = "60vh"
        box.style.overflowY = "auto"
        scroll_into_view(box)
    box.scrollTop = box.scrollHeight
