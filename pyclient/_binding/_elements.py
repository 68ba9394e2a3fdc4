"""Threads and tool registrations that live and die with DOM elements, over any DOM.

`ElementBinding` holds the rules, once, whatever the DOM: the page's (`pyclient.browser`) or a
small in-memory one in CPython tests. A platform with a DOM carries one (`platform.elements`);
`Agent` and `Thread` call it, and it works on their scopes (`pyclient._binding._scopes`) only.
`agent.thread(element)` marks the element with `data-pyclient-thread` and keeps the thread
mounted while the element is connected; once it has left, only the thread's users hold it, and
a thread nobody references is freed. `agent.use_client_tool(tool, element)` gives the tool to
the thread whose element encloses it, else to the agent's threads it encloses;
`use_client_tool(tool, element)` to the nearest enclosing thread, whichever agent made it. Each
registration is mounted while its element is connected (docs/registration.md).

```python
from pyclient import Agent, client_tool
from pyclient._binding._platform import DomPlatform
from pyclient.testing import FakeDom            # a small in-memory DOM

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
from typing import Any, Protocol

from .._base._errors import ConfigurationError
from .._tools._client_tool import ClientTool
from ._scopes import AgentScope, Registration, ThreadScope, check_agent_agnostic

__all__ = ["THREAD_ATTRIBUTE", "Dom", "ElementBinding", "ElementRegistration"]

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


class ElementBinding:
    """Thread scopes and registrations on the elements of `dom`; see the module docstring.

    Args:
        dom: the DOM (see `Dom`).
    """

    def __init__(self, dom: Dom) -> None:
        self.dom = dom
        # Thread id -> scope; weak: the binding never keeps a thread alive on its own...
        self._scopes: weakref.WeakValueDictionary[str, ThreadScope] = weakref.WeakValueDictionary()
        # ...except while its element is connected (the page shows it).
        self._mounted: set[ThreadScope] = set()
        self._releases: dict[str, weakref.finalize[[str, Any, Callable[[], None]], ThreadScope]] = {}

    def element(self, element_or_selector: Any, what: str) -> Any:
        """The element for an element or selector (`what` names the caller in the error).

        Raises:
            ConfigurationError: nothing matches.
        """
        return self.dom.element(element_or_selector, what)

    def scope_on(self, element: Any) -> ThreadScope | None:
        """The scope of the live thread mounted on `element` or on its nearest enclosing thread element."""
        thread_id = self.dom.closest_attribute(element, THREAD_ATTRIBUTE)
        return None if thread_id is None else self._scopes.get(thread_id)

    def mount(self, scope: ThreadScope, element: Any) -> Callable[[], None]:
        """Mount a thread's scope on `element` (what `agent.thread(element)` does); returns the release.

        Raises:
            ConfigurationError: the element already carries another live thread, or the
                thread's id is mounted on another element.
        """
        dom = self.dom
        existing = self.scope_on(element) if dom.attribute(element, THREAD_ATTRIBUTE) is not None else None
        if existing is not None and existing is not scope:
            raise ConfigurationError(
                f"The element already carries thread {existing.thread_id!r} of agent {existing.agent_scope.name!r}. "
                "Mount each thread on its own element, or close that thread first (`thread.close()`)."
            )
        key = scope.thread_id
        if key in self._scopes:
            raise ConfigurationError(
                f"Thread id {key!r} is already mounted on another element. Give each mounted "
                "thread its own thread_id, or close the other thread first."
            )
        dom.set_attribute(element, THREAD_ATTRIBUTE, key)
        scope.element = element
        self._scopes[key] = scope
        reference = weakref.ref(scope)

        def connection(connected: bool) -> None:
            live = reference()
            if live is None:
                return
            if connected:
                self._mounted.add(live)
            else:
                self._mounted.discard(live)
            live.connection_changed(connected)

        unwatch = dom.watch(element, connection)
        if dom.is_connected(element):
            self._mounted.add(scope)
        # Runs once: on release, or when the thread is freed (then the element is long gone).
        self._releases[key] = weakref.finalize(scope, self._forget, key, element, unwatch)
        return lambda: self._release(scope)

    def _forget(self, key: str, element: Any, unwatch: Callable[[], None]) -> None:
        unwatch()
        self._releases.pop(key, None)
        if self.dom.attribute(element, THREAD_ATTRIBUTE) == key:
            self.dom.set_attribute(element, THREAD_ATTRIBUTE, None)

    def _release(self, scope: ThreadScope) -> None:
        """Stop watching the thread's element, unmark it and let the thread go."""
        self._mounted.discard(scope)
        release = self._releases.get(scope.thread_id)
        if release is not None:
            release()
        if self._scopes.get(scope.thread_id) is scope:
            del self._scopes[scope.thread_id]
        scope.element = None

    def use_client_tool(
        self, tool: ClientTool, element: Any, *, agent: AgentScope | None = None, replace: bool = False
    ) -> ElementRegistration:
        """Register `tool` on `element`'s nearest thread (agent None), or for `agent`'s threads.

        Args:
            agent: the scope of the agent of `agent.use_client_tool`; None for the package
                root's agent-agnostic `use_client_tool`.

        Raises:
            ConfigurationError: no such element; with agent None, `element` is in no thread
                element or `tool` is server-declared; a duplicate registration without `replace`.
        """
        api = "use_client_tool()" if agent is None else "agent.use_client_tool()"
        if agent is None:
            check_agent_agnostic(tool, "use_client_tool")
        element = self.dom.element(element, api)
        connected = self.dom.is_connected(element)
        scope = self.scope_on(element)
        registration: Registration
        if agent is None:
            if scope is None:
                raise ConfigurationError(
                    f"use_client_tool({tool.name!r}, element): the element is not inside a thread element "
                    f"(none of its ancestors carries {THREAD_ATTRIBUTE}). Mount a thread on an enclosing "
                    "element first with agent.thread(element), or use agent.use_client_tool()."
                )
            registration = scope.register(tool, replace=replace, mounted=connected)
        elif scope is not None and scope.agent_scope is agent:
            registration = scope.register(tool, replace=replace, mounted=connected)
        else:
            dom = self.dom

            def encloses(candidate: ThreadScope) -> bool:
                host = candidate.element
                return host is not None and dom.contains(element, host)

            registration = agent.register(tool, applies_to=encloses, replace=replace, mounted=connected)
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
