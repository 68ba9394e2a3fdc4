"""Tool registrations: which registration serves a tool name in a thread, and so what each request advertises.

A thread sees tools at three levels, from least to most specific: `"binding"`
(`Agent(client_tools=...)`), `"agent"` and `"thread"` (docs/registration.md, "Which
registration wins"). A name is served by its most specific mounted registration, the newest
within a level: `ThreadScope.resolve()` is that rule, the only copy of it, read by
`thread.available_tools()` and by the dispatch of a run's calls. Two live registrations of one
name at one level of one owner are a `ConfigurationError` unless the second passes
`replace=True`. Registering, `set_mounted()` and `dispose()` are synchronous, and one that
unmounts sends the calls it served back to `"unavailable"`. The scopes never see elements: the
platform (`pyclient._binding._elements`) works out which element encloses what.

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
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, Union

from .._base._errors import CLOSED_HINT, ConfigurationError, LocalProtocolError
from .._tools._client_tool import ClientTool

__all__ = ["AgentScope", "Level", "Registration", "ThreadScope", "check_agent_agnostic", "check_tool"]

logger = logging.getLogger("pyclient")

Level = Literal["binding", "agent", "thread"]

_sequence = itertools.count(1)

Scope = Union["AgentScope", "ThreadScope"]
ChangeCallback = Callable[["Registration", "str | None"], None]
Applies = Callable[["ThreadScope"], bool]
"""`applies(thread_scope) -> bool`: an agent-level registration's choice of threads."""
"""`callback(registration, lost)`: `lost` is "unmounted" or "disposed" when it stopped serving."""


class Registration:
    """One registration of a client tool; returned by `register_tool()` and `use_client_tool()`.

    Attributes:
        tool: the `ClientTool` it registers.
        level: `"binding"`, `"agent"` or `"thread"` (see the table in `pyclient._binding._scopes`).
    """

    __slots__ = ("__weakref__", "_applies_to", "_disposed", "_mounted", "_number", "_on_dispose", "_scope", "level",
                 "tool")

    def __init__(
        self,
        tool: ClientTool,
        level: Level,
        scope: Scope,
        *,
        mounted: bool = True,
        applies_to: Applies | None = None,
    ) -> None:
        self.tool = tool
        self.level = level
        self._scope = scope
        self._applies_to = applies_to
        self._mounted = mounted
        self._disposed = False
        self._on_dispose: list[Callable[[], None]] = []
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
        """Mount or unmount the registration (the platform calls it when its element connects or leaves).

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
        self._scope.changed(self, None if mounted else "unmounted")

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
        if self in self._scope.registrations:
            self._scope.registrations.remove(self)
        logger.debug("pyclient: %r", self)
        callbacks, self._on_dispose = self._on_dispose, []
        for callback in callbacks:
            callback()
        self._scope.changed(self, "disposed")

    def on_dispose(self, callback: Callable[[], None]) -> None:
        """Call `callback()` once when the registration is disposed (at once if it already is).

        The platform releases what it keeps for the registration (its element's watch) here,
        whoever disposes it: the handle, `thread.close()`, or code holding the registration.
        """
        if self._disposed:
            callback()
        else:
            self._on_dispose.append(callback)

    def applies(self, thread: ThreadScope) -> bool:
        """True if the registration is meant for the thread whose scope is `thread` (mounted or not).

        Scopes are compared as owner tokens: a thread-level registration belongs to one thread
        scope, an agent-level one to the threads of one agent scope that `applies_to` selects.
        An `applies_to` predicate that raises counts as False (and is logged): one broken
        predicate must not break every request.
        """
        scope = self._scope
        if isinstance(scope, ThreadScope):
            return scope is thread
        if thread.agent_scope is not scope:
            return False
        if self._applies_to is None:
            return True
        try:
            return bool(self._applies_to(thread))
        except Exception:
            logger.exception("pyclient: applies_to of %r raised for %r", self, thread.owner)
            return False

    def _check_not_binding(self, what: str) -> None:
        if self.level == "binding":
            raise LocalProtocolError(
                f"Cannot {what}() the binding tool {self.tool.name!r}: tools passed as "
                "Agent(client_tools=...) are fixed for the agent's lifetime. Register the tool "
                "with agent.register_tool() or thread.register_tool() to control it."
            )


def check_tool(tool: object, api: str) -> ClientTool:
    """`tool` if it is a `ClientTool`; else a `ConfigurationError` naming the caller (`api`)."""
    if not isinstance(tool, ClientTool):
        raise ConfigurationError(
            f"{api}() needs a ClientTool, got {type(tool).__name__} {tool!r:.60}. "
            "Decorate the function with @client_tool first."
        )
    return tool


def check_agent_agnostic(tool: ClientTool, api: str) -> None:
    """A `ConfigurationError` if `tool` is server-declared: `api` registers for whichever agent drives a thread."""
    if tool.server_declared:
        raise ConfigurationError(
            f"{api}() cannot register the server-declared tool {tool.name!r}: a server-declared tool "
            "belongs to one agent's contract (that agent declares it, the page only serves it), and "
            f"{api}() serves whichever agent drives the thread. Register it with that agent: "
            "Agent(..., client_tools=[tool]) or agent.use_client_tool(tool, element); or drop "
            "server_declared=True to advertise the tool with every request."
        )


def _register(
    scope: Scope,
    level: Level,
    tool: ClientTool,
    *,
    replace: bool,
    mounted: bool,
    applies_to: Applies | None,
    where: str,
    api: str,
) -> Registration:
    check_tool(tool, api)
    if scope.closed:
        raise LocalProtocolError(
            f"Cannot register a tool in {where}: {CLOSED_HINT}"
        )
    if not replace:
        for other in scope.registrations:
            if other.tool.name == tool.name:
                raise ConfigurationError(
                    f"Tool {tool.name!r} is already registered at {level} level on {where} "
                    f"({other!r}): two registrations of one name at one level cannot both serve "
                    f"it. Pass replace=True to {api}() to let the new one take over, or "
                    "dispose() the first registration before registering again."
                )
    registration = Registration(tool, level, scope, mounted=bool(mounted), applies_to=applies_to)
    scope.registrations.append(registration)
    logger.debug("pyclient: registered %r", registration)
    scope.changed(registration, None)
    return registration


class AgentScope:
    """An agent's registrations (binding and agent-level) and the thread scopes they apply to.

    Args:
        name: the agent's name (error messages).
        tools: the binding tools.
        refresh: called before every resolution (the platform re-checks connections).

    Attributes:
        name: as given.
        binding: binding registrations by name.
        registrations: agent-level registrations, oldest first.
        threads: the scopes of the agent's threads (weak: a thread nobody holds goes away).
    """

    closed = False  # an agent scope never closes; its threads' scopes do

    def __init__(self, name: str, tools: Iterable[ClientTool], refresh: Callable[[], None]) -> None:
        self.name = name
        self.binding = {tool.name: Registration(tool, "binding", self) for tool in tools}
        self.registrations: list[Registration] = []
        self.threads: weakref.WeakSet[ThreadScope] = weakref.WeakSet()
        self._refresh = refresh
        self._refreshing = False

    def register(
        self, tool: ClientTool, *, applies_to: Applies | None, replace: bool, mounted: bool
    ) -> Registration:
        """An agent-level registration; see `Agent.register_tool`."""
        return _register(self, "agent", tool, replace=replace, mounted=mounted, applies_to=applies_to,
                         where=f"agent {self.name!r}", api="agent.register_tool")

    def refresh(self) -> None:
        """Let the platform report connection changes now (once, even if that resolves again)."""
        if self._refreshing:
            return
        self._refreshing = True
        try:
            self._refresh()
        except Exception:  # a broken platform hook must not stop requests; the snapshot is less fresh
            logger.exception("pyclient: the platform's refresh raised")
        finally:
            self._refreshing = False

    def changed(self, registration: Registration, lost: str | None) -> None:
        """Tell every thread of the agent (a registration of this scope changed)."""
        for thread_scope in list(self.threads):
            thread_scope.changed(registration, lost)


class ThreadScope:
    """A thread's own registrations, and the one rule that resolves its tools.

    Args:
        agent_scope: the scope of the thread's agent.
        thread_id: the thread's id (error messages, the element's mark).
        owner: the thread itself, as the token `applies_to` predicates are given; the scope
            never calls it.
        on_change: called when a registration that may apply to the thread changed.
        on_connection: called with True or False when the thread's element connects or leaves.

    Attributes:
        registrations: thread-level registrations, oldest first.
        element: the element the thread is mounted on (set by the element binding), or None.
        closed: True once `close()` ran: nothing registers here again.
    """

    def __init__(
        self,
        agent_scope: AgentScope,
        thread_id: str,
        owner: object,
        on_change: ChangeCallback,
        on_connection: Callable[[bool], None],
    ) -> None:
        self.agent_scope = agent_scope
        self.thread_id = thread_id
        self.owner = owner
        self.registrations: list[Registration] = []
        self.element: Any = None
        self.closed = False
        self._on_change = on_change
        self._on_connection = on_connection
        agent_scope.threads.add(self)

    def connection_changed(self, connected: bool) -> None:
        """The platform saw the thread's element connect (True) or leave (False)."""
        self._on_connection(connected)

    def register(self, tool: ClientTool, *, replace: bool, mounted: bool) -> Registration:
        """A thread-level registration; see `Thread.register_tool`."""
        return _register(self, "thread", tool, replace=replace, mounted=mounted, applies_to=None,
                         where=f"thread {self.thread_id!r}", api="thread.register_tool")

    def _candidates(self) -> Iterator[Registration]:
        """Mounted registrations for the thread, least specific level first, oldest first within one."""
        yield from self.agent_scope.binding.values()
        for registration in list(self.agent_scope.registrations):
            if registration.mounted and registration.applies(self):
                yield registration
        for registration in list(self.registrations):
            if registration.mounted:
                yield registration

    def every_mounted_tool(self) -> list[ClientTool]:
        """The tools of every mounted registration for the thread, shadowed ones included,
        without refreshing connections (the thread builds their schemas before a run)."""
        return [registration.tool for registration in self._candidates()]

    def resolve(self) -> dict[str, Registration]:
        """The registration that serves each tool name in the thread now (rule 1).

        Refreshes connections first. Names are in advertising order: binding tools first,
        then agent-level, then thread-level ones; a name taken over by a more specific
        registration moves to that registration's place.
        """
        self.agent_scope.refresh()
        by_name: dict[str, Registration] = {}
        for registration in self._candidates():
            by_name.pop(registration.tool.name, None)
            by_name[registration.tool.name] = registration
        return by_name

    def advertised_tools(self) -> list[ClientTool]:
        """The tools the thread advertises now: `resolve()`'s tools, less the server-declared ones."""
        return [registration.tool for registration in self.resolve().values() if not registration.tool.server_declared]

    def serving_tools(self) -> list[ClientTool]:
        """Every tool the thread serves now, advertised or server-declared (`resolve()`'s tools)."""
        return [registration.tool for registration in self.resolve().values()]

    def changed(self, registration: Registration, lost: str | None) -> None:
        """A registration that may apply to the thread changed: tell the thread."""
        self._on_change(registration, lost)

    def close(self) -> None:
        """Dispose the thread's registrations and leave the agent's scope."""
        self.closed = True
        for registration in list(self.registrations):
            registration.dispose()
        self.agent_scope.threads.discard(self)
