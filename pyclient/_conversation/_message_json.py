"""The history's messages as the JSON requests carry them: one bytes buffer, each message serialized once.

`Wire` keeps the JSON array body of a thread's messages (`m0,m1,...`) in one `bytearray`, with
where each message ends in an `array("q")`: a request copies the buffer once instead of
serializing every message again, and a message that will not change lives here only (its
`ag_ui.core` model is built again on demand, `History` decides which). Eight bytes of
bookkeeping a message, against the kilobytes its models and entries kept.

```python
from pyclient._conversation._message_json import Wire

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

    __slots__ = ("_ends", "_sealed", "_tail")

    def __init__(self) -> None:
        # The bytes are a sealed `bytes` and a growing `bytearray` tail, moved into the sealed
        # part (one copy) once the tail passes an eighth of it: a bytearray over-allocates an
        # eighth of its size as it grows, which a long thread kept round trip after round trip. So
        # the spare room is an eighth of the tail (at most 1.6 % of the JSON), and each byte
        # is copied about eight times in all. A message lies in one part, never across them.
        self._sealed = b""
        self._tail = bytearray()
        # _ends[i]: where message i's JSON ends; 4 bytes ("I": wasm32's memory is 4 GiB at most).
        self._ends = array("I")

    def __len__(self) -> int:
        return len(self._ends)

    @property
    def size(self) -> int:
        """The bytes kept."""
        return len(self._sealed) + len(self._tail)

    def _start(self, index: int) -> int:
        return self._ends[index - 1] + 1 if index else 0  # + 1: the comma before it

    def _part(self, index: int) -> tuple[bytes | bytearray, int]:
        """The part holding message `index`, and where that part starts."""
        sealed = len(self._sealed)
        return (self._sealed, 0) if self._ends[index] <= sealed else (self._tail, sealed)

    def add(self, fragment: bytes) -> None:
        """Append the next message's JSON."""
        tail = self._tail
        if self._ends:
            tail += b","
        tail += fragment
        self._ends.append(len(self._sealed) + len(tail))
        if len(tail) > max(4096, len(self._sealed) >> 3):
            self._sealed += tail  # a new bytes of the exact size
            self._tail = bytearray()

    def json_of(self, index: int) -> bytes:
        """Message `index`'s JSON."""
        part, offset = self._part(index)
        return bytes(part[self._start(index) - offset:self._ends[index] - offset])

    def contains(self, index: int, needle: bytes) -> bool:
        """True when message `index`'s JSON contains `needle` (a cheap check before a parse)."""
        part, offset = self._part(index)
        return part.find(needle, self._start(index) - offset, self._ends[index] - offset) != -1

    def cut(self, index: int) -> None:
        """Drop the JSON of message `index` and every later one."""
        ends = self._ends
        del ends[index:]
        size = ends[-1] if ends else 0
        sealed = len(self._sealed)
        if size >= sealed:
            del self._tail[size - sealed:]
        else:  # rare (a message sent long ago changes): one copy
            self._sealed, self._tail = self._sealed[:size], bytearray()

    def array(self, before: bytes, after: bytes) -> bytes:
        """`before`, the JSON array of every message kept, `after`: one copy."""
        return b"".join((before, b"[", self._sealed, self._tail, b"]", after))

    def array_from(self, index: int) -> bytes:
        """The JSON array of messages `index`.. (what changed since a save)."""
        if index >= len(self._ends):
            return b"[]"
        start, sealed = self._start(index), len(self._sealed)
        if start >= sealed:
            return b"".join((b"[", memoryview(self._tail)[start - sealed:], b"]"))
        return b"".join((b"[", memoryview(self._sealed)[start:], self._tail, b"]"))
