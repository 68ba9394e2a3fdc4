"""The history's messages as the JSON requests carry them: one bytes buffer, each message serialized once.

`Wire` keeps the JSON array body of a thread's messages (`m0,m1,...`) in one `bytearray`, with
where each message ends in an `array("q")`: a request copies the buffer once instead of
serializing every message again, and a message that will not change lives here only (its
`ag_ui.core` model is built again on demand, `History` decides which). Eight bytes of
bookkeeping a message, against the kilobytes its models and entries kept.

```python
from pyclient._wire import Wire

wire = Wire()
wire.add(b'{"id":"u1","role":"user","content":"hi"}')
wire.add(b'{"id":"a1","role":"assistant","content":"hello"}')
print(len(wire), wire.json_of(1))      # 2 b'{"id":"a1","role":"assistant","content":"hello"}'
print(wire.array(b"", b"")[:12])      # b'[{"id":"u1",'
wire.cut(1)
print(wire.array_from(0))             # b'[{"id":"u1","role":"user","content":"hi"}]'
```
"""

from __future__ import annotations

from array import array

__all__ = ["Wire"]


class Wire:
    """The JSON of the first `len(wire)` messages of a history, comma-separated, in one buffer."""

    __slots__ = ("_data", "_ends")

    def __init__(self) -> None:
        self._data = bytearray()
        self._ends = array("q")  # _ends[i]: where message i's JSON ends in _data

    def __len__(self) -> int:
        return len(self._ends)

    @property
    def size(self) -> int:
        """The bytes kept."""
        return len(self._data)

    def _start(self, index: int) -> int:
        return self._ends[index - 1] + 1 if index else 0  # + 1: the comma before it

    def add(self, fragment: bytes) -> None:
        """Append the next message's JSON."""
        if self._ends:
            self._data += b","
        self._data += fragment
        self._ends.append(len(self._data))

    def json_of(self, index: int) -> bytes:
        """Message `index`'s JSON."""
        return bytes(self._data[self._start(index):self._ends[index]])

    def contains(self, index: int, needle: bytes) -> bool:
        """True when message `index`'s JSON contains `needle` (a cheap check before a parse)."""
        return self._data.find(needle, self._start(index), self._ends[index]) != -1

    def cut(self, index: int) -> None:
        """Drop the JSON of message `index` and every later one."""
        ends = self._ends
        del ends[index:]
        del self._data[ends[-1] if ends else 0:]

    def array(self, before: bytes, after: bytes) -> bytes:
        """`before`, the JSON array of every message kept, `after`: one copy."""
        return b"".join((before, b"[", self._data, b"]", after))

    def array_from(self, index: int) -> bytes:
        """The JSON array of messages `index`.. (what changed since a save)."""
        if index >= len(self._ends):
            return b"[]"
        return b"".join((b"[", self._data[self._start(index):], b"]"))
