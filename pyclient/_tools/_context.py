"""`ToolContext`: what a handler can ask for besides its arguments.

A handler parameter annotated `ToolContext` is filled in at call time and never appears in
the tool's JSON Schema.

```python
from pyclient import ToolContext, client_tool

@client_tool
async def slow_fetch(url: str, ctx: ToolContext) -> str:
    \"\"\"Fetch a URL, giving up when the call is aborted.\"\"\"
    ...  # pass ctx.signal.js to fetch(); check ctx.signal.aborted in loops
```
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._base._abort import AbortController, AbortSignal

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """The call a handler is running for.

    Attributes:
        signal: aborts when the call must stop (unmount, resolution, stop, timeout).
        tool_call_id: the AG-UI `toolCallId` of this call.
        thread_id: the thread the call belongs to.
    """

    signal: AbortSignal = field(default_factory=lambda: AbortController().signal)
    tool_call_id: str = ""
    thread_id: str = ""
