"""How each AG-UI event folds into a thread's history: the event-dispatch table (sans-I/O).

`Folding.apply(event)` looks the event's type up in one table and folds it through the
operations its history gives (the `Assembly` protocol here): text and reasoning, tool calls,
encrypted values, state (`pyclient._base._json_patch`), activities
(`pyclient._conversation._activities`), subagents, tool results and `MESSAGES_SNAPSHOT`. It
keeps what only the stream of one run knows: the message or call an id-less `*_CHUNK`
continues, and the `REASONING_START` spans an encrypted value may name. An event may only
write to a message of its own kind (`clash`): text into the model's text, reasoning into
reasoning. One naming the person's own message, a tool result or an activity is ignored with a
warning, so a hostile server cannot append to what the person said.

```python
from ag_ui.core import TextMessageChunkEvent
from pyclient._conversation._history import History

history = History()
history.apply(TextMessageChunkEvent(message_id="m1", delta="Hi"))
history.apply(TextMessageChunkEvent(delta=" there"))  # no id: continues the last chunked message
assert history.messages()[-1].content == "Hi there"
```
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from .._base._errors import RemoteProtocolError
from .._base._ids import new_id
from .._base._json_patch import (
    PatchError,
    PatchLimitError,
    check_document,
    patch_document,
    patch_operations,
)
from .._wire._events import AGUIEvent, UnknownEvent, event_type
from ._entries import TEXT_ROLES, CallEntry, MessageEntry
from ._subagents import Subagents

__all__ = ["Assembly", "Folding", "Writer", "clash", "described", "refuse"]

logger = logging.getLogger("pyclient")

Writer = Literal["text", "reasoning", "encrypted"]
"""What an event writes into a message: streamed text, streamed reasoning, an encrypted value."""


def clash(writer: Writer, role: str, streamed: bool) -> str | None:
    """Why an event writing `writer` may not write to a message of `role`, or None if it may.

    Args:
        streamed: the message was assembled from events (a server's), not given as a model
            (the person's message, the page's, a snapshot's).
    """
    if writer == "reasoning":
        allowed = role == "reasoning"
    elif writer == "encrypted":  # reasoning's signature, or an answer's
        allowed = role in ("reasoning", "assistant")
    else:  # the model's text: its answers, and text messages the server itself started
        allowed = role == "assistant" or (streamed and role in TEXT_ROLES and role != "reasoning")
    return None if allowed else f"it is {described(role, streamed)}"


def described(role: str, streamed: bool) -> str:
    """A message of `role` in words ("the user's own message", "a tool result")."""
    if role == "user" and not streamed:
        return "the user's own message"
    what = {"tool": "a tool result", "activity": "an activity", "assistant": "an assistant message"}
    return what.get(role, f"a {role} message")


def refuse(kind: str, message_id: str, why: str, outcome: str = "was ignored") -> None:
    """Report an event that may not write to the message it names (`outcome`: what became of it)."""
    logger.warning("pyclient: a %s event for message %s %s: %s. A server writes only into messages of "
                   "its own kind that it started; check the messageId it sends.", kind, message_id, outcome, why)


class Assembly(Protocol):
    """What the folding changes: a history's messages, calls, state, activities and subagents."""

    state: Any
    activity_problems: dict[str, str]

    @property
    def subagents(self) -> Subagents: ...
    def live(self, message_id: str) -> MessageEntry | None: ...
    def live_call(self, call_id: str) -> CallEntry | None: ...
    def clash(self, message_id: str, writer: Writer) -> str | None: ...
    def text_entry(self, message_id: str | None, role: str = "assistant", name: str | None = None,
                   subagent_run_id: str | None = None) -> MessageEntry: ...
    def add_entry(self, entry: MessageEntry) -> None: ...
    def add_text(self, message_id: str, text: str) -> bool: ...
    def start_call(self, call_id: str, name: str, parent_id: str | None,
                   subagent_run_id: str | None = None) -> CallEntry: ...
    def add_args(self, call_id: str, delta: str) -> None: ...
    def add_result(self, event: Any) -> set[str]: ...
    def replace_messages(self, messages: Sequence[Any]) -> set[str]: ...


class Folding:
    """Folds events into `history`; what one run's stream knows is reset by `begin_run()`."""

    def __init__(self, history: Assembly) -> None:
        self._history = history
        self._chunk_message_id: str | None = None
        self._chunk_call_id: str | None = None
        self._reasoning_spans: set[str] = set()  # REASONING_START ids: an encrypted value may name one

    def begin_run(self) -> None:
        """A new run starts: id-less `*_CHUNK` events no longer continue the last run's message."""
        self._chunk_message_id = self._chunk_call_id = None
        self._reasoning_spans.clear()

    def apply(self, event: AGUIEvent) -> set[str]:
        """Fold one event; returns what changed: a subset of {"messages", "state"}.

        Raises:
            RemoteProtocolError: a `STATE_DELTA` that cannot be applied to the current state,
                or a state (snapshot or patched) past the limits of `pyclient._base._json_patch`.
        """
        if isinstance(event, UnknownEvent):
            return set()
        name = _HANDLERS.get(event_type(event))
        return getattr(self, name)(event) if name is not None else set()

    def _may_write(self, event: Any, message_id: str | None, writer: Writer) -> bool:
        """False (reported) when `message_id` names a message `event` may not write to (`clash`)."""
        if message_id is None:
            return True
        why = self._history.clash(message_id, writer)
        if why is not None:
            refuse(event_type(event), message_id, why)
        return why is None

    def _on_text_start(self, event: Any) -> set[str]:
        if not self._may_write(event, event.message_id, "text"):
            return set()
        self._history.text_entry(event.message_id, event.role or "assistant", event.name, event.subagent_run_id)
        return {"messages"}

    def _on_text_content(self, event: Any) -> set[str]:
        return {"messages"} if self._history.add_text(event.message_id, event.delta) else set()

    def _on_text_end(self, event: Any) -> set[str]:
        self._may_write(event, event.message_id, "text")  # nothing to fold: only the clash is said
        return set()

    def _on_reasoning_end(self, event: Any) -> set[str]:
        self._may_write(event, event.message_id, "reasoning")
        return set()

    def _on_text_chunk(self, event: Any, role: str | None = None) -> set[str]:
        message_id = event.message_id or self._chunk_message_id
        if not self._may_write(event, message_id, "reasoning" if role == "reasoning" else "text"):
            return set()
        entry = self._history.text_entry(message_id, role or getattr(event, "role", None) or "assistant",
                                         getattr(event, "name", None), event.subagent_run_id)
        self._chunk_message_id = entry.id
        if event.delta:
            entry.add_text(event.delta)
        return {"messages"}

    def _on_reasoning_chunk(self, event: Any) -> set[str]:
        return self._on_text_chunk(event, "reasoning")

    def _on_reasoning_start(self, event: Any) -> set[str]:
        if not self._may_write(event, event.message_id, "reasoning"):
            return set()
        self._history.text_entry(event.message_id, "reasoning", subagent_run_id=event.subagent_run_id)
        return {"messages"}

    def _on_reasoning_span(self, event: Any) -> set[str]:
        # REASONING_START opens a span, not a message: only an encrypted value naming the span
        # (pydantic-ai's reasoning with no text) makes it one.
        self._reasoning_spans.add(event.message_id)
        return set()

    def _on_reasoning_content(self, event: Any) -> set[str]:
        if not self._may_write(event, event.message_id, "reasoning"):
            return set()
        self._history.text_entry(event.message_id, "reasoning",
                                 subagent_run_id=event.subagent_run_id).add_text(event.delta)
        return {"messages"}

    def _on_subagent(self, event: Any) -> set[str]:
        return {"messages"} if self._history.subagents.apply(event) else set()

    def _on_encrypted_value(self, event: Any) -> set[str]:
        # Servers (pydantic-ai) ask for this opaque value to be echoed back on the entity.
        history = self._history
        call = history.live_call(event.entity_id) if event.subtype == "tool-call" else None
        if call is not None:
            call.encrypted_value = event.encrypted_value
            call.changed()
            call.owner.changed()
            return {"messages"}
        if event.subtype == "message" and not self._may_write(event, event.entity_id, "encrypted"):
            return set()
        if event.subtype == "message" and event.entity_id in self._reasoning_spans:
            # Reasoning with no text, only its encrypted value: kept as a reasoning message
            # whose content is empty, so it is sent back (never shown).
            history.text_entry(event.entity_id, "reasoning", subagent_run_id=event.subagent_run_id)
        entry = history.live(event.entity_id) if event.subtype == "message" else None
        if entry is not None:
            entry.encrypted_value = event.encrypted_value
            entry.changed()
            return {"messages"}
        return set()

    def _on_call_start(self, event: Any) -> set[str]:
        self._history.start_call(event.tool_call_id, event.tool_call_name, event.parent_message_id,
                                 event.subagent_run_id)
        return {"messages"}

    def _on_call_args(self, event: Any) -> set[str]:
        self._history.add_args(event.tool_call_id, event.delta)
        return {"messages"}

    def _on_call_end(self, event: Any) -> set[str]:
        # Nothing to fold: arguments may still follow (pydantic-ai ends parallel calls first).
        return set()

    def _on_call_chunk(self, event: Any) -> set[str]:
        call_id = event.tool_call_id or self._chunk_call_id
        if call_id is None:
            call_id = new_id()
        if event.tool_call_name:  # a repeat in the same run returns the call being assembled
            self._history.start_call(call_id, event.tool_call_name, event.parent_message_id, event.subagent_run_id)
        self._chunk_call_id = call_id
        if event.delta:
            self._history.add_args(call_id, event.delta)
        return {"messages"}

    def _on_call_result(self, event: Any) -> set[str]:
        return self._history.add_result(event)

    def _on_state_snapshot(self, event: Any) -> set[str]:
        try:
            check_document(event.snapshot)
        except PatchLimitError as exc:
            raise RemoteProtocolError(
                f"The server sent a STATE_SNAPSHOT that pyclient does not keep: {exc}. The state was left as "
                "it was; the agent's state must stay smaller (it comes back with every request)."
            ) from None
        self._history.state = event.snapshot
        return {"state"}

    def _on_state_delta(self, event: Any) -> set[str]:
        operations = patch_operations(event.delta)
        try:
            self._history.state = patch_document(self._history.state, operations)  # a copy
        except PatchLimitError as exc:
            # Refused as it applies, at the operation that crosses the limit: never built whole.
            raise RemoteProtocolError(
                f"The server sent a STATE_DELTA that pyclient refuses: {exc}. The state was left as it was "
                "before this event; the agent's state must stay smaller (it comes back with every request)."
            ) from None
        except PatchError as exc:
            raise RemoteProtocolError(
                f"The server sent a STATE_DELTA that does not apply to the current state ({exc}): "
                f"{operations!r:.200}. The client and server state diverged; the server should send "
                "a STATE_SNAPSHOT."
            ) from exc
        return {"state"}

    def _on_activity(self, event: Any) -> set[str]:
        from ._activities import (
            fold,  # activity messages: their snapshots, patches and problems
        )

        entry = self._history.live(event.message_id)
        message = fold(entry.model() if entry is not None else None, event, self._history.activity_problems)
        if message is not None:
            self._history.add_entry(MessageEntry(message.id, "activity", base=message))
        return {"messages"}

    def _on_messages_snapshot(self, event: Any) -> set[str]:
        return self._history.replace_messages(event.messages)


# Which method folds each event type (looked up on the folding: one table, no copies).
_HANDLERS: dict[str, str] = {
    "TEXT_MESSAGE_START": "_on_text_start",
    "TEXT_MESSAGE_CONTENT": "_on_text_content",
    "TEXT_MESSAGE_CHUNK": "_on_text_chunk",
    "TEXT_MESSAGE_END": "_on_text_end",
    "REASONING_START": "_on_reasoning_span",
    "REASONING_MESSAGE_START": "_on_reasoning_start",
    "REASONING_MESSAGE_CONTENT": "_on_reasoning_content",
    "REASONING_MESSAGE_CHUNK": "_on_reasoning_chunk",
    "REASONING_MESSAGE_END": "_on_reasoning_end",
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
