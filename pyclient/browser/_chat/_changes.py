"""What changed in a thread since the chat last drew it: thread events in, dirty marks out.

The chat's listeners do no DOM work: they hand each AG-UI event to `Changes.event()` and each
other `ThreadEvent` to `Changes.note()`, which only mark what changed (a message, a tool call
or an interrupt by id; `full` for anything else that changes the history or the run status;
the state, stopped and cancelled runs, the open steps), and the chat applies the marks once per
animation frame (`pyclient.browser._chat._reconcile`). A `"messages"` change right after a
delta that was marked by id is that delta, so it marks nothing more: a long answer costs one
bubble update per frame, not a reconcile per delta. `note()` says when to draw: `"frame"`,
`"now"` (the run is over: at once, even in a hidden tab) or `"closed"`. Pure Python: it never
touches the page. Each mark: docs/architecture.md ("How a frame draws the chat").

```python
from ag_ui.core import TextMessageContentEvent
from pyclient import ThreadEvent
from pyclient._conversation._records import RunEnd
from pyclient.browser._chat._changes import Changes

changes = Changes("idle", run_end=lambda: RunEnd("stopped", "stopped by the user"))
changes.take_full()
print(changes.note(ThreadEvent("event", TextMessageContentEvent(message_id="m1", delta="Hi"))))  # frame
print(changes.note(ThreadEvent("messages")), list(changes.take_messages()), changes.full)   # frame ['m1'] False
changes.note(ThreadEvent("status", "running"))
print(changes.note(ThreadEvent("status", "idle")), changes.take_stop_marks())        # now 1
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from ..._base._listeners import ThreadEvent
from ..._conversation._activities import ACTIVITY_EVENTS
from ..._wire._events import UnknownEvent, event_type
from .._widgets._active_steps import ActiveSteps

if TYPE_CHECKING:
    from ag_ui.core import TextMessageContentEvent, ToolCallArgsEvent

    from ..._conversation._records import RunEnd

__all__ = ["Changes", "When", "marked_id"]

When = Literal["frame", "now", "closed"]

_TEXT_CONTENT: type[TextMessageContentEvent] | None = None
_CALL_ARGS: type[ToolCallArgsEvent] | None = None


def _text_content() -> type[TextMessageContentEvent]:
    # ag_ui.core is imported on first use (`pyclient._wire._events.event_adapter`): a Chat exists
    # before it is, and an event only after.
    global _TEXT_CONTENT, _CALL_ARGS
    from ag_ui.core import TextMessageContentEvent, ToolCallArgsEvent

    _TEXT_CONTENT, _CALL_ARGS = TextMessageContentEvent, ToolCallArgsEvent
    return _TEXT_CONTENT


_TEXT_EVENTS = frozenset({"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK",
                          # a reasoning message streams into its "Thinking" section the same way
                          "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
                          "REASONING_MESSAGE_CHUNK"})
_ENDS = frozenset({"TEXT_MESSAGE_END", "REASONING_MESSAGE_END"})
_CALL_EVENTS = frozenset({"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK"})


class Changes:
    """The marks the chat draws from, drained by the chat's frame through the `take_*` methods.

    Args:
        run_status: the thread's run status when the chat starts.
        run_end: reads how the thread's last turn ended (`lambda: thread.run_end`); called
            on each `"status"` change that ends a run.
    """

    def __init__(self, run_status: str, *, run_end: Callable[[], RunEnd | None]) -> None:
        self._messages: dict[str, None] = {}  # an ordered set: new messages arrive in history order
        self._calls: dict[str, None] = {}     # calls whose card may have changed, in order
        self._started: dict[str, tuple[str, str | None]] = {}  # call id -> its name and subagent run
        self._full = True
        self._streaming: set[str] = set()
        self._stop_marks = 0
        self._interrupts: dict[str, None] = {}
        self._cancel_marks: list[str | None] = []
        self._steps = ActiveSteps()
        self._state = True
        self._broken_activities: list[str] = []
        self._status = run_status
        self._run_end = run_end
        self._by_id = False          # the last event was a delta marked by id

    # -- what the frame drains ---------------------------------------------------------------

    @property
    def full(self) -> bool:
        """A full pass (every message and call, in history order) is due."""
        return self._full

    def mark_full(self) -> None:
        """Draw everything at the next frame (a window widened, the tools changed)."""
        self._full = True

    def take_full(self) -> bool:
        """Whether a full pass is due; it is not any more."""
        full, self._full = self._full, False
        return full

    def take_messages(self) -> dict[str, None]:
        """The ids of the messages whose text changed, in the order they changed; cleared."""
        messages, self._messages = self._messages, {}
        return messages

    def is_streaming(self, message_id: str) -> bool:
        """The text of this message is still streaming (Markdown renders it lazily)."""
        return message_id in self._streaming

    @property
    def pending(self) -> bool:
        """Cards to make or update, or a full pass, wait for a frame."""
        return bool(self._calls) or self._full

    def queue_call(self, call_id: str) -> None:
        """Update this call's card (make it first if need be) in a coming frame."""
        self._calls[call_id] = None

    def queued_calls(self) -> list[str]:
        """The calls whose card may have changed, in the order they were marked."""
        return list(self._calls)

    def done_call(self, call_id: str) -> None:
        """This call's card is up to date."""
        self._calls.pop(call_id, None)

    def started(self, call_id: str) -> tuple[str, str | None] | None:
        """The tool name and the subagent run (its card's group) a `TOOL_CALL_START` gave this call."""
        return self._started.get(call_id)

    def take_interrupts(self) -> dict[str, None]:
        """The ids of the interrupts whose card may have changed, in order; cleared."""
        interrupts, self._interrupts = self._interrupts, {}
        return interrupts

    def take_stop_marks(self) -> int:
        """How many stopped runs have no "Stopped" marker in the list yet; none any more."""
        marks, self._stop_marks = self._stop_marks, 0
        return marks

    def take_cancel_marks(self) -> list[str | None]:
        """The reasons of the runs the agent cancelled that have no marker yet; cleared."""
        marks, self._cancel_marks = self._cancel_marks, []
        return marks

    def take_broken_activities(self) -> list[str]:
        """What was wrong with the activity events that did not validate, not shown yet; cleared."""
        broken, self._broken_activities = self._broken_activities, []
        return broken

    def take_steps(self) -> list[str] | None:
        """The run's open steps (`STEP_STARTED` / `STEP_FINISHED`) if they changed, else None."""
        if not self._steps.changed:
            return None
        self._steps.changed = False
        return list(self._steps.names)

    def take_state(self) -> bool:
        """Whether the shared state changed since the state panel was last drawn."""
        state, self._state = self._state, False
        return state

    # -- what marks ----------------------------------------------------------------------------

    def event(self, payload: Any) -> str | None:
        """Mark what an AG-UI event changed (`thread.subscribe_events`); draw at the next frame.

        Returns the message id of a text delta (`TEXT_MESSAGE_CONTENT`) or the call id of an
        argument delta (`TOOL_CALL_ARGS`), else None: until the chat draws or another change or
        event comes, more deltas of that message or call would mark nothing new, and the chat
        need not pass them on (`marked_id(event)` reads the id of a delta).
        """
        kind = type(payload)
        if kind is (_TEXT_CONTENT or _text_content()):  # most events, by far: the fast path
            self._by_id = True
            message_id: str = payload.message_id
            self._messages[message_id] = None
            self._streaming.add(message_id)
            return message_id
        if kind is _CALL_ARGS:  # a long argument's deltas: the same, for its card
            self._by_id = True
            call_id: str = payload.tool_call_id
            self._calls[call_id] = None
            return call_id
        self._event(payload)
        return None

    def note(self, event: ThreadEvent) -> When:
        """Mark what `event` changed; say when to draw it."""
        kind = event.kind
        if kind == "event":
            self.event(event.payload)
            return "frame"
        by_id, self._by_id = self._by_id, False
        if kind == "messages":
            # After a delta marked by id, the history change is that delta: nothing more to do.
            if not by_id:
                self._full = True
        elif kind == "action":
            call_id = getattr(event.payload, "id", None)
            if isinstance(call_id, str):
                self._calls[call_id] = None
        elif kind == "interrupt":
            interrupt_id = getattr(event.payload, "id", None)
            if isinstance(interrupt_id, str):
                self._interrupts[interrupt_id] = None
            call_id = getattr(event.payload, "tool_call_id", None)
            if isinstance(call_id, str):
                self._calls[call_id] = None  # a server tool's call shows its approval's status
        elif kind == "status":
            return self._run_status(str(event.payload))
        elif kind == "closed":
            return "closed"
        elif kind == "state":
            self._state = True
        else:  # error, tools, mounted
            self._full = True
        return "frame"

    def _event(self, payload: Any) -> None:
        kind = event_type(payload)
        self._by_id = False
        if kind in _TEXT_EVENTS:
            message_id = getattr(payload, "message_id", None)
            if not isinstance(message_id, str):
                self._full = True
                return
            self._by_id = True
            self._messages[message_id] = None
            if kind in _ENDS:
                self._streaming.discard(message_id)
            else:
                self._streaming.add(message_id)
        elif kind in _CALL_EVENTS or kind == "TOOL_CALL_RESULT":
            call_id = getattr(payload, "tool_call_id", None)
            if not isinstance(call_id, str):
                self._full = True
                return
            self._calls[call_id] = None
            name = getattr(payload, "tool_call_name", None)
            if isinstance(name, str) and call_id not in self._started:
                self._started[call_id] = (name, getattr(payload, "subagent_run_id", None))
            # A result adds a tool message: its "messages" change reconciles (it answers a card).
            self._by_id = kind != "TOOL_CALL_RESULT"
        elif kind == "MESSAGES_SNAPSHOT":
            self._full = True
        elif kind == "STEP_STARTED" or kind == "STEP_FINISHED":
            name = getattr(payload, "step_name", None)
            if isinstance(name, str):
                (self._steps.started if kind == "STEP_STARTED" else self._steps.finished)(name)
        elif kind in ACTIVITY_EVENTS and isinstance(payload, UnknownEvent):
            self._broken_activities.append(_invalid(kind, payload))

    def _run_status(self, status: str) -> When:
        previous, self._status = self._status, status
        self._full = True
        if status == "running":
            return "frame"
        if previous == "running":
            end = self._run_end()
            if end is not None and end.how == "stopped":
                self._stop_marks += 1
            elif end is not None and end.how == "cancelled":
                self._cancel_marks.append(end.reason)
        self._streaming.clear()
        self._steps.clear()  # however the run ended, no step of it is open any more
        return "now"


def marked_id(event: Any) -> str:
    """The id a delta that `Changes.event` returned an id for marks: its message's or its call's."""
    return event.message_id if type(event) is _TEXT_CONTENT else event.tool_call_id


def _invalid(kind: str, event: UnknownEvent) -> str:
    """What was wrong with an activity event that did not validate, in a line: its field and why."""
    lines = (event.error or "").splitlines()
    field, why = (lines[1].split(".", 1)[-1], lines[2].split(" [", 1)[0].strip()) if len(lines) > 2 else ("", "")
    activity = event.raw.get("activityType")
    named = f" {activity!r:.40}" if isinstance(activity, str) else ""
    return f"the server's {kind}{named}: {field}: {why}" if field else f"the server's {kind}{named} did not validate"
