"""The settled part of a history, kept as its JSON only: models built again on demand.

Once a request has carried a message (`History.dump_json`), the message lives here as the
bytes the request sent (`pyclient._conversation._message_json.Wire`), and its id, its calls' ids and the call its
tool message answers are positions in an `IdIndex`: no entry and no string is kept for it.
Readers get models built from those bytes on their first read (`model`, `models`), equal to
the ones they were serialized from, and kept from then on (a thread nobody reads holds none); a message that must change again (text for an old id, a snapshot, an
echoed encrypted value) is thawed back into an entry by the history (`thaw_from`), with every
later one, since the request prefix is cut from there.

```python
from ag_ui.core import AssistantMessage, FunctionCall, ToolCall
from pyclient._wire._events import message_adapter
from pyclient._conversation._frozen import Frozen

frozen = Frozen()
message = AssistantMessage(id="a1", content="on it", tool_calls=[
    ToolCall(id="c1", function=FunctionCall(name="save_note", arguments='{"text": "hi"}'))])
frozen.freeze(message_adapter().dump_json(message, by_alias=True), "a1", "assistant", ["c1"], None, streamed=False)
print(frozen.model(0) == message, frozen.tool_call("c1").function.name)   # True save_note
print(frozen.message("nope"), frozen.is_declared("c1"), frozen.is_answered("c1"))   # None True False
```
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._wire._events import message_adapter
from ._idindex import IdIndex
from ._message_json import Wire

if TYPE_CHECKING:
    from ag_ui.core import Message, ToolCall, ToolMessage

__all__ = ["Frozen"]


class Frozen:
    """The first `len(frozen)` messages of one history, as JSON (see the module docstring)."""

    __slots__ = ("wire", "_index", "_streamed", "_models", "_calls")

    def __init__(self) -> None:
        self.wire = Wire()
        self._index = IdIndex()
        self._streamed = bytearray()  # 1: message i was assembled from events (not given as a model)
        # The models readers asked for, kept once built (as a live entry keeps its own): the chat
        # reads the whole history on each full redraw, and parsing thousands of messages each
        # frame blocked the page for seconds. A thread nobody reads keeps none (by position: a
        # list would keep a slot a message).
        self._models: dict[int, Message] = {}
        # An assistant message's calls by id, made on the first lookup in it: a card per call of
        # a message with 1,000 calls looked each up by scanning them (twice), 500,000 compares.
        self._calls: dict[int, dict[str, ToolCall]] = {}

    def __len__(self) -> int:
        return len(self.wire)

    def freeze(self, fragment: bytes, message_id: str, role: str, call_ids: Iterable[str],
               answers: str | None, *, streamed: bool) -> None:
        """Keep the next message as `fragment` (its JSON) only, its ids as positions.

        Args:
            call_ids: the ids of the calls it declares (an assistant message).
            answers: the call its tool message answers, or None.
            streamed: it was assembled from events (a thawed one is again: an id-less call
                may still join the last streamed assistant message).
        """
        position = len(self.wire)
        self.wire.add(fragment)
        self._streamed.append(1 if streamed else 0)
        index = self._index
        index.set("m", message_id, position)
        for call_id in call_ids:
            index.set("c", call_id, position)
        if answers is not None and role == "tool":
            index.set("a", answers, position)

    def streamed(self, position: int) -> bool:
        """The message at `position` was assembled from events."""
        return bool(self._streamed[position])

    def model(self, position: int) -> Message:
        """The model of the message at `position` (built on the first read, then kept)."""
        model = self._models.get(position)
        if model is None:
            model = self._models[position] = message_adapter().validate_json(self.wire.json_of(position))
        return model

    def models(self) -> list[Message]:
        """The models of every frozen message, in order (a new list each call)."""
        if not len(self.wire):  # ag-ui's models are imported on first use: a new chat has none
            return []
        return [self.model(position) for position in range(len(self.wire))]

    def _found(self, tag: str, ident: str) -> tuple[int, Any] | None:
        # A hit is a 64-bit hash: the message itself confirms it (`_confirms`).
        position = self._index.get(tag, ident)
        if position < 0:
            return None
        model = self.model(position)
        if tag == "c":
            return (position, model) if ident in self._calls_of(position) else None
        return (position, model) if _confirms(tag, ident, model) else None

    def _calls_of(self, position: int) -> dict[str, ToolCall]:
        """The calls of the message at `position` by id (the last with each id: a later run may
        have used one again in the same message)."""
        calls = self._calls.get(position)
        if calls is None:
            model = self.model(position)
            calls = self._calls[position] = {call.id: call for call in getattr(model, "tool_calls", None) or ()}
        return calls

    def position(self, message_id: str) -> int:
        """Where the message with this id is, or -1."""
        found = self._found("m", message_id)
        return found[0] if found is not None else -1

    def message(self, message_id: str) -> Message | None:
        found = self._found("m", message_id)
        return found[1] if found is not None else None

    def owner(self, call_id: str) -> int:
        """The position of the message that declares this call, or -1."""
        found = self._found("c", call_id)
        return found[0] if found is not None else -1

    def is_declared(self, call_id: str) -> bool:
        return self.owner(call_id) >= 0

    def is_answered(self, call_id: str) -> bool:
        return self._found("a", call_id) is not None

    def tool_call(self, call_id: str) -> ToolCall | None:
        found = self._found("c", call_id)
        return None if found is None else self._calls_of(found[0])[call_id]

    def tool_result(self, call_id: str) -> ToolMessage | None:
        found = self._found("a", call_id)
        return found[1] if found is not None else None

    def forget_call(self, call_id: str) -> None:
        """A later call uses this id: the history's live tables speak for it now."""
        self._index.discard("c", call_id)
        self._index.discard("a", call_id)

    def thaw_from(self, position: int) -> list[tuple[Message, set[str], bool, bool]]:
        """Give back the messages from `position` on, and keep nothing of them.

        Returns:
            Each message's model, the ids of its calls the index still named (a later call
            may have taken an id: `forget_call`), whether it still answered its call, and
            whether it was streamed.
        """
        thawed: list[tuple[Message, set[str], bool, bool]] = []
        index = self._index
        validate = message_adapter().validate_json
        for at in range(position, len(self.wire)):
            model = validate(self.wire.json_of(at))  # a new model: the entry it becomes changes it
            if index.get("m", model.id) == at:
                index.discard("m", model.id)
            calls = set()
            for call in getattr(model, "tool_calls", None) or ():
                if index.get("c", call.id) == at:
                    index.discard("c", call.id)
                    calls.add(call.id)
            answers = getattr(model, "tool_call_id", None)
            answering = isinstance(answers, str) and index.get("a", answers) == at
            if isinstance(answers, str) and answering:
                index.discard("a", answers)
            thawed.append((model, calls, answering, bool(self._streamed[at])))
        self.wire.cut(position)
        del self._streamed[position:]
        for kept in [kept for kept in self._models if kept >= position]:
            del self._models[kept]
        for at in [at for at in self._calls if at >= position]:
            del self._calls[at]
        return thawed


def _confirms(tag: str, ident: str, model: Any) -> bool:
    if tag == "m":
        return bool(model.id == ident)
    return bool(model.role == "tool" and model.tool_call_id == ident)
