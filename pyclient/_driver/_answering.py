"""Answering a thread's tool calls and interrupts: the one way in, behind every `Action`'s and `Interrupt`'s methods.

`ThreadAnswers` turns what the page or the user says about a call (approve, with edited
arguments or not; reject; submit an output; fail; cancel; retry) into the machine's inputs
(`pyclient._conversation._call_table.Calls`), aborts the call's running handler with the reason, and tells the
driver something changed (it publishes and wakes the loop that waits for answers). It also
hands out the `Action` of each call: one per call, a fresh one when a later run uses an id
again. A handler's own result comes in here too (`handler_returned`). An interrupt's answer
(`resolve`, `cancel_interrupt`) goes to the machine's interrupts with the time now (the
machine reads no clock), and hands out one `Interrupt` per interrupt.

```python
import asyncio
from pyclient import Agent, client_tool

@client_tool(requires_approval=True)
def delete_all(confirm: bool = False) -> str:
    \"\"\"Delete everything.\"\"\"
    return "deleted" if confirm else "kept"

def on_event(event):
    if event.kind == "action" and event.payload.status == "awaiting_approval":
        event.payload.approve({"confirm": False})    # the user edited the arguments

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent", client_tools=[delete_all]).thread()
    thread.subscribe(on_event)
    await thread.send("delete everything")

asyncio.run(main())
```
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from .._base._abort import AbortSignal
from .._base._errors import LocalProtocolError, ToolError
from .._base._json import JSONLimitError, loads
from .._conversation._action_handle import Action
from .._conversation._interrupt_handle import Interrupt
from .._conversation._machine import Conversation
from .._conversation._parts import ToolPart
from .._conversation._records import Call, InterruptRecord
from .._tools._results import ToolResult
from ._executions import Executions
from ._projection import tool_part, tool_parts

__all__ = ["ThreadAnswers"]

logger = logging.getLogger("pyclient")


class ThreadAnswers:
    """The answering of one thread's calls (`pyclient._conversation._action_handle.Answers`); see the module docstring.

    Args:
        machine: the thread's conversation machine.
        executions: the thread's handler tasks (aborted when a call gets its answer).
        convert: turns JS values from the page into Python data (the platform's `to_python`).
        changed: called after every answer: the driver publishes and wakes its loop.
        serve: called after a retry: the driver serves the call with its registration.
        max_result_chars: the longest text a result may have (`Agent(max_result_chars=...)`);
            a longer one is cut, with a note the model reads, and a warning in the log.
    """

    def __init__(
        self,
        machine: Conversation,
        executions: Executions,
        convert: Callable[[Any], Any],
        changed: Callable[[], None],
        serve: Callable[[], None],
        max_result_chars: int | None = None,
    ) -> None:
        self._machine = machine
        self._max_result_chars = max_result_chars
        self._executions = executions
        self._convert = convert
        self._changed = changed
        self._serve = serve
        self._actions: dict[str, tuple[Call, Action]] = {}  # by id; a later run may use an id again
        self._interrupts: dict[str, tuple[InterruptRecord, Interrupt]] = {}

    # -- the actions -----------------------------------------------------------------------

    def action_for(self, call: Call) -> Action:
        """The `Action` of `call` (the same object while the call lives)."""
        known = self._actions.get(call.id)
        if known is not None and known[0] is call:
            return known[1]
        if known is not None:  # the id's earlier call is answered; its signal and task are not this one's
            self._executions.forget(call.id)
        tool_call = self._machine.tool_call(call.id)
        assert tool_call is not None
        action = Action(call, tool_call, self)
        self._actions[call.id] = (call, action)
        return action

    def forget_settled(self) -> None:
        """Let go of the actions (and abort signals) of calls whose answer went out (a request
        carried it): nothing changes them again, and a long thread would keep one per call. `action()` makes a new
        one if asked; the thread calls this after each request, so it looks at the calls of
        one round trip."""
        for call_id, (call, _) in list(self._actions.items()):
            if call.done and call.sent:
                del self._actions[call_id]
                # Its signal too (aborted when it got its answer): a later run may use the id
                # again, and that call must start with a fresh one.
                self._executions.forget(call_id)

    def action(self, call_id: str) -> Action:
        """The `Action` of a client tool call of this thread, pending or answered.

        Raises:
            LocalProtocolError: no client tool call of a finished run has this id.
        """
        call = self._machine.calls.get(call_id)
        if call is None or call.tool is None:
            pending = ", ".join(repr(c.id) for c in self._machine.pending() if c.tool is not None) or "none"
            raise LocalProtocolError(
                f"No tool call of thread {self._machine.thread_id!r} has id {call_id!r} (pending: "
                f"{pending}). Use an id from `thread.pending_actions`."
            )
        return self.action_for(call)

    def interrupt_for(self, record: InterruptRecord) -> Interrupt:
        """The `Interrupt` of `record` (the same object while the record lives)."""
        known = self._interrupts.get(record.id)
        if known is not None and known[0] is record:
            return known[1]
        interrupt = Interrupt(record, self)
        self._interrupts[record.id] = (record, interrupt)
        return interrupt

    # -- the views the thread hands out ----------------------------------------------------

    def pending_actions(self) -> list[Action]:
        """The `Action`s of the calls waiting for their answer, in call order."""
        return [self.action_for(call) for call in self._machine.pending()]

    def open_interrupts(self) -> list[Interrupt]:
        """The `Interrupt`s still waiting for their answer, oldest first."""
        return [self.interrupt_for(record) for record in self._machine.interrupts.open()]

    def all_interrupts(self) -> list[Interrupt]:
        """Every `Interrupt` of the thread, open or answered, oldest first."""
        return [self.interrupt_for(record) for record in self._machine.interrupts.values()]

    def interrupt(self, interrupt_id: str) -> Interrupt:
        """The `Interrupt` with this id (`LocalProtocolError` when there is none)."""
        return self.interrupt_for(self._machine.interrupts.get_interrupt(interrupt_id))

    def tool_part(self, call_id: str) -> ToolPart:
        """What a renderer sees of this call now (`LocalProtocolError` when there is none)."""
        return tool_part(self._machine, call_id, action_for=self.action_for, interrupt_for=self.interrupt_for)

    def tool_parts(self) -> list[ToolPart]:
        """Every tool call of the history as a `ToolPart`, in the order the model made them."""
        return tool_parts(self._machine, action_for=self.action_for, interrupt_for=self.interrupt_for)

    def signal(self, call_id: str) -> AbortSignal:
        """The signal of the call's current execution."""
        return self._executions.signal(call_id)

    # -- answers (`pyclient._conversation._action_handle.Answers`) ------------------------------------------------

    def approve(self, call_id: str, arguments: Mapping[str, Any] | None = None) -> None:
        """See `Action.approve`."""
        edited = None
        if arguments is not None:
            action = self.action(call_id)
            if action.status != "awaiting_approval":
                self._machine.calls.approve(call_id)  # raises, naming the status
            edited = self._edited(action, arguments)
        self._machine.calls.approve(call_id, edited)
        self._changed()

    def _edited(self, action: Action, arguments: Mapping[str, Any]) -> str | None:
        """The user's arguments as JSON text once validated; None when they are the model's."""
        tool = action.tool
        assert tool is not None  # an Action exists only for a call with a tool
        given = self._convert(arguments)
        if not isinstance(given, Mapping):
            raise ToolError(
                f"The edited arguments of {tool.name!r} must be an object of its parameters, got "
                f"{type(given).__name__}. Pass a dict such as {{'name': value}}."
            )
        tool.validate_arguments(given)  # raises ToolError for the page, naming each field
        try:
            edited = json.dumps(dict(given), ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise ToolError(f"The edited arguments of {tool.name!r} are not JSON data ({exc}).") from None
        try:
            original = loads(action.arguments) if action.arguments.strip() else {}
        except (ValueError, JSONLimitError):
            original = None
        return None if original == json.loads(edited) else edited  # unchanged: approved as the model made it

    def reject(self, call_id: str, reason: str | None = None) -> None:
        """See `Action.reject`."""
        message = f"rejected by the user: {reason}" if reason else "rejected by the user"
        self._answer(call_id, ToolResult.failure(message), "failed")

    def submit(self, call_id: str, output: Any) -> None:
        """See `Action.submit`."""
        action = self.action(call_id)
        tool = action.tool
        assert tool is not None  # an Action exists only for a call with a tool
        if action.done:  # said before the output is checked: no output can help now
            raise LocalProtocolError(
                f"Cannot submit an output for tool call {call_id!r} ({action.name}) in status "
                f"{action.status!r}: it already has its answer."
            )
        self._answer(call_id, tool.submitted_result(self._convert(output)), "submitted")

    def fail(self, call_id: str, message: str) -> None:
        """See `Action.fail`."""
        self._answer(call_id, ToolResult.failure(str(message)), "failed")

    def retry(self, call_id: str) -> None:
        """See `Action.retry`."""
        self._machine.calls.retry(call_id)
        self._serve()
        self._changed()

    def cancel(self, call_id: str, reason: str | None = None) -> None:
        """See `Action.cancel`."""
        if self._machine.calls.cancel(call_id, reason) is not None:
            self._executions.abort(call_id, "cancelled")
            self._changed()

    # -- interrupts (`pyclient._conversation._interrupt_handle.InterruptAnswers`) -------------------------------------

    def resolve(self, interrupt_id: str, payload: Any) -> None:
        """See `Interrupt.resolve`."""
        try:
            self._machine.interrupts.resolve(interrupt_id, self._convert(payload), now=datetime.now(timezone.utc))
        finally:
            self._changed()  # an expired one changed too

    def cancel_interrupt(self, interrupt_id: str, reason: str | None = None) -> None:
        """See `Interrupt.cancel`."""
        if self._machine.interrupts.cancel(interrupt_id, reason) is not None:
            self._changed()

    def handler_returned(self, call_id: str, execution: int, result: ToolResult) -> None:
        """A handler finished (`pyclient._driver._executions`): its result answers the call if still current."""
        if self._machine.calls.handler_returned(call_id, execution, self._within_limit(call_id, result)):
            self._executions.abort(call_id, "finished")
            self._changed()

    def _answer(self, call_id: str, result: ToolResult, why: str) -> None:
        self._machine.calls.answer(call_id, self._within_limit(call_id, result))
        self._executions.abort(call_id, why)
        self._changed()

    def _within_limit(self, call_id: str, result: ToolResult) -> ToolResult:
        """`result` cut to `max_result_chars`: it goes into every later request whole, and a
        50 MB result made a 52 MB follow-up. The page author is told; the model reads a note."""
        limit = self._max_result_chars
        if limit is None or len(result.content) <= limit:
            return result
        call = self._machine.calls.get(call_id)
        logger.warning(
            "pyclient: the result of tool %r for call %s is %s characters, over this agent's max_result_chars "
            "of %s: the model gets the first %s and a note that it was cut. Return less, or raise "
            "`Agent(max_result_chars=...)`.", call.name if call is not None else "?", call_id,
            f"{len(result.content):,}", f"{limit:,}", f"{limit:,}")
        return result.within(limit)
