"""The messages a history keeps: the ones a request carried frozen as their JSON, the rest live.

A `MessageTable` holds a thread's messages in order and indexes them by message id, by tool
call id and by the call each tool message answers. The first request that carries a message
freezes it (`pyclient._conversation._frozen`: its JSON only, serialized once); a frozen message
that changes is thawed back into an entry, with every later one. `History`
(`pyclient._conversation._history`) writes into it as events arrive.

```python
from ag_ui.core import UserMessage
from pyclient._conversation._entries import MessageEntry
from pyclient._conversation._message_table import MessageTable

table = MessageTable()
table.add_entry(MessageEntry("u1", "user", base=UserMessage(id="u1", content="hi")))
print(table.dump_json())                                   # b'[{"id":"u1","role":"user","content":"hi"}]'
print(len(table.live_entries()), table.message("u1").content)   # 0 hi
```
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._wire._events import message_adapter
from ._dispatch import Writer, clash
from ._entries import CallEntry, MessageEntry
from ._frozen import Frozen
from ._message_view import MessageView

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Message, ToolCall, ToolMessage

__all__ = ["MessageTable"]

logger = logging.getLogger("pyclient")


class MessageTable:
    """A thread's messages, in order: frozen as JSON once a request carried them, else entries."""

    def __init__(self) -> None:
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

    def entry(self, message_id: str) -> MessageEntry | None:
        """The live entry of this message (a frozen one is not thawed), or None."""
        return self._by_id.get(message_id)

    def call(self, call_id: str) -> CallEntry | None:
        """The live entry of this call (a frozen one is not thawed), or None."""
        return self._calls.get(call_id)

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

    def is_open(self, call_id: str) -> bool:
        """A call with this id is in the history (or streaming) without a tool message."""
        if call_id in self._calls:
            return call_id not in self._answered and not self._frozen.is_answered(call_id)
        return self._frozen.is_declared(call_id) and not self.is_answered(call_id)

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

    def role(self, message_id: str) -> str | None:
        """The role of the message with this id (a frozen one is not thawed), or None."""
        entry = self._by_id.get(message_id)
        if entry is not None:
            return entry.role
        frozen = self._frozen.message(message_id)
        return frozen.role if frozen is not None else None

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

    # -- writing -------------------------------------------------------------------------

    def add_entry(self, entry: MessageEntry) -> None:
        """Add `entry`; one with the same id replaces that message in place."""
        previous = self.live(entry.id)
        if previous is not None:  # the same id again replaces the message in place
            self._entries[self._entries.index(previous)] = entry
        else:
            self._entries.append(entry)
        self._by_id[entry.id] = entry

    def index_call(self, call: CallEntry) -> None:
        """`call` is the call of its id from now on (it is in its message's `calls`)."""
        self._calls[call.id] = call

    def answer(self, tool_call_id: str, entry: MessageEntry) -> None:
        """`entry`, a tool message, is the answer of the call `tool_call_id`."""
        self._answered[tool_call_id] = entry

    def reuse_call_id(self, call_id: str) -> None:
        """The id of an earlier call is used again, by a new call: the old one keeps its
        arguments and its tool message in the history, but no longer answers to the id."""
        self._answered.pop(call_id, None)
        self._frozen.forget_call(call_id)

    def last_entry(self) -> MessageEntry | None:
        """The entry of the last message, or None. When every message is frozen and the last
        one was streamed, it is thawed: a call may join it, as before it was sent."""
        if not self._entries and len(self) and self._frozen.streamed(len(self) - 1):
            self._thaw(len(self) - 1)
        return self._entries[-1] if self._entries else None

    def clear(self) -> tuple[dict[str, CallEntry], set[str]]:
        """Drop every message (a `MESSAGES_SNAPSHOT` replaces them).

        Returns:
            The calls that were indexed, by id, and the ids of those that had a tool message.
        """
        if len(self._frozen):
            self._thaw(0)  # the snapshot's size already: parsing what was sent costs as much
        self._unsaved = 0
        calls, answered = self._calls, set(self._answered)
        self._entries, self._by_id, self._answered, self._calls = [], {}, {}, {}
        return calls, answered

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

    # -- thawing: a sent message changes -------------------------------------------------

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
