"""`Platform`: the environment pyclient runs in, handed to the core as one object.

The core never detects its environment and never imports `js`: an `Agent` is given a
platform (`Agent(..., platform=...)`, or the one `pyclient._environment` picks once) and
asks it for what differs between CPython and the page: the default transport and store, a
lock between tabs, idle time, JS mirrors of abort signals and JS values, and the element
binding (`platform.elements`, None where there is no DOM). It names no agent and no thread:
they call it. This base class is the CPython platform: httpx, no JS, no DOM; `DomPlatform`
adds the element binding over any DOM, and `pyclient.browser.BrowserPlatform` is that over
the page's.

```python
from pyclient import Agent
from pyclient._binding._platform import Platform

agent = Agent("main", "http://127.0.0.1:8000/agent", platform=Platform())
assert agent.platform.name == "cpython" and agent.platform.abort_controller().signal.js is None
```
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._base._abort import AbortController, JsAbortFactory
from .._base._errors import ConfigurationError
from .._tools._deferred_schemas import build_pending_schemas
from .._wire._events import event_adapter, message_adapter
from .._wire._transport import HttpxTransport, Transport
from ._elements import Dom, ElementBinding

if TYPE_CHECKING:
    from .._base._store import Store

__all__ = ["DomPlatform", "Platform", "current_platform", "install_platform"]

logger = logging.getLogger("pyclient")

_warmed = False
_current: Platform | None = None
_factory: Callable[[], Platform] | None = None


def install_platform(factory: Callable[[], Platform]) -> None:
    """Make `factory` the maker of this process's platform (`pyclient._environment` installs
    the page's in Pyodide, from above: the core never imports the browser package)."""
    global _factory
    _factory = factory


def current_platform() -> Platform:
    """The platform of this process, made on first use: the installed one, else CPython's."""
    global _current
    if _current is None:
        _current = _factory() if _factory is not None else Platform()
    return _current


class Platform:
    """CPython: httpx requests, no JS, no DOM. Subclass it for another environment.

    Attributes:
        name: `"cpython"`, `"browser"`, or a test platform's name.
        js_abort: makes the JS `AbortSignal` behind `signal.js` (None: no JS here).
    """

    name = "cpython"
    js_abort: JsAbortFactory | None = None
    elements: ElementBinding | None = None
    """Threads and registrations on DOM elements (`pyclient._binding._elements`); None: no DOM here."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def transport(self) -> Transport:
        """The transport an `Agent` uses when it is given none."""
        return HttpxTransport()

    def abort_controller(self) -> AbortController:
        """A controller whose signal is mirrored to JS where there is JS."""
        return AbortController(self.js_abort)

    def to_python(self, value: Any) -> Any:
        """What a handler returned (or the page submitted) as Python data; CPython has only Python.

        The browser's platform converts JS values here (`null`/`undefined` to None, arrays
        and plain objects to lists and dicts) and raises `ToolError` for other JS objects.
        """
        return value

    def describe_failure(self, exc: BaseException) -> str:
        """What an exception a handler raised tells the model (its tool result) and the log:
        its message, or its type's name when it has none. The browser's platform adds, in a
        worker, what to write instead of a main-thread name the worker's `js` lacks."""
        return str(exc) or type(exc).__name__

    async def read_media(self, value: Any) -> Any:
        """`value` with the environment's own files read as `pyclient.Attachment`s: in the page a
        JS `File` or `Blob`, or a `<canvas>` (a PNG), alone or as the items of a list; an
        attachment in `thread.send()`, or what a handler returned. CPython has none: `value` as it is.
        """
        return value

    def refresh(self) -> None:
        """Report element connection changes now, before tools are resolved (nothing to do here)."""

    def default_store(self) -> Store:
        """The store `agent.thread(..., store=True)` uses.

        Raises:
            ConfigurationError: always here: CPython has no browser storage.
        """
        raise ConfigurationError(
            "store=True keeps a thread in the browser's IndexedDB, which needs the page "
            "(pyclient.browser). On CPython pass a store: store=pyclient.FileStore(path) or "
            "store=pyclient.MemoryStore()."
        )

    async def hold_thread(self, key: str) -> Callable[[], None] | None:
        """Hold a stored thread for this process, so no other tab answers its calls.

        Returns:
            A function that lets it go, or None when another holder has it (the thread is then
            read-only here). On CPython there is no other tab: always held.
        """
        return lambda: None

    def preload(self, load: Callable[[], None]) -> None:
        """Run `load` (it builds the tools' schemas, or imports ag-ui's models, which requests
        and events need) when this environment can spare the time: the page does it once it is
        idle, so neither its boot nor its first `send()` pays for it. CPython does not: it
        builds and imports them on first use.
        """

    def warm_up(self) -> None:
        """Build the tools' schemas and import ag-ui's models ahead of the first request, when
        this environment can spare the time (`preload`): once per process, in two steps so the
        page can answer input in between. The first thread asks for it."""
        global _warmed
        if not _warmed:
            _warmed = True
            self.preload(build_pending_schemas)
            self.preload(_load_protocol)


def _load_protocol() -> None:
    started = time.perf_counter()
    loaded = "ag_ui.core" in sys.modules
    event_adapter()
    message_adapter()
    if not loaded:
        logger.info("pyclient: AG-UI models loaded ahead of the first request (%.0f ms)",
                    (time.perf_counter() - started) * 1000)


class DomPlatform(Platform):
    """A `Platform` whose threads and registrations live on the elements of `dom`.

    Args:
        dom: the DOM (see `pyclient._binding._elements.Dom`).
    """

    name = "dom"

    def __init__(self, dom: Dom) -> None:
        self.dom = dom
        self.elements = ElementBinding(dom)

    def refresh(self) -> None:
        self.dom.check()
