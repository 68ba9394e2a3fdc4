"""Threads and tool registrations that live and die with DOM elements, over any DOM.

`DomPlatform` is a `Platform` with elements. The rules live here, once, whatever the DOM:
the page's (`pyclient.browser`) or a small in-memory one in CPython tests.

- `agent.thread(element_or_selector)` marks the element with `data-pyclient-thread` and
  keeps the thread mounted while the element is connected to the document. While mounted,
  the platform holds the thread; once its element has left, only its users do, and a
  thread nobody references is freed (its watch goes with it). `thread.close()` releases
  the element and the watch at once.
- `agent.use_client_tool(tool, element)`: inside one of this agent's thread elements, the
  tool belongs to that thread; otherwise it applies to this agent's threads whose elements
  it encloses (now or later).
- `use_client_tool(tool, element)` (package root): the nearest enclosing thread element,
  whichever agent made it.

Each registration is mounted while its element is connected; `pyclient._scopes` does the
rest (precedence, snapshots); the thread does what follows (unavailable calls, aborts).

```python
from pyclient import Agent, client_tool
from pyclient._elements import DomPlatform
from tests.unit.fakedom import FakeDom         # a small in-memory DOM

@client_tool
def read_selection() -> str:
    \"\"\"Read the text the user selected.\"\"\"
    return "selected text"

dom = FakeDom()
panel = dom.body.append_child("section", id="chat")
agent = Agent("main", "http://127.0.0.1:8000/agent", platform=DomPlatform(dom))
thread = agent.thread("#chat")
handle = agent.use_client_tool(read_selection, panel.append_child("div"))
assert [tool.name for tool in thread.available_tools()] == ["read_selection"]
panel.remove()                                  # the element leaves: nothing is advertised
assert thread.available_tools() == []
```
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ._errors import ConfigurationError
from ._platform import Platform
from ._scopes import Registration, check_agent_agnostic
from ._tools import ClientTool

if TYPE_CHECKING:
    from ._agent import Agent
    from ._thread import Thread

__all__ = ["THREAD_ATTRIBUTE", "Dom", "DomPlatform", "ElementRegistration"]

logger = logging.getLogger("pyclient")

THREAD_ATTRIBUTE = "data-pyclient-thread"


class Dom(Protocol):
    """What the element rules need of a DOM. Elements are whatever the DOM hands out."""

    def element(self, element_or_selector: Any, what: str) -> Any:
        """The element itself, for an element, a wrapper of one, or a CSS selector.

        Raises:
            ConfigurationError: nothing matches, or it is not an element (`what` names the caller).
        """

    def attribute(self, element: Any, name: str) -> str | None:
        """The element's attribute, or None."""

    def set_attribute(self, element: Any, name: str, value: str | None) -> None:
        """Set the attribute, or remove it when `value` is None."""

    def closest_attribute(self, element: Any, name: str) -> str | None:
        """The attribute of the element or its nearest ancestor that has it, or None."""

    def contains(self, outer: Any, inner: Any) -> bool:
        """True if `inner` is `outer` or inside it."""

    def is_connected(self, element: Any) -> bool:
        """True while the element is in the document."""

    def watch(self, element: Any, callback: Callable[[bool], None]) -> Callable[[], None]:
        """Call `callback(connected)` whenever the element's connection changes; returns unwatch."""

    def check(self) -> None:
        """Report connection changes now (an observer may report them a moment later)."""


class DomPlatform(Platform):
    """A `Platform` whose threads and registrations live on the elements of `dom`.

    Args:
        dom: the DOM (see `Dom`).
    """

    name = "dom"

    def __init__(self, dom: Dom) -> None:
        self.dom = dom
        # Thread id -> thread; weak: the platform never keeps a thread alive on its own...
        self._threads: weakref.WeakValueDictionary[str, Thread] = weakref.WeakValueDictionary()
        # ...except while its element is connected (the page shows it).
        self._mounted: set[Thread] = set()
        self._releases: dict[str, weakref.finalize[[str, Any, Callable[[], None]], Thread]] = {}

    def refresh(self) -> None:
        self.dom.check()

    def thread_of(self, element: Any) -> Thread | None:
        """The live thread mounted on `element` or on its nearest enclosing thread element."""
        thread_id = self.dom.closest_attribute(element, THREAD_ATTRIBUTE)
        return None if thread_id is None else self._threads.get(thread_id)

    def mount_thread(
        self, agent: Agent, element_or_selector: Any, thread_id: str | None, make: Callable[[], Thread]
    ) -> Thread:
        """Create a thread on a DOM element (what `agent.thread(element)` calls).

        Raises:
            ConfigurationError: no such element, or it already carries another live thread.
        """
        dom = self.dom
        element = dom.element(element_or_selector, "agent.thread()")
        existing_id = dom.attribute(element, THREAD_ATTRIBUTE)
        existing = self._threads.get(existing_id) if existing_id is not None else None
        if existing is not None and existing.run_status != "closed":
            if existing.agent is agent and thread_id in (None, existing.thread_id):
                return existing  # the same call twice: one element, one thread
            raise ConfigurationError(
                f"The element already carries thread {existing_id!r} of agent {existing.agent.name!r}. "
                "Mount each thread on its own element, or close that thread first (`thread.close()`)."
            )
        thread = make()
        key = thread.thread_id
        if key in self._threads:
            raise ConfigurationError(
                f"Thread id {key!r} is already mounted on another element. Give each mounted "
                "thread its own thread_id, or close the other thread first."
            )
        dom.set_attribute(element, THREAD_ATTRIBUTE, key)
        thread.scope.element = element
        self._threads[key] = thread
        reference = weakref.ref(thread)

        def connection(connected: bool) -> None:
            live = reference()
            if live is None:
                return
            if connected:
                self._mounted.add(live)
            else:
                self._mounted.discard(live)
            live.scope.connection_changed(connected)

        unwatch = dom.watch(element, connection)
        if dom.is_connected(element):
            self._mounted.add(thread)
        # Runs once: on close(), or when the thread is freed (then the element is long gone).
        self._releases[key] = weakref.finalize(thread, self._forget, key, element, unwatch)
        return thread

    def _forget(self, key: str, element: Any, unwatch: Callable[[], None]) -> None:
        unwatch()
        self._releases.pop(key, None)
        if self.dom.attribute(element, THREAD_ATTRIBUTE) == key:
            self.dom.set_attribute(element, THREAD_ATTRIBUTE, None)

    def release_thread(self, thread: Thread) -> None:
        """Stop watching the thread's element, unmark it and let the thread go."""
        self._mounted.discard(thread)
        release = self._releases.get(thread.thread_id)
        if release is not None:
            release()
        if self._threads.get(thread.thread_id) is thread:
            del self._threads[thread.thread_id]
        thread.scope.element = None

    def use_client_tool(
        self, tool: ClientTool, element: Any, *, agent: Agent | None = None, replace: bool = False
    ) -> ElementRegistration:
        """Register `tool` on `element`'s nearest thread (agent None), or for `agent` (see the module docstring).

        Raises:
            ConfigurationError: no such element; with agent None, `element` is in no thread
                element; a duplicate registration without `replace`.
        """
        api = "use_client_tool()" if agent is None else "agent.use_client_tool()"
        if agent is None:
            check_agent_agnostic(tool, "use_client_tool")
        element = self.dom.element(element, api)
        connected = self.dom.is_connected(element)
        thread = self.thread_of(element)
        registration: Registration
        if agent is None:
            if thread is None:
                raise ConfigurationError(
                    f"use_client_tool({tool.name!r}, element): the element is not inside a thread element "
                    f"(none of its ancestors carries {THREAD_ATTRIBUTE}). Mount a thread on an enclosing "
                    "element first with agent.thread(element), or use agent.use_client_tool()."
                )
            registration = thread.register_tool(tool, replace=replace, mounted=connected)
        elif thread is not None and thread.agent is agent:
            registration = thread.register_tool(tool, replace=replace, mounted=connected)
        else:
            dom = self.dom

            def encloses(candidate: Thread) -> bool:
                host = candidate.element
                return host is not None and dom.contains(element, host)

            registration = agent.register_tool(tool, applies_to=encloses, replace=replace, mounted=connected)
        return ElementRegistration(self.dom, tool, element, registration)


class ElementRegistration:
    """A tool registration tied to an element: mounted while the element is connected.

    Attributes:
        tool: the registered `ClientTool`.
        element: the element it lives on (None once disposed).
        registration: the core `Registration` (level, mounted, disposed).
    """

    def __init__(self, dom: Dom, tool: ClientTool, element: Any, registration: Registration) -> None:
        self.tool = tool
        self.element = element
        self.registration = registration
        reference = weakref.ref(registration)

        def connection(connected: bool) -> None:
            live = reference()
            if live is not None:
                live.set_mounted(connected)

        # The watch holds the registration weakly: it lives as long as its scope (a thread's
        # goes with the thread), and the watch goes when it is freed or disposed.
        self._unwatch = weakref.finalize(registration, dom.watch(element, connection))
        registration.on_dispose(self._unwatch)

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
