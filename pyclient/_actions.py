"""`Action`: one client tool call of a finished run, waiting for its single answer.

Every pending call of a run becomes an `Action` in `thread.pending_actions`. It is answered
exactly once, by its handler (`"executing"`), by the page (`submit(output)`, `fail(message)`),
by the user (`thread.approve_tool(id)` / `thread.reject_tool(id, reason)` while
`"awaiting_approval"`) or by `cancel(reason)` (also what `thread.stop()` does). The answer
becomes one tool message; once every action of the run is answered the thread sends the
follow-up run. Answering aborts a handler that is still running (its `ToolContext.signal`).

```python
# In a page, a UI button answers a call of a tool that waits for input:
action = thread.pending_actions[0]
print(action.tool_call.function.name, action.arguments, action.status)
action.submit({"color": "blue"})     # or action.fail("no colour chosen"), action.cancel()
```
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ag_ui.core import ToolCall

from ._abort import AbortController, AbortSignal
from ._errors import LocalProtocolError, RunAborted
from ._tools import ClientTool, ToolResult

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["Action"]

logger = logging.getLogger("pyclient")

STATUSES = ("unavailable", "awaiting_approval", "awaiting_input", "executing")


class Action:
    """A pending client tool call.

    Attributes:
        tool_call: the AG-UI `ToolCall` (id, function name, complete JSON arguments).
        tool: the `ClientTool` that answers it (from the run's tool snapshot), or None.
    """

    def __init__(
        self,
        thread: Thread,
        tool_call: ToolCall,
        tool: ClientTool | None,
        status: str,
        on_resolved: Callable[[Action, ToolResult], None],
    ) -> None:
        assert status in STATUSES, status
        self.tool_call = tool_call
        self.tool = tool
        self._thread = thread
        self._status = status
        self._on_resolved = on_resolved
        self._controller = AbortController()
        self._result: ToolResult | None = None
        self._done = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        state = "resolved" if self.done else self._status
        return f"<Action {self.name!r} id={self.id!r} {state}>"

    @property
    def id(self) -> str:
        """The `toolCallId`."""
        return self.tool_call.id

    @property
    def name(self) -> str:
        """The name of the tool the model called."""
        return self.tool_call.function.name

    @property
    def arguments(self) -> str:
        """The call's arguments as the JSON text the model produced."""
        return self.tool_call.function.arguments

    @property
    def status(self) -> str:
        """`"unavailable"`, `"awaiting_approval"`, `"awaiting_input"` or `"executing"`."""
        return self._status

    @property
    def done(self) -> bool:
        """True once the action has its answer (it then leaves `pending_actions`)."""
        return self._result is not None

    @property
    def result(self) -> ToolResult | None:
        """The answer, once `done`."""
        return self._result

    @property
    def signal(self) -> AbortSignal:
        """Aborts when the action is answered or cancelled (the handler's `ctx.signal` follows it)."""
        return self._controller.signal

    def submit(self, output: Any) -> None:
        """Answer the call with a successful result.

        Args:
            output: the result; a `str` is sent as is, anything else as JSON (checked against
                the tool's output schema when it has one).

        Raises:
            LocalProtocolError: the action already has its answer.
        """
        if self.tool is not None:
            result = self.tool.encode_result(output)
        else:
            result = ToolResult.success(output if isinstance(output, str) else _json(output))
        self._resolve(result, "submitted")

    def fail(self, message: str) -> None:
        """Answer the call with an error; the model receives `message`.

        Raises:
            LocalProtocolError: the action already has its answer.
        """
        self._resolve(ToolResult.failure(str(message)), "failed")

    def cancel(self, reason: str | None = None) -> None:
        """Cancel the call: a running handler is aborted and the model is told it was cancelled.

        Does nothing if the action already has its answer.
        """
        if self.done:
            return
        message = f"Tool call cancelled: {reason}" if reason else "Tool call cancelled"
        self._resolve(ToolResult.failure(message), reason or "cancelled")

    # -- used by the thread --------------------------------------------------------------

    def _approve(self) -> None:
        if self._status != "awaiting_approval":
            raise LocalProtocolError(
                f"Cannot approve tool call {self.id!r} ({self.name}) in status {self._status!r}: "
                "only calls awaiting approval can be approved."
            )
        self._start()

    def _start(self) -> None:
        assert self.tool is not None
        self._status = "executing"
        self._thread._notify("action", self)
        self._task = asyncio.get_running_loop().create_task(self._execute(self.tool))

    async def _execute(self, tool: ClientTool) -> None:
        try:
            result = await tool.execute(
                self.arguments, tool_call_id=self.id, thread_id=self._thread.thread_id, signal=self.signal
            )
        except RunAborted:
            return  # answered meanwhile (submit, fail, cancel, stop): that answer stands
        except Exception as exc:  # execute() reports handler errors itself; this is a last resort
            logger.exception("pyclient: executing tool %r failed", self.name)
            result = ToolResult.failure(f"Tool {self.name!r} failed: {exc}")
        if not self.done:
            self._resolve(result, "finished")

    def _resolve(self, result: ToolResult, why: str) -> None:
        if self.done:
            raise LocalProtocolError(
                f"Cannot answer tool call {self.id!r} ({self.name}): it already has its answer "
                f"({'error' if self._result and self._result.error else 'ok'}). Each call is answered once."
            )
        self._result = result
        self._controller.abort(why)
        if not self._done.done():
            self._done.set_result(result)
        self._on_resolved(self, result)

    async def _wait(self) -> ToolResult:
        return await self._done


def _json(value: Any) -> str:
    from pydantic_core import to_json

    return to_json(value).decode()
