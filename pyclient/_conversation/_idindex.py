"""Positions by id, for the messages and calls a history keeps as JSON only: 12 bytes a slot, no objects.

A `dict[str, int]` costs more an entry (the key string, its slot, the int) than the message's
own JSON. `IdIndex` keeps a 64-bit hash of `(tag, id)` (on every platform) and a position (31
bits) in two arrays (open addressing, linear probing, half to three quarters full: a few slots
an id; bench/README.md has what it was before). A hash names an id
with no proof: callers check a hit against the message itself (`History` parses it anyway),
and a miss is certain (an id that is there always hashes to its key).

```python
from pyclient._conversation._idindex import IdIndex

index = IdIndex()
index.set("m", "u1", 0)
index.set("c", "call-1", 3)
print(index.get("m", "u1"), index.get("c", "call-1"), index.get("m", "nope"))   # 0 3 -1
index.discard("c", "call-1")
print(index.get("c", "call-1"), len(index))                                      # -1 1
```
"""

from __future__ import annotations

from array import array

__all__ = ["IdIndex"]

_EMPTY = 0  # no key hashes to 0 (see _key)


def _key(tag: str, ident: str) -> int:
    # 64 bits on every platform: Pyodide's hash() is 32 bits wide (wasm32), too few for a
    # thread's ids; two 32-bit halves of two different hashes make one signed 64-bit key.
    high = hash((tag, ident)) & 0xFFFFFFFF
    low = hash((ident, tag, 0)) & 0xFFFFFFFF
    key = (high << 32) | low
    if key >= 1 << 63:
        key -= 1 << 64
    return key or 1


class IdIndex:
    """A map from `(tag, id)` to a position (an int >= 0); -1 means absent."""

    __slots__ = ("_keys", "_values", "_filled", "_count")

    def __init__(self) -> None:
        self._keys = array("q", bytes(8 * 8))
        self._values = array("i", bytes(4 * 8))
        self._filled = 0  # slots holding a key (a discarded one keeps its key, value -1)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _slot(self, key: int) -> int:
        keys = self._keys
        size = len(keys)
        slot = key % size  # any size, not only powers of two: the table grows by half
        while True:
            found = keys[slot]
            if found == key or found == _EMPTY:
                return slot
            slot += 1
            if slot == size:
                slot = 0

    def get(self, tag: str, ident: str) -> int:
        """The position kept for `(tag, ident)`, or -1."""
        slot = self._slot(_key(tag, ident))
        return self._values[slot] if self._keys[slot] != _EMPTY else -1

    def set(self, tag: str, ident: str, position: int) -> None:
        """Keep `position` for `(tag, ident)` (replacing an earlier one)."""
        key = _key(tag, ident)
        slot = self._slot(key)
        if self._keys[slot] == _EMPTY:
            self._keys[slot] = key
            self._filled += 1
            self._values[slot] = -1
        if self._values[slot] < 0:
            self._count += 1
        self._values[slot] = position
        if 4 * self._filled > 3 * len(self._keys):
            self._grow()

    def discard(self, tag: str, ident: str) -> None:
        """Forget `(tag, ident)` (nothing happens when it is not there)."""
        slot = self._slot(_key(tag, ident))
        if self._keys[slot] != _EMPTY and self._values[slot] >= 0:
            self._values[slot] = -1
            self._count -= 1

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def _grow(self) -> None:
        keys, values = self._keys, self._values
        size = max(8, 2 * self._count)  # half full again (tombstones are dropped)
        self._keys, self._values = array("q", bytes(8 * size)), array("i", bytes(4 * size))
        self._filled = 0
        for key, value in zip(keys, values):
            if key != _EMPTY and value >= 0:
                slot = self._slot(key)
                self._keys[slot], self._values[slot] = key, value
                self._filled += 1
