"""Observe when elements are connected to and disconnected from the document.

Threads and component-scoped registrations live while their element is connected. One
`MutationObserver` on the document (created on first use, one proxy for the page's whole
life) re-checks `isConnected` of the watched elements after every batch of DOM changes, so
mounting is observed, never polled, and costs O(watched elements) per batch.
See https://developer.mozilla.org/en-US/docs/Web/API/MutationObserver

```python
import asyncio
from pyscript import document
from pyclient.browser._platform._mount import MountObserver

observer = MountObserver()
element = document.querySelector("#panel")
unwatch = observer.watch(element, lambda connected: print("connected" if connected else "left"))
element.remove()          # prints "left" once the observer runs (a microtask later)
await asyncio.sleep(0)    # top-level await, as in a PyScript script: the observer runs
unwatch()
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_proxy, to_js

from .._page._page_window import page_window

__all__ = ["MountObserver"]

logger = logging.getLogger("pyclient")


class _Watch:
    __slots__ = ("callback", "connected", "element")

    def __init__(self, element: Any, callback: Callable[[bool], None]) -> None:
        self.element = element
        self.connected = bool(element.isConnected)
        self.callback = callback


class MountObserver:
    """One `MutationObserver` for any number of watched elements."""

    def __init__(self) -> None:
        self._watches: dict[int, _Watch] = {}
        self._next = 0
        self._observer: Any = None
        self._proxy: Any = None

    def watch(self, element: Any, callback: Callable[[bool], None]) -> Callable[[], None]:
        """Call `callback(connected)` each time `element` connects or leaves; returns unwatch."""
        if self._observer is None:
            # Kept for the page's lifetime: one proxy, whatever the number of watches.
            self._proxy = create_proxy(self._changed)
            page = page_window()  # in a worker the page's, across threads
            self._observer = page.MutationObserver.new(self._proxy)
            options = to_js({"childList": True, "subtree": True}, dict_converter=js.Object.fromEntries)
            self._observer.observe(page.document, options)
        key = self._next
        self._next += 1
        self._watches[key] = _Watch(element, callback)

        def unwatch() -> None:
            self._watches.pop(key, None)

        return unwatch

    def __len__(self) -> int:
        return len(self._watches)

    def _changed(self, records: Any = None, observer: Any = None) -> None:
        # Callbacks may add or remove watches, so iterate over a copy.
        for watch in list(self._watches.values()):
            connected = bool(watch.element.isConnected)
            if connected == watch.connected:
                continue
            watch.connected = connected
            try:
                watch.callback(connected)
            except Exception:  # one failing callback must not stop the others
                logger.exception("pyclient: a mount callback raised")

    def check(self) -> None:
        """Run the comparison now (the observer runs it after every DOM change anyway)."""
        self._changed()
