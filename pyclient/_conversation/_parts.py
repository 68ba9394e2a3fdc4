"""`ToolPart`: what a renderer sees of one tool call, at one moment.

A renderer (`agent.tool_renderer(name)` or `client_tool(render=...)`) is called with a
`ToolPart` each time the call changes, and returns what to show. The part's `state` follows
the states of the AI SDK's tool parts (`"input-streaming"`, `"input-available"`,
`"output-available"`, `"output-error"`: docs/renderers.md has the table). While the model
still writes the arguments, `input` is what the incomplete JSON holds so far, read with
pydantic_core's partial parsing (`from_json(..., allow_partial="trailing-strings")`:
`{"title": "Wat` is `{"title": "Wat"}`); once complete, it is validated, defaults applied.

```python
from pyclient import ToolPart

part = ToolPart(tool_call_id="c1", tool_name="create_task", state="input-streaming",
                arguments='{"title": "Water the pl', output=None, error_text=None,
                cancelled=False, run_status="running", action=None, status="streaming", tool=None)
print(part.input)            # {'title': 'Water the pl'}
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic_core import from_json

from .._base._errors import ToolError
from .._base._json import JSONLimitError, loads, too_deep
from ._lifecycle import CallStatusName, RunStatus

if TYPE_CHECKING:
    from .._tools._client_tool import ClientTool
    from .._tools._media import Media
    from ._action_handle import Action
    from ._interrupt_handle import Interrupt

__all__ = ["ToolPart", "ToolPartState", "parse_partial"]

ToolPartState = Literal["input-streaming", "input-available", "output-available", "output-error"]
"""`part.state`: where a tool call is, as a renderer sees it (the table above)."""

@dataclass(frozen=True, eq=False)
class ToolPart:
    """One tool call as a renderer sees it; build it with `thread.tool_part(tool_call_id)`.

    Attributes:
        tool_call_id: the AG-UI `toolCallId`.
        tool_name: the tool the model called.
        state: `"input-streaming"`, `"input-available"`, `"output-available"` or
            `"output-error"` (see the module docstring).
        arguments: the argument JSON text as received so far (the approved edit, once edited).
        output: the result: a JSON object or array decoded (a dict, a list), anything else
            as the text the tool message carries; None before the result.
        error_text: why the call failed (state `"output-error"`), else None.
        cancelled: the call was abandoned (cancelled, or its run stopped) before it answered.
        run_status: the thread's run status now.
        action: the call's `Action` while it waits for the person at the page (approval,
            input, a tool to mount, a retry after a reload); None otherwise. A render-only
            tool's renderer answers with `action.submit(output)` or `action.fail(message)`.
        status: the call's status in the conversation machine (`"executing"`, ...), or None
            for a call the machine does not track (one a snapshot brought).
        tool: the client tool that serves the call, or None (a backend tool).
        edited: the user edited the arguments when approving (`arguments` holds the edit).
        interrupt: the AG-UI `Interrupt` that names this call (a server tool's approval:
            `interrupt.resolve({"approved": True})`), or None. While it is open the part's
            `status` is `"awaiting_approval"`; once answered, `"executing"` until the server's
            result comes; `"cancelled"` when it was cancelled or expired.
        media: the files in the result (`Image`, `Document`, …), beside the text in `output`.
    """

    tool_call_id: str
    tool_name: str
    state: ToolPartState
    arguments: str
    output: Any
    error_text: str | None
    cancelled: bool
    run_status: RunStatus
    action: Action | None
    status: CallStatusName | None
    tool: ClientTool | None
    edited: bool = field(default=False)
    interrupt: Interrupt | None = field(default=None)
    media: tuple[Media, ...] = field(default=())

    @cached_property
    def input(self) -> dict[str, Any]:
        """The arguments as a dict: partial while streaming, validated with defaults after."""
        if self.state == "input-streaming":
            return parse_partial(self.arguments)
        if self.tool is not None:
            try:
                return self.tool.validate_arguments(self.arguments)
            except ToolError:
                pass  # shown as the model wrote them; the call fails with the reason
        try:
            data = loads(self.arguments) if self.arguments.strip() else {}
        except (ValueError, JSONLimitError):
            return parse_partial(self.arguments)
        return data if isinstance(data, dict) else {}

    @property
    def key(self) -> tuple[Any, ...]:
        """What a renderer's output depends on: a UI re-renders the part when this changes.

        The run status alone does not count (every card would re-render at each run).
        """
        return (self.state, self.status, len(self.arguments), self.error_text, self.cancelled,
                self.output if isinstance(self.output, str) else json.dumps(self.output, sort_keys=True, default=str),
                self.action is not None, self.interrupt.status if self.interrupt is not None else None,
                len(self.media))


def parse_partial(arguments: str) -> dict[str, Any]:
    """The object an incomplete JSON text holds so far (`{}` when it holds none yet).

    Uses pydantic_core's partial parsing: an unfinished string or number counts with what it
    has so far; an unfinished key or literal is left out until it is complete. Text nested
    deeper than `pyclient._base._json.MAX_DEPTH` holds nothing (`{}`), as `loads` would refuse it.
    """
    text = arguments.strip()
    if not text or too_deep(text):  # what `loads` would refuse once complete shows nothing meanwhile
        return {}
    try:
        data = from_json(text, allow_partial="trailing-strings")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def part_state(status: CallStatusName | None, answered: bool, failed: bool) -> ToolPartState:
    """The part state of a call from its machine status and whether its result is in."""
    if failed:
        return "output-error"
    if answered:
        return "output-available"
    if status == "streaming":
        return "input-streaming"
    return "input-available"


def decode_output(content: str) -> Any:
    """A result's content as the renderer gets it: a JSON object or array decoded, anything else as text."""
    if not content.startswith(("{", "[")):
        return content
    try:
        return loads(content)
    except (ValueError, JSONLimitError):
        return content
