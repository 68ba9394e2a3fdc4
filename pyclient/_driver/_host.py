"""`Host`: what a thread takes from its agent (`pyclient.Agent` is one).

The endpoint its requests go to (`pyclient._driver._loop.Endpoint`: URL, headers, transport,
limits), the agent's name, platform and registrations (`AgentScope`), and the renderers a
thread falls back on for tool calls, interrupts, activities and the shared state. A test or a
tool can hand a thread any object with these members.

```python
from pyclient import Agent
from pyclient._driver._host import Host

agent: Host = Agent("main", "http://127.0.0.1:8000/agent")
assert agent.name == "main" and agent.renderer("any_tool") is None
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .._binding._platform import Platform
from .._binding._scopes import AgentScope
from .._conversation._interrupt_handle import Interrupt
from .._conversation._parts import ToolPart
from ._loop import Endpoint

__all__ = ["Host"]


class Host(Endpoint, Protocol):
    """What a thread takes from its agent (`pyclient.Agent` is one): the endpoint, the agent's
    name, platform and registrations, and its renderers."""

    @property
    def name(self) -> str: ...
    @property
    def platform(self) -> Platform: ...
    @property
    def scope(self) -> AgentScope: ...
    def renderer(self, tool_name: str) -> Callable[[ToolPart], Any] | None: ...
    def renderer_for_interrupt(self, reason: str) -> Callable[[Interrupt], Any] | None: ...
    def renderer_for_activity(self, activity_type: str) -> Callable[[Any], Any] | None: ...
    def renderer_for_state(self) -> Callable[[Any], Any] | None: ...
