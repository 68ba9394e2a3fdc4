"""`Action`: one client tool call of a finished run, waiting for its single answer.

Every pending call of a run becomes an `Action` in `thread.pending_actions`. It is served by
the registration that serves its tool name in the thread when the run finishes (see
`pyclient._scopes`), and answered exactly once: by its handler (`"executing"`), by the page
(`submit(output)`, `fail(message)`), by the user (`thread.approve_tool(id)` /
`thread.reject_tool(id, reason)` while `"awaiting_approval"`) or by `cancel(reason)` (also
what `thread.stop()` does). The answer becomes one tool message; once every action of the
run is answered the thread sends the follow-up run.

Statuses and what moves an action between them:

| status | meaning | leaves it when |
| --- | --- | --- |
| `"unavailable"` | no mounted registration serves the tool in this thread now | one is registered or mounts (→ approval or executing); answered |
| `"awaiting_approval"` | the tool requires approval | `approve_tool` (→ executing); its registration unmounts (→ unavailable); answered |
| `"executing"` | the handler runs | it returns (answered); its registration unmounts or is disposed (→ unavailable) |

Each execution gets its own abort signal (`action.signal`, which the handler's
`ToolContext.signal` follows). It aborts with the reason: "submitted", "failed",
"cancelled", the `thread.stop()` reason ("stopped by the user"), "unmounted" or "disposed"
(the serving registration went away: the handler task is cancelled, reports nothing, and the
action waits for a registration again with a fresh signal). A timeout aborts the handler's
`ToolContext.signal` with "timeout" and answers with an error. A call that comes back after
an unmount never runs twice at once: the new execution waits for the aborted handler to unwind.

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

from . import _scopes
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
        tool: the `ClientTool` that answers it: the serving registration's tool, or the tool
            advertised in the run's request while no registration serves it.
    """

    def __init__(
        self,
        thread: Thread,
        tool_call: ToolCall,
        tool: ClientTool,
        on_resolved: Callable[[Action, ToolResult], None],
    ) -> None:
        self.tool_call = tool_call
        self.tool = tool
        self._thread = thread
        self._status = "unavailable"
        self._on_resolved = on_resolved
        self._controller = AbortController()
        self._registration: _scopes.Registration | None = None
        self._approved: ClientTool | None = None   # the tool the user approved this call for
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
    def registration(self) -> _scopes.Registration | None:
        """The registration serving the call now (None while unavailable and once answered)."""
        return self._registration

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
        """The current execution's signal: aborts when it must stop (see the module docstring).

        A new signal replaces it when the action goes back to `"unavailable"`.
        """
        return self._controller.signal

    def submit(self, output: Any) -> None:
        """Answer the call with a successful result; a running handler aborts ("submitted").

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
        """Answer the call with an error; the model receives `message`. A running handler aborts ("failed").

        Raises:
            LocalProtocolError: the action already has its answer.
        """
        self._resolve(ToolResult.failure(str(message)), "failed")

    def cancel(self, reason: str | None = None) -> None:
        """Cancel the call: a running handler aborts ("cancelled"), the model is told it was cancelled.

        Works in every status, including `"unavailable"`. Does nothing if the action already
        has its answer.

        Args:
            reason: added to the error message the model receives.
        """
        self._cancel(reason, "cancelled")

    # -- used by the thread, the run loop and registrations ------------------------------

    def _cancel(self, reason: str | None, abort_reason: str) -> None:
        if self.done:
            return
        message = f"Tool call cancelled: {reason}" if reason else "Tool call cancelled"
        self._resolve(ToolResult.failure(message), abort_reason)

    def _begin(self) -> None:
        """Serve the call for the first time; announce it if no registration can yet."""
        self._serve()
        if not self.done and self._status == "unavailable":
            logger.info(
                "pyclient: no registration of tool %r is mounted in thread %s; call %s waits for one",
                self.name, self._thread.thread_id, self.id,
            )
            self._thread._notify("action", self)

    def _serve(self) -> None:
        """If unavailable, bind to the registration that serves the tool now and run (or await approval)."""
        if self.done or self._status != "unavailable":
            return
        registration = _scopes.serving(self._thread, self.name)
        if registration is None:
            return
        self._registration = registration
        registration._actions.append(self)
        self.tool = registration.tool
        if self.tool.requires_approval and self._approved is not self.tool:
            self._status = "awaiting_approval"
            self._thread._notify("action", self)
        else:
            self._start()

    def _lose(self, reason: str) -> None:
        """The serving registration unmounted or was disposed: abort this execution, wait again."""
        if self.done:
            return
        registration, self._registration = self._registration, None
        if registration is not None and self in registration._actions:
            registration._actions.remove(self)
        aborted, self._controller = self._controller, AbortController()
        self._status = "unavailable"
        aborted.abort(reason)
        logger.info("pyclient: call %s of tool %r lost its registration (%s)", self.id, self.name, reason)
        self._thread._notify("action", self)

    def _approve(self) -> None:
        if self._status != "awaiting_approval":
            raise LocalProtocolError(
                f"Cannot approve tool call {self.id!r} ({self.name}) in status {self._status!r}: "
                "only calls awaiting approval can be approved."
            )
        self._approved = self.tool
        self._start()

    def _start(self) -> None:
        assert self.tool is not None
        self._status = "executing"
        previous, controller = self._task, self._controller
        self._task = asyncio.get_running_loop().create_task(self._execute(self.tool, controller, previous))
        self._thread._notify("action", self)

    async def _execute(
        self, tool: ClientTool, controller: AbortController, previous: asyncio.Task[None] | None
    ) -> None:
        if previous is not None and not previous.done():
            # Remounted right after an unmount: the aborted handler is still unwinding (its
            # `finally` blocks); it must be gone before the call runs again.
            await asyncio.wait({previous})
        try:
            result = await tool.execute(
                self.arguments, tool_call_id=self.id, thread_id=self._thread.thread_id, signal=controller.signal
            )
        except RunAborted:
            return  # answered meanwhile, or the registration went away: report nothing
        except Exception as exc:  # execute() reports handler errors itself; this is a last resort
            logger.exception("pyclient: executing tool %r failed", self.name)
            result = ToolResult.failure(f"Tool {self.name!r} failed: {exc}")
        if controller is self._controller and not self.done:
            self._resolve(result, "finished")

    def _resolve(self, result: ToolResult, why: str) -> None:
        if self.done:
            raise LocalProtocolError(
                f"Cannot answer tool call {self.id!r} ({self.name}): it already has its answer "
                f"({'error' if self._result and self._result.error else 'ok'}). Each call is answered once."
            )
        self._result = result
        registration, self._registration = self._registration, None
        if registration is not None and self in registration._actions:
            registration._actions.remove(self)
        self._controller.abort(why)
        if not self._done.done():
            self._done.set_result(result)
        self._on_resolved(self, result)

    async def _wait(self) -> ToolResult:
        return await self._done


def _json(value: Any) -> str:
    from pydantic_core import to_json

    return to_json(value).decode()
