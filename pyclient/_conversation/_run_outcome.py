"""What a run's stream means for the run, beyond its history (sans-I/O).

`note_event` reads the events that end the run (`RUN_FINISHED`, `RUN_ERROR`), a LangGraph
interrupt sent before AG-UI 1.0 (a `CUSTOM` event, `pyclient._conversation._interrupt_table`) and a server-side
tool's `TOOL_CALL_RESULT` (the call settles). `end_of_stream` says what the response's end
makes of the run: a failure (`RUN_ERROR`, no `RUN_FINISHED`, too many follow-ups in a row),
cancelled by the agent, finished, or calls (and interrupts) to answer, which it dispatches.
`CHECKPOINT_EVENTS` are those after which a thread kept in a store saves.

```python
from ag_ui.core import RunFinishedEvent
from pyclient._conversation._call_table import Calls
from pyclient._conversation._history import History
from pyclient._conversation._interrupt_table import Interrupts
from pyclient._conversation._records import RunRecord
from pyclient._conversation._run_outcome import end_of_stream, note_event

run, calls, interrupts = RunRecord("r1"), Calls("t1", History(), print), Interrupts("t1", print)
assert note_event(RunFinishedEvent(thread_id="t1", run_id="r1"), run, calls, interrupts)  # the run ended
event, end = end_of_stream(run, calls, interrupts, follow_ups=0, max_follow_ups=10, source="the server")
assert end is not None and end.how == "finished"
```
"""

from __future__ import annotations

from typing import Any

from .._base._errors import FollowUpLimitError, RemoteProtocolError, RunError
from .._tools._content import split_parts
from .._tools._results import ToolResult
from .._wire._events import AGUIEvent, UnknownEvent
from ._call_table import Calls
from ._interrupt_table import LEGACY_EVENT, Interrupts
from ._lifecycle import CallEvent, RunEvent
from ._records import RunEnd, RunRecord

__all__ = ["CHECKPOINT_EVENTS", "end_of_stream", "event_field", "note_event"]

# The events that complete something (a message, a call's arguments, the run, the state): a
# thread kept in a store saves after these, never after a text or argument delta.
# Wire names: ag-ui's EventType is a str enum whose members equal (and hash as) their names.
CHECKPOINT_EVENTS = frozenset({
    "TEXT_MESSAGE_END", "TOOL_CALL_END", "TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT",
    "STATE_DELTA", "RUN_FINISHED", "RUN_ERROR", "REASONING_MESSAGE_END", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA",
})


def event_field(event: AGUIEvent, name: str) -> Any:
    """A field of a decoded event, or of an `UnknownEvent`'s raw JSON (None when absent)."""
    if isinstance(event, UnknownEvent):
        return event.raw.get(name)
    return getattr(event, name, None)


def note_event(event: AGUIEvent, run: RunRecord, calls: Calls, interrupts: Interrupts) -> bool:
    """Take what `event` (already folded into the history) means for the run in flight.

    Returns:
        True when it ends the run (`RUN_FINISHED` or `RUN_ERROR`).
    """
    kind = event.type  # EventType is a str enum: it equals an UnknownEvent's str type
    ended = False
    if kind == "RUN_FINISHED":
        run.finished, ended = event, True
    elif kind == "RUN_ERROR":
        run.error, ended = event, True
    elif kind == "CUSTOM" and event_field(event, "name") == LEGACY_EVENT:
        interrupts.legacy_event(event_field(event, "value"),
                                event_field(event, "raw_event") or event_field(event, "rawEvent"), run.run_id)
    elif kind == "TOOL_CALL_RESULT" and not isinstance(event, UnknownEvent):
        call = calls.get(event_field(event, "tool_call_id"))
        if call is not None and not call.done:  # a server-side tool's result
            calls.settle(call, CallEvent.SUCCEED, ToolResult.success(*split_parts(event_field(event, "content"))),
                         message=False)
    return ended


def end_of_stream(run: RunRecord, calls: Calls, interrupts: Interrupts, *, follow_ups: int, max_follow_ups: int,
                  source: str) -> BaseException | tuple[RunEvent, RunEnd | None]:
    """What the end of the response makes of the run: the error it fails with, or the run
    event (and how the turn ended) to take; calls to answer are dispatched first.

    Args:
        follow_ups: the automatic follow-up runs made in a row, this one included.
        max_follow_ups: how many are allowed before `FollowUpLimitError`.
        source: names the server in error messages (its URL).
    """
    if run.error is not None:
        # An UnknownEvent's raw JSON may carry anything: the error's words are text.
        message, code = event_field(run.error, "message"), event_field(run.error, "code")
        return RunError(str(message) if message not in (None, "") else "(no message)", code)
    if run.finished is None:
        return RemoteProtocolError(
            f"The stream from {source} ended before RUN_FINISHED (after {run.events} events): "
            "the server closed the connection early or crashed. What arrived is kept; "
            "`await thread.run()` retries."
        )
    outcome = event_field(run.finished, "outcome")
    raised = interrupts.finish_run(run.run_id, outcome)
    held = {record.tool_call_id for record in raised if record.tool_call_id}
    pending = calls.pending_of(run, outcome, held=held, by_name=bool(raised))
    kind = outcome.get("type") if isinstance(outcome, dict) else getattr(outcome, "type", None)
    if kind == "cancelled":  # nothing is waited for: the calls it left are not run
        for call in pending:
            calls.settle(call, CallEvent.CANCEL, ToolResult.failure("Not run: the agent cancelled the run."))
        return RunEvent.FINISH_IDLE, RunEnd("cancelled", "Cancelled by the agent", run.run_id)
    if not pending and not raised:
        return RunEvent.FINISH_IDLE, RunEnd("finished", None, run.run_id)
    if pending and follow_ups >= max_follow_ups:
        return FollowUpLimitError(follow_ups, sorted({call.name for call in pending}))
    calls.dispatch(pending, run)
    return RunEvent.FINISH_PENDING, None
