"""What a renderer sees of a thread's tool calls: the `ToolPart` of a call, projected from the machine.

A `ToolPart` (`pyclient._conversation._parts`) is a snapshot of one call at one moment, for any call of
the history: a client tool's (the machine tracks its status and answer), a backend tool's
(its result is a tool message the server sent), or one a `MESSAGES_SNAPSHOT` brought. This
module reads the machine and builds it; `thread.tool_part(id)` and `thread.tool_parts()`
call it.

```python
from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage
from pyclient._conversation._machine import Conversation
from pyclient._driver._projection import tool_part

machine = Conversation("t1", messages=[
    AssistantMessage(id="a1", tool_calls=[ToolCall(id="c1", function=FunctionCall(
        name="search", arguments='{"q": "tea"}'))]),
    ToolMessage(id="t1", tool_call_id="c1", content='{"hits": 3}'),
])
part = tool_part(machine, "c1", action_for=lambda call: None)
print(part.tool_name, part.state, part.input, part.output)   # search output-available {'q': 'tea'} {'hits': 3}
```
"""

from __future__ import annotations

from collections.abc import Callable

from .._base._errors import LocalProtocolError
from .._conversation._action_handle import Action
from .._conversation._interrupt_handle import Interrupt
from .._conversation._lifecycle import WAITING_FOR_USER, CallStatusName
from .._conversation._machine import Conversation
from .._conversation._parts import ToolPart, decode_output, part_state
from .._conversation._records import Call, InterruptRecord
from .._tools._content import split_parts
from .._tools._results import ToolResult

__all__ = ["tool_part", "tool_parts"]


# A server tool's call that an interrupt names: the status its part shows, by the interrupt's.
_HELD_STATUS: dict[str, CallStatusName] = {"open": "awaiting_approval", "resolved": "executing",
                                           "cancelled": "cancelled", "expired": "cancelled"}


def tool_part(machine: Conversation, tool_call_id: str, *, action_for: Callable[[Call], Action | None],
              interrupt_for: Callable[[InterruptRecord], Interrupt | None] = lambda record: None) -> ToolPart:
    """The `ToolPart` of a call of the history now.

    Args:
        machine: the thread's conversation machine.
        tool_call_id: the call.
        action_for: the call's `Action` (what the part carries while the call waits for the user).
        interrupt_for: the `Interrupt` of an interrupt that names the call.

    Raises:
        LocalProtocolError: no tool call of the history has this id.
    """
    arguments = machine.arguments(tool_call_id)
    if arguments is None:
        raise LocalProtocolError(
            f"No tool call of thread {machine.thread_id!r} has id {tool_call_id!r}. "
            "Use an id from an assistant message's `tool_calls`."
        )
    call = machine.calls.get(tool_call_id)
    result = call.result if call is not None else None
    if result is None:
        message = machine.tool_result(tool_call_id)
        if message is not None:
            content, media = split_parts(message.content)
            result = ToolResult(content=content, error=getattr(message, "error", None), media=media)
    if call is not None:
        name: str = call.name
    else:
        tool_call = machine.tool_call(tool_call_id)
        assert tool_call is not None  # it has arguments, so the history holds it
        name = tool_call.function.name
    status: CallStatusName | None = call.status.value if call is not None else None
    waiting = call is not None and call.tool is not None and call.status in WAITING_FOR_USER
    record = machine.interrupts.for_call(tool_call_id)
    if record is not None and result is None:
        status = _HELD_STATUS[record.status.value]
    return ToolPart(
        tool_call_id=tool_call_id,
        tool_name=name,
        state=part_state(status, result is not None, result is not None and result.error is not None),
        arguments=arguments,
        output=decode_output(result.content) if result is not None and result.error is None else None,
        error_text=result.error if result is not None else None,
        cancelled=status == "cancelled",
        run_status=machine.run_status,
        action=action_for(call) if waiting and call is not None else None,
        status=status,
        tool=call.tool if call is not None else None,
        edited=call is not None and call.edited is not None,
        interrupt=interrupt_for(record) if record is not None else None,
        media=result.media if result is not None else (),
    )


def tool_parts(machine: Conversation, *, action_for: Callable[[Call], Action | None],
               interrupt_for: Callable[[InterruptRecord], Interrupt | None] = lambda record: None) -> list[ToolPart]:
    """Every tool call of the history as a `ToolPart`, in the order the model made them."""
    return [tool_part(machine, tool_call.id, action_for=action_for, interrupt_for=interrupt_for)
            for message in machine.messages()
            for tool_call in getattr(message, "tool_calls", None) or ()]
