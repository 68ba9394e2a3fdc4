"""What a conversation's state reads as: its run status, whether it waits for the person, its messages and calls.

`ConversationViews` is a mixin of `Conversation` (`pyclient._conversation._machine`): read-only views of
the machine's public state (its `history`, `run_state`, `run`, `calls`, `interrupts`), kept
apart from the inputs that change it. `check_can_start(what)` is the one guard every new
turn passes.

```python
from pyclient._conversation._machine import Conversation

conversation = Conversation("t1")
conversation.add_user_message("hi")
print(conversation.run_status, conversation.busy, conversation.messages()[0].content)   # idle False hi
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._base._errors import CLOSED_HINT, LocalProtocolError
from ._call_table import Calls
from ._history import History
from ._interrupt_table import Interrupts
from ._lifecycle import ASKING_USER, RUN_STATUS, CallStatus, RunState, RunStatus
from ._records import Call, RunRecord

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Message, ToolCall, ToolMessage

    from ._subagents import Subagents

__all__ = ["ConversationViews"]

_BUSY = frozenset({RunState.STREAMING, RunState.ENDED, RunState.AWAITING_TOOLS})


class ConversationViews:
    """The read-only views of a `Conversation` (a mixin: `Conversation` sets the attributes).

    Attributes:
        thread_id: the AG-UI `threadId`.
        history: the history itself (`pyclient._conversation._history`), for the journal's incremental saves
            (`pyclient._driver._journal`): read it only.
        run_state: the `RunState`.
        run: the request in flight, or the last one (`pyclient._conversation._records.RunRecord`).
        calls: every tool call by id (`pyclient._conversation._call_table.Calls`), and the inputs that answer them.
        interrupts: every AG-UI interrupt by id (`pyclient._conversation._interrupt_table.Interrupts`), and the
            inputs that answer them; the run waits while one is open.
    """

    thread_id: str
    history: History
    run_state: RunState
    run: RunRecord
    calls: Calls
    interrupts: Interrupts

    @property
    def run_status(self) -> RunStatus:
        """`"idle"`, `"running"`, `"error"` or `"closed"`."""
        return RUN_STATUS[self.run_state]

    @property
    def run_id(self) -> str:
        """The `runId` of the request in flight, or of the last one ("" before the first)."""
        return self.run.run_id

    @property
    def run_ended(self) -> bool:
        """True once the request in flight sent RUN_FINISHED or RUN_ERROR (state `ENDED`): the
        driver reads no more (a server may hold the connection open) and calls `end_stream()`."""
        return self.run_state is RunState.ENDED

    @property
    def waiting_for_person(self) -> bool:
        """True while the finished run waits for nothing but the person: open interrupts, or
        calls awaiting approval, input, a retry or a tool to mount; no handler runs."""
        if self.run_state is not RunState.AWAITING_TOOLS or self.calls.to_start:
            return False
        pending = self.pending()
        if any(call.status is CallStatus.EXECUTING for call in pending):
            return False
        return bool(self.interrupts.open()) or any(call.status in ASKING_USER for call in pending)

    @property
    def busy(self) -> bool:
        """True while a request is in flight or the calls of a finished run are being answered."""
        return self.run_state in _BUSY

    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models (a new list each call)."""
        return self.history.messages()

    def message(self, message_id: str) -> Message | None:
        """The message with this id, or None."""
        return self.history.message(message_id)

    @property
    def subagents(self) -> Subagents:
        """The subagent invocations of the history (`pyclient._conversation._subagents`)."""
        return self.history.subagents

    @property
    def activity_problems(self) -> dict[str, str]:
        """Activity message id -> why its last update did not apply (`pyclient._conversation._activities`)."""
        return self.history.activity_problems

    def tool_call(self, call_id: str) -> ToolCall | None:
        """The AG-UI `ToolCall` with this id, arguments as assembled so far."""
        return self.history.tool_call(call_id)

    def arguments(self, call_id: str) -> str | None:
        """The call's arguments as assembled so far: the approved edit once the user edited them."""
        call = self.calls.get(call_id)
        if call is not None and call.edited is not None:
            return call.edited
        return self.history.arguments(call_id)

    def tool_result(self, call_id: str) -> ToolMessage | None:
        """The tool message that answers the call, or None."""
        return self.history.tool_result(call_id)

    def pending(self) -> list[Call]:
        """The calls of the finished run still waiting for their answer, in call order."""
        return self.calls.pending()

    def check_can_start(self, what: str) -> None:
        """Raise `LocalProtocolError` unless a new turn may start (idle or error)."""
        if self.busy or self.run_state is RunState.CLOSED:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self.thread_id!r} in run state {self.run_state} "
                f"(run status {self.run_status!r}): "
                + (CLOSED_HINT
                   if self.run_state is RunState.CLOSED else
                   "a run is in flight. Wait for the current `send()`/`run()` to return, or call `thread.stop()`.")
            )
