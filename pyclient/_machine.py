"""The conversation machine: one thread's history, runs, tool calls and run status, sans-I/O.

h11's `Connection` is the model. `Conversation` never awaits, sends, sleeps or reads a
clock: AG-UI events go in (`receive`), answers go in (`serve`, `approve`, `answer`,
`cancel`, `release`), and `next_step()` says what the driver (`pyclient.Thread`) must do
next: `SendRequest`, `RunHandlers`, `WaitForActions`, `Idle` or `Failed`. Every state change
is a lookup in the tables of `pyclient._lifecycle`; an input that is illegal in the current
state raises `LocalProtocolError` naming the state and the input. What changed is queued
for the driver to publish (`drain()`), after the input is fully applied, so a listener
always sees a consistent machine.

Exactly once: a call's answer is one tool message, appended when the call reaches a
terminal status; a terminal status has no way out (`pyclient._lifecycle.TERMINAL`).

```python
from ag_ui.core import RunFinishedEvent, RunStartedEvent, TextMessageContentEvent
from pyclient._machine import Conversation
from pyclient._records import Idle

conversation = Conversation("t1")
conversation.add_user_message("hi")
request = conversation.start_run(tools=[])     # send request.body
conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.input.run_id))
conversation.receive(TextMessageContentEvent(message_id="m1", delta="Hello"))
conversation.receive(RunFinishedEvent(thread_id="t1", run_id=request.input.run_id))
conversation.end_stream()
assert isinstance(conversation.next_step(), Idle)
assert conversation.messages()[-1].content == "Hello" and conversation.run_status == "idle"
```
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from ._errors import (
    FollowUpLimitError,
    LocalProtocolError,
    RemoteProtocolError,
    RunError,
)
from ._events import AGUIEvent, UnknownEvent, event_type, text_content_class
from ._json import repair, repair_all
from ._history import History, message_adapter, new_id
from ._lifecycle import (
    RESTORE_CALL,
    RESTORE_IDEMPOTENT,
    RESTORE_RUN,
    RUN_STATUS,
    TERMINAL,
    CallEvent,
    CallStatus,
    RunEvent,
    RunState,
    RunStatus,
    next_call_status,
    next_run_state,
)
from ._records import (
    Call,
    Change,
    ChangeKind,
    Failed,
    Idle,
    RunEnd,
    RunHandlers,
    RunRequest,
    SendRequest,
    Step,
    WaitForActions,
)
from ._results import ToolResult
from ._tools import ClientTool

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._events.event_adapter`
    from ag_ui.core import Context, Message, TextMessageContentEvent, ToolCall, ToolMessage, UserMessage

    from ._scopes import Registration

# The steps and call records it hands out are defined in `pyclient._records`.
__all__ = ["DEFAULT_MAX_FOLLOW_UPS", "PROTOCOL_VERSION", "SNAPSHOT_VERSION", "Conversation", "as_message"]

PROTOCOL_VERSION = "1.0"
"""Sent as `protocolVersion`: servers (pydantic-ai) only report pending tool calls to 1.0 clients."""

DEFAULT_MAX_FOLLOW_UPS = 10

SNAPSHOT_VERSION = 1
"""The `"version"` of `Conversation.snapshot()`; `from_snapshot` refuses any other."""

# The events that complete something (a message, a call's arguments, the run, the state): a
# thread kept in a store saves after these, never after a text or argument delta.
# Wire names: ag-ui's EventType is a str enum whose members equal (and hash as) their names.
_MESSAGES = Change("messages")  # a text delta's change, queued once for a run of them

_CHECKPOINT_EVENTS = frozenset({
    "TEXT_MESSAGE_END", "TOOL_CALL_END", "TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT",
    "STATE_DELTA", "RUN_FINISHED", "RUN_ERROR", "REASONING_MESSAGE_END",
})

logger = logging.getLogger("pyclient")


def _contexts(items: Iterable[Context | dict[str, str]]) -> list[Context]:
    items = list(items)
    if not items:
        return []  # the usual case: ag_ui.core is not needed yet
    from ag_ui.core import Context

    return [item if isinstance(item, Context) else Context(**item) for item in items]


def as_message(message: Message | dict[str, Any]) -> Message:
    """A message model from a model or its JSON form (camelCase or snake_case keys)."""
    if isinstance(message, dict):
        return message_adapter().validate_python(message)
    return message


_EMPTY_MESSAGES_END = b'[]}'
_EMPTY_INPUT_START = b'{"threadId":"","runId":"","messages":[]'


def _field(event: AGUIEvent, name: str) -> Any:
    if isinstance(event, UnknownEvent):
        return event.raw.get(name)
    return getattr(event, name, None)


class Conversation:
    """The sans-I/O state of one thread; see the module docstring.

    Args:
        thread_id: the AG-UI `threadId`.
        messages: a history to start from (models or their JSON dicts).
        state: the initial shared state (`{}` when None).
        context: `Context` items or `{"description", "value"}` dicts, sent with every run.
        forwarded_props: a JSON value sent as `forwardedProps` (`{}` when None).
        max_follow_ups: automatic follow-up runs allowed in a row before `FollowUpLimitError`.
        restore: a snapshot and the tools by name (what `from_snapshot` passes; use that).

    Attributes:
        thread_id, context, forwarded_props, max_follow_ups: as given; the next request uses
            their current values.
        interrupted: the ids of the messages whose run was streaming when the page died
            (restored by `from_snapshot`): their text is partial.
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
        restore: tuple[Mapping[str, Any], Mapping[str, ClientTool]] | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.context = _contexts(context)
        self.forwarded_props = forwarded_props
        self.max_follow_ups = max_follow_ups
        self.run_state = RunState.IDLE
        self.error: BaseException | None = None
        self.run_end: RunEnd | None = None
        """How the last turn ended (None before the first ends, and while one is in flight)."""
        self.run_id = ""
        self.calls: dict[str, Call] = {}
        # The calls whose answer has not gone out yet, in call order: what pending(), stop() and
        # the like look at, so they cost the open calls, not every call the thread ever made.
        self._live: dict[str, Call] = {}
        self._history = History([as_message(m) for m in messages], state, on_call_started=self._call_started)
        self._changes: list[Change] = []
        self._advertised: dict[str, ClientTool] = {}
        self._declared: dict[str, ClientTool] = {}   # server-declared tools this request's calls may use
        self._run_calls: list[Call] = []     # the calls the current request streamed, in order
        self._to_start: list[Call] = []      # calls that entered EXECUTING since the last step
        self._finished: AGUIEvent | None = None
        self._run_error: AGUIEvent | None = None
        self._events = 0
        self._text_content: type | None = None   # ag-ui's TextMessageContentEvent, once a run starts
        self._follow_ups = 0
        self._run_start = 0                  # how many messages the history had when the run started
        self.interrupted: list[str] = []
        if restore is not None:  # from_snapshot(): the saved run state and calls, then the rules
            self._restore(self._load_calls(*restore))

    def __repr__(self) -> str:
        return f"<Conversation {self.thread_id!r} {self.run_state}>"

    # -- reading -------------------------------------------------------------------------

    @property
    def run_status(self) -> RunStatus:
        """`"idle"`, `"running"`, `"error"` or `"closed"`."""
        return RUN_STATUS[self.run_state]

    @property
    def run_ended(self) -> bool:
        """True once the request in flight has sent RUN_FINISHED or RUN_ERROR.

        The driver stops reading then and calls `end_stream()`: a server that keeps the
        connection open after the end of its run must not hold the run's tool calls back.
        """
        return self.run_state is RunState.STREAMING and (self._finished is not None or self._run_error is not None)

    @property
    def busy(self) -> bool:
        """True while a request is in flight or the calls of a finished run are being answered."""
        return self.run_state is RunState.STREAMING or self.run_state is RunState.AWAITING_TOOLS

    @property
    def state(self) -> Any:
        """The shared agent state (JSON)."""
        return self._history.state

    @state.setter
    def state(self, value: Any) -> None:
        self._history.state = value
        self._changed("state", value)

    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models (a new list each call)."""
        return self._history.messages()

    def tool_call(self, call_id: str) -> ToolCall | None:
        """The AG-UI `ToolCall` with this id, arguments as assembled so far."""
        return self._history.tool_call(call_id)

    def arguments(self, call_id: str) -> str | None:
        """The call's arguments as assembled so far: the approved edit once the user edited them."""
        call = self.calls.get(call_id)
        if call is not None and call.edited is not None:
            return call.edited
        return self._history.arguments(call_id)

    def tool_result(self, call_id: str) -> ToolMessage | None:
        """The tool message that answers the call, or None."""
        return self._history.tool_result(call_id)

    def pending(self) -> list[Call]:
        """The calls of the finished run still waiting for their answer, in call order."""
        return [call for call in self._live.values()
                if call.status is not CallStatus.STREAMING and call.status not in TERMINAL]

    def drain(self) -> list[Change]:
        """What changed since the last `drain()`, oldest first; a kind (and call) once each."""
        changes = self._changes
        if not changes:
            return []  # nothing: the common second call of a publish
        self._changes = []
        if len(changes) == 1 and changes[0].kind not in ("status", "state"):
            return changes  # one text delta's "messages": nothing to merge or refresh
        seen: set[tuple[str, Any]] = set()
        unique = []
        for change in changes:
            key = (change.kind, change.payload if change.kind == "action" else None)
            if key not in seen or change.kind == "error":
                seen.add(key)
                unique.append(change)
        # A status or state change is published with the latest value.
        return [Change(c.kind, self.run_status) if c.kind == "status"
                else Change(c.kind, self.state) if c.kind == "state" else c for c in unique]

    # -- saving and restoring -----------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The conversation as JSON, for a store; `from_snapshot()` restores it after a reload.

        Returns:
            A new dict: `version`, `thread_id`, `run_state`, `run_start` (the history's length
            when the last run started), `messages` (AG-UI JSON, camelCase), `state`, `calls`
            (`Call.to_json()`: status, result, execution, tool name, whether the answer was
            sent) and `interrupted`.
        """
        try:
            # From the JSON the requests keep (parsed in C) rather than ag-ui's serializer, which
            # runs Python code per model: a save costs little more than the store's own write.
            messages = json.loads(self._history.dump_json())
        except PydanticSerializationError:  # a lone surrogate: Python mode writes it as it is
            messages = [m.model_dump(mode="json", by_alias=True) for m in self._history.messages()]
        return {
            "version": SNAPSHOT_VERSION,
            "thread_id": self.thread_id,
            "run_state": self.run_state.value,
            "run_start": self._run_start,
            "messages": messages,
            "state": self.state,
            "calls": [call.to_json() for call in self.calls.values()],
            "interrupted": list(self.interrupted),
        }

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
        """The conversation a `snapshot()` saved, as it must go on after the page died.

        The saved states are loaded, then `pyclient._lifecycle.RESTORE_RUN` / `RESTORE_CALL` say
        what becomes of what was in flight: a streaming run is not resumed (its partial
        messages are listed in `interrupted`, its unanswered calls cancelled); an executing
        call is interrupted (an idempotent tool's call waits to run again); a call awaiting
        approval or input waits for its registration again; a finished run whose answers
        were not sent yet stays in AWAITING_TOOLS, so `next_step()` asks for the follow-up.
        Every change is queued for `drain()`, with a checkpoint.

        Args:
            data: what `snapshot()` returned (through JSON).
            tools: the tools by name, to give restored calls their tool (an `Action` needs it).
            context, forwarded_props, max_follow_ups: as for `Conversation` (not saved: the
                page gives them again).

        Raises:
            LocalProtocolError: `data` is not a snapshot this version can read.
        """
        if not isinstance(data, Mapping) or data.get("version") != SNAPSHOT_VERSION:
            version = data.get("version") if isinstance(data, Mapping) else type(data).__name__
            raise LocalProtocolError(
                f"Cannot restore a conversation from snapshot version {version!r}: this pyclient "
                f"reads version {SNAPSHOT_VERSION}. Delete the saved thread (`await store.delete(key)`)."
            )
        try:
            return cls(str(data["thread_id"]), messages=data["messages"], state=data.get("state"),
                       context=context, forwarded_props=forwarded_props, max_follow_ups=max_follow_ups,
                       restore=(data, tools or {}))
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            raise LocalProtocolError(
                f"Cannot restore thread {data.get('thread_id')!r}: its snapshot is damaged "
                f"({type(exc).__name__}: {exc}). Delete the saved thread (`await store.delete(key)`)."
            ) from None

    def _load_calls(self, data: Mapping[str, Any], tools: Mapping[str, ClientTool]) -> set[str]:
        """Take the run state and the calls from a snapshot; the ids of idempotent tools' calls."""
        self.run_state = RunState(data["run_state"])
        self._run_start = int(data.get("run_start", 0))
        self.interrupted = [str(i) for i in data.get("interrupted", ())]
        idempotent: set[str] = set()
        for item in data.get("calls", ()):
            tool = tools.get(str(item.get("tool") or item["name"]))
            call = Call.from_json(item, tool)
            self.calls[call.id] = call
            if not call.sent:
                self._live[call.id] = call
            if tool.idempotent if tool is not None else item.get("idempotent") is True:
                idempotent.add(call.id)
        return idempotent

    def _restore(self, idempotent: set[str]) -> None:
        if self.run_state is RunState.CLOSED:  # never saved; a new thread on the same id goes on
            self.run_state = RunState.IDLE
        streaming = self.run_state is RunState.STREAMING
        for call in self.calls.values():
            event = RESTORE_CALL[call.status]
            if event is CallEvent.INTERRUPT:
                call.approved_for = call.tool  # it was approved (or needed no approval) before it ran
                if call.id in idempotent:
                    event = RESTORE_IDEMPOTENT
            if event is CallEvent.CANCEL:
                self._answer(call, event, ToolResult.failure(
                    "Not run: the page was reloaded while the run was streaming this call."
                ), message=self._history.tool_call(call.id) is not None)
            elif event is not None:
                self._move(call, event)
                call.registration = None
        if streaming:
            partial = [m.id for m in self._history.messages()[self._run_start:]
                       if m.role in ("assistant", "reasoning") and m.id not in self.interrupted]
            self.interrupted.extend(partial)
        run_event = RESTORE_RUN[self.run_state]
        if run_event is not None:
            self._transition(run_event)
        for call in self.calls.values():
            if call.status is not CallStatus.STREAMING:
                self._changed("action", call.id)
        self._changed("messages")
        self._changed("state")
        self._changed("status")
        self._changed("checkpoint")

    # -- a turn ---------------------------------------------------------------------------

    def add_user_message(self, text: str) -> UserMessage:
        """Append the user's message; allowed only between runs.

        Raises:
            LocalProtocolError: a run is in flight, or the thread is closed.
        """
        self._check_between_runs("send a message")
        from ag_ui.core import UserMessage

        message = UserMessage(id=new_id(), content=repair(text))  # a lone surrogate could never be sent
        self._history.append(message)
        self._changed("messages")
        self._changed("checkpoint")
        return message

    def start_run(self, tools: Sequence[ClientTool], declared: Sequence[ClientTool] = ()) -> RunRequest:
        """Begin the next request: a new turn from idle or error, or the follow-up of a finished run.

        Args:
            tools: what this request advertises (the thread's snapshot, taken once now): these
                names may run when this request's calls come back.
            declared: the server-declared tools this client serves for the agent (never sent):
                calls to these names may run too. A name in `tools` takes precedence.

        Returns:
            The `RunAgentInput` to send and its JSON body.

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
            self._follow_ups += 1
        elif self.run_state is not RunState.STREAMING:
            self._follow_ups = 0
        run_id = new_id()
        request = self._request(run_id, tools)  # before the transition: a bad state raises cleanly
        self._transition(RunEvent.START)
        for call in [call for call in self._live.values() if call.done]:
            call.sent = True  # its answer is in this request's history now
            del self._live[call.id]
        self._run_start = len(self._history)
        self.run_id = run_id
        self._advertised = {tool.name: tool for tool in tools}
        self._declared = {tool.name: tool for tool in declared if tool.name not in self._advertised}
        self._run_calls = []
        self._finished = self._run_error = None
        self._events = 0
        self._text_content = text_content_class()
        if self.error is not None:
            self.error = None
        self._history.begin_run()
        return request

    def _request(self, run_id: str, tools: Sequence[ClientTool]) -> RunRequest:
        """The body `RunAgentInput(...).model_dump_json(by_alias=True)` gives, without serializing
        the history again: `History.dump_json` keeps each message's JSON.

        The fields before `messages` and those after it are serialized by ag-ui's model itself,
        as two inputs with no messages: one ends `"messages":[]}` (every field after it is
        unset, so left out) and one starts `{"threadId":"","runId":"","messages":[]`. A JSON
        object is its fields' JSON in field order, so the history's array between the two is
        the model's dump (`tests/unit/test_request_body.py` compares them).
        """
        from ag_ui.core import RunAgentInput

        state = self.state if self.state is not None else {}
        forwarded_props = self.forwarded_props if self.forwarded_props is not None else {}
        agui_tools = [tool.to_agui_tool() for tool in tools]
        try:
            head = RunAgentInput(thread_id=self.thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION,
                                 state=state, messages=[]).model_dump_json(by_alias=True).encode()
            tail = RunAgentInput(thread_id="", run_id="", messages=[], tools=agui_tools, context=self.context,
                                 forwarded_props=forwarded_props).model_dump_json(by_alias=True).encode()
            assert head.endswith(_EMPTY_MESSAGES_END) and tail.startswith(_EMPTY_INPUT_START)
            body = self._history.dump_json(head[:-len(_EMPTY_MESSAGES_END)], tail[len(_EMPTY_INPUT_START):])
        except PydanticSerializationError as exc:
            if "surrogates not allowed" in str(exc):
                # A lone UTF-16 surrogate from somewhere no repair covers (a server's snapshot,
                # the page's state): replace it everywhere rather than never send again.
                logger.warning("pyclient: lone surrogates in thread %s replaced with U+FFFD", self.thread_id)
                run_input = RunAgentInput(
                    thread_id=self.thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION,
                    messages=self._history.messages(), tools=agui_tools, state=state, context=self.context,
                    forwarded_props=forwarded_props,
                )
                # model_dump's Python mode encodes nothing, so it cannot fail on them.
                repaired = RunAgentInput.model_validate(repair_all(run_input.model_dump(by_alias=True)))
                return RunRequest(run_id, repaired.model_dump_json(by_alias=True).encode())
            raise LocalProtocolError(
                f"Cannot send a run of thread {self.thread_id!r}: its state, context or "
                f"forwarded_props is not JSON ({exc}). Keep `thread.state` and "
                "`thread.forwarded_props` to dicts, lists, strings, numbers, booleans and None."
            ) from None
        return RunRequest(run_id, body)

    def receive(self, event: AGUIEvent) -> bool:
        """Fold one AG-UI event of the request in flight into the conversation.

        Returns:
            `run_ended`: True once the run has sent RUN_FINISHED or RUN_ERROR (read no more).

        Raises:
            LocalProtocolError: no request is in flight (the run was stopped or has ended).
            RemoteProtocolError: a `STATE_DELTA` that does not apply to the current state.
        """
        if self.run_state is not RunState.STREAMING:
            raise LocalProtocolError(
                f"Cannot receive {event_type(event)} in run state {self.run_state}: no request "
                "is in flight. Events are fed between `start_run()` and `end_stream()` only."
            )
        self._events += 1
        if type(event) is self._text_content:
            # Most of a long answer: its own path, a few attribute reads and an append.
            text = cast("TextMessageContentEvent", event)
            self._history.add_text(text.message_id, text.delta)
            changes = self._changes
            if not changes or changes[-1] is not _MESSAGES:
                changes.append(_MESSAGES)
            return False
        changed = self._history.apply(event)
        kind = event.type  # EventType is a str enum: it equals an UnknownEvent's str type
        if kind == "RUN_FINISHED":
            self._finished = event
        elif kind == "RUN_ERROR":
            self._run_error = event
        elif kind == "TOOL_CALL_RESULT" and not isinstance(event, UnknownEvent):
            call = self.calls.get(_field(event, "tool_call_id"))
            if call is not None and not call.done:  # a server-side tool's result
                self._answer(call, CallEvent.SUCCEED, ToolResult.success(str(_field(event, "content"))),
                             message=False)
        if "messages" in changed:
            self._changed("messages")
        if "state" in changed:
            self._changed("state")
        if kind in _CHECKPOINT_EVENTS:
            self._changed("checkpoint")
        return self.run_ended

    def _call_started(self, call_id: str, name: str) -> None:
        call = self.calls.get(call_id)
        if call is None or call.done:  # a later run may use an id again: a new call
            call = self.calls[call_id] = self._live[call_id] = Call(call_id, name)
        if call.status is CallStatus.STREAMING and call not in self._run_calls:
            self._run_calls.append(call)

    def end_stream(self, source: str = "the server") -> None:
        """The response ended: finish the run (calls to answer, or idle) or fail it.

        Args:
            source: names the server in error messages (its URL).

        Raises:
            LocalProtocolError: no request is in flight.
        """
        if self.run_state is not RunState.STREAMING:
            raise LocalProtocolError(f"Cannot end a stream in run state {self.run_state}: no request is in flight.")
        if self._run_error is not None:
            error: BaseException = RunError(_field(self._run_error, "message") or "(no message)",
                                            _field(self._run_error, "code"))
            self.fail(error)
            return
        if self._finished is None:
            self.fail(RemoteProtocolError(
                f"The stream from {source} ended before RUN_FINISHED (after {self._events} events): "
                "the server closed the connection early or crashed. What arrived is kept; "
                "`await thread.run()` retries."
            ))
            return
        pending = self._pending_calls()
        for call in self._run_calls:  # the server handled these (or left them to another client)
            if call.status is CallStatus.STREAMING and call not in pending:
                self._move(call, CallEvent.SERVER_SIDE)
        if not pending:
            self._transition(RunEvent.FINISH_IDLE, RunEnd("finished", None, self.run_id))
            return
        if self._follow_ups >= self.max_follow_ups:
            self.fail(FollowUpLimitError(self._follow_ups, sorted({call.name for call in pending})))
            return
        for call in pending:
            self._history.attach(call.id)
            tool = self._advertised.get(call.name) or self._declared.get(call.name)
            if tool is None:
                names = ", ".join(sorted({*self._advertised, *self._declared})) or "none"
                self._answer(call, CallEvent.REFUSE, ToolResult.failure(
                    f"Tool {call.name!r} is not available in this thread: it was not among the tools "
                    f"sent with this run nor a tool of the agent this client serves (available: {names}). "
                    "Call one of those instead."
                ))
            else:
                call.tool = tool
                self._move(call, CallEvent.PENDING)
        self._transition(RunEvent.FINISH_PENDING)

    def _pending_calls(self) -> list[Call]:
        # RUN_FINISHED.outcome.pendingToolCallIds when the server names them (pydantic-ai does
        # for 1.0 clients); absent or empty means "every unanswered call of the run".
        # Ids that are not strings (a server bug) are skipped; repeats count once.
        assert self._finished is not None
        # A malformed outcome (an UnknownEvent's raw JSON: not a list, ids that are not strings)
        # names nothing; each id counts once however often it is repeated.
        outcome = _field(self._finished, "outcome")
        ids = outcome.get("pendingToolCallIds") if isinstance(outcome, dict) \
            else getattr(outcome, "pending_tool_call_ids", None)
        named = [i for i in ids if isinstance(i, str)] if isinstance(ids, (list, tuple)) else []
        if named:
            wanted = list(dict.fromkeys(self.calls[i] for i in named if i in self.calls))
        else:
            if ids:
                logger.warning("pyclient: RUN_FINISHED.outcome.pendingToolCallIds is not a list of ids "
                               "(%.100r); taking every unanswered call of the run as pending", ids)
            wanted = self._run_calls
        return [call for call in wanted
                if call.status is CallStatus.STREAMING and not self._history.is_answered(call.id)]

    def next_step(self) -> Step:
        """What the driver does next; see the module docstring.

        Raises:
            LocalProtocolError: a request is in flight (feed its events, then `end_stream()`).
        """
        state = self.run_state
        if state is RunState.STREAMING:
            raise LocalProtocolError(
                f"No next step in run state {state}: the request is in flight. Feed its events "
                "with `receive()`, then call `end_stream()`."
            )
        if state is RunState.ERROR:
            assert self.error is not None
            return Failed(self.error)
        if state is not RunState.AWAITING_TOOLS:
            return Idle()
        if self._to_start:
            calls, self._to_start = tuple(self._to_start), []
            return RunHandlers(tuple(c for c in calls if c.status is CallStatus.EXECUTING))
        waiting = self.pending()
        if waiting:
            return WaitForActions(tuple(waiting))
        return SendRequest()

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
        cancelled = self._cancel_open(f"Not run: {error}")
        self.error = error
        self._transition(RunEvent.FAIL, RunEnd("failed", str(error), self.run_id))
        self._changed("error", error)
        return cancelled

    def stop(self, reason: str) -> list[Call]:
        """Abandon the run: every call without an answer is cancelled with `reason`; status "idle".

        Returns:
            The calls it cancelled (the driver aborts their handlers with `reason`).
        """
        busy = self.busy
        cancelled = self._cancel_open(f"Tool call cancelled: {reason}")
        self._transition(RunEvent.STOP, RunEnd("stopped", reason, self.run_id) if busy else None)
        return cancelled

    def close(self, reason: str = "closed") -> list[Call]:
        """Stop for good: later `start_run`/`add_user_message` raise `LocalProtocolError`."""
        cancelled = self._cancel_open(f"Tool call cancelled: {reason}")
        if self.run_state is not RunState.CLOSED:
            self._transition(RunEvent.CLOSE, RunEnd("closed", reason, self.run_id))
            self._changed("closed")
        return cancelled

    def _cancel_open(self, message: str) -> list[Call]:
        cancelled = [call for call in self._live.values() if not call.done]
        for call in cancelled:
            self._answer(call, CallEvent.CANCEL, ToolResult.failure(message))
        return cancelled

    # -- answering calls ------------------------------------------------------------------

    def serve(self, call_id: str, tool: ClientTool, registration: Registration, *, input: bool = False) -> Call:
        """A registration serves an unavailable call: it runs, awaits approval, or awaits input.

        Args:
            tool: the serving registration's tool (it answers the call from now on).
            registration: the serving registration (handed back by `release`).
            input: the page answers the call (`answer`), not a handler.

        Raises:
            LocalProtocolError: the call is not unavailable.
        """
        call = self._call(call_id)
        if input:
            event = CallEvent.SERVE_INPUT
        elif tool.requires_approval and call.approved_for is not tool:
            event = CallEvent.SERVE_APPROVAL
        else:
            event = CallEvent.SERVE_RUN
        self._move(call, event)
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
        call = self._call(call_id)
        self._move(call, CallEvent.APPROVE)
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
            self._move(call, CallEvent.LOSE)
            call.registration = None
        return lost

    def unavailable(self) -> list[Call]:
        """The calls waiting for a registration, in call order."""
        return [call for call in self._live.values() if call.status is CallStatus.UNAVAILABLE]

    def handler_returned(self, call_id: str, execution: int, result: ToolResult) -> bool:
        """A handler finished: its result answers the call if that execution is still current.

        Returns:
            False when the result is stale (the call was answered meanwhile, or lost its
            registration and may run again): it is dropped.
        """
        call = self.calls.get(call_id)
        if call is None or call.status is not CallStatus.EXECUTING or call.execution != execution:
            return False
        self._answer(call, CallEvent.FAIL if result.error is not None else CallEvent.SUCCEED, result)
        return True

    def answer(self, call_id: str, result: ToolResult) -> Call:
        """Answer a pending call from outside its handler (`submit`, `fail`, reject).

        Raises:
            LocalProtocolError: no such call, or it already has its answer.
        """
        call = self._call(call_id)
        self._answer(call, CallEvent.FAIL if result.error is not None else CallEvent.SUCCEED, result)
        return call

    def retry(self, call_id: str) -> Call:
        """Run an interrupted call again: it becomes unavailable, and is served by its registration
        (without asking approval again: the retry is the user's).

        Raises:
            LocalProtocolError: no such call, or it is not interrupted.
        """
        call = self._call(call_id)
        self._move(call, CallEvent.RETRY)
        call.registration = None
        call.approved_for = call.tool  # retrying is the user's consent: not asked again
        return call

    def cancel(self, call_id: str, reason: str | None = None) -> Call | None:
        """Cancel a call (any status but terminal); the model is told it was cancelled.

        Returns:
            The call, or None when it already had its answer (nothing changes).
        """
        call = self._call(call_id)
        if call.done:
            return None
        message = f"Tool call cancelled: {reason}" if reason else "Tool call cancelled"
        self._answer(call, CallEvent.CANCEL, ToolResult.failure(message))
        return call

    # -- internals --------------------------------------------------------------------------

    def _call(self, call_id: str) -> Call:
        call = self.calls.get(call_id)
        if call is None:
            pending = ", ".join(repr(c.id) for c in self.pending()) or "none"
            raise LocalProtocolError(
                f"No tool call has id {call_id!r} in thread {self.thread_id!r} (pending: {pending}). "
                "Use an id from `thread.pending_actions`."
            )
        return call

    def _executing(self, call: Call) -> None:
        call.execution += 1
        self._to_start.append(call)

    def _answer(self, call: Call, event: CallEvent, result: ToolResult, *, message: bool = True) -> None:
        self._move(call, event)
        call.result = result
        call.registration = None
        # The call's one tool message, unless the history has it already (a server-side result,
        # or a MESSAGES_SNAPSHOT that answered the call while it was streaming). Repaired: a
        # lone surrogate in a result would make every later request unwritable.
        if message and not self._history.is_answered(call.id):
            content = result.content
            if call.edited is not None:  # the model must know its arguments were not the ones used
                content = f"The user edited the arguments before approving; the tool ran with {call.edited}.\n{content}"
            from ag_ui.core import ToolMessage

            self._history.append(ToolMessage(
                id=new_id(), tool_call_id=call.id, content=repair(content),
                error=repair(result.error) if result.error is not None else None,
            ))
            self._changed("messages")

    def _move(self, call: Call, event: CallEvent) -> None:
        call.status = next_call_status(call.status, event, call=f"{call.id!r} ({call.name})")
        if call.status is not CallStatus.STREAMING:
            self._changed("action", call.id)
            self._changed("checkpoint")

    def _transition(self, event: RunEvent, end: RunEnd | None = None) -> None:
        before = self.run_status
        self.run_state = next_run_state(self.run_state, event)
        if event is RunEvent.START:
            self.run_end = None
        elif end is not None:
            self.run_end = end
        self._changed("checkpoint")
        if self.run_status != before:
            self._changed("status")

    def _changed(self, kind: ChangeKind, payload: Any = None) -> None:
        self._changes.append(Change(kind, payload))

    def _check_between_runs(self, what: str) -> None:
        if self.busy or self.run_state is RunState.CLOSED:
            raise LocalProtocolError(
                f"Cannot {what} in thread {self.thread_id!r} in run state {self.run_state} "
                f"(run status {self.run_status!r}): "
                + ("the thread is closed; create a new one with `agent.thread()`."
                   if self.run_state is RunState.CLOSED else
                   "a run is in flight. Wait for the current `send()`/`run()` to return, or call `thread.stop()`.")
            )

    def check_can_start(self, what: str) -> None:
        """Raise `LocalProtocolError` unless a new turn may start (idle or error)."""
        self._check_between_runs(what)
