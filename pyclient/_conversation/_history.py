"""A thread's history and shared state, assembled from AG-UI events (sans-I/O).

`History.apply(event)` folds one decoded event into the conversation (the table of which
operation folds each event type is `pyclient._conversation._dispatch`'s): streamed text (a list of pieces,
joined on demand, so a long answer costs linear time), tool calls assembled per `toolCallId`
(never per "current call"), tool results, reasoning and its encrypted values to echo back,
activities (`pyclient._conversation._activities`), the shared state, `MESSAGES_SNAPSHOT` and subagents.
The messages are kept, read and sent as `pyclient._conversation._message_table` keeps them
(`messages()` returns `ag_ui.core` models, ready to be sent back). What a server's stream may
do out of order, and what is refused, is listed in `docs/servers.md` ("What a stream may do").

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
from .._wire._events import AGUIEvent
from ._dispatch import Folding, described, refuse
from ._entries import TEXT_ROLES, CallEntry, MessageEntry
from ._message_table import MessageTable
from ._subagents import Subagents

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Message

__all__ = ["History"]

logger = logging.getLogger("pyclient")


class History(MessageTable):
    """Messages and shared state of one thread, built from AG-UI events.

    The messages are kept, read and sent as `MessageTable` keeps them
    (`pyclient._conversation._message_table`); this class writes into them.

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
        super().__init__()
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
                if self.is_open(tool_call.id):
                    logger.debug("pyclient: tool call %s repeated in one message list; kept once", tool_call.id)
                    entry.changed()  # the message as given lists it twice
                    continue
                self.reuse_call_id(tool_call.id)  # an id used again: a new call
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
                self.index_call(call)
        if entry.assembled and isinstance(message.content, str):
            entry.parts.append(message.content)
        if isinstance(message, ToolMessage):
            self.answer(message.tool_call_id, entry)
        self.add_entry(entry)

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
        entry = self.entry(message_id)
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

    def start_call(self, call_id: str, name: str, parent_id: str | None, subagent_run_id: str | None = None) -> CallEntry:
        """Start a tool call in its parent (or the assistant message being streamed), as `TOOL_CALL_START` does."""
        existing = self.call(call_id)
        if existing is not None and existing.run == self._run:  # started twice in one run: the same call
            return existing
        if existing is not None or self.is_declared(call_id):
            # An id an earlier run (or a given message) used: a new call. The old one keeps
            # its arguments and its tool message in the history.
            logger.debug("pyclient: tool call id %s used again by a later run: a new call", call_id)
            self.reuse_call_id(call_id)
        owner = self.live(parent_id) if parent_id is not None else None
        if owner is None or owner.role != "assistant":
            last = self.last_entry() if parent_id is None else None
            if last is not None and last.role == "assistant" and last.base is None:
                owner = last  # no parent named: the assistant message being streamed
            else:
                owner = self.text_entry(parent_id if owner is None else None, "assistant",
                                        subagent_run_id=subagent_run_id)
        call = CallEntry(call_id, name, owner, run=self._run)
        call.parts.extend(self._early_args.pop(call_id, ()))
        owner.calls.append(call)
        owner.changed()
        self.index_call(call)
        if self._on_call_started is not None:
            self._on_call_started(call_id, name)
        return call

    def add_args(self, call_id: str, delta: str) -> None:
        """Append argument text to the call `call_id`, kept until it starts if it has not."""
        call = self.call(call_id) or self.live_call(call_id)
        if call is None:  # ARGS before START: keep them until the call starts
            self._early_args.setdefault(call_id, []).append(delta)
            return
        # Appended even after END: pydantic-ai ends a parallel call before its arguments.
        call.parts.append(delta)
        call.changed()
        call.owner.changed()

    def add_result(self, event: Any) -> set[str]:
        """Fold a `TOOL_CALL_RESULT`: the call's tool message, unless it has one or no message declares it."""
        previous = self.role(event.message_id)
        if self.is_answered(event.tool_call_id) and previous != "tool":
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
        if previous is not None and previous != "tool":
            # The id of another message (the person's own): replacing it would erase what they
            # said. The call still gets its one answer, under an id of its own.
            message_id = new_id()
            refuse("TOOL_CALL_RESULT", event.message_id, f"it is {described(previous, False)}",
                   f"was kept as tool message {message_id}")
        self.append(ToolMessage(id=message_id, tool_call_id=event.tool_call_id, content=event.content,
                                subagent_run_id=event.subagent_run_id))
        return {"messages"}

    def replace_messages(self, messages: Sequence[Message]) -> set[str]:
        """Fold a `MESSAGES_SNAPSHOT`: `messages` replace the history."""
        # The server's view of the conversation replaces ours. Calls it leaves unanswered stay
        # indexed, so arguments still streaming are not lost (a later event may bring their
        # message back); a call it dropped is not declared any more, so it is never answered.
        previous, answered = self.clear()
        open_calls = {call_id: call for call_id, call in previous.items() if call_id not in answered}
        for message in messages:
            self.append(message, streamed=open_calls)
        for call_id, call in previous.items():
            if not self.is_answered(call_id) and self.call(call_id) is None:
                self.index_call(call)
        return {"messages"}
