"""pyclient in the page: the only package that imports `js`, `pyodide` or `pyscript`.

`BrowserPlatform` is what an `Agent` uses when it runs in Pyodide (picked once, by
`pyclient._environment`): the fetch transport (streamed `ReadableStream` reads), real JS
`AbortController`s behind `AbortSignal.js`, threads and registrations that follow DOM
elements (the rules of `pyclient._elements` over the page's DOM), and threads kept across
page loads (`store=True`: IndexedDB, with a Web Lock so one tab holds a thread). Also
here: the `Chat` UI, `log_to_console()`, and `pyclient.browser.toolkit`, ready-made tools
(selection, clipboard, storage, page text, DOM, background, toasts).

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat, log_to_console

log_to_console()                       # pyclient's records in devtools
agent = Agent("main", url="/agent")    # agent.platform is a BrowserPlatform
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
```
"""

from __future__ import annotations

from collections.abc import Callable

from .._elements import DomPlatform, ElementRegistration
from .._store import Store
from .._transport import Transport
from ._abort import js_controller
from ._chat import Chat
from ._convert import to_python
from ._console import ConsoleHandler, log_to_console
from ._dom import BrowserDom
from ._fetch import FetchTransport
from ._storage import IndexedDbStore, hold_thread
from . import toolkit

__all__ = ["BrowserDom", "BrowserPlatform", "Chat", "ConsoleHandler", "ElementRegistration",
           "FetchTransport", "IndexedDbStore", "log_to_console", "toolkit"]


class BrowserPlatform(DomPlatform):
    """The page: fetch, JS abort signals, and the document's elements."""

    name = "browser"
    js_abort = staticmethod(js_controller)
    to_python = staticmethod(to_python)  # JS null, arrays and objects from handlers

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

    async def hold_thread(self, key: str) -> Callable[[], None] | None:
        """A Web Lock per stored thread: one tab answers its calls, the others show it read-only."""
        return await hold_thread(key)
