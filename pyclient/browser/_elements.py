"""Threads and tool registrations that live and die with DOM elements.

- `agent.thread(element_or_selector)` marks the element with `data-pyclient-thread` and
  keeps the thread mounted while the element is connected to the document.
- `agent.use_client_tool(tool, element)`: inside one of this agent's thread elements, the
  tool belongs to that thread; otherwise it applies to this agent's threads whose elements it
  encloses (now or later).
- `use_client_tool(tool, element)` (package root): the nearest enclosing thread element,
  whichever agent made it.

Each registration is mounted while its element is connected; the core (`pyclient._scopes`)
does the rest: snapshots, precedence, unavailable actions, aborts. Watching costs no proxy
per registration (one `MutationObserver` serves the page, see `_mount.py`).

```python
from pyscript import document
from pyclient import Agent, client_tool, use_client_tool

@client_tool
def read_selection() -> str:
    \"\"\"Read the text the user selected.\"\"\"
    return str(document.getSelection())

agent = Agent("main", url="/agent")
thread = agent.thread("#chat")
handle = use_client_tool(read_selection, document.querySelector("#chat .toolbar"))
handle.dispose()
```
"""

from __future__ import annotations

from typing import Any

import js
from pyodide.ffi import jsnull

from .._errors import ConfigurationError
from .._thread import Thread
from .._tools import ClientTool
from ._mount import watch

__all__ = ["ElementRegistration", "mount_thread", "use_agent_tool", "use_tool"]

THREAD_ATTRIBUTE = "data-pyclient-thread"
THREAD_SELECTOR = f"[{THREAD_ATTRIBUTE}]"

# Thread id -> the thread mounted on the element that carries it.
_threads: dict[str, Thread] = {}


def _missing(value: Any) -> bool:
    """JS `null` (a `jsnull` in Pyodide 314, not None) or `undefined` (None)."""
    return value is None or value is jsnull


def _element(element_or_selector: Any, what: str) -> Any:
    if isinstance(element_or_selector, str):
        element = js.document.querySelector(element_or_selector)
        if _missing(element):
            raise ConfigurationError(
                f"{what}: no element matches the selector {element_or_selector!r}. "
                "Create the element first, or pass the element itself."
            )
        return element
    # pyscript.web elements wrap the DOM element in `_dom_element`.
    element = getattr(element_or_selector, "_dom_element", element_or_selector)
    if _missing(element) or not hasattr(element, "closest"):
        raise ConfigurationError(
            f"{what} needs a DOM element or a CSS selector, got {type(element_or_selector).__name__}. "
            "Pass e.g. document.querySelector('#chat') or '#chat'."
        )
    return element


def thread_of(element: Any) -> Thread | None:
    """The thread mounted on `element` or on its nearest enclosing thread element."""
    host = element.closest(THREAD_SELECTOR)
    return None if _missing(host) else _threads.get(str(host.getAttribute(THREAD_ATTRIBUTE)))


def mount_thread(agent: Any, element_or_selector: Any, thread_id: str | None = None, **options: Any) -> Thread:
    """Create a thread on a DOM element (what `agent.thread(element)` calls in the page).

    Raises:
        ConfigurationError: no such element, or it already carries another agent's thread.
    """
    element = _element(element_or_selector, "agent.thread()")
    existing = element.getAttribute(THREAD_ATTRIBUTE)
    if not _missing(existing) and str(existing) in _threads:
        thread = _threads[str(existing)]
        if thread.agent is agent and thread_id in (None, thread.thread_id):
            return thread  # the same call twice: one element, one thread
        raise ConfigurationError(
            f"The element already carries thread {str(existing)!r} of agent {thread.agent.name!r}. "
            "Mount each thread on its own element."
        )
    thread = Thread(agent, thread_id, **options)
    thread.element = element
    thread.mounted = bool(element.isConnected)
    element.setAttribute(THREAD_ATTRIBUTE, thread.thread_id)
    _threads[thread.thread_id] = thread

    def mounted(state: bool) -> None:
        thread.mounted = state
        thread._notify("mounted", state)

    watch(element, on_mount=lambda: mounted(True), on_unmount=lambda: mounted(False))
    return thread


class ElementRegistration:
    """A tool registration tied to an element: mounted while the element is connected.

    Attributes:
        tool: the registered `ClientTool`.
        element: the element it lives on.
        registration: the core `Registration` (level, mounted, disposed).
    """

    def __init__(self, tool: ClientTool, element: Any, registration: Any) -> None:
        self.tool = tool
        self.element = element
        self.registration = registration
        self._unwatch = watch(
            element,
            on_mount=lambda: registration.set_mounted(True),
            on_unmount=lambda: registration.set_mounted(False),
        )

    @property
    def mounted(self) -> bool:
        """True while the element is connected and the registration is not disposed."""
        return self.registration.mounted and not self.registration.disposed

    def dispose(self) -> None:
        """Remove the registration for good; a running execution of it is aborted."""
        self._unwatch()
        self.registration.dispose()
        self.element = None

    def __repr__(self) -> str:
        return f"<ElementRegistration {self.tool.name!r} mounted={self.mounted}>"


def use_agent_tool(agent: Any, tool: ClientTool, element: Any, *, replace: bool = False) -> ElementRegistration:
    """`agent.use_client_tool(tool, element)`: component-scoped to `element`."""
    element = _element(element, "agent.use_client_tool()")
    connected = bool(element.isConnected)
    thread = thread_of(element)
    if thread is not None and thread.agent is agent:
        registration = thread.register_tool(tool, replace=replace, mounted=connected)
    else:
        def encloses(thread: Thread) -> bool:
            host = getattr(thread, "element", None)
            return host is not None and bool(element.contains(host))

        registration = agent.register_tool(tool, applies_to=encloses, replace=replace, mounted=connected)
    return ElementRegistration(tool, element, registration)


def use_tool(tool: ClientTool, element: Any, *, replace: bool = False) -> ElementRegistration:
    """`use_client_tool(tool, element)`: bound to the nearest enclosing thread element."""
    element = _element(element, "use_client_tool()")
    thread = thread_of(element)
    if thread is None:
        raise ConfigurationError(
            f"use_client_tool({tool.name!r}, element): the element is not inside a thread element "
            f"(none of its ancestors carries {THREAD_ATTRIBUTE}). Mount a thread on an enclosing "
            "element first with agent.thread(element), or use agent.use_client_tool()."
        )
    registration = thread.register_tool(tool, replace=replace, mounted=bool(element.isConnected))
    return ElementRegistration(tool, element, registration)
