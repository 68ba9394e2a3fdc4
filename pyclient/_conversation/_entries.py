"""The entries a history is made of: a message, or a tool call, being assembled from events.

A streamed text or argument is kept as a list of pieces, joined on demand, so a long answer
costs linear time; each entry builds its `ag_ui.core` model once and keeps it until it
changes, so a message and the `Action` of its call share one model.

```python
from pyclient._conversation._entries import CallEntry, MessageEntry

entry = MessageEntry("m1", "assistant")
entry.add_text("Hel")
entry.add_text("lo")
call = CallEntry("c1", "save_note", entry)
entry.calls.append(call)
call.parts.append('{"text": "hi"}')
message = entry.model()
print(message.content, message.tool_calls[0].function.arguments)   # Hello {"text": "hi"}
```
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._base._json import repair
from .._wire._events import message_adapter

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Context, Message, ToolCall

__all__ = ["TEXT_ROLES", "CallEntry", "MessageEntry", "as_contexts", "as_message"]

# The roles whose messages are assembled from streamed text.
TEXT_ROLES = frozenset({"assistant", "user", "system", "developer", "reasoning"})


def _text_model(role: str) -> type[Message]:
    from ag_ui.core import (
        AssistantMessage,
        DeveloperMessage,
        ReasoningMessage,
        SystemMessage,
        UserMessage,
    )

    models: dict[str, type[Message]] = {
        "assistant": AssistantMessage, "user": UserMessage, "system": SystemMessage,
        "developer": DeveloperMessage, "reasoning": ReasoningMessage,
    }
    return models[role]


def as_message(message: Message | dict[str, Any]) -> Message:
    """A message model from a model or its JSON form (camelCase or snake_case keys)."""
    if isinstance(message, dict):
        return message_adapter().validate_python(message)
    return message


def as_contexts(items: Iterable[Context | dict[str, str]]) -> list[Context]:
    """`ag_ui.core.Context` items from models or `{"description", "value"}` dicts."""
    items = list(items)
    if not items:
        return []  # the usual case: ag_ui.core is not needed yet
    from ag_ui.core import Context

    return [item if isinstance(item, Context) else Context(**item) for item in items]


class CallEntry:
    """A tool call being assembled: its argument text is a list of pieces."""

    __slots__ = ("id", "name", "parts", "encrypted_value", "owner", "base", "run", "_cache")

    def __init__(self, call_id: str, name: str, owner: MessageEntry, base: ToolCall | None = None, run: int = -1) -> None:
        self.id = call_id
        self.name = name
        self.parts: list[str] = []
        self.encrypted_value: str | None = None
        self.owner = owner
        self.base = base
        self.run = run  # the run whose events started it; -1 for a call given as a message
        self._cache: ToolCall | None = None

    def changed(self) -> None:
        """Its arguments or encrypted value changed: the next `model()` builds a new `ToolCall`."""
        self._cache = None

    @property
    def arguments(self) -> str:
        if len(self.parts) > 1:  # compact, so the next join only costs the new pieces
            self.parts[:] = ["".join(self.parts)]
        # The raw pieces stay as received: a surrogate half at the end may still meet its pair.
        return repair(self.parts[0]) if self.parts else ""

    def model(self) -> ToolCall:
        """The call as a `ToolCall`: one object while it does not change (its message and its
        `Action` share it rather than each keeping a copy)."""
        if self._cache is not None:
            return self._cache
        from ag_ui.core import FunctionCall, ToolCall

        function = FunctionCall(name=self.name, arguments=self.arguments)
        if self.base is not None:
            update: dict[str, Any] = {"function": function}
            if self.encrypted_value is not None:
                update["encrypted_value"] = self.encrypted_value
            self._cache = self.base.model_copy(update=update)
        else:
            self._cache = ToolCall(id=self.id, function=function, encrypted_value=self.encrypted_value)
        return self._cache


class MessageEntry:
    """One message of the history. Text messages are assembled; others are kept as given.

    A history keeps entries only for the messages no request carried yet (and those that
    change again): the others live as their JSON (`pyclient._conversation._frozen`).
    """

    __slots__ = ("id", "role", "parts", "calls", "base", "name", "encrypted_value", "subagent_run_id", "_cache")

    def __init__(self, message_id: str, role: str, base: Any = None, name: str | None = None,
                 subagent_run_id: str | None = None) -> None:
        self.id = message_id
        self.role = role
        self.parts: list[str] = []
        self.calls: list[CallEntry] = []
        self.base = base            # the model it came from (a snapshot, a client message)
        self.name = name
        self.encrypted_value: str | None = None
        # The subagent invocation that produced it (`pyclient._conversation._subagents`); a given message's own.
        self.subagent_run_id = getattr(base, "subagent_run_id", None) if base is not None else subagent_run_id
        self._cache: Any = base

    @property
    def assembled(self) -> bool:
        return self.role in TEXT_ROLES and (self.base is None or isinstance(self.base.content, (str, type(None))))

    def add_text(self, delta: str) -> None:
        self.parts.append(delta)
        self._cache = None

    def changed(self) -> None:
        self._cache = None

    def model(self) -> Any:
        if self._cache is not None:
            return self._cache
        if not self.assembled:  # kept as given; only an echoed encrypted value can change
            self._cache = self.base.model_copy(update={"encrypted_value": self.encrypted_value})
            return self._cache
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        text = repair(self.parts[0]) if self.parts else None
        update: dict[str, Any] = {}
        if self.role == "assistant":
            update["content"] = text if text is not None or not self.calls else None
            update["tool_calls"] = [call.model() for call in self.calls] or None
        else:
            update["content"] = text or ""
        if self.encrypted_value is not None:
            update["encrypted_value"] = self.encrypted_value
        if self.subagent_run_id is not None and self.base is None:
            update["subagent_run_id"] = self.subagent_run_id
        if self.base is not None:
            model = self.base.model_copy(update=update)
        else:
            if self.name is not None and self.role != "reasoning":
                update["name"] = self.name
            model = _text_model(self.role)(id=self.id, **update)
        self._cache = model
        return model
