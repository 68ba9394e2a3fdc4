"""Stores: where a thread kept across page loads saves its conversation (`agent.thread(..., store=...)`).

A `Store` is any object with three async methods over JSON dicts: `load(key)`, `save(key,
data)` and `delete(key)`. `MemoryStore` keeps them in this process (tests, scripts);
`FileStore(path)` writes one JSON file per key, atomically (a temporary file, then
`os.replace`), so a crash mid-write leaves the previous version whole. In the page,
`store=True` uses the browser's IndexedDB (`pyclient.browser`, through `pyscript.storage`).

```python
import asyncio, tempfile
from pyclient import FileStore, MemoryStore

async def main():
    for store in (MemoryStore(), FileStore(tempfile.mkdtemp())):
        await store.save("main/support", {"messages": []})
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

__all__ = ["FileStore", "MemoryStore", "Store"]


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


class MemoryStore:
    """A `Store` in this process's memory: each value is kept as its JSON text, so what
    `load()` returns is a copy and anything that is not JSON fails at `save()`."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}

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


class FileStore:
    """A `Store` in a directory: one `<quoted key>.json` file per key, replaced atomically.

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

    async def load(self, key: str) -> dict[str, Any] | None:
        try:
            text = self.file(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        return json.loads(text)  # type: ignore[no-any-return]

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

    async def delete(self, key: str) -> None:
        self.file(key).unlink(missing_ok=True)
