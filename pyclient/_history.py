"""A thread's history and shared state, assembled from AG-UI events (sans-I/O).

`History.apply(event)` folds one decoded event into the conversation: streamed text (kept as
a list of pieces, joined on demand, so a long answer costs linear time), tool calls whose
arguments are assembled per `toolCallId` (never per "current call"), tool results, reasoning
(messages of role `"reasoning"`, and the encrypted values to echo back: one naming a reasoning
span with no text becomes an empty reasoning message, so it is sent back), activities
(`pyclient._activities`), `STATE_SNAPSHOT`/`STATE_DELTA` (JSON Patch), `MESSAGES_SNAPSHOT`, and
subagents (`SUBAGENT_*` into `subagents`; a message keeps the `subagentRunId` of the event that
started it). `messages()` returns `ag_ui.core` models, ready to be sent back.

Tolerated on purpose (servers do these): `TOOL_CALL_ARGS` after `TOOL_CALL_END` for the same
id (pydantic-ai with parallel calls), `TOOL_CALL_ARGS` before its `TOOL_CALL_START`, content
for a message that was never started, `*_CHUNK` events without ids (they continue the last
chunked message or call).

```python
from ag_ui.core import TextMessageContentEvent, TextMessageStartEvent, UserMessage
from pyclient._history import History

history = History()
history.append(UserMessage(id="u1", content="hi"))
history.apply(TextMessageStartEvent(message_id="m1", role="assistant"))
history.apply(TextMessageContentEvent(message_id="m1", delta="Hel"))
history.apply(TextMessageContentEvent(message_id="m1", delta="lo"))
assert history.messages()[-1].content == "Hello"
```
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticSerializationError

from ._entries import TEXT_ROLES, CallEntry, MessageEntry, message_adapter, new_id
from ._errors import LocalProtocolError, RemoteProtocolError
from ._events import AGUIEvent, UnknownEvent, event_type
from ._json import repair, repair_all
from ._subagents import Subagents

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._events.event_adapter`
    from ag_ui.core import Context, Message, Tool, ToolCall, ToolMessage

__all__ = ["PROTOCOL_VERSION", "History"]

logger = logging.getLogger("pyclient")

PROTOCOL_VERSION = "1.0"
"""Sent as `protocolVersion`: servers (pydantic-ai) only report pending tool calls to 1.0 clients."""

_EMPTY_MESSAGES_END = b'[]}'
_EMPTY_INPUT_START = b'{"threadId":"","runId":"","messages":[]'


class History:
    """Messages and shared state of one thread, built from AG-UI events.

    Args:
        messages: the messages to start from.
        state: the initial shared state (`{}` when None).
        on_call_started: called with the id of every tool call an event starts (the
            conversation machine tracks each call's status from there).

    Attributes:
        state: the shared agent state (JSON), replaced by `STATE_SNAPSHOT`, patched by
            `STATE_DELTA`.
    """

    def __init__(
        self,
        messages: Iterable[Message] | None = None,
        state: Any = None,
        *,
        on_call_started: Callable[[str, str], None] | None = None,
    ) -> None:
        self._entries: list[MessageEntry] = []
        self._by_id: dict[str, MessageEntry] = {}
        self._calls: dict[str, CallEntry] = {}
        self._answered: dict[str, MessageEntry] = {}  # tool call id -> its tool message
        self._early_args: dict[str, list[str]] = {}
        self._on_call_started = on_call_started
        self._chunk_message_id: str | None = None
        self._chunk_call_id: str | None = None
        self._run = 0
        # The messages' JSON as requests carry it, serialized once each: `dump_json` appends the
        # messages added since the last request; `_wire_ends[i]` is where message i ends.
        self._wire = bytearray()
        self._wire_ends = array("q")
        self.state: Any = {} if state is None else state
        self.subagents = Subagents()
        """The subagent invocations (`SUBAGENT_*` events); messages carry their `subagent_run_id`."""
        self._reasoning_spans: set[str] = set()  # REASONING_START ids: an encrypted value may name one
        self.activity_problems: dict[str, str] = {}  # activity id -> why its last update did not apply
        for message in messages or ():
            self.append(message)

    # -- reading -------------------------------------------------------------------------

    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models, in order (a new list each call)."""
        return [entry.model() for entry in self._entries]

    def __len__(self) -> int:
        return len(self._entries)

    def is_answered(self, tool_call_id: str) -> bool:
        """True once a tool message for `tool_call_id` is in the history."""
        return tool_call_id in self._answered

    def is_declared(self, tool_call_id: str) -> bool:
        """True while an assistant message of the history declares this call (a snapshot may
        have dropped it): only then may a tool message answer it."""
        call = self._calls.get(tool_call_id)
        return call is not None and self._by_id.get(call.owner.id) is call.owner

    def tool_call(self, tool_call_id: str) -> ToolCall | None:
        """The tool call with this id, arguments as assembled so far, or None."""
        call = self._calls.get(tool_call_id)
        return call.model() if call is not None else None

    def arguments(self, tool_call_id: str) -> str | None:
        """The call's argument text as assembled so far (no model built), or None."""
        call = self._calls.get(tool_call_id)
        return call.arguments if call is not None else None

    def tool_result(self, tool_call_id: str) -> ToolMessage | None:
        """The tool message that answers this call, or None."""
        entry = self._answered.get(tool_call_id)
        return entry.model() if entry is not None else None

    # -- runs ----------------------------------------------------------------------------

    def begin_run(self) -> None:
        """A new run starts: id-less `*_CHUNK` events no longer continue the last run's message,
        and a `toolCallId` an earlier run used starts a new call."""
        self._chunk_message_id = self._chunk_call_id = None
        self._reasoning_spans.clear()
        self._run += 1

    # -- writing -------------------------------------------------------------------------

    def append(self, message: Message, *, streamed: dict[str, CallEntry] | None = None) -> None:
        """Append a message model (a user message, a tool result) to the history.

        A tool call whose id is already in the history without a tool message after it is a
        repeat and is left out (Microsoft Agent Framework's snapshots list each call twice).

        Args:
            streamed: calls of a `MESSAGES_SNAPSHOT`'s run that streamed here, by id: a call
                the snapshot lists with empty arguments keeps the streamed ones.
        """
        from ag_ui.core import AssistantMessage, ToolMessage

        role = message.role
        if isinstance(message, ToolMessage) and not self.is_declared(message.tool_call_id):
            # No assistant message before it declares the call: providers refuse such a
            # history (OpenAI answers 400), so it is never kept, nor sent.
            logger.warning("pyclient: dropped tool message %s: no earlier assistant message declares call %s",
                           message.id, message.tool_call_id)
            return
        entry = MessageEntry(message.id, role, base=message)
        if isinstance(message, AssistantMessage):
            for tool_call in message.tool_calls or ():
                if tool_call.id in self._calls and tool_call.id not in self._answered:
                    logger.debug("pyclient: tool call %s repeated in one message list; kept once", tool_call.id)
                    entry.changed()  # the message as given lists it twice
                    continue
                self._answered.pop(tool_call.id, None)  # an id used again: a new call
                call = CallEntry(tool_call.id, tool_call.function.name, entry, base=tool_call)
                origin = streamed.get(tool_call.id) if streamed else None
                if origin is not None and not tool_call.function.arguments.strip():
                    call.parts.extend(origin.parts)
                    call.run = origin.run
                    entry.changed()
                    if call.encrypted_value is None:
                        call.encrypted_value = origin.encrypted_value
                else:
                    call.parts.append(tool_call.function.arguments)
                    if streamed is not None:
                        # The server's view of this run: a START for this id later in the
                        # run is this call again, not a new one.
                        call.run = self._run
                entry.calls.append(call)
                self._calls[call.id] = call
        if entry.assembled and isinstance(message.content, str):
            entry.parts.append(message.content)
        if isinstance(message, ToolMessage):
            self._answered[message.tool_call_id] = entry
        self._add_entry(entry)

    def _add_entry(self, entry: MessageEntry) -> None:
        previous = self._by_id.get(entry.id)
        if previous is not None:  # the same id again replaces the message in place
            if previous.wired:
                self._cut(previous)
            self._entries[self._entries.index(previous)] = entry
        else:
            self._entries.append(entry)
        self._by_id[entry.id] = entry

    def apply(self, event: AGUIEvent) -> set[str]:
        """Fold one event into the history.

        Args:
            event: a decoded AG-UI event (an `UnknownEvent` changes nothing).

        Returns:
            What changed: a subset of {"messages", "state"}.

        Raises:
            RemoteProtocolError: a `STATE_DELTA` that cannot be applied to the current state.
        """
        if isinstance(event, UnknownEvent):
            return set()
        name = _HANDLERS.get(event_type(event))
        return getattr(self, name)(event) if name is not None else set()

    # -- the wire: each message serialized once ------------------------------------------

    def dump_json(self, before: bytes = b"", after: bytes = b"") -> bytes:
        """The messages as the JSON array a `RunAgentInput` body holds, between `before` and `after`.

        The array is byte for byte what `RunAgentInput.model_dump_json(by_alias=True)` writes
        for `messages` (each message through ag-ui's `Message` union, camelCase, unset
        optional fields left out). Each message is serialized once, the first time a request
        carries it, and its JSON kept: ag-ui's serializer runs Python code for every model, so
        serializing the whole history for every request made a request's cost grow with the
        thread. A message that changes afterwards (a text or a call added to it, an echoed
        encrypted value, a message replaced by id or by a snapshot) drops its JSON and every
        later message's (`_cut`), and is serialized again.

        Raises:
            pydantic_core.PydanticSerializationError: a message cannot be written as JSON (a
                lone surrogate a server sent in a snapshot); the messages before it are kept.
        """
        wire, ends = self._wire, self._wire_ends
        for entry in self._entries[len(ends):]:
            fragment = message_adapter().dump_json(entry.model(), by_alias=True)
            if ends:
                wire += b","
            wire += fragment
            ends.append(len(wire))
            entry.wired = True
        return b"".join((before, b"[", wire, b"]", after))

    def request_body(self, *, thread_id: str, run_id: str, tools: Sequence[Tool], context: Sequence[Context],
                     forwarded_props: Any, resume: list[dict[str, Any]] | None = None) -> bytes:
        """The JSON body of the `RunAgentInput` for the next run, without serializing the history again.

        Byte for byte `RunAgentInput(...).model_dump_json(by_alias=True)`: the fields before
        `messages` and those after it are serialized by ag-ui's model itself, as two inputs
        with no messages: one ends `"messages":[]}` (every field after it is unset, so left
        out) and one starts `{"threadId":"","runId":"","messages":[]`. A JSON object is its
        fields' JSON in field order, so `dump_json`'s array between the two is the model's
        dump (`tests/unit/test_request_body.py` compares them).

        Raises:
            LocalProtocolError: the state, context or forwarded_props is not JSON.
        """
        from ag_ui.core import RunAgentInput

        state = self.state if self.state is not None else {}
        forwarded_props = forwarded_props if forwarded_props is not None else {}
        try:
            head = RunAgentInput(thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION,
                                 state=state, messages=[]).model_dump_json(by_alias=True).encode()
            tail = RunAgentInput(thread_id="", run_id="", messages=[], tools=list(tools), context=list(context),
                                 forwarded_props=forwarded_props,
                                 resume=resume).model_dump_json(by_alias=True).encode()  # type: ignore[arg-type]
            assert head.endswith(_EMPTY_MESSAGES_END) and tail.startswith(_EMPTY_INPUT_START)
            return self.dump_json(head[:-len(_EMPTY_MESSAGES_END)], tail[len(_EMPTY_INPUT_START):])
        except PydanticSerializationError as exc:
            if "surrogates not allowed" not in str(exc):
                raise LocalProtocolError(
                    f"Cannot send a run of thread {thread_id!r}: its state, context or "
                    f"forwarded_props is not JSON ({exc}). Keep `thread.state` and "
                    "`thread.forwarded_props` to dicts, lists, strings, numbers, booleans and None."
                ) from None
        # A lone UTF-16 surrogate from somewhere no repair covers (a server's snapshot, the
        # page's state): replace it everywhere rather than never send again.
        logger.warning("pyclient: lone surrogates in thread %s replaced with U+FFFD", thread_id)
        run_input = RunAgentInput(
            thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION, messages=self.messages(),
            tools=list(tools), state=state, context=list(context), forwarded_props=forwarded_props,
            resume=resume,  # type: ignore[arg-type]
        )
        # model_dump's Python mode encodes nothing, so it cannot fail on them.
        repaired = RunAgentInput.model_validate(repair_all(run_input.model_dump(by_alias=True)))
        return repaired.model_dump_json(by_alias=True).encode()

    def _cut(self, entry: MessageEntry) -> None:
        """`entry`, whose JSON is kept, changes: drop the JSON kept from it on."""
        # Only a message an earlier request carried comes here (rare): list.index is fine.
        index = self._entries.index(entry)
        ends = self._wire_ends
        for later in self._entries[index:len(ends)]:
            later.wired = False
        del ends[index:]
        del self._wire[ends[-1] if ends else 0:]

    def _touch(self, entry: MessageEntry) -> None:
        entry.changed()
        if entry.wired:
            self._cut(entry)

    def _add_text(self, entry: MessageEntry, delta: str) -> None:
        entry.add_text(delta)
        if entry.wired:
            self._cut(entry)

    def _text_entry(self, message_id: str | None, role: str = "assistant", name: str | None = None,
                    subagent_run_id: str | None = None) -> MessageEntry:
        if message_id is not None and message_id in self._by_id:
            return self._by_id[message_id]
        entry = MessageEntry(message_id or new_id(), role if role in TEXT_ROLES else "assistant", name=name,
                             subagent_run_id=subagent_run_id)
        self._add_entry(entry)
        return entry

    def _on_text_start(self, event: Any) -> set[str]:
        self._text_entry(event.message_id, event.role or "assistant", event.name, event.subagent_run_id)
        return {"messages"}

    def add_text(self, message_id: str, text: str) -> None:
        """Append `text` to the text message `message_id`, as a `TEXT_MESSAGE_CONTENT` does.

        `text` may be one event's delta or a run of one message's deltas joined: the history
        is the same either way. A message that was never started is started (as assistant).
        """
        entry = self._by_id.get(message_id)
        if entry is None:
            logger.debug("pyclient: content for message %s that was never started", message_id)
            entry = self._text_entry(message_id)
        entry.add_text(text)
        if entry.wired:
            self._cut(entry)

    def _on_text_content(self, event: Any) -> set[str]:
        self.add_text(event.message_id, event.delta)
        return {"messages"}

    def _on_text_chunk(self, event: Any, role: str | None = None) -> set[str]:
        message_id = event.message_id or self._chunk_message_id
        entry = self._text_entry(message_id, role or getattr(event, "role", None) or "assistant",
                                 getattr(event, "name", None), event.subagent_run_id)
        self._chunk_message_id = entry.id
        if event.delta:
            self._add_text(entry, event.delta)
        return {"messages"}

    def _on_reasoning_chunk(self, event: Any) -> set[str]:
        return self._on_text_chunk(event, "reasoning")

    def _on_reasoning_start(self, event: Any) -> set[str]:
        self._text_entry(event.message_id, "reasoning", subagent_run_id=event.subagent_run_id)
        return {"messages"}

    def _on_reasoning_span(self, event: Any) -> set[str]:
        # REASONING_START opens a span, not a message: only an encrypted value naming the span
        # (pydantic-ai's reasoning with no text) makes it one.
        self._reasoning_spans.add(event.message_id)
        return set()

    def _on_reasoning_content(self, event: Any) -> set[str]:
        self._add_text(self._text_entry(event.message_id, "reasoning", subagent_run_id=event.subagent_run_id),
                       event.delta)
        return {"messages"}

    def _on_subagent(self, event: Any) -> set[str]:
        return {"messages"} if self.subagents.apply(event) else set()

    def _on_encrypted_value(self, event: Any) -> set[str]:
        # Servers (pydantic-ai) ask for this opaque value to be echoed back on the entity.
        if event.subtype == "tool-call" and event.entity_id in self._calls:
            call = self._calls[event.entity_id]
            call.encrypted_value = event.encrypted_value
            call.changed()
            self._touch(call.owner)
            return {"messages"}
        if event.subtype == "message" and event.entity_id in self._reasoning_spans:
            # Reasoning with no text, only its encrypted value: kept as a reasoning message
            # whose content is empty, so it is sent back (never shown).
            self._text_entry(event.entity_id, "reasoning", subagent_run_id=event.subagent_run_id)
        if event.subtype == "message" and event.entity_id in self._by_id:
            entry = self._by_id[event.entity_id]
            entry.encrypted_value = event.encrypted_value
            self._touch(entry)
            return {"messages"}
        return set()

    def _start_call(self, call_id: str, name: str, parent_id: str | None, subagent_run_id: str | None = None) -> CallEntry:
        existing = self._calls.get(call_id)
        if existing is not None:
            if existing.run == self._run:  # started twice in one run: the same call
                return existing
            # An id an earlier run (or a given message) used: a new call. The old one keeps
            # its arguments and its tool message in the history.
            logger.debug("pyclient: tool call id %s used again by a later run: a new call", call_id)
            self._answered.pop(call_id, None)
        owner = self._by_id.get(parent_id) if parent_id is not None else None
        if owner is None or owner.role != "assistant":
            last = self._entries[-1] if self._entries else None
            if parent_id is None and last is not None and last.role == "assistant" and last.base is None:
                owner = last  # no parent named: the assistant message being streamed
            else:
                owner = self._text_entry(parent_id if owner is None else None, "assistant",
                                         subagent_run_id=subagent_run_id)
        call = CallEntry(call_id, name, owner, run=self._run)
        call.parts.extend(self._early_args.pop(call_id, ()))
        owner.calls.append(call)
        self._touch(owner)
        self._calls[call_id] = call
        if self._on_call_started is not None:
            self._on_call_started(call_id, name)
        return call

    def _add_args(self, call_id: str, delta: str) -> None:
        call = self._calls.get(call_id)
        if call is None:  # ARGS before START: keep them until the call starts
            self._early_args.setdefault(call_id, []).append(delta)
            return
        # Appended even after END: pydantic-ai ends a parallel call before its arguments.
        call.parts.append(delta)
        call.changed()
        self._touch(call.owner)

    def _on_call_start(self, event: Any) -> set[str]:
        self._start_call(event.tool_call_id, event.tool_call_name, event.parent_message_id, event.subagent_run_id)
        return {"messages"}

    def _on_call_args(self, event: Any) -> set[str]:
        self._add_args(event.tool_call_id, event.delta)
        return {"messages"}

    def _on_call_end(self, event: Any) -> set[str]:
        # Nothing to fold: arguments may still follow (pydantic-ai ends parallel calls first).
        return set()

    def _on_call_chunk(self, event: Any) -> set[str]:
        call_id = event.tool_call_id or self._chunk_call_id
        if call_id is None:
            call_id = new_id()
        if event.tool_call_name:  # a repeat in the same run returns the call being assembled
            self._start_call(call_id, event.tool_call_name, event.parent_message_id, event.subagent_run_id)
        self._chunk_call_id = call_id
        if event.delta:
            self._add_args(call_id, event.delta)
        return {"messages"}

    def _on_call_result(self, event: Any) -> set[str]:
        previous = self._by_id.get(event.message_id)
        if event.tool_call_id in self._answered and not (previous is not None and previous.role == "tool"):
            # A second result for an answered call: a call has one tool message (a repeated
            # message id replaces the first in place instead).
            logger.debug("pyclient: dropped a second result for tool call %s", event.tool_call_id)
            return set()
        if not self.is_declared(event.tool_call_id):
            # A result for a call no message declares: listeners get the event; the history
            # keeps no tool message that a provider would refuse.
            logger.debug("pyclient: TOOL_CALL_RESULT for unknown call %s kept as an event only", event.tool_call_id)
            return set()
        from ag_ui.core import ToolMessage

        self.append(ToolMessage(id=event.message_id, tool_call_id=event.tool_call_id, content=event.content,
                                subagent_run_id=event.subagent_run_id))
        return {"messages"}

    def _on_state_snapshot(self, event: Any) -> set[str]:
        self.state = event.snapshot
        return {"state"}

    def _on_state_delta(self, event: Any) -> set[str]:
        import jsonpatch  # only servers with shared state need it

        operations = [op.model_dump(by_alias=True) if hasattr(op, "model_dump") else op for op in event.delta]
        try:
            self.state = jsonpatch.apply_patch(self.state, operations)  # copies: in_place=False
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            raise RemoteProtocolError(
                f"The server sent a STATE_DELTA that does not apply to the current state ({exc}): "
                f"{operations!r:.200}. The client and server state diverged; the server should send "
                "a STATE_SNAPSHOT."
            ) from exc
        return {"state"}

    def _on_activity(self, event: Any) -> set[str]:
        from ._activities import fold  # activity messages: their snapshots, patches and problems

        entry = self._by_id.get(event.message_id)
        message = fold(entry.model() if entry is not None else None, event, self.activity_problems)
        if message is not None:
            self._add_entry(MessageEntry(message.id, "activity", base=message))
        return {"messages"}

    def _on_messages_snapshot(self, event: Any) -> set[str]:
        # The server's view of the conversation replaces ours. Calls it leaves unanswered stay
        # indexed, so arguments still streaming are not lost (a later event may bring their
        # message back); a call it dropped is not declared any more, so it is never answered.
        previous = self._calls
        open_calls = {call_id: call for call_id, call in previous.items() if call_id not in self._answered}
        for entry in self._entries[:len(self._wire_ends)]:
            entry.wired = False
        del self._wire[:], self._wire_ends[:]
        self._entries, self._by_id, self._answered = [], {}, {}
        self._calls = {}
        for message in event.messages:
            self.append(message, streamed=open_calls)
        for call_id, call in previous.items():
            if call_id not in self._answered:
                self._calls.setdefault(call_id, call)
        return {"messages"}


# Which method folds each event type (looked up on the history: one table, no copies).
_HANDLERS: dict[str, str] = {
    "TEXT_MESSAGE_START": "_on_text_start",
    "TEXT_MESSAGE_CONTENT": "_on_text_content",
    "TEXT_MESSAGE_CHUNK": "_on_text_chunk",
    "REASONING_START": "_on_reasoning_span",
    "REASONING_MESSAGE_START": "_on_reasoning_start",
    "REASONING_MESSAGE_CONTENT": "_on_reasoning_content",
    "REASONING_MESSAGE_CHUNK": "_on_reasoning_chunk",
    "REASONING_ENCRYPTED_VALUE": "_on_encrypted_value",
    "TOOL_CALL_START": "_on_call_start",
    "TOOL_CALL_ARGS": "_on_call_args",
    "TOOL_CALL_END": "_on_call_end",
    "TOOL_CALL_CHUNK": "_on_call_chunk",
    "TOOL_CALL_RESULT": "_on_call_result",
    "STATE_SNAPSHOT": "_on_state_snapshot",
    "STATE_DELTA": "_on_state_delta",
    "MESSAGES_SNAPSHOT": "_on_messages_snapshot",
    "SUBAGENT_STARTED": "_on_subagent",
    "SUBAGENT_FINISHED": "_on_subagent",
    "SUBAGENT_ERROR": "_on_subagent",
    "ACTIVITY_SNAPSHOT": "_on_activity",
    "ACTIVITY_DELTA": "_on_activity",
}
