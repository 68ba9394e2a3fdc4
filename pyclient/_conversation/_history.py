"""A thread's history and shared state, assembled from AG-UI events (sans-I/O).

`History.apply(event)` folds one decoded event into the conversation (the table of which
operation folds each event type is `pyclient._conversation._dispatch`'s): streamed text (a list of pieces,
joined on demand, so a long answer costs linear time), tool calls assembled per `toolCallId`
(never per "current call"), tool results, reasoning and its encrypted values to echo back,
activities (`pyclient._conversation._activities`), the shared state, `MESSAGES_SNAPSHOT` and subagents.
`messages()` returns `ag_ui.core` models, ready to be sent back; a message a request carried
is kept as that JSON only (`pyclient._conversation._frozen`). What a server's stream may do out of order,
and what is refused, is listed in `docs/servers.md` ("What a stream may do").

```python
from ag_ui.core import TextMessageContentEvent, TextMessageStartEvent, UserMessage
from pyclient._conversation._history import History

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
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._base._ids import new_id
from .._wire._events import AGUIEvent, message_adapter
from ._dispatch import Folding, Writer, clash, described, refuse
from ._entries import TEXT_ROLES, CallEntry, MessageEntry
from ._frozen import Frozen
from ._message_view import MessageView
from ._subagents import Subagents

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Message, ToolCall, ToolMessage

__all__ = ["History"]

logger = logging.getLogger("pyclient")


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
        # The first len(self._frozen) messages, those a request carried, live as their JSON
        # only (`pyclient._conversation._frozen`); `_entries` holds the entries of the messages after them
        # (message i is `_entries[i - len(self._frozen)]`: no slot is kept for a frozen one).
        # The three tables below hold the live entries (and calls) only.
        self._entries: list[MessageEntry] = []
        self._by_id: dict[str, MessageEntry] = {}
        self._calls: dict[str, CallEntry] = {}
        self._answered: dict[str, MessageEntry] = {}  # tool call id -> its tool message
        self._frozen = Frozen()
        self._unsaved = 0  # messages from here on may differ from what `changed_since_save` gave
        self._early_args: dict[str, list[str]] = {}
        self._on_call_started = on_call_started
        self._run = 0
        self.state: Any = {} if state is None else state
        self.subagents = Subagents()
        """The subagent invocations (`SUBAGENT_*` events); messages carry their `subagent_run_id`."""
        self.activity_problems: dict[str, str] = {}  # activity id -> why its last update did not apply
        self._folding = Folding(self)  # the event-dispatch table, and what one run's stream knows
        for message in messages or ():
            self.append(message)

    # -- reading -------------------------------------------------------------------------

    def messages(self) -> list[Message]:
        """The history as `ag_ui.core` message models, in order (a new list each call).

        The frozen messages' models are built from their JSON: each call costs a parse of the
        history; `message(id)` reads one.
        """
        models = self._frozen.models()
        models.extend(entry.model() for entry in self._entries)
        return models

    def view(self) -> Sequence[Message]:
        """The history as a sequence that builds a model only for the message read (its length,
        its last message, the first user message cost one parse each, not the history's)."""
        return MessageView(self)

    def model_at(self, position: int) -> Message:
        """The model of the message at `position` (0 <= position < len(self))."""
        if position < len(self._frozen):
            return self._frozen.model(position)
        model: Message = self._entries[position - len(self._frozen)].model()
        return model

    def message(self, message_id: str) -> Message | None:
        """The message with this id, or None."""
        entry = self._by_id.get(message_id)
        return entry.model() if entry is not None else self._frozen.message(message_id)

    def __len__(self) -> int:
        return len(self._frozen) + len(self._entries)

    def live_entries(self) -> list[MessageEntry]:
        """The messages kept as entries (those no request carried yet, or that changed since)."""
        return list(self._entries)

    @property
    def json_size(self) -> int:
        """The bytes of JSON the messages a request carried are kept as."""
        return self._frozen.wire.size

    def is_answered(self, tool_call_id: str) -> bool:
        """True once a tool message for `tool_call_id` is in the history."""
        return tool_call_id in self._answered or self._frozen.is_answered(tool_call_id)

    def is_declared(self, tool_call_id: str) -> bool:
        """True while an assistant message of the history declares this call (a snapshot may
        have dropped it): only then may a tool message answer it."""
        call = self._calls.get(tool_call_id)
        if call is not None:
            return self._by_id.get(call.owner.id) is call.owner
        return self._frozen.is_declared(tool_call_id)

    def tool_call(self, tool_call_id: str) -> ToolCall | None:
        """The tool call with this id, arguments as assembled so far, or None."""
        call = self._calls.get(tool_call_id)
        return call.model() if call is not None else self._frozen.tool_call(tool_call_id)

    def arguments(self, tool_call_id: str) -> str | None:
        """The call's argument text as assembled so far (no model built), or None."""
        call = self._calls.get(tool_call_id)
        if call is not None:
            return call.arguments
        frozen = self._frozen.tool_call(tool_call_id)
        return frozen.function.arguments if frozen is not None else None

    def tool_result(self, tool_call_id: str) -> ToolMessage | None:
        """The tool message that answers this call, or None."""
        entry = self._answered.get(tool_call_id)
        return entry.model() if entry is not None else self._frozen.tool_result(tool_call_id)

    # -- runs ----------------------------------------------------------------------------

    def begin_run(self) -> None:
        """A new run starts: id-less `*_CHUNK` events no longer continue the last run's message,
        and a `toolCallId` an earlier run used starts a new call."""
        self._folding.begin_run()
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
                if self._open_call(tool_call.id):
                    logger.debug("pyclient: tool call %s repeated in one message list; kept once", tool_call.id)
                    entry.changed()  # the message as given lists it twice
                    continue
                self._answered.pop(tool_call.id, None)  # an id used again: a new call
                self._frozen.forget_call(tool_call.id)
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
        self.add_entry(entry)

    def _open_call(self, call_id: str) -> bool:
        """A call with this id is in the history (or streaming) without a tool message."""
        if call_id in self._calls:
            return call_id not in self._answered and not self._frozen.is_answered(call_id)
        return self._frozen.is_declared(call_id) and not self.is_answered(call_id)

    def add_entry(self, entry: MessageEntry) -> None:
        """Add `entry`; one with the same id replaces that message in place."""
        previous = self.live(entry.id)
        if previous is not None:  # the same id again replaces the message in place
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
            RemoteProtocolError: a `STATE_DELTA` that cannot be applied to the current state, or a
                state past the limits of `pyclient._base._json_patch` (the state is left as it was).
        """
        return self._folding.apply(event)

    # -- the wire: each message serialized once ------------------------------------------

    def dump_json(self, before: bytes = b"", after: bytes = b"") -> bytes:
        """The messages as the JSON array a `RunAgentInput` body holds, between `before` and `after`.

        The array is byte for byte what `RunAgentInput.model_dump_json(by_alias=True)` writes
        for `messages` (each message through ag-ui's `Message` union, camelCase, unset
        optional fields left out). Each message is serialized once, the first time a request
        carries it, and its JSON kept: ag-ui's serializer runs Python code for every model, so
        serializing the whole history for every request made a request's cost grow with the
        thread. From then on the message lives as that JSON only (`pyclient._conversation._frozen`:
        models and entries kept many times the JSON's bytes). A message that
        changes afterwards (a text or a call added to it, an echoed encrypted value, a message
        replaced by id or by a snapshot) is thawed back into an entry with every later one
        (`_thaw`), and serialized again.

        Raises:
            pydantic_core.PydanticSerializationError: a message cannot be written as JSON (a
                lone surrogate a server sent in a snapshot); the messages before it are kept.
        """
        self._freeze()
        return self._frozen.wire.array(before, after)

    def freeze(self) -> None:
        """Keep every message as its JSON only, now: a restored history's messages were saved,
        and the next request carries them all. Kept as models, a restored thread of 10,000
        messages was serialized whole for every save until a request froze it. A message that
        cannot be written as JSON (a lone surrogate) stays an entry, with every later one."""
        from pydantic_core import PydanticSerializationError

        try:
            self._freeze()
        except PydanticSerializationError:
            pass

    def mark_saved(self) -> None:
        """The store holds what the history holds (it was just restored from there):
        `changed_since_save` gives what changes from here on."""
        self._unsaved = len(self)

    def saved_json(self) -> bytes:
        """The messages as a JSON array, as `dump_json` writes them, for a save: the messages no
        request carried yet are serialized, not frozen (the run may still change them)."""
        return self._with_live(self._frozen.wire.array(b"", b""), len(self._frozen))

    def changed_since_save(self) -> tuple[int, bytes]:
        """Where the messages start to differ from what the last call gave, and their JSON
        array from there: what an incremental save writes (`pyclient._driver._journal`).

        Raises:
            pydantic_core.PydanticSerializationError: as `dump_json`.
        """
        start = min(self._unsaved, len(self))
        frozen = len(self._frozen)
        array = self._with_live(self._frozen.wire.array_from(start) if start < frozen else b"[]", max(start, frozen))
        # The live entries (no request carried them yet: the run's few) may still change without
        # a thaw: the next call gives them again; a frozen one that changes is thawed (`_thaw`).
        self._unsaved = frozen
        return start, array

    def _with_live(self, array: bytes, start: int) -> bytes:
        """`array` (JSON) with the live entries from `start` on appended, serialized now."""
        dump = message_adapter().dump_json
        fragments = [dump(entry.model(), by_alias=True) for entry in self._entries[start - len(self._frozen):]]
        if not fragments:
            return array
        inner = array[1:-1]
        return b"".join((b"[", inner, b"," if inner else b"", b",".join(fragments), b"]"))

    def _freeze(self) -> None:
        """Serialize the messages no request carried yet, and keep them as JSON only."""
        frozen = self._frozen
        entries = self._entries
        done = 0
        try:
            for entry in entries:
                model = entry.model()
                fragment = message_adapter().dump_json(model, by_alias=True)
                calls = [call.id for call in entry.calls if self._calls.get(call.id) is call]
                answers = getattr(model, "tool_call_id", None) if entry.role == "tool" else None
                if answers is not None and self._answered.get(answers) is not entry:
                    answers = None
                frozen.freeze(fragment, entry.id, entry.role, calls, answers, streamed=entry.base is None)
                done += 1
                if self._by_id.get(entry.id) is entry:
                    del self._by_id[entry.id]
                for call_id in calls:
                    del self._calls[call_id]
                if answers is not None:
                    del self._answered[answers]
        finally:  # a message that cannot be written stays an entry, with every later one
            del entries[:done]

    def live(self, message_id: str) -> MessageEntry | None:
        """The entry of this message, thawed if it was frozen (it is about to change), or None."""
        entry = self._by_id.get(message_id)
        if entry is None and len(self._frozen):
            position = self._frozen.position(message_id)
            if position >= 0:
                self._thaw(position)
                entry = self._by_id.get(message_id)
        return entry

    def live_call(self, call_id: str) -> CallEntry | None:
        """The entry of this call, its message thawed if it was frozen, or None."""
        call = self._calls.get(call_id)
        if call is None and len(self._frozen):
            position = self._frozen.owner(call_id)
            if position >= 0:
                self._thaw(position)
                call = self._calls.get(call_id)
        return call

    def _thaw(self, position: int) -> None:
        """A frozen message changes (rare): it and every later frozen one become entries again
        (the JSON a request carries is a prefix: it is cut from there)."""
        # Only a message an earlier request carried comes here: list.index and a parse are fine.
        logger.debug("pyclient: history: message %d of %d changes after it was sent", position, len(self))
        self._unsaved = min(self._unsaved, position)
        revived = []
        for model, calls, answering, streamed in self._frozen.thaw_from(position):
            entry = self._revive(model, calls, answering, streamed)
            revived.append(entry)
            self._by_id[entry.id] = entry
        self._entries[:0] = revived

    def _revive(self, message: Message, calls: set[str], answering: bool, streamed: bool) -> MessageEntry:
        """The entry of a message that was frozen (checked when it was first appended), as it
        was: streamed, or given as a model. Only the calls (and the answer) it still speaks
        for are indexed again, never over a newer one."""
        from ag_ui.core import AssistantMessage, ToolMessage

        if streamed:
            name = getattr(message, "name", None)
            entry = MessageEntry(message.id, message.role, name=name,
                                 subagent_run_id=getattr(message, "subagent_run_id", None))
        else:
            entry = MessageEntry(message.id, message.role, base=message)
        entry.encrypted_value = getattr(message, "encrypted_value", None)
        if isinstance(message, AssistantMessage):
            for tool_call in message.tool_calls or ():
                call = CallEntry(tool_call.id, tool_call.function.name, entry, base=None if streamed else tool_call)
                call.parts.append(tool_call.function.arguments)
                call.encrypted_value = tool_call.encrypted_value
                entry.calls.append(call)
                if tool_call.id in calls:  # the index named this message: no newer call has the id
                    self._calls[call.id] = call  # the last one with the id, as when it streamed
        if entry.assembled and isinstance(message.content, str):
            entry.parts.append(message.content)
        entry.changed()  # its model is built again from the parts, as it was
        if isinstance(message, ToolMessage) and answering:
            self._answered.setdefault(message.tool_call_id, entry)
        return entry

    def text_entry(self, message_id: str | None, role: str = "assistant", name: str | None = None,
                   subagent_run_id: str | None = None) -> MessageEntry:
        """The text message `message_id` (thawed), started if it is not in the history."""
        if message_id is not None:
            existing = self.live(message_id)
            if existing is not None:
                return existing
        entry = MessageEntry(message_id or new_id(), role if role in TEXT_ROLES else "assistant", name=name,
                             subagent_run_id=subagent_run_id)
        self.add_entry(entry)
        return entry

    def add_text(self, message_id: str, text: str) -> bool:
        """Append `text` to the text message `message_id`, as a `TEXT_MESSAGE_CONTENT` does.

        `text` may be one event's delta or a run of one message's deltas joined: the history
        is the same either way. A message that was never started is started (as assistant).

        Returns:
            False when `message_id` names a message text may not be added to (the person's own,
            reasoning, a tool result: `pyclient._conversation._dispatch.clash`): it is reported and left as it is.
        """
        entry = self._by_id.get(message_id)
        if entry is None or entry.role != "assistant":  # the answer being streamed skips the check
            why = self.clash(message_id, "text")
            if why is not None:
                refuse("TEXT_MESSAGE_CONTENT", message_id, why)
                return False
            entry = self.live(message_id)
        if entry is None:
            logger.debug("pyclient: content for message %s that was never started", message_id)
            entry = self.text_entry(message_id)
        entry.add_text(text)
        return True

    def clash(self, message_id: str, writer: Writer) -> str | None:
        """Why an event writing `writer` may not write to the message `message_id`, or None when
        it may (there is no such message, or it is of the event's kind: `pyclient._conversation._dispatch.clash`).
        A sent message is not thawed to be asked."""
        entry = self._by_id.get(message_id)
        if entry is not None:
            return clash(writer, entry.role, entry.base is None)
        position = self._frozen.position(message_id) if len(self._frozen) else -1
        if position < 0:
            return None
        return clash(writer, self._frozen.model(position).role, self._frozen.streamed(position))

    def start_call(self, call_id: str, name: str, parent_id: str | None, subagent_run_id: str | None = None) -> CallEntry:
        """Start a tool call in its parent (or the assistant message being streamed), as `TOOL_CALL_START` does."""
        existing = self._calls.get(call_id)
        if existing is not None and existing.run == self._run:  # started twice in one run: the same call
            return existing
        if existing is not None or self._frozen.is_declared(call_id):
            # An id an earlier run (or a given message) used: a new call. The old one keeps
            # its arguments and its tool message in the history.
            logger.debug("pyclient: tool call id %s used again by a later run: a new call", call_id)
            self._answered.pop(call_id, None)
            self._frozen.forget_call(call_id)
        owner = self.live(parent_id) if parent_id is not None else None
        if owner is None or owner.role != "assistant":
            last = self._entries[-1] if self._entries else None
            if last is None and parent_id is None and len(self) and self._frozen.streamed(len(self) - 1):
                self._thaw(len(self) - 1)  # it may be the assistant message to join, as before
                last = self._entries[-1]
            if parent_id is None and last is not None and last.role == "assistant" and last.base is None:
                owner = last  # no parent named: the assistant message being streamed
            else:
                owner = self.text_entry(parent_id if owner is None else None, "assistant",
                                        subagent_run_id=subagent_run_id)
        call = CallEntry(call_id, name, owner, run=self._run)
        call.parts.extend(self._early_args.pop(call_id, ()))
        owner.calls.append(call)
        owner.changed()
        self._calls[call_id] = call
        if self._on_call_started is not None:
            self._on_call_started(call_id, name)
        return call

    def add_args(self, call_id: str, delta: str) -> None:
        """Append argument text to the call `call_id`, kept until it starts if it has not."""
        call = self._calls.get(call_id) or self.live_call(call_id)
        if call is None:  # ARGS before START: keep them until the call starts
            self._early_args.setdefault(call_id, []).append(delta)
            return
        # Appended even after END: pydantic-ai ends a parallel call before its arguments.
        call.parts.append(delta)
        call.changed()
        call.owner.changed()

    def add_result(self, event: Any) -> set[str]:
        """Fold a `TOOL_CALL_RESULT`: the call's tool message, unless it has one or no message declares it."""
        previous = self._by_id.get(event.message_id) or self._frozen.message(event.message_id)
        if self.is_answered(event.tool_call_id) and not (previous is not None and previous.role == "tool"):
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

        message_id = event.message_id
        if previous is not None and previous.role != "tool":
            # The id of another message (the person's own): replacing it would erase what they
            # said. The call still gets its one answer, under an id of its own.
            message_id = new_id()
            refuse("TOOL_CALL_RESULT", event.message_id, f"it is {described(previous.role, False)}",
                   f"was kept as tool message {message_id}")
        self.append(ToolMessage(id=message_id, tool_call_id=event.tool_call_id, content=event.content,
                                subagent_run_id=event.subagent_run_id))
        return {"messages"}

    def replace_messages(self, messages: Sequence[Message]) -> set[str]:
        """Fold a `MESSAGES_SNAPSHOT`: `messages` replace the history."""
        # The server's view of the conversation replaces ours. Calls it leaves unanswered stay
        # indexed, so arguments still streaming are not lost (a later event may bring their
        # message back); a call it dropped is not declared any more, so it is never answered.
        if len(self._frozen):
            self._thaw(0)  # the snapshot's size already: parsing what was sent costs as much
        self._unsaved = 0
        previous = self._calls
        open_calls = {call_id: call for call_id, call in previous.items() if call_id not in self._answered}
        self._entries, self._by_id, self._answered = [], {}, {}
        self._calls = {}
        for message in messages:
            self.append(message, streamed=open_calls)
        for call_id, call in previous.items():
            if call_id not in self._answered:
                self._calls.setdefault(call_id, call)
        return {"messages"}
