"""Stores: where a thread kept across page loads saves its conversation (`agent.thread(..., store=...)`).

A `Store` is any object with three async methods over JSON dicts: `load(key)`, `save(key,
data)` and `delete(key)`. A `RecordStore` adds `append(key, record)`: a thread kept there
saves what changed as a record after its last whole snapshot, so a save costs what changed,
not the thread (`pyclient._journal`), and its `load` returns the snapshot with the records
folded in (`pyclient._fold.fold`); a store without it gets whole snapshots. `MemoryStore` keeps them in this process (tests, scripts); `FileStore(path)` writes
one JSON file per key, atomically (a temporary file, then `os.replace`), so a crash mid-write
leaves the previous version whole, and its records one JSON line each in a `.jsonl` file
beside it. In the page, `store=True` uses the browser's IndexedDB (`pyclient.browser`,
through `pyscript.storage`).

```python
import asyncio, tempfile
from pyclient import FileStore, MemoryStore

async def main():
    for store in (MemoryStore(), FileStore(tempfile.mkdtemp())):
        await store.save("main/support", {"messages": []})
        record = {"seq": 1, "from": 0, "messages": [{"id": "u1"}], "head": {}}
        await store.append("main/support", record)
        print((await store.load("main/support"))["messages"])        # [{'id': 'u1'}]
        await store.save("main/support", {"messages": []})           # a save drops the records
        print(await store.load("main/support"), await store.load("other"))   # {'messages': []} None
        await store.delete("main/support")

asyncio.run(main())
```
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ._fold import fold

__all__ = ["FileStore", "MemoryStore", "RecordStore", "Store"]


@runtime_checkable
class Store(Protocol):
    """Where a thread's snapshot is kept: any object with these three async methods.

    Keys are strings (`"<agent name>/<thread id>"`); values are JSON-safe dicts.
    """

    async def load(self, key: str) -> dict[str, Any] | None:
        """The dict saved under `key`, or None when there is none."""
        ...

    async def save(self, key: str, data: dict[str, Any]) -> None:
        """Save `data` under `key`, replacing what was there."""
        ...

    async def delete(self, key: str) -> None:
        """Forget `key` (nothing happens when it is not there)."""
        ...


@runtime_checkable
class RecordStore(Store, Protocol):
    """A `Store` that also keeps records appended after the dict saved under a key.

    pyclient appends a thread's changes as records and, now and then, saves it whole.
    `save(key, data)` replaces the dict and drops the key's records (after `data` is safely
    in place: records left behind by a crash are skipped by their `seq`); `delete(key)`
    forgets both; `load(key)` returns `pyclient._fold.fold(data, records)`, leaving out a
    record a crash cut short.
    """

    async def append(self, key: str, record: dict[str, Any]) -> None:
        """Add `record` after what is saved under `key` (once this returns, it is kept)."""
        ...


class MemoryStore:
    """A `Store` in this process's memory: each value is kept as its JSON text, so what
    `load()` returns is a copy and anything that is not JSON fails at `save()`."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._records: dict[str, list[str]] = {}

    def __repr__(self) -> str:
        return f"<MemoryStore {sorted(self._data)}>"

    def __contains__(self, key: str) -> bool:
        return key in self._data

    async def load(self, key: str) -> dict[str, Any] | None:
        text = self._data.get(key)
        if text is None:
            return None
        data = json.loads(text)
        records = self._records.get(key)
        return fold(data, (json.loads(record) for record in records)) if records else data

    def count_records(self, key: str) -> int:
        """How many records follow the dict saved under `key`."""
        return len(self._records.get(key, ()))

    async def save(self, key: str, data: dict[str, Any]) -> None:
        self._data[key] = json.dumps(data)
        self._records.pop(key, None)

    async def delete(self, key: str) -> None:
        self._data.pop(key, None)
        self._records.pop(key, None)

    async def append(self, key: str, record: dict[str, Any]) -> None:
        self._records.setdefault(key, []).append(json.dumps(record))


class FileStore:
    """A `Store` in a directory: one `<quoted key>.json` file per key, replaced atomically, and
    its records as JSON lines in `<quoted key>.jsonl` (each appended, then synced to disk).

    Args:
        path: the directory (created on the first save).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"<FileStore {str(self.path)!r}>"

    def file(self, key: str) -> Path:
        """The file that holds `key` (any string is a safe file name once quoted)."""
        # Imported here: urllib.parse (with ipaddress) is about 0.1 s of a page's boot in
        # Pyodide, and only a FileStore (CPython) quotes keys.
        from urllib.parse import quote

        return self.path / (quote(key, safe="") + ".json")

    def log(self, key: str) -> Path:
        """The file that holds `key`'s records."""
        return self.file(key).with_suffix(".jsonl")

    async def load(self, key: str) -> dict[str, Any] | None:
        try:
            text = self.file(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        data = json.loads(text)
        records = self._records(key)
        return fold(data, records) if records else data

    async def save(self, key: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)  # before any file is touched: a value that is not JSON changes nothing
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.file(key)
        fd, temporary = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=self.path)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)  # atomic: readers see the old file or the new one
        except BaseException:
            os.unlink(temporary)
            raise
        # After the new file is in place: a crash in between leaves records it already holds,
        # which a load skips (`pyclient._journal.fold`: their numbers are not above its own).
        self.log(key).unlink(missing_ok=True)

    async def delete(self, key: str) -> None:
        self.file(key).unlink(missing_ok=True)
        self.log(key).unlink(missing_ok=True)

    async def append(self, key: str, record: dict[str, Any]) -> None:
        # A line each; the newline first ends a line a crash cut short, so this one stays whole.
        line = ("\n" + json.dumps(record) + "\n").encode()
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.log(key), "ab") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())

    def _records(self, key: str) -> list[dict[str, Any]]:
        try:
            text = self.log(key).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        records: list[dict[str, Any]] = []
        for line in text.splitlines():
            if not line:
                continue
            try:
                record = json.loads(line)  # the store's own append
            except ValueError:
                break  # cut short by a crash: nothing after it is read
            records.append(record)
        return records
