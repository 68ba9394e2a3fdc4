"""The conversation machine: one thread's history, runs, tool calls and run status, sans-I/O.

h11's `Connection` is the model. `Conversation` never awaits, sends, sleeps or reads a clock:
AG-UI events go in (`receive`), answers go in through its calls (`pyclient._conversation._call_table`), and
`next_step()` says what the driver (`pyclient._driver._loop`) must do next: `SendRequest`,
`RunHandlers`, `WaitForActions`, `Idle` or `Failed`. Every state change is a lookup in the
tables of `pyclient._conversation._lifecycle` (an illegal input raises `LocalProtocolError`); what changed is
queued for the driver (`drain()`), and `checkpoint` counts the transitions a store saves after.
Its read-only views are `pyclient._conversation._views`; what a stream means for the run,
`pyclient._conversation._run_outcome`; what a restored snapshot becomes, `pyclient._conversation._restoring`.

```python
from ag_ui.core import RunFinishedEvent, RunStartedEvent, TextMessageContentEvent
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import Idle

conversation = Conversation("t1")
conversation.add_user_message("hi")
request = conversation.start_run(tools=[])     # send request.body
conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.run_id))
conversation.receive(TextMessageContentEvent(message_id="m1", delta="Hello"))
conversation.receive(RunFinishedEvent(thread_id="t1", run_id=request.run_id))
conversation.end_stream()
assert isinstance(conversation.next_step(), Idle)
assert conversation.messages()[-1].content == "Hello" and conversation.run_status == "idle"
print(conversation.run_end.how)                # finished
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from .._base._errors import LocalProtocolError
from .._base._ids import new_id
from .._base._json import repair
from .._base._listeners import ChangeKind
from .._tools._client_tool import ClientTool
from .._tools._content import content_of
from .._tools._media import Media
from .._wire._events import AGUIEvent, event_type, text_content_class
from ._branches import Branches
from ._call_table import Calls
from ._entries import as_contexts, as_message
from ._feedback import Feedback
from ._history import History
from ._interrupt_table import Interrupts
from ._lifecycle import CallStatus, RunEvent, RunState, next_run_state
from ._records import (Call, Change, Failed, Idle, RunEnd, RunHandlers, RunRecord, RunRequest, SendRequest, Step,
                       WaitForActions, merge_changes)
from ._request_body import run_body
from ._restoring import restored
from ._run_outcome import CHECKPOINT_EVENTS, end_of_stream, note_event
from ._views import ConversationViews

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Context, Message, TextMessageContentEvent, UserMessage

__all__ = ["DEFAULT_MAX_FOLLOW_UPS", "Conversation"]

DEFAULT_MAX_FOLLOW_UPS = 10

_MESSAGES = Change("messages")  # a text delta's change, queued once for a run of them


class Conversation(ConversationViews):
    """The sans-I/O state of one thread; see the module docstring.

    Args:
        thread_id: the AG-UI `threadId`.
        messages: a history to start from (models or their JSON dicts).
        state: the initial shared state (`{}` when None).
        context: `Context` items or `{"description", "value"}` dicts, sent with every run.
        forwarded_props: a JSON value sent as `forwardedProps` (`{}` when None).
        max_follow_ups: automatic follow-up runs allowed in a row before `FollowUpLimitError`.

    Attributes:
        thread_id, context, forwarded_props, max_follow_ups: as given; the next request uses
            their current values.
        calls, interrupts, run, run_state, history: see `ConversationViews`.
        error: the error of the last run, or None.
        run_end: how the last turn ended (`RunEnd`), None while one is in flight.
        checkpoint: counts the transitions that matter (a message completed, a call changed
            status, a run started or ended): a store saves after each; text deltas never move it.
        interrupted: the ids of the messages whose run was streaming when the page died
            (restored by `restore`): their text is partial.
    """

    def __init__(
        self,
        thread_id: str,
        *,
        messages: Iterable[Message | dict[str, Any]] = (),
        state: Any = None,
        context: Iterable[Context | dict[str, str]] = (),
        forwarded_props: Any = None,
        max_follow_ups: int = DEFAULT_MAX_FOLLOW_UPS,
    ) -> None:
        self.thread_id = thread_id
        self.context = as_contexts(context)
        self.forwarded_props = forwarded_props
        self.max_follow_ups = max_follow_ups
        self.run_state = RunState.IDLE
        self.error: BaseException | None = None
        self.run_end: RunEnd | None = None
        self.run = RunRecord()
        self.checkpoint = 0
        self.interrupted: list[str] = []
        self._changes: list[Change] = []
        self._follow_ups = 0
        self.history = History([as_message(m) for m in messages], state, on_call_started=self._call_started)
        self.calls = Calls(thread_id, self.history, self._tracked_changed)
        self.interrupts = Interrupts(thread_id, self._tracked_changed)
        self.branches = Branches()
        self.feedback = Feedback(changed=self._feedback_changed)

    def __repr__(self) -> str:
        return f"<Conversation {self.thread_id!r} {self.run_state}>"

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The shared agent state (JSON)."""
        return self.history.state

    @state.setter
    def state(self, value: Any) -> None:
        self.history.state = value
        self._changed("state", value)

    def drain(self) -> list[Change]:
        """What changed since the last `drain()`, oldest first; a kind (and call) once each,
        a status or state change with the latest value (`pyclient._conversation._records.merge_changes`)."""
        changes, self._changes = self._changes, []
        return merge_changes(changes, self.run_status, self.state)

    # -- saving and restoring -----------------------------------------------------------

    def snapshot(self, file_limit: int | None = None, *, whole: bool = True) -> dict[str, Any]:
        """The conversation as JSON data for a store (`pyclient._conversation._snapshot.Snapshot`); `restore()`
        reads it. A file over `file_limit` bytes is kept as a text part that names it.
        `whole=False`: without the messages, calls and interrupts (the head of a record,
        `pyclient._driver._journal`)."""
        from ._snapshot import Snapshot

        return Snapshot.of(thread_id=self.thread_id, run_state=self.run_state, run_start=self.run.start,
                           history=self.history, calls=self.calls.values() if whole else (),
                           interrupted=self.interrupted, interrupts=self.interrupts.values() if whole else (),
                           file_limit=file_limit, branches=self.branches.saved(), feedback=self.feedback.saved(),
                           with_messages=whole).dump()

    @classmethod
    def from_snapshot(
        cls,
        data: Mapping[str, Any],
        *,
        tools: Mapping[str, ClientTool] | None = None,
        context: Iterable[Context | dict[str, str]] = (),
        forwarded_props: Any = None,
        max_follow_ups: int = DEFAULT_MAX_FOLLOW_UPS,
    ) -> Conversation:
        """A new conversation restored from a `snapshot()` (see `restore`).

        Raises:
            LocalProtocolError: `data` is not a snapshot this version can read.
        """
        thread_id = data.get("thread_id") if isinstance(data, Mapping) else None
        conversation = cls(str(thread_id), context=context, forwarded_props=forwarded_props,
                           max_follow_ups=max_follow_ups)
        conversation.restore(data, tools or {})
        return conversation

    def restore(self, data: Mapping[str, Any], tools: Mapping[str, ClientTool]) -> None:
        """Take the conversation a `snapshot()` saved, as it must go on after the page died.

        The saved states are loaded, then the restore rules (`pyclient._conversation._restoring`) say what
        becomes of what was in flight. Every change is queued for `drain()`, and the checkpoint moves.

        Args:
            data: what `snapshot()` returned (through JSON).
            tools: the tools by name, to give restored calls their tool (an `Action` needs it).

        Raises:
            LocalProtocolError: `data` is not a snapshot this version can read; nothing changed.
        """
        parts = restored(data, tools, on_call_started=self._call_started, changed=self._tracked_changed,
                         feedback_changed=self._feedback_changed)
        self.thread_id, self.history, self.calls, self.interrupts = (parts.thread_id, parts.history, parts.calls,
                                                                      parts.interrupts)
        self.run_state, self.run, self.interrupted = parts.run_state, parts.run, parts.interrupted
        self.branches, self.feedback = parts.branches, parts.feedback
        if parts.run_event is not None:
            self._transition(parts.run_event)
        self._changes.extend(parts.changes)
        self.checkpoint += 1

    def show_messages(self, messages: list[Message], what: str) -> None:
        """Show another branch (`pyclient._conversation._branches`): the history becomes `messages`, and the
        next request carries them.

        Raises:
            LocalProtocolError: a run is in flight or the thread is closed (`what` names the act).
        """
        self.check_can_start(what)
        from ag_ui.core import MessagesSnapshotEvent

        self.history.apply(MessagesSnapshotEvent(messages=messages))
        self._changed("messages")
        self.checkpoint += 1

    # -- a turn ---------------------------------------------------------------------------

    def add_user_message(self, text: str, files: Sequence[Media] = ()) -> UserMessage:
        """Append the user's message: between runs, or while the run waits only for the person
        (`waiting_for_person`): then every open interrupt and every call waiting for the
        person is cancelled first ("the user sent a new message instead"), so the request that
        carries the message tells the agent, and `next_step()` asks for it.

        Raises:
            LocalProtocolError: a run is in flight (a request, a handler), or the thread is closed.
        """
        if self.waiting_for_person:
            reason = "the user sent a new message instead"
            self.interrupts.cancel_open(reason)
            for call in self.calls.pending():
                self.calls.cancel(call.id, reason)
        else:
            self.check_can_start("send a message")
        from ag_ui.core import UserMessage

        # A lone surrogate could never be sent; with files the content is a list of parts.
        message = UserMessage.model_validate({"id": new_id(), "role": "user", "content": content_of(repair(text), files)})
        self.history.append(message)
        self._changed("messages")
        self.checkpoint += 1
        return message

    def start_run(self, tools: Sequence[ClientTool], declared: Sequence[ClientTool] = ()) -> RunRequest:
        """Begin the next request: a new turn from idle or error, or the follow-up of a finished run.

        Args:
            tools: what this request advertises (the thread's snapshot, taken once now): these
                names may run when this request's calls come back.
            declared: the server-declared tools this client serves for the agent (never sent):
                calls to these names may run too. A name in `tools` takes precedence.

        Returns:
            The run's id and the JSON body of its `RunAgentInput`.

        Raises:
            LocalProtocolError: a request is in flight, calls still wait for answers, the
                thread is closed, or its state / context / forwarded_props is not JSON.
        """
        if self.run_state is RunState.AWAITING_TOOLS:
            waiting = self.pending()
            if waiting:
                raise LocalProtocolError(
                    f"Cannot send the follow-up of thread {self.thread_id!r} in run state {self.run_state}: "
                    f"{len(waiting)} tool call(s) still wait for an answer ({waiting[0]!r}, ...). "
                    "Answer or cancel them first."
                )
            follow_ups = self._follow_ups + 1
        else:
            follow_ups = 0
        if self.interrupts.unsent():
            follow_ups = 0  # a resume carries the person's answers: not a follow-up the model ran away with
        next_run_state(self.run_state, RunEvent.START)  # a run in flight or a closed thread raises here
        run_id = new_id()
        body = run_body(  # before the transition: a bad state raises cleanly
            self.history, self.interrupts, thread_id=self.thread_id, run_id=run_id, tools=tools,
            context=self.context, forwarded_props=self.forwarded_props,
        )
        self._follow_ups = follow_ups
        self._transition(RunEvent.START)
        self.calls.mark_sent()
        self.interrupts.mark_sent()
        self.interrupts.begin_run()
        advertised = {tool.name: tool for tool in tools}
        self.run = RunRecord(run_id, len(self.history), advertised,
                             {tool.name: tool for tool in declared if tool.name not in advertised},
                             text_content_class())
        self.error = None
        self.history.begin_run()
        return RunRequest(run_id, body)

    def receive(self, event: AGUIEvent) -> bool:
        """Fold one AG-UI event of the request in flight into the conversation.

        Returns:
            `run_ended`: True once the run has sent RUN_FINISHED or RUN_ERROR (read no more).

        Raises:
            LocalProtocolError: no request is in flight. (Events after the run's end are still
                folded, for a caller that feeds a whole stream; the driver reads no more.)
            RemoteProtocolError: a `STATE_DELTA` that does not apply to the current state, or a
                state past the limits of `pyclient._base._json_patch` (the state is left as it was).
        """
        if self.run_state is not RunState.STREAMING and self.run_state is not RunState.ENDED:
            raise LocalProtocolError(
                f"Cannot receive {event_type(event)} in run state {self.run_state}: no request "
                "is in flight. Events are fed between `start_run()` and `end_stream()` only."
            )
        run = self.run
        run.events += 1
        if type(event) is run.text_content:
            # Most of a long answer: its own path, a few attribute reads and an append.
            text = cast("TextMessageContentEvent", event)
            if not self.history.add_text(text.message_id, text.delta):
                return False  # it named a message text may not change (reported): nothing changed
            changes = self._changes
            if not changes or changes[-1] is not _MESSAGES:
                changes.append(_MESSAGES)
            return False
        changed = self.history.apply(event)
        ended = note_event(event, run, self.calls, self.interrupts)  # the run's end, legacy interrupts, results
        if "messages" in changed:
            self._changed("messages")
        if "state" in changed:
            self._changed("state")
        if event.type in CHECKPOINT_EVENTS:
            self.checkpoint += 1
        if ended and self.run_state is RunState.STREAMING:
            self._transition(RunEvent.END)
        return ended

    def _call_started(self, call_id: str, name: str) -> None:
        call = self.calls.started(call_id, name)
        if call.status is CallStatus.STREAMING and call not in self.run.calls:
            self.run.calls.append(call)

    def end_stream(self, source: str = "the server") -> None:
        """The response ended: finish the run (calls to answer, or idle) or fail it.

        Args:
            source: names the server in error messages (its URL).

        Raises:
            LocalProtocolError: no request is in flight.
        """
        if self.run_state is not RunState.STREAMING and self.run_state is not RunState.ENDED:
            raise LocalProtocolError(f"Cannot end a stream in run state {self.run_state}: no request is in flight.")
        verdict = end_of_stream(self.run, self.calls, self.interrupts, follow_ups=self._follow_ups,
                                max_follow_ups=self.max_follow_ups, source=source)  # `pyclient._conversation._run_outcome`
        if isinstance(verdict, BaseException):
            self.fail(verdict)
        else:
            self._transition(*verdict)

    def next_step(self) -> Step:
        """What the driver does next; see the module docstring.

        Raises:
            LocalProtocolError: a request is in flight (feed its events, then `end_stream()`).
        """
        state = self.run_state
        if state is RunState.STREAMING or state is RunState.ENDED:
            raise LocalProtocolError(
                f"No next step in run state {state}: the request is in flight. Feed its events "
                "with `receive()`, then call `end_stream()`."
            )
        if state is RunState.ERROR:
            assert self.error is not None
            return Failed(self.error)
        if state is not RunState.AWAITING_TOOLS:
            return Idle()
        if self.calls.to_start:
            return RunHandlers(self.calls.take_to_start())
        if self.pending() or self.interrupts.open():
            return WaitForActions()
        if not self.interrupts.unsent() and not any(call.done for call in self.calls.live()):
            # Nothing to send: every interrupt expired (or the page dropped what it waited for).
            self._transition(RunEvent.FINISH_IDLE, RunEnd("finished", "the interrupt expired before an answer",
                                                          self.run.run_id))
            return Idle()
        return SendRequest()

    def expire_due(self, now: datetime) -> list[str]:
        """Expire the open interrupts whose `expiresAt` has passed (the driver's clock): they are
        never resumed. Returns their ids."""
        return [record.id for record in self.interrupts.expire_due(now)]

    # -- failing, stopping, closing -------------------------------------------------------

    def fail(self, error: BaseException) -> list[Call]:
        """The run failed: every call without an answer is cancelled ("Not run: ..."), status "error".

        Returns:
            The calls it cancelled (the driver aborts their handlers).

        Raises:
            LocalProtocolError: no run is in flight.
        """
        if not self.busy:
            raise LocalProtocolError(f"Cannot fail a run in run state {self.run_state}: no run is in flight.")
        cancelled = self.calls.cancel_open(f"Not run: {error}")
        self.interrupts.cancel_open(f"the run failed: {error}")
        self.error = error
        self._transition(RunEvent.FAIL, RunEnd("failed", str(error), self.run.run_id))
        self._changed("error", error)
        return cancelled

    def stop(self, reason: str) -> list[Call]:
        """Abandon the run: every call without an answer is cancelled with `reason`; status "idle".

        Returns:
            The calls it cancelled (the driver aborts their handlers with `reason`).
        """
        busy = self.busy
        cancelled = self.calls.cancel_open(f"Tool call cancelled: {reason}")
        self.interrupts.cancel_open(reason)  # the agent is told "cancelled" with the next request
        self._transition(RunEvent.STOP, RunEnd("stopped", reason, self.run.run_id) if busy else None)
        return cancelled

    def close(self, reason: str = "closed") -> list[Call]:
        """Stop for good: later `start_run`/`add_user_message` raise `LocalProtocolError`."""
        cancelled = self.calls.cancel_open(f"Tool call cancelled: {reason}")
        self.interrupts.cancel_open(reason)
        if self.run_state is not RunState.CLOSED:
            self._transition(RunEvent.CLOSE, RunEnd("closed", reason, self.run.run_id))
            self._changed("closed")
        return cancelled

    # -- internals --------------------------------------------------------------------------

    def _transition(self, event: RunEvent, end: RunEnd | None = None) -> None:
        before = self.run_status
        self.run_state = next_run_state(self.run_state, event)
        if event is RunEvent.START:
            self.run_end = None
        elif end is not None:
            self.run_end = end
            self.history.subagents.turn_ended()  # one still running was cut (a stop, a failure)
        self.checkpoint += 1
        if self.run_status != before:
            self._changed("status")

    def _feedback_changed(self) -> None:
        self._tracked_changed(Change("feedback"))

    def _tracked_changed(self, change: Change) -> None:
        self._changes.append(change)  # a call's or an interrupt's: each a transition that matters
        self.checkpoint += 1

    def _changed(self, kind: ChangeKind, payload: Any = None) -> None:
        self._changes.append(Change(kind, payload))
