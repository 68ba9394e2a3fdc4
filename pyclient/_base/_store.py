"""Stores: where a thread kept across page loads saves its conversation (`agent.thread(..., store=...)`).

The protocols grow by what a store can do. A `Store` has three async methods over JSON dicts
(`load`, `save`, `delete`); a `RecordStore` adds `append(key, record)`, so a save costs what
changed, not the thread (`pyclient._driver._journal`); a `ListingStore` keeps a small summary
record beside each snapshot (`update_summary`, `list_threads`), so a list never reads a
snapshot; a `GuardedStore` adds `exists(key)`, so a thread deleted elsewhere stops saving, and
`set_aside(key)`, so a snapshot that cannot be read is kept rather than overwritten.
`MemoryStore` (this process) and `FileStore(path)` (a JSON file per key, replaced atomically;
its records in a `.jsonl` beside it) are all four; the page's is `IndexedDbStore`
(`pyclient.browser`). What each method must do: docs/persistence.md.

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
        await store.update_summary("main/support", {"title": "Hi", "updated_at": 1.0})
        await store.update_summary("main/support", {"name": "Support"})   # merged into the record
        print(await store.list_threads("main/"))   # {'main/support': {'title': 'Hi', 'updated_at': 1.0, 'name': 'Support'}}
        await store.delete("main/support")         # the snapshot and its summary
        print(await store.list_threads(), await store.exists("main/support"))   # {} False

asyncio.run(main())
```

```python
import asyncio, tempfile
from pyclient import FileStore

async def main():
    store = FileStore(tempfile.mkdtemp())
    store.file("main/t1").write_text('{"version": 1, "mess')      # a snapshot cut short
    aside = await store.set_aside("main/t1")                       # moved, as it is
    print(aside, store.file(aside).read_text())                    # main/t1#unreadable {"version": 1, "mess
    print(len(store.file("main/" + "x" * 10_000).name))             # 171

asyncio.run(main())
```
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ._json import loads as bounded_loads
from ._replay import fold

__all__ = ["LONGEST_NAME", "FileStore", "GuardedStore", "ListingStore", "MemoryStore", "RecordStore", "Store",
           "file_name", "parsed_record", "unreadable_key"]


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
    forgets both; `load(key)` returns `pyclient._base._replay.fold(data, records)`, leaving out a
    record a crash cut short.
    """

    async def append(self, key: str, record: dict[str, Any]) -> None:
        """Add `record` after what is saved under `key` (once this returns, it is kept)."""
        ...


@runtime_checkable
class ListingStore(Store, Protocol):
    """A `Store` that also lists its threads: a small summary record per key, beside the snapshot.

    `pyclient.SavedThreads` and `pyclient.browser.ThreadList` need these two methods; the
    thread's saves write the record (`pyclient._driver._summaries`). `delete(key)` must forget the
    record too. Records are JSON-safe dicts; merging is a shallow `dict.update`.
    """

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any] | None]:
        """The summary record of every key that starts with `prefix`, by key (any order); None
        for a record that is there but cannot be read (never an exception)."""
        ...

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        """Merge `fields` into the summary record of `key` (creating it, or replacing one that
        cannot be read), keeping its other fields."""
        ...


@runtime_checkable
class GuardedStore(Store, Protocol):
    """A `Store` that can say whether a key is still there, and move an unreadable one aside.

    A thread kept in one checks `exists(key)` before each save once the store held it: a key
    gone means the thread was deleted elsewhere (another tab, another process), and it stops
    saving instead of writing it back. A snapshot its `load` cannot read (a `ValueError` or
    `TypeError`: JSON cut short, not a dict) or that is not a snapshot pyclient reads is moved
    with `set_aside(key)`, kept whole under the key it returns, and the thread starts afresh.
    """

    async def exists(self, key: str) -> bool:
        """True when a snapshot is saved under `key`."""
        ...

    async def set_aside(self, key: str) -> str:
        """Move what is saved under `key` (the snapshot as it is, and its records) to a free key
        (`unreadable_key`), forget the summary record of `key`, and return the new key."""
        ...


class MemoryStore:
    """A `Store` in this process's memory: each value is kept as its JSON text, so what
    `load()` returns is a copy and anything that is not JSON fails at `save()`."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._records: dict[str, list[str]] = {}
        self._summaries: dict[str, str] = {}

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
        self._summaries.pop(key, None)

    async def append(self, key: str, record: dict[str, Any]) -> None:
        self._records.setdefault(key, []).append(json.dumps(record))

    async def exists(self, key: str) -> bool:
        return key in self._data

    async def set_aside(self, key: str) -> str:
        aside = unreadable_key(key, lambda taken: taken in self._data or taken in self._records)
        if key in self._data:
            self._data[aside] = self._data.pop(key)
        if key in self._records:
            self._records[aside] = self._records.pop(key)
        self._summaries.pop(key, None)
        return aside

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any] | None]:
        return {key: parsed_record(text) for key, text in self._summaries.items() if key.startswith(prefix)}

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        record = parsed_record(self._summaries.get(key, "{}")) or {}
        record.update(fields)
        self._summaries[key] = json.dumps(record)


class FileStore:
    """A `ListingStore`, `RecordStore` and `GuardedStore` in a directory: one `<quoted key>.json`
    file per key, replaced atomically, its records as JSON lines in `<quoted key>.jsonl` (each
    appended, then synced to disk), and its summary in `_summaries/<quoted key>.json` (a name no
    quoted key's file can have). A key whose quoted name is too long for a file name is kept
    under a name cut short and ended by its hash (`file_name`); its summary file also holds the
    key, which the name cannot.

    Args:
        path: the directory (created on the first save).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"<FileStore {str(self.path)!r}>"

    def file(self, key: str) -> Path:
        """The file that holds `key` (any string is a safe file name once quoted)."""
        return self.path / file_name(key)

    def summary_file(self, key: str) -> Path:
        """The file that holds the summary record of `key`."""
        return self.path / SUMMARIES / file_name(key)

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
        _replace(self.file(key), text)
        # After the new file is in place: a crash in between leaves records it already holds,
        # which a load skips (`pyclient._driver._journal.fold`: their numbers are not above its own).
        self.log(key).unlink(missing_ok=True)

    async def delete(self, key: str) -> None:
        self.file(key).unlink(missing_ok=True)
        self.log(key).unlink(missing_ok=True)
        self.summary_file(key).unlink(missing_ok=True)

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

    async def exists(self, key: str) -> bool:
        return self.file(key).is_file()

    async def set_aside(self, key: str) -> str:
        aside = unreadable_key(key, lambda taken: self.file(taken).exists() or self.log(taken).exists())
        for source, target in ((self.file(key), self.file(aside)), (self.log(key), self.log(aside))):
            try:
                os.replace(source, target)  # the bytes as they are: nothing is read or rewritten
            except FileNotFoundError:
                pass
        self.summary_file(key).unlink(missing_ok=True)
        return aside

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any] | None]:
        from urllib.parse import unquote

        folder = self.path / SUMMARIES
        records: dict[str, dict[str, Any] | None] = {}
        if not folder.is_dir():
            return records
        for file in folder.glob("*.json"):
            try:
                text = file.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue  # deleted meanwhile
            record = parsed_record(text)
            key: Any = unquote(file.name[: -len(".json")])
            if _HASHED in file.name:  # a long key: the file holds it beside the record
                key, record = (record or {}).get("key"), (record or {}).get("record")
                if not isinstance(key, str) or file_name(key) != file.name:
                    continue  # not a record this store wrote: no key to list it under
            if key.startswith(prefix):
                records[key] = record if isinstance(record, dict) else None
        return records

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        target = self.summary_file(key)
        try:
            text = target.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = "{}"
        hashed = _HASHED in target.name
        held = parsed_record(text) or {}
        record = (held.get("record") if hashed else held) or {}
        if not isinstance(record, dict):
            record = {}  # a record that could not be read is replaced
        record.update(fields)
        _replace(target, json.dumps({"key": key, "record": record} if hashed else record))


SUMMARIES = "_summaries"
"""The folder of a `FileStore` that holds the summary records."""

LONGEST_NAME = 237
"""The longest quoted key a `FileStore` keeps as its file name: with `.json` and the 13 characters
of the temporary file written beside it, 255 bytes, the longest file name of common file systems
(ext4, APFS, NTFS). Longer keys are kept under a hashed name (`file_name`)."""

_KEPT = 100
_HASHED = "%%"  # never in a quoted key, where "%" is always followed by two hex digits


def file_name(key: str) -> str:
    """The name of the file that holds `key` in a `FileStore`: the key quoted (any string is a safe
    file name once quoted), and `.json`; a quoted key over `LONGEST_NAME` characters is cut at
    100, followed by `%%` and the key's SHA-256 (171 characters in all)."""
    # Imported here: urllib.parse (with ipaddress) would slow a page's boot in Pyodide, and
    # only a FileStore (CPython) quotes keys.
    from urllib.parse import quote

    quoted = quote(key, safe="")
    if len(quoted) <= LONGEST_NAME:
        return quoted + ".json"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return quoted[:_KEPT] + _HASHED + digest + ".json"


def unreadable_key(key: str, taken: Callable[[str], bool]) -> str:
    """The key an unreadable snapshot of `key` is moved to: `<key>#unreadable`, else the first of
    `<key>#unreadable-2`, `-3`... that is not `taken`."""
    aside, number = f"{key}#unreadable", 1
    while taken(aside):
        number += 1
        aside = f"{key}#unreadable-{number}"
    return aside


def parsed_record(text: Any) -> dict[str, Any] | None:
    """The dict a stored JSON text holds, or None when it is not the JSON of a dict (cut short,
    another type, not text, nested past `pyclient._base._json.MAX_DEPTH`: any script of the page's
    origin can write the page's stores)."""
    if not isinstance(text, str):
        return None
    try:
        record = bounded_loads(text)
    except ValueError:  # cut short, or beyond the bounded parser's limits
        return None
    return record if isinstance(record, dict) else None


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
