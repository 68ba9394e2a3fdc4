"""`Platform`: the environment pyclient runs in, handed to the core as one object.

The core never detects its environment and never imports `js`: an `Agent` is given a
platform (`Agent(..., platform=...)`, or the one `pyclient._environment` picks once) and
asks it for what differs between CPython and the page: the default transport, JS mirrors
of abort signals, threads and registrations that live on DOM elements. This base class is
the CPython platform: httpx, no JS, no DOM; `pyclient._elements.DomPlatform` adds elements
over any DOM, and `pyclient.browser.BrowserPlatform` is that over the page's.

```python
from pyclient import Agent
from pyclient._platform import Platform

agent = Agent("main", "http://127.0.0.1:8000/agent", platform=Platform())
assert agent.platform.name == "cpython" and agent.platform.abort_controller().signal.js is None
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._abort import AbortController, JsAbortFactory
from ._errors import ConfigurationError
from ._transport import HttpxTransport, Transport

if TYPE_CHECKING:
    from ._agent import Agent
    from ._store import Store
    from ._thread import Thread
    from ._tools import ClientTool

__all__ = ["Platform"]


class Platform:
    """CPython: httpx requests, no JS, no DOM. Subclass it for another environment.

    Attributes:
        name: `"cpython"`, `"browser"`, or a test platform's name.
        js_abort: makes the JS `AbortSignal` behind `signal.js` (None: no JS here).
    """

    name = "cpython"
    js_abort: JsAbortFactory | None = None

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

    def refresh(self) -> None:
        """Report element connection changes now, before tools are resolved (nothing to do here)."""

    def mount_thread(
        self, agent: Agent, element_or_selector: Any, thread_id: str | None, make: Callable[[], Thread]
    ) -> Thread:
        """`agent.thread(element)`: a thread that lives on a DOM element.

        Raises:
            ConfigurationError: always here: CPython has no DOM.
        """
        raise ConfigurationError(
            f"agent.thread({element_or_selector!r:.60}) mounts a thread on a DOM element, "
            "which needs the page (the browser platform, pyclient.browser). "
            "On CPython call agent.thread() without an element."
        )

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

    def release_thread(self, thread: Thread) -> None:
        """`thread.close()`: forget the thread's element and stop watching it (nothing here)."""

    def use_client_tool(
        self, tool: ClientTool, element: Any, *, agent: Agent | None = None, replace: bool = False
    ) -> Any:
        """`use_client_tool(tool, element)` (agent None) and `agent.use_client_tool(tool, element)`.

        Raises:
            ConfigurationError: always here: CPython has no DOM; the message names the
                CPython equivalent.
        """
        if agent is None:
            raise ConfigurationError(
                f"use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
                "which needs the page (the browser platform, pyclient.browser). On CPython the "
                "equivalent is thread.register_tool(tool) (or agent.register_tool(tool) for every thread)."
            )
        raise ConfigurationError(
            f"agent.use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
            "which needs the page (the browser platform, pyclient.browser). On CPython the "
            "equivalents are agent.register_tool(tool, applies_to=...) and thread.register_tool(tool)."
        )
