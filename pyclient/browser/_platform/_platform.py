"""`BrowserPlatform`: the page as a platform for the core (fetch, JS abort signals, the DOM, IndexedDB).

An `Agent` uses it when it runs in Pyodide (picked once, by `pyclient._environment`): the
fetch transport (streamed `ReadableStream` reads), real JS `AbortController`s behind
`AbortSignal.js`, threads and registrations that follow DOM elements (the rules of
`pyclient._binding._elements` over the page's DOM), and threads kept across page loads (`store=True`:
IndexedDB, with a Web Lock so one tab holds a thread).
See https://developer.mozilla.org/en-US/docs/Web/API/Web_Locks_API

```python
from pyclient import Agent
from pyclient.browser import BrowserPlatform

agent = Agent("main", url="/agent")
print(isinstance(agent.platform, BrowserPlatform), agent.platform.name)   # True browser
```
"""

from __future__ import annotations

from collections.abc import Callable

import js
from pyodide.ffi import create_once_callable, to_js

from ..._base._store import Store
from ..._binding._platform import DomPlatform
from ..._wire._transport import Transport
from ._abort import js_controller
from ._convert import to_python
from ._fetch import FetchTransport
from ._files import read_media
from ._page_dom import BrowserDom
from ._storage import IndexedDbStore, hold_thread
from ._worker_hints import describe_failure

__all__ = ["BrowserPlatform"]

PRELOAD_TIMEOUT_MS = 2000
"""`preload` runs by then even if the page never goes idle."""


class BrowserPlatform(DomPlatform):
    """The page: fetch, JS abort signals, and the document's elements."""

    name = "browser"
    js_abort = staticmethod(js_controller)
    to_python = staticmethod(to_python)  # JS null, arrays and objects from handlers
    read_media = staticmethod(read_media)  # JS Files, Blobs and canvases as Attachments
    describe_failure = staticmethod(describe_failure)  # in a worker: how to reach the page instead of `js`

    def __init__(self) -> None:
        super().__init__(BrowserDom())
        self._store: IndexedDbStore | None = None

    def transport(self) -> Transport:
        return FetchTransport()

    def default_store(self) -> Store:
        """IndexedDB (`pyscript.storage`), one store for every thread of the page."""
        if self._store is None:
            self._store = IndexedDbStore()
        return self._store

    def preload(self, load: Callable[[], None]) -> None:
        """Run `load` once the page is idle (`requestIdleCallback`; `setTimeout` where there is none).

        It builds the tools' pydantic models and JSON Schemas, or imports ag-ui's models (the
        slowest imports of a boot; one call each, so the page handles input in between): after
        the page became usable, so its boot does not wait for them, and before the first
        `send()` in all likelihood. What `load` raises is reported by the page as an uncaught
        error; `build_pending_schemas` logs a tool's `ConfigurationError` itself.
        See https://developer.mozilla.org/en-US/docs/Web/API/Window/requestIdleCallback
        """
        callback = create_once_callable(lambda *_: load())
        idle = getattr(js, "requestIdleCallback", None)
        if idle is not None:
            idle(callback, to_js({"timeout": PRELOAD_TIMEOUT_MS}, dict_converter=js.Object.fromEntries))
        else:
            js.setTimeout(callback, 0)

    async def hold_thread(self, key: str) -> Callable[[], None] | None:
        """A Web Lock per stored thread: one tab answers its calls, the others show it read-only."""
        return await hold_thread(key)
