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
from typing import Any

from .._base._abort import AbortController, AbortSignal
from ._content import split_parts
from ._media import Media

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """The call a handler is running for.

    Attributes:
        signal: aborts when the call must stop (unmount, resolution, stop, timeout).
        tool_call_id: the AG-UI `toolCallId` of this call.
        thread_id: the thread the call belongs to.
        messages: the thread's history when the call started (`ag_ui.core` messages).
    """

    signal: AbortSignal = field(default_factory=lambda: AbortController().signal)
    tool_call_id: str = ""
    thread_id: str = ""
    messages: tuple[Any, ...] = ()

    @property
    def files(self) -> tuple[Media, ...]:
        """The files the person sent in this thread so far (the user messages' attachments), oldest first."""
        found: list[Media] = []
        for message in self.messages:
            if getattr(message, "role", None) == "user":
                found.extend(split_parts(getattr(message, "content", None))[1])
        return tuple(found)
