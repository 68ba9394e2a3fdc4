"""`Interrupt`: an AG-UI run paused for the person, and the one way to answer it.

An AG-UI 1.0 agent may end a run waiting for what only the person at the page can give: the
approval of a server tool's call (pydantic-ai's `requires_approval=True`) or the answer to a
question (LangGraph's `interrupt()`). Each is an `Interrupt` in `thread.interrupts`, and
`send()` has not returned while one is open. Answer it with `resolve(payload)`, checked
against its `response_schema` first (an invalid answer raises `InterruptError` naming each
field, and nothing is sent), or `cancel()`. Once every open interrupt of the run has its
answer, the thread sends the resume request by itself, each answer exactly once. A server
tool's approval is answered `{"approved": True}` (with `"editedArgs"`) or `{"approved": False,
"reason": ...}`. Its statuses and rules: docs/human-in-the-loop.md.

```python
import asyncio
from pyclient import Agent

def on_event(event):
    if event.kind == "interrupt" and event.payload.status == "open":
        interrupt = event.payload                 # also in thread.interrupts
        print(interrupt.reason, interrupt.message)
        interrupt.resolve({"approved": True})     # the server runs its tool once resumed

async def main():
    thread = Agent("main", "http://127.0.0.1:8000/agent").thread()
    thread.subscribe(on_event)
    await thread.send("delete bob's account")     # returns once resumed and finished

asyncio.run(main())
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .._base._forward import Forward
from ._lifecycle import InterruptStatusName

if TYPE_CHECKING:
    from ._records import InterruptRecord

__all__ = ["Interrupt", "InterruptAnswers"]


class InterruptAnswers(Protocol):
    """What an `Interrupt` answers through: the thread's answering (`pyclient._driver._answering`)."""

    def resolve(self, interrupt_id: str, payload: Any) -> None: ...
    def cancel_interrupt(self, interrupt_id: str, reason: str | None) -> None: ...


class Interrupt:
    """One interrupt of a thread; see the module docstring. Get it from `thread.interrupts`.

    A view: its status is the machine's at every moment, after the answer too.
    """

    __slots__ = ("_answers", "_record")

    def __init__(self, record: InterruptRecord, answers: InterruptAnswers) -> None:
        self._record = record
        self._answers = answers

    def __repr__(self) -> str:
        return f"<Interrupt {self.reason!r} id={self.id!r} {self.status}>"

    id: Forward[str] = Forward("_record", "The interrupt's id: its resume entry answers it by this id.")
    reason: Forward[str] = Forward("_record", """Why the run stopped: `"tool_call"` (an approval),
        `"input_required"`, `"confirmation"`, `"langgraph:interrupt"`, or whatever the agent says.""")
    message: Forward[str | None] = Forward("_record", "The prompt for the person, or None.")
    tool_call_id: Forward[str | None] = Forward("_record", "The tool call it concerns (a server tool's approval), or None.")
    response_schema: Forward[dict[str, Any] | None] = Forward(
        "_record", "The JSON Schema of the answer `resolve()` takes, or None (any JSON value).")
    expires_at: Forward[str | None] = Forward(
        "_record", "When it stops being answerable (ISO 8601, as the server sent it), or None.")
    metadata: Forward[dict[str, Any] | None] = Forward(
        "_record", """What else the server attached (LangGraph's raw value under `"langgraph"`), or None.""")
    subagent_run_id: Forward[str | None] = Forward("_record", "The subagent run that raised it, or None (the agent itself).")

    @property
    def status(self) -> InterruptStatusName:
        """`"open"`, `"resolved"`, `"cancelled"` or `"expired"`."""
        return self._record.status.value

    payload: Forward[Any] = Forward("_record", "The answer given with `resolve()`, or None.")
    note: Forward[str] = Forward("_record", 'Why it was cancelled or expired ("" otherwise).')

    @property
    def is_approval(self) -> bool:
        """True for a tool call's approval: it names a call and its schema asks for `approved`
        (or, with no schema, its reason is `"tool_call"`)."""
        record = self._record
        if record.tool_call_id is None:
            return False
        schema = record.response_schema
        if schema is None:
            return record.reason == "tool_call"
        properties = schema.get("properties")
        return isinstance(properties, dict) and "approved" in properties

    def resolve(self, payload: Any = None) -> None:
        """Answer the interrupt; the resume request goes once every open interrupt of the run has its answer.

        Args:
            payload: the answer, a JSON value (a JS value from the page is converted), checked
                against `response_schema` first.

        Raises:
            InterruptError: the payload does not fit the schema (its `errors` name each field),
                the schema takes too much work to check it against (a schema whose `$ref`s
                multiply each other), or the interrupt expired; nothing is sent.
            LocalProtocolError: the interrupt already has its answer.
        """
        self._answers.resolve(self.id, payload)

    def cancel(self, reason: str | None = None) -> None:
        """Abandon the interrupt: the agent is told `"cancelled"`. Does nothing once it has its answer."""
        self._answers.cancel_interrupt(self.id, reason)
