"""A history's messages as a read-only sequence that builds a model only for the item read.

`History.view()` returns one: its length, its last message or the first user message cost
one model each, not a parse of the whole history (most messages a request carried are kept
as their JSON only, `pyclient._conversation._frozen`). Any object with `__len__` and `model_at(position)`
can be viewed.

```python
from ag_ui.core import UserMessage
from pyclient._conversation._history import History

history = History([UserMessage(id="u1", content="hi"), UserMessage(id="u2", content="again")])
view = history.view()
assert len(view) == 2 and view[-1].content == "again" and [m.id for m in view[:1]] == ["u1"]
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ag_ui.core import Message

__all__ = ["MessageView", "Positional"]


class Positional(Protocol):
    """What a view reads: how many messages, and the model of the one at a position."""

    def __len__(self) -> int: ...
    def model_at(self, position: int) -> Message: ...


class MessageView(Sequence["Message"]):
    """`History.view()`: each item built when read."""

    def __init__(self, history: Positional) -> None:
        self._history = history

    def __len__(self) -> int:
        return len(self._history)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._history.model_at(i) for i in range(*index.indices(len(self._history)))]
        if index < 0:
            index += len(self._history)
        if not 0 <= index < len(self._history):
            raise IndexError(index)
        return self._history.model_at(index)
