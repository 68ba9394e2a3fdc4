"""pyclient in the page: the only package that imports `js`, `pyodide` or `pyscript`.

`BrowserPlatform` is what an `Agent` uses when it runs in Pyodide (picked once, by
`pyclient._environment`): the fetch transport (streamed `ReadableStream` reads), real JS
`AbortController`s behind `AbortSignal.js`, and threads and registrations that follow DOM
elements (the rules of `pyclient._elements` over the page's DOM). Also here: the `Chat`
UI and `log_to_console()`.

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

from .._elements import DomPlatform, ElementRegistration
from .._transport import Transport
from ._abort import js_controller
from ._chat import Chat
from ._console import ConsoleHandler, log_to_console
from ._dom import BrowserDom
from ._fetch import FetchTransport

__all__ = ["BrowserDom", "BrowserPlatform", "Chat", "ConsoleHandler", "ElementRegistration",
           "FetchTransport", "log_to_console"]


class BrowserPlatform(DomPlatform):
    """The page: fetch, JS abort signals, and the document's elements."""

    name = "browser"
    js_abort = staticmethod(js_controller)

    def __init__(self) -> None:
        super().__init__(BrowserDom())

    def transport(self) -> Transport:
        return FetchTransport()
