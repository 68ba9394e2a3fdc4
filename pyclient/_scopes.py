"""Tool registrations: which registration serves a tool name in a thread, and what each request advertises.

A thread sees tools at three levels, from least to most specific:

| level | registered with | applies to | mounted |
| --- | --- | --- | --- |
| `BINDING` | `Agent(client_tools=[...])` | every thread of the agent | always |
| `AGENT` | `agent.register_tool(tool, applies_to=...)`, `agent.use_client_tool(tool, element)` | the threads `applies_to(thread)` selects | while the bridge says so |
| `THREAD` | `thread.register_tool(tool)`, `use_client_tool(tool, element)` | one thread | while the bridge says so |

Rules:

1. In a thread, a tool name is served by its most specific mounted registration; within one
   level, by the newest mounted one. `thread.available_tools()` is that resolution for every
   name, and it is exactly what the next request advertises.
2. Two live (not disposed) registrations of one name at one level of one owner (the same
   thread for `THREAD`, the same agent for `AGENT`) are a `ConfigurationError`, unless the
   second passes `replace=True`: it then wins, and the older one serves again once the newer
   is unmounted or disposed.
3. Registering, `set_mounted()` and `dispose()` are synchronous: the next
   `thread.available_tools()` (and so the next request) already reflects them.
4. A registration that unmounts or is disposed aborts the executions it serves (their
   `ToolContext.signal` aborts with "unmounted" or "disposed"); their actions go back to
   `"unavailable"` and run again as soon as a registration of that name serves the thread.
5. The core never sees elements. The browser bridge works out which element encloses what,
   passes `applies_to` predicates, calls `set_mounted()` when elements connect or disconnect,
   and sets the hooks below: `_before_snapshot` (re-check connections now, since a
   `MutationObserver` reports a removal only a microtask later), `_use_agent_tool` and
   `_use_tool` (the DOM-scoped registration forms).

```python
import asyncio
from pyclient import Agent, client_tool

@client_tool
def read_selection() -> str:
    \"\"\"Read the selected text.\"\"\"
    return "selected text"

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent").thread()
    registration = thread.register_tool(read_selection)
    print([tool.name for tool in thread.available_tools()])    # ['read_selection']
    registration.set_mounted(False)                            # its element left the page
    print([tool.name for tool in thread.available_tools()])    # []
    registration.dispose()

asyncio.run(main())
```
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ._errors import ConfigurationError, LocalProtocolError
from ._tools import ClientTool

if TYPE_CHECKING:
    from ._actions import Action
    from ._agent import Agent
    from ._thread import Thread

__all__ = ["AGENT", "BINDING", "THREAD", "Registration", "use_client_tool"]

logger = logging.getLogger("pyclient")

BINDING = "binding"   # Agent(client_tools=...): every thread of the agent, always mounted
AGENT = "agent"       # registered on the agent, for the threads its `applies_to` selects
THREAD = "thread"     # registered on one thread

# Set by pyclient.browser. The core calls them and never touches the DOM.
_before_snapshot: Callable[[], None] | None = None
"""Called at the start of `thread.available_tools()` and before a finished run's calls are
served, so the bridge can re-check element connection synchronously (set_mounted())."""
_use_agent_tool: Callable[..., Any] | None = None
"""`_use_agent_tool(agent, tool, element, *, replace) -> handle`: `agent.use_client_tool`."""
_use_tool: Callable[..., Any] | None = None
"""`_use_tool(tool, element, *, replace) -> handle`: the package-root `use_client_tool`.

The handle is a `Registration` or the bridge's wrapper of one; either has `dispose()`."""

_refreshing = False
_sequence = itertools.count(1)


class Registration:
    """One registration of a client tool; returned by `register_tool()` and `use_client_tool()`.

    Attributes:
        tool: the `ClientTool` it registers.
        level: `"binding"`, `"agent"` or `"thread"` (see the table in `pyclient._scopes`).
    """

    __slots__ = ("_actions", "_applies_to", "_disposed", "_mounted", "_number", "_owner", "level", "tool")

    def __init__(
        self,
        tool: ClientTool,
        level: str,
        owner: Agent | Thread,
        *,
        mounted: bool = True,
        applies_to: Callable[[Thread], bool] | None = None,
    ) -> None:
        self.tool = tool
        self.level = level
        self._owner = owner
        self._applies_to = applies_to
        self._mounted = mounted
        self._disposed = False
        self._actions: list[Action] = []   # the actions this registration serves right now
        self._number = next(_sequence)

    def __repr__(self) -> str:
        state = "disposed" if self._disposed else "mounted" if self._mounted else "unmounted"
        return f"<Registration #{self._number} {self.tool.name!r} {self.level} {state}>"

    @property
    def mounted(self) -> bool:
        """True while the registration can serve calls (its element is connected)."""
        return self._mounted

    @property
    def disposed(self) -> bool:
        """True once `dispose()` was called; a disposed registration never serves again."""
        return self._disposed

    def set_mounted(self, mounted: bool) -> None:
        """Mount or unmount the registration (the bridge calls it when its element connects or leaves).

        Unmounting aborts the executions it serves (reason "unmounted"); their actions become
        `"unavailable"` until a registration of the tool serves the thread again. Mounting
        runs the thread's unavailable actions of this tool. Idempotent; does nothing once the
        registration is disposed.

        Args:
            mounted: True when the element is connected.

        Raises:
            LocalProtocolError: this is a binding tool (`Agent(client_tools=...)`), always mounted.
        """
        mounted = bool(mounted)
        self._check_not_binding("set_mounted")
        if self._disposed or mounted == self._mounted:
            return
        self._mounted = mounted
        logger.debug("pyclient: %r", self)
        if not mounted:
            self._release("unmounted")
        self._changed()

    def dispose(self) -> None:
        """Remove the registration for good: unmount it and drop every reference to it.

        Executions it serves abort with reason "disposed". Idempotent.

        Raises:
            LocalProtocolError: this is a binding tool (`Agent(client_tools=...)`).
        """
        self._check_not_binding("dispose")
        if self._disposed:
            return
        self._disposed = True
        self._mounted = False
        registrations = self._owner._registrations
        if self in registrations:
            registrations.remove(self)
        logger.debug("pyclient: %r", self)
        self._release("disposed")
        self._changed()

    def applies(self, thread: Thread) -> bool:
        """True if the registration is meant for `thread` (mounted or not).

        An `applies_to` predicate that raises counts as False (and is logged): one broken
        predicate must not break every request.
        """
        if self.level == THREAD:
            return self._owner is thread
        if thread.agent is not self._owner:
            return False
        if self._applies_to is None:
            return True
        try:
            return bool(self._applies_to(thread))
        except Exception:
            logger.exception("pyclient: applies_to of %r raised for %r", self, thread)
            return False

    # -- internal ------------------------------------------------------------------------

    def _check_not_binding(self, what: str) -> None:
        if self.level == BINDING:
            raise LocalProtocolError(
                f"Cannot {what}() the binding tool {self.tool.name!r}: tools passed as "
                "Agent(client_tools=...) are fixed for the agent's lifetime. Register the tool "
                "with agent.register_tool() or thread.register_tool() to control it."
            )

    def _release(self, reason: str) -> None:
        for action in list(self._actions):
            action._lose(reason)
        self._actions.clear()

    def _threads(self) -> list[Thread]:
        if self.level == THREAD:
            return [self._owner]  # type: ignore[list-item]
        return list(self._owner._threads)  # type: ignore[union-attr]

    def _changed(self) -> None:
        for thread in self._threads():
            thread._tools_changed()


# -- resolution -----------------------------------------------------------------------------


def refresh() -> None:
    """Call the bridge's `_before_snapshot` hook (once, even if it causes a nested snapshot)."""
    global _refreshing
    hook = _before_snapshot
    if hook is None or _refreshing:
        return
    _refreshing = True
    try:
        hook()
    except Exception:  # a broken hook must not stop requests; the snapshot is just less fresh
        logger.exception("pyclient: the _before_snapshot hook raised")
    finally:
        _refreshing = False


def _candidates(thread: Thread) -> Iterator[Registration]:
    """The mounted registrations for `thread`, least specific level first, oldest first within one."""
    agent = thread.agent
    yield from agent._binding.values()
    for registration in list(agent._registrations):
        if registration._mounted and registration.applies(thread):
            yield registration
    for registration in list(thread._registrations):
        if registration._mounted:
            yield registration


def snapshot(thread: Thread) -> list[ClientTool]:
    """The tools `thread` advertises now: one per name, its most specific, newest mounted registration.

    Binding tools come first, then agent-level, then thread-level ones; a name taken over by
    a more specific registration moves to that registration's place.
    """
    refresh()
    by_name: dict[str, ClientTool] = {}
    for registration in _candidates(thread):
        by_name.pop(registration.tool.name, None)
        by_name[registration.tool.name] = registration.tool
    return list(by_name.values())


def serving(thread: Thread, name: str) -> Registration | None:
    """The registration that serves a call of `name` in `thread` now, or None if none is mounted."""
    for registration in reversed(thread._registrations):
        if registration._mounted and registration.tool.name == name:
            return registration
    agent = thread.agent
    for registration in reversed(agent._registrations):
        if registration._mounted and registration.tool.name == name and registration.applies(thread):
            return registration
    return agent._binding.get(name)


# -- registering ----------------------------------------------------------------------------


def check_tool(tool: Any, api: str) -> None:
    """Raise `ConfigurationError` unless `tool` is a `ClientTool` (`api` names the caller)."""
    if not isinstance(tool, ClientTool):
        raise ConfigurationError(
            f"{api}() needs a ClientTool, got {type(tool).__name__} {tool!r:.60}. "
            "Decorate the function with @client_tool first."
        )


def register(
    owner: Agent | Thread,
    level: str,
    tool: ClientTool,
    *,
    replace: bool,
    mounted: bool,
    applies_to: Callable[[Thread], bool] | None = None,
    api: str,
) -> Registration:
    """Add a registration of `tool` to `owner` at `level` (see `register_tool` on Thread and Agent)."""
    check_tool(tool, api)
    if applies_to is not None and not callable(applies_to):
        raise ConfigurationError(
            f"applies_to for tool {tool.name!r} must be a function thread -> bool, got "
            f"{type(applies_to).__name__}. Pass e.g. applies_to=lambda thread: thread.thread_id == 't1', "
            "or None for every thread of the agent."
        )
    if not replace:
        for other in owner._registrations:
            if other.tool.name == tool.name:
                where = f"thread {owner.thread_id!r}" if level == THREAD else f"agent {owner.name!r}"  # type: ignore[union-attr]
                raise ConfigurationError(
                    f"Tool {tool.name!r} is already registered at {level} level on {where} "
                    f"({other!r}): two registrations of one name at one level cannot both serve "
                    f"it. Pass replace=True to {api}() to let the new one take over, or "
                    "dispose() the first registration before registering again."
                )
    registration = Registration(tool, level, owner, mounted=bool(mounted), applies_to=applies_to)
    owner._registrations.append(registration)
    logger.debug("pyclient: registered %r", registration)
    registration._changed()
    return registration


def use_client_tool(tool: ClientTool, element: Any, *, replace: bool = False) -> Any:
    """Register `tool` on the thread whose element encloses `element`, whichever agent drives it.

    Agent-agnostic and component-scoped: the tool is advertised in that thread while
    `element` is connected. Needs the browser bridge (the page); on CPython use
    `thread.register_tool(tool)`.

    Args:
        tool: a `ClientTool`.
        element: a DOM element (or selector) inside a thread element.
        replace: take over a registration of the same name on that thread instead of raising.

    Returns:
        The bridge's registration handle (`tool`, `mounted`, `dispose()`); dispose it when the
        component goes away for good.

    Raises:
        ConfigurationError: `tool` is not a `ClientTool`, the bridge is not loaded (CPython),
            or the name is already registered on that thread and `replace` is False.
    """
    check_tool(tool, "use_client_tool")
    if _use_tool is None:
        raise ConfigurationError(
            f"use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
            "which needs the page (the pyclient.browser bridge). On CPython the equivalent is "
            "thread.register_tool(tool) (or agent.register_tool(tool) for every thread)."
        )
    return _use_tool(tool, element, replace=replace)


def use_agent_tool(agent: Agent, tool: ClientTool, element: Any, *, replace: bool = False) -> Any:
    """`agent.use_client_tool()`: delegate to the bridge, or explain what to use on CPython."""
    check_tool(tool, "agent.use_client_tool")
    if _use_agent_tool is None:
        raise ConfigurationError(
            f"agent.use_client_tool({tool.name!r}, {element!r:.60}) scopes a tool to a DOM element, "
            "which needs the page (the pyclient.browser bridge). On CPython the equivalents are "
            "agent.register_tool(tool, applies_to=...) and thread.register_tool(tool)."
        )
    return _use_agent_tool(agent, tool, element, replace=replace)
