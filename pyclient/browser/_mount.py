"""Observe when elements are connected to and disconnected from the document.

Threads and component-scoped registrations live while their element is connected. One
`MutationObserver` on the document (created on first use, one proxy for the page's whole
life) re-checks `isConnected` of the watched elements after every batch of DOM changes, so
mounting is observed, never polled, and costs O(watched elements) per batch.
See https://developer.mozilla.org/en-US/docs/Web/API/MutationObserver

```python
from pyscript import document
from pyclient.browser._mount import watch

element = document.querySelector("#panel")
unwatch = watch(element, on_mount=lambda: print("in"), on_unmount=lambda: print("out"))
element.remove()          # prints "out" once the observer runs (a microtask later)
unwatch()
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_proxy, to_js

__all__ = ["check", "watch"]

logger = logging.getLogger("pyclient")


class _Watch:
    __slots__ = ("element", "connected", "on_mount", "on_unmount")

    def __init__(self, element: Any, on_mount: Callable[[], Any], on_unmount: Callable[[], Any]):
        self.element = element
        self.connected = bool(element.isConnected)
        self.on_mount = on_mount
        self.on_unmount = on_unmount


class _MountObserver:
    """The page's single observer; `watch()` is its public face."""

    def __init__(self) -> None:
        self._watches: dict[int, _Watch] = {}
        self._next = 0
        self._observer: Any = None
        self._proxy: Any = None

    def watch(self, element: Any, on_mount: Callable[[], Any], on_unmount: Callable[[], Any]) -> Callable[[], None]:
        if self._observer is None:
            # Kept for the page's lifetime: one proxy, whatever the number of watches.
            self._proxy = create_proxy(self._changed)
            self._observer = js.MutationObserver.new(self._proxy)
            options = to_js({"childList": True, "subtree": True}, dict_converter=js.Object.fromEntries)
            self._observer.observe(js.document, options)
        key = self._next
        self._next += 1
        self._watches[key] = _Watch(element, on_mount, on_unmount)
        return lambda: self._watches.pop(key, None) and None

    def _changed(self, records: Any = None, observer: Any = None) -> None:
        # Callbacks may add or remove watches, so iterate over a copy.
        for watch in list(self._watches.values()):
            connected = bool(watch.element.isConnected)
            if connected == watch.connected:
                continue
            watch.connected = connected
            try:
                (watch.on_mount if connected else watch.on_unmount)()
            except Exception:  # one failing callback must not stop the others
                logger.exception("pyclient: a mount callback raised")

    def check(self) -> None:
        """Run the comparison now (the observer runs it after every DOM change anyway)."""
        self._changed()


_observer = _MountObserver()


def watch(element: Any, *, on_mount: Callable[[], Any], on_unmount: Callable[[], Any]) -> Callable[[], None]:
    """Call `on_mount()` when `element` is (re)connected and `on_unmount()` when it leaves.

    Args:
        element: a DOM element (JS proxy).
        on_mount: called each time the element becomes connected again.
        on_unmount: called each time it is disconnected.

    Returns:
        A function that stops watching.
    """
    return _observer.watch(element, on_mount, on_unmount)


def check() -> None:
    """Compare every watched element's connection now, without waiting for the observer."""
    _observer.check()
