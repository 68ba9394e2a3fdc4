"""Stores: where a thread kept across page loads saves its conversation (`agent.thread(..., store=...)`).

A `Store` is any object with three async methods over JSON dicts: `load(key)`, `save(key,
data)` and `delete(key)`. `MemoryStore` keeps them in this process (tests, scripts);
`FileStore(path)` writes one JSON file per key, atomically (a temporary file, then
`os.replace`), so a crash mid-write leaves the previous version whole. In the page,
`store=True` uses the browser's IndexedDB (`pyclient.browser`, through `pyscript.storage`).

A `ListingStore` also lists its threads, for `pyclient.SavedThreads` and the page's
`ThreadList`: two more async methods over a small JSON record per key, the thread's summary,
kept beside its snapshot (`pyclient._summaries` says what is in it), so that a list never reads
a snapshot. `update_summary(key, fields)` merges `fields` into the key's record (creating it),
`list_threads(prefix)` returns the records of the keys that start with `prefix`, and
`delete(key)` forgets the record with the snapshot. The three stores here are listing stores;
a store with only the three methods of `Store` keeps threads as before and cannot be listed.

```python
import asyncio, tempfile
from pyclient import FileStore, MemoryStore

async def main():
    for store in (MemoryStore(), FileStore(tempfile.mkdtemp())):
        await store.save("main/support", {"messages": []})
        print(await store.load("main/support"), await store.load("other"))   # {'messages': []} None
        await store.update_summary("main/support", {"title": "Hi", "updated_at": 1.0})
        await store.update_summary("main/support", {"name": "Support"})   # merged into the record
        print(await store.list_threads("main/"))   # {'main/support': {'title': 'Hi', 'updated_at': 1.0, 'name': 'Support'}}
        await store.delete("main/support")         # the snapshot and its summary
        print(await store.list_threads())          # {}

asyncio.run(main())
```
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["FileStore", "ListingStore", "MemoryStore", "Store"]


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
class ListingStore(Store, Protocol):
    """A `Store` that also lists its threads: a small summary record per key, beside the snapshot.

    `pyclient.SavedThreads` and `pyclient.browser.ThreadList` need these two methods; the
    thread's saves write the record (`pyclient._summaries`). `delete(key)` must forget the
    record too. Records are JSON-safe dicts; merging is a shallow `dict.update`.
    """

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any]]:
        """The summary record of every key that starts with `prefix`, by key (any order)."""
        ...

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        """Merge `fields` into the summary record of `key` (creating it), keeping its other fields."""
        ...


class MemoryStore:
    """A `Store` in this process's memory: each value is kept as its JSON text, so what
    `load()` returns is a copy and anything that is not JSON fails at `save()`."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._summaries: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"<MemoryStore {sorted(self._data)}>"

    def __contains__(self, key: str) -> bool:
        return key in self._data

    async def load(self, key: str) -> dict[str, Any] | None:
        text = self._data.get(key)
        return None if text is None else json.loads(text)

    async def save(self, key: str, data: dict[str, Any]) -> None:
        self._data[key] = json.dumps(data)

    async def delete(self, key: str) -> None:
        self._data.pop(key, None)
        self._summaries.pop(key, None)

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any]]:
        return {key: json.loads(text) for key, text in self._summaries.items() if key.startswith(prefix)}

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        record = json.loads(self._summaries.get(key, "{}"))
        record.update(fields)
        self._summaries[key] = json.dumps(record)


class FileStore:
    """A `ListingStore` in a directory: one `<quoted key>.json` file per key, replaced atomically,
    and its summary in `_summaries/<quoted key>.json` (a name no quoted key's file can have).

    Args:
        path: the directory (created on the first save).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"<FileStore {str(self.path)!r}>"

    def file(self, key: str) -> Path:
        """The file that holds `key` (any string is a safe file name once quoted)."""
        return self.path / _file_name(key)

    def summary_file(self, key: str) -> Path:
        """The file that holds the summary record of `key`."""
        return self.path / SUMMARIES / _file_name(key)

    async def load(self, key: str) -> dict[str, Any] | None:
        try:
            text = self.file(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        return json.loads(text)  # type: ignore[no-any-return]

    async def save(self, key: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)  # before any file is touched: a value that is not JSON changes nothing
        _replace(self.file(key), text)

    async def delete(self, key: str) -> None:
        self.file(key).unlink(missing_ok=True)
        self.summary_file(key).unlink(missing_ok=True)

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any]]:
        from urllib.parse import unquote

        folder = self.path / SUMMARIES
        records: dict[str, dict[str, Any]] = {}
        if not folder.is_dir():
            return records
        for file in folder.glob("*.json"):
            key = unquote(file.name[: -len(".json")])
            if not key.startswith(prefix):
                continue
            try:
                records[key] = json.loads(file.read_text(encoding="utf-8"))
            except FileNotFoundError:
                continue  # deleted meanwhile
        return records

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        target = self.summary_file(key)
        try:
            record = json.loads(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            record = {}
        record.update(fields)
        _replace(target, json.dumps(record))


SUMMARIES = "_summaries"
"""The folder of a `FileStore` that holds the summary records."""


def _file_name(key: str) -> str:
    # Imported here: urllib.parse (with ipaddress) is about 0.1 s of a page's boot in Pyodide,
    # and only a FileStore (CPython) quotes keys.
    from urllib.parse import quote

    return quote(key, safe="") + ".json"


def _replace(target: Path, text: str) -> None:
    """Write `text` to `target` atomically: a temporary file in its folder, then `os.replace`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)  # atomic: readers see the old file or the new one
    except BaseException:
        os.unlink(temporary)
        raise
