"""pyclient in the page: the only package that imports `js`, `pyodide` or `pyscript`.

`BrowserPlatform` is what an `Agent` uses when it runs in Pyodide (picked once, by
`pyclient._environment`): the fetch transport, real JS `AbortController`s behind
`AbortSignal.js`, threads and registrations that follow DOM elements (the rules of
`pyclient._binding._elements` over the page's DOM), and threads kept across page loads
(`store=True`: IndexedDB, with a Web Lock so one tab holds a thread). Also here: the `Chat`,
`ThreadList`, `log_to_console()`, `show_startup_errors()` and the `toolkit` of ready-made
tools. The names are imported when first used (PEP 562), so a page that never shows a `Chat`
never loads it, and the modules that need no browser import on CPython too, where their unit
tests run.

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

from typing import TYPE_CHECKING

from .._base._lazy import lazy_exports

if TYPE_CHECKING:
    from .._binding._elements import ElementRegistration
    from . import toolkit
    from ._chat._chat import Chat
    from ._platform._console import ConsoleHandler, log_to_console
    from ._platform._fetch import FetchTransport
    from ._platform._page_dom import BrowserDom
    from ._platform._platform import BrowserPlatform
    from ._platform._startup import show_startup_errors
    from ._platform._storage import IndexedDbStore
    from ._thread_list._thread_list import ThreadList

__all__ = ["BrowserDom", "BrowserPlatform", "Chat", "ConsoleHandler", "ElementRegistration",
           "FetchTransport", "IndexedDbStore", "ThreadList", "log_to_console", "show_startup_errors", "toolkit"]

# Each public name and the module that defines it.
_HOMES = {
    "BrowserDom": "._platform._page_dom",
    "BrowserPlatform": "._platform._platform",
    "Chat": "._chat._chat",
    "ConsoleHandler": "._platform._console",
    "ElementRegistration": ".._binding._elements",
    "FetchTransport": "._platform._fetch",
    "IndexedDbStore": "._platform._storage",
    "log_to_console": "._platform._console",
    "show_startup_errors": "._platform._startup",
    "ThreadList": "._thread_list._thread_list",
    "toolkit": ".toolkit",   # a subpackage: the module itself
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
