"""The part of `Thread` about the tools that serve its calls and the renderers that show them.

`ThreadTools` is a mixin of `Thread` (`pyclient._api._thread`): `thread.register_tool(tool)`,
`thread.available_tools()`, `thread.registered_tools()`, `thread.renderer(tool_name)` and
`thread.renderer_for_interrupt(reason)` read the thread's registrations (its `scope`,
`pyclient._binding._scopes`) and its agent's renderers, both public attributes of the thread.
```python
from pyclient import Agent, client_tool

@client_tool
def note(text: str) -> str:
    \"\"\"Save a note.\"\"\"
    return text

thread = Agent("main", "http://agent.test/agent").thread()
thread.register_tool(note)
print([tool.name for tool in thread.available_tools()], thread.renderer("note"))   # ['note'] None
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._binding._scopes import Registration, ThreadScope
from .._conversation._interrupt_handle import Interrupt
from .._conversation._parts import ToolPart
from .._driver._host import Host
from .._tools._client_tool import ClientTool

__all__ = ["ThreadTools"]


class ThreadTools:
    """A thread's tools and renderers (a mixin of `Thread`, which sets both attributes).

    Attributes:
        agent: the thread's agent, with its renderers.
        scope: the thread's registrations.
    """

    agent: Host
    scope: ThreadScope

    def renderer_for_interrupt(self, reason: str) -> Callable[[Interrupt], Any] | None:
        """Look up the renderer of interrupts with this `reason` (or `"*"`), or None (the chat's own form).

        A look-up in the agent's table: `agent.interrupt_renderer(reason)` is what sets one.
        """
        return self.agent.renderer_for_interrupt(reason)

    def interrupt_renderer(self, reason: str) -> Callable[[Interrupt], Any] | None:
        """The look-up `renderer_for_interrupt(reason)` under its older name; it registers nothing
        (unlike `agent.interrupt_renderer(reason)`, the decorator that sets one)."""
        return self.renderer_for_interrupt(reason)

    def renderer(self, tool_name: str) -> Callable[[ToolPart], Any] | None:
        """The renderer of a tool's calls in this thread, or None (the UI's default card).

        The serving tool's own `client_tool(render=...)` first, then the agent's
        `agent.tool_renderer(tool_name)`, then its catch-all `agent.tool_renderer("*")`.
        """
        registration = self.scope.resolve().get(tool_name)
        if registration is not None and registration.tool.render is not None:
            return registration.tool.render
        return self.agent.renderer(tool_name)

    def available_tools(self) -> list[ClientTool]:
        """The tools the next request will advertise (its snapshot), as a new list.

        One tool per name: the most specific mounted registration wins (thread-level over
        agent-level over the agent's binding tools), the newest within a level; binding tools
        come first, then agent-level, then thread-level ones. Element connections are
        re-checked first. Server-declared tools are left out (`registered_tools()` has them).
        """
        return self.scope.advertised_tools()

    def registered_tools(self) -> list[ClientTool]:
        """Every tool this thread can serve now, advertised or server-declared (never advertised,
        but a call to it from this thread's agent runs its handler); same rule and order as
        `available_tools()`, as a new list."""
        return self.scope.serving_tools()

    def register_tool(self, tool: ClientTool, *, replace: bool = False, mounted: bool = True) -> Registration:
        """Register `tool` on this thread; it is in the very next request's tools while mounted.

        A thread-level registration is the most specific: it wins over an agent-level one and
        a binding tool of the same name. Calls of that tool waiting as `"unavailable"` run
        with it at once.

        Args:
            tool: a `ClientTool` (decorate the function with `@client_tool`).
            replace: take over from a live registration of the same name on this thread (it
                serves again once this one is unmounted or disposed) instead of raising.
            mounted: False registers it unmounted; `registration.set_mounted(True)` mounts it.

        Returns:
            The `Registration`: `set_mounted(bool)`, `dispose()`.

        Raises:
            ConfigurationError: `tool` is not a `ClientTool`, or a live registration of the
                same name exists on this thread and `replace` is False.
            LocalProtocolError: the thread is closed.
        """
        return self.scope.register(tool, replace=replace, mounted=mounted)
