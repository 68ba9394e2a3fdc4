"""`Action`: one client tool call of a finished run, waiting for (and then holding) its single answer.

Every call of a finished run that the page must answer becomes an `Action` in
`thread.pending_actions` (`thread.action(tool_call_id)` finds any). It is a view: the call's
state lives in the conversation machine (`pyclient._conversation._machine`), so `action.status`
is true at every moment, after the answer too. It is answered exactly once, and always through
it: by its handler, by the page (`submit`, `fail`), by the user (`approve`, `reject`) or by
`cancel` (what `thread.stop()` does); `retry()` runs an `"interrupted"` call again. Each
execution gets its own abort signal (`action.signal`), and a call that comes back after an
unmount never runs twice at once. The statuses, what leaves each, and the signal's reasons:
docs/renderers.md ("Pending actions").

```python
import asyncio
from pyclient import Agent, client_tool

@client_tool(render_only=True)             # the page answers each call; the body never runs
def change_background(background: str) -> str:
    \"\"\"Change the page background.\"\"\"
    raise NotImplementedError

def on_event(event):
    if event.kind == "action" and event.payload.status == "awaiting_input":
        # In a page, a UI button answers a call that waits for the user:
        action = event.payload               # also in thread.pending_actions
        print(action.name, action.arguments, action.status)
        action.submit({"color": "blue"})     # or action.fail("no colour chosen"), action.cancel()
        print(action.status)                 # "completed"

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent", client_tools=[change_background]).thread()
    thread.subscribe(on_event)
    await thread.send("make it blue")        # returns once the call is answered and followed up

asyncio.run(main())
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .._base._forward import Forward
from ._lifecycle import TERMINAL, CallStatusName

if TYPE_CHECKING:
    from ag_ui.core import ToolCall

    from .._base._abort import AbortSignal
    from .._binding._scopes import Registration
    from .._tools._client_tool import ClientTool
    from .._tools._results import ToolResult
    from ._records import Call

__all__ = ["Action", "Answers"]


class Answers(Protocol):
    """What an `Action` answers through: the thread's answering (`pyclient._driver._answering`)."""

    def approve(self, call_id: str, arguments: Mapping[str, Any] | None) -> None: ...
    def reject(self, call_id: str, reason: str | None) -> None: ...
    def submit(self, call_id: str, output: Any) -> None: ...
    def fail(self, call_id: str, message: str) -> None: ...
    def cancel(self, call_id: str, reason: str | None) -> None: ...
    def retry(self, call_id: str) -> None: ...
    def signal(self, call_id: str) -> AbortSignal: ...


class Action:
    """A client tool call the page answers; see the module docstring. Get it from `thread.pending_actions`.

    Attributes:
        tool_call: the AG-UI `ToolCall` (id, function name, complete JSON arguments).
    """

    __slots__ = ("_answers", "_call", "tool_call")

    def __init__(self, call: Call, tool_call: ToolCall, answers: Answers) -> None:
        self.tool_call = tool_call
        self._call = call
        self._answers = answers

    def __repr__(self) -> str:
        return f"<Action {self.name!r} id={self.id!r} {self.status}>"

    id: Forward[str] = Forward("_call", "The `toolCallId`.")
    name: Forward[str] = Forward("_call", "The name of the tool the model called.")

    @property
    def arguments(self) -> str:
        """The call's arguments as the JSON text the model produced."""
        return self.tool_call.function.arguments

    @property
    def status(self) -> CallStatusName:
        """Where the call is now; see the table in the module docstring."""
        return self._call.status.value

    tool: Forward[ClientTool | None] = Forward(
        "_call", "The tool that answers it: the serving registration's, or the advertised one while none serves it.")
    registration: Forward[Registration | None] = Forward(
        "_call", "The registration serving the call now (None while unavailable and once answered).")

    @property
    def done(self) -> bool:
        """True once the action has its answer (it then leaves `pending_actions`)."""
        return self._call.status in TERMINAL

    @property
    def edited(self) -> bool:
        """True when the user approved it with edited arguments (the handler got those)."""
        return self._call.edited is not None

    result: Forward[ToolResult | None] = Forward("_call", "The answer, once `done`.")

    @property
    def signal(self) -> AbortSignal:
        """The current execution's signal: aborts when it must stop (see the module docstring).

        A new signal replaces it when the action goes back to `"unavailable"`.
        """
        return self._answers.signal(self.id)

    def approve(self, arguments: Mapping[str, Any] | None = None) -> None:
        """Let a call that awaits approval run its handler, with the user's edits if any.

        Args:
            arguments: the arguments the user edited, in place of the model's (a dict; a JS
                object from the page is converted). They are validated against the tool's
                parameters first; the handler gets them, and the tool message tells the model
                the user changed them, and to what. None (or arguments equal to the model's)
                approves the call as the model made it.

        Raises:
            ToolError: the edited arguments do not match the tool's parameters (the message
                names each field); the call keeps waiting for approval.
            LocalProtocolError: the action is not awaiting approval.
        """
        self._answers.approve(self.id, arguments)

    def reject(self, reason: str | None = None) -> None:
        """Refuse the call: the model receives "rejected by the user" (and `reason`).

        Raises:
            LocalProtocolError: the action already has its answer.
        """
        self._answers.reject(self.id, reason)

    def submit(self, output: Any) -> None:
        """Answer the call with a successful result; a running handler aborts ("submitted").

        Args:
            output: the result; a `str` is sent as is, anything else as JSON (checked against
                the tool's output schema when it has one). JS values from the page are converted.

        Raises:
            ToolError: the output does not match the tool's output schema or is not JSON data;
                nothing is answered and the call keeps waiting.
            LocalProtocolError: the action already has its answer.
        """
        self._answers.submit(self.id, output)

    def fail(self, message: str) -> None:
        """Answer the call with an error; the model receives `message`. A running handler aborts ("failed").

        Raises:
            LocalProtocolError: the action already has its answer.
        """
        self._answers.fail(self.id, message)

    def retry(self) -> None:
        """Run an `"interrupted"` call again (the page died while it executed): it waits for its
        registration, which runs it; retrying is the user's consent, so it is not asked to approve again.

        Raises:
            LocalProtocolError: the action is not interrupted.
        """
        self._answers.retry(self.id)

    def cancel(self, reason: str | None = None) -> None:
        """Cancel the call: a running handler aborts ("cancelled"), the model is told it was cancelled.

        Works in every status. Does nothing if the action already has its answer.

        Args:
            reason: added to the error message the model receives.
        """
        self._answers.cancel(self.id, reason)
