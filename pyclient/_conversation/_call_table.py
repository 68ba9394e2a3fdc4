"""The tool calls of one thread: each call's status and its single answer, sans-I/O.

`Calls` is a read-only mapping of `toolCallId` to `Call` (a `pyclient._conversation._registry.Registry`)
that the conversation machine (`pyclient._conversation._machine.Conversation`) owns as
`conversation.calls`. Every status change is a
lookup in `pyclient._conversation._lifecycle.CALL_TRANSITIONS`; the inputs that answer or move a call
(`serve`, `approve`, `release`, `answer`, `retry`, `cancel`, `handler_returned`) are its
methods, and each raises `LocalProtocolError` naming the call and its status when the table
has no such move.

Exactly once: a call's answer is one tool message, appended to the history when the call
reaches a terminal status; a terminal status has no way out (`pyclient._conversation._lifecycle.TERMINAL`).

```python
from pyclient import client_tool
from pyclient._conversation._call_table import Calls
from pyclient._conversation._history import History
from pyclient._conversation._lifecycle import CallEvent
from pyclient._conversation._records import Change
from pyclient._tools._results import ToolResult

@client_tool
def save_note(text: str) -> str:
    \"\"\"Save a note.\"\"\"
    return "saved"

changes: list[Change] = []
calls = Calls("t1", History(), changes.append)
call = calls.started("c1", "save_note")
calls.move(call, CallEvent.PENDING)                      # the run finished: it waits for a tool
calls.serve("c1", save_note, registration=None)          # a registration serves it: it executes
calls.answer("c1", ToolResult.success("saved"))
print(call.status, [c.kind for c in changes][:2])        # completed ['action', 'action']
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._base._ids import new_id
from .._base._json import repair
from .._tools._client_tool import ClientTool
from .._tools._content import content_of
from .._tools._results import ToolResult
from ._history import History
from ._lifecycle import (
    RESTORE_CALL,
    RESTORE_IDEMPOTENT,
    CallEvent,
    CallStatus,
    next_call_status,
)
from ._records import Call, Change, RunRecord
from ._registry import Registry

if TYPE_CHECKING:
    from .._binding._scopes import Registration

__all__ = ["Calls"]

logger = logging.getLogger("pyclient")


class Calls(Registry[Call]):
    """Every call of one thread by id; the live ones (answer not sent yet) in call order.

    Args:
        thread_id: names the thread in error messages.
        history: where a call's answer is appended as its tool message.
        changed: receives a `Change` for every call that changes status (and for the history
            when an answer is appended).

    Attributes:
        to_start: the calls that entered `EXECUTING` since the machine last handed them out.
    """

    noun, waiting_word, hint = "tool call", "pending", "Use an id from `thread.pending_actions`."

    def __init__(self, thread_id: str, history: History, changed: Callable[[Change], None]) -> None:
        super().__init__(thread_id, changed)
        self._history = history
        # The calls whose answer has not gone out yet, in call order: what pending(), stop() and
        # the like look at, so they cost the open calls, not every call the thread ever made.
        self._live: dict[str, Call] = {}
        self.to_start: list[Call] = []

    def __repr__(self) -> str:
        return f"<Calls of {self.thread_id!r}: {len(self)}, {len(self._live)} live>"

    # -- reading -------------------------------------------------------------------------

    def live(self) -> list[Call]:
        """The calls whose answer has not gone out yet, in call order."""
        return list(self._live.values())

    def pending(self) -> list[Call]:
        """The calls of the finished run still waiting for their answer, in call order."""
        return [call for call in self._live.values() if call.status is not CallStatus.STREAMING and not call.done]

    def unavailable(self) -> list[Call]:
        """The calls waiting for a registration, in call order."""
        return [call for call in self._live.values() if call.status is CallStatus.UNAVAILABLE]

    def waiting(self) -> list[Call]:
        """The pending calls: what a wrong id's message lists."""
        return self.pending()

    # -- the machine's bookkeeping --------------------------------------------------------

    def started(self, call_id: str, name: str) -> Call:
        """A call began streaming (its `TOOL_CALL_START`, or a snapshot naming it)."""
        call = self.get(call_id)
        if call is None or call.done:  # a later run may use an id again: a new call
            call = self._live[call_id] = Call(call_id, name)
            self.put(call)
        return call

    def add_saved(self, call: Call) -> None:
        """A call restored from a snapshot, in its saved status."""
        super().add_saved(call)
        if not call.sent:
            self._live[call.id] = call

    def mark_sent(self) -> None:
        """A request went out: the answers it carries are sent, and those calls are no longer live."""
        for call in [call for call in self._live.values() if call.done]:
            call.sent = True  # its answer is in this request's history now
            del self._live[call.id]

    def take_to_start(self) -> tuple[Call, ...]:
        """The calls to start since the last call, those still executing."""
        calls, self.to_start = self.to_start, []
        return tuple(call for call in calls if call.status is CallStatus.EXECUTING)

    def move(self, call: Call, event: CallEvent) -> None:
        """Apply a call event through the table (`next_call_status`)."""
        call.status = next_call_status(call.status, event, call=f"{call.id!r} ({call.name})")
        if call.status is not CallStatus.STREAMING:
            self.changed(Change("action", call.id))

    def settle(self, call: Call, event: CallEvent, result: ToolResult, *, message: bool = True) -> None:
        """Give the call its answer (a terminal event) and, with `message`, its one tool message."""
        self.move(call, event)
        call.result = result
        call.registration = None
        # The call's one tool message, unless the history has it already (a server-side result,
        # or a MESSAGES_SNAPSHOT that answered the call while it was streaming) or no message
        # declares the call any more (a snapshot dropped it: an orphan a provider refuses). Repaired: a
        # lone surrogate in a result would make every later request unwritable.
        if message and not self._history.is_answered(call.id) and self._history.is_declared(call.id):
            content = result.content
            if call.edited is not None:  # the model must know its arguments were not the ones used
                content = f"The user edited the arguments before approving; the tool ran with {call.edited}.\n{content}"
            from ag_ui.core import ToolMessage

            self._history.append(ToolMessage.model_validate({
                "id": new_id(), "role": "tool", "toolCallId": call.id,
                "content": content_of(repair(content), result.media),  # files as parts after the text
                "error": repair(result.error) if result.error is not None else None,
            }))
            self.changed(Change("messages"))

    def cancel_open(self, message: str) -> list[Call]:
        """Cancel every live call without an answer (`message` for the model); returns them."""
        cancelled = [call for call in self._live.values() if not call.done]
        for call in cancelled:
            self.settle(call, CallEvent.CANCEL, ToolResult.failure(message))
        return cancelled

    def pending_of(self, run: RunRecord, outcome: Any, *, held: set[str] | frozenset[str] = frozenset(),
                   by_name: bool = False) -> list[Call]:
        """The calls of the finished `run` that the client must answer; the others are moved
        to `COMPLETED` as the server's (it handled them, or left them to another client).

        `RUN_FINISHED.outcome.pendingToolCallIds` names them when the server does (pydantic-ai
        for 1.0 clients); absent or empty means "every unanswered call of the run", or, with
        `by_name` (the run ended on interrupts), every unanswered call of a tool this run
        offered. Never pending: a call in `held` (an interrupt names it: the server runs it
        once resumed), one the server answered, one no message declares (a snapshot dropped
        it). A malformed outcome (an `UnknownEvent`'s raw JSON: not a list, ids that are not
        strings) names nothing; each id counts once however often it is repeated.
        """
        ids = outcome.get("pendingToolCallIds") if isinstance(outcome, dict) \
            else getattr(outcome, "pending_tool_call_ids", None)
        named = [i for i in ids if isinstance(i, str)] if isinstance(ids, (list, tuple)) else []
        if named:
            wanted = list(dict.fromkeys(self[i] for i in named if i in self))
        else:
            if ids:
                logger.warning("pyclient: RUN_FINISHED.outcome.pendingToolCallIds is not a list of ids "
                               "(%.100r); taking every unanswered call of the run as pending", ids)
            wanted = [call for call in run.calls if run.tool(call.name) is not None] if by_name else run.calls
        history = self._history
        pending = [call for call in wanted
                   if call.status is CallStatus.STREAMING and call.id not in held
                   and not history.is_answered(call.id) and history.is_declared(call.id)]
        for call in run.calls:
            if call.status is CallStatus.STREAMING and call not in pending:
                self.move(call, CallEvent.SERVER_SIDE)
        return pending

    def dispatch(self, pending: list[Call], run: RunRecord) -> None:
        """The finished run's client calls: each waits for a tool (`PENDING`), or is refused
        (`REFUSE`, with a message naming what the run offered) when no tool of the run has its name."""
        for call in pending:
            tool = run.tool(call.name)
            if tool is None:
                names = ", ".join(run.tool_names()) or "none"
                self.settle(call, CallEvent.REFUSE, ToolResult.failure(
                    f"Tool {call.name!r} is not available in this thread: it was not among the tools "
                    f"sent with this run nor a tool of the agent this client serves (available: {names}). "
                    "Call one of those instead."
                ))
            else:
                call.tool = tool
                if call.name == tool.name:
                    call.name = tool.name  # the same text: the event's own copy is not kept a call
                self.move(call, CallEvent.PENDING)

    def apply_restore_rules(self, idempotent: set[str]) -> None:
        """Restored calls: what was in flight when the page died becomes what
        `pyclient._conversation._lifecycle.RESTORE_CALL` says (`RESTORE_IDEMPOTENT` for the ids in `idempotent`)."""
        for call in self.values():
            event = RESTORE_CALL[call.status]
            if event is CallEvent.INTERRUPT:
                call.approved_for = call.tool  # it was approved (or needed no approval) before it ran
                if call.id in idempotent:
                    event = RESTORE_IDEMPOTENT
            if event is CallEvent.CANCEL:
                self.settle(call, event, ToolResult.failure(
                    "Not run: the page was reloaded while the run was streaming this call."
                ), message=self._history.tool_call(call.id) is not None)
            elif event is not None:
                self.move(call, event)
                call.registration = None

    def _executing(self, call: Call) -> None:
        call.execution += 1
        self.to_start.append(call)

    # -- inputs from the page --------------------------------------------------------------

    def serve(self, call_id: str, tool: ClientTool, registration: Registration | None, *,
              input: bool = False) -> Call:
        """A registration serves an unavailable call: it runs, awaits approval, or awaits input.

        Args:
            tool: the serving registration's tool (it answers the call from now on).
            registration: the serving registration (handed back by `release`).
            input: the page answers the call (`answer`), not a handler.

        Raises:
            LocalProtocolError: the call is not unavailable.
        """
        call = self.find(call_id)
        if input:
            event = CallEvent.SERVE_INPUT
        elif tool.requires_approval and call.approved_for is not tool:
            event = CallEvent.SERVE_APPROVAL
        else:
            event = CallEvent.SERVE_RUN
        self.move(call, event)
        call.tool = tool
        call.registration = registration
        if call.status is CallStatus.EXECUTING:
            self._executing(call)
        return call

    def approve(self, call_id: str, edited: str | None = None) -> Call:
        """The user approved a call awaiting approval: it executes.

        Args:
            edited: the arguments (JSON text, already validated) the user put in place of the
                model's; the handler gets them and the tool message tells the model.

        Raises:
            LocalProtocolError: no such call, or it is not awaiting approval.
        """
        call = self.find(call_id)
        self.move(call, CallEvent.APPROVE)
        call.approved_for = call.tool
        call.edited = edited
        self._executing(call)
        return call

    def release(self, registration: Registration) -> list[Call]:
        """A registration unmounted or was disposed: the calls it serves become unavailable.

        Returns:
            The calls it served (the driver aborts their handlers).
        """
        lost = [call for call in self._live.values() if call.registration is registration and not call.done]
        for call in lost:
            self.move(call, CallEvent.LOSE)
            call.registration = None
        return lost

    def handler_returned(self, call_id: str, execution: int, result: ToolResult) -> bool:
        """A handler finished: its result answers the call if that execution is still current.

        Returns:
            False when the result is stale (the call was answered meanwhile, or lost its
            registration and may run again): it is dropped.
        """
        call = self.get(call_id)
        if call is None or call.status is not CallStatus.EXECUTING or call.execution != execution:
            return False
        self.settle(call, CallEvent.FAIL if result.error is not None else CallEvent.SUCCEED, result)
        return True

    def answer(self, call_id: str, result: ToolResult) -> Call:
        """Answer a pending call from outside its handler (`submit`, `fail`, reject).

        Raises:
            LocalProtocolError: no such call, or it already has its answer.
        """
        call = self.find(call_id)
        self.settle(call, CallEvent.FAIL if result.error is not None else CallEvent.SUCCEED, result)
        return call

    def retry(self, call_id: str) -> Call:
        """Run an interrupted call again: it becomes unavailable, and is served by its registration
        (without asking approval again: the retry is the user's).

        Raises:
            LocalProtocolError: no such call, or it is not interrupted.
        """
        call = self.find(call_id)
        self.move(call, CallEvent.RETRY)
        call.registration = None
        call.approved_for = call.tool  # retrying is the user's consent: not asked again
        return call

    def cancel(self, call_id: str, reason: str | None = None) -> Call | None:
        """Cancel a call (any status but terminal); the model is told it was cancelled.

        Returns:
            The call, or None when it already had its answer (nothing changes).

        Raises:
            LocalProtocolError: no call has this id.
        """
        call = self.find(call_id)
        if call.done:
            return None
        message = f"Tool call cancelled: {reason}" if reason else "Tool call cancelled"
        self.settle(call, CallEvent.CANCEL, ToolResult.failure(message))
        return call
