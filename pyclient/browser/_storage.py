"""Threads kept across page loads in the page: IndexedDB through `pyscript.storage`, and Web Locks.

`IndexedDbStore` is the `pyclient.ListingStore` behind `agent.thread(..., store=True)`: each
thread is one JSON text in the `@pyscript/pyclient` IndexedDB store, written with `sync()` so a
save returns once the browser has it. Its summary record (what a thread list shows) is kept in
a store of its own, `@pyscript/pyclient.threads`: `pyscript.storage` reads a whole store when
it opens it, so a list opens the small summaries only, never the snapshots. `hold_thread(key)` takes a Web Lock named after the
thread without waiting: the first tab holds it until it closes the thread or goes away,
and any other tab gets None and shows the thread read-only.
See https://developer.mozilla.org/en-US/docs/Web/API/Web_Locks_API and
https://docs.pyscript.net/latest/api/#pyscriptstorage

```python
from pyclient.browser import IndexedDbStore

store = IndexedDbStore()
await store.save("main/support", {"messages": []})
print(await store.load("main/support"))       # {'messages': []}
await store.update_summary("main/support", {"title": "Hi"})
print(await store.list_threads("main/"))      # {'main/support': {'title': 'Hi'}}
await store.delete("main/support")            # the snapshot and its summary
```
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_once_callable, to_js
from pyscript.storage import Storage, storage

__all__ = ["IndexedDbStore", "hold_thread"]


class IndexedDbStore:
    """A `pyclient.ListingStore` in the page's IndexedDB (`pyscript.storage`), one JSON text per key.

    Args:
        name: the `pyscript.storage` name (the IndexedDB store is `@pyscript/<name>`; the
            summaries are in `@pyscript/<name>.threads`).
    """

    def __init__(self, name: str = "pyclient") -> None:
        self.name = name
        self._opening: asyncio.Future[Storage] | None = None
        self._opening_summaries: asyncio.Future[Storage] | None = None

    def __repr__(self) -> str:
        return f"<IndexedDbStore {self.name!r}>"

    def _open(self) -> asyncio.Future[Storage]:
        if self._opening is None:  # one open, shared by every caller
            self._opening = asyncio.ensure_future(storage(self.name))
        return self._opening

    async def load(self, key: str) -> dict[str, Any] | None:
        text = (await self._open()).get(key)
        return None if text is None else json.loads(text)

    async def save(self, key: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)
        database = await self._open()
        database[key] = text
        await database.sync()

    async def delete(self, key: str) -> None:
        database = await self._open()
        if key in database:
            del database[key]
            await database.sync()
        summaries = await self._summaries()
        if key in summaries:
            del summaries[key]
            await summaries.sync()

    def _summaries(self) -> asyncio.Future[Storage]:
        if self._opening_summaries is None:
            self._opening_summaries = asyncio.ensure_future(storage(f"{self.name}.threads"))
        return self._opening_summaries

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any]]:
        summaries = await self._summaries()
        return {str(key): json.loads(text) for key, text in summaries.items() if str(key).startswith(prefix)}

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        summaries = await self._summaries()
        text = summaries.get(key)
        record = {} if text is None else json.loads(text)
        record.update(fields)
        summaries[key] = json.dumps(record)
        await summaries.sync()


async def hold_thread(key: str) -> Callable[[], None] | None:
    """Take the Web Lock `pyclient:<key>` if no other tab holds it.

    Returns:
        A function that releases it, or None when another tab holds it. Without the Web
        Locks API (an insecure context) every tab holds it.
    """
    locks = getattr(js.navigator, "locks", None)
    if locks is None:
        return lambda: None
    granted: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    release: list[Any] = []

    def keep(resolve: Any, reject: Any) -> None:
        release.append(resolve)

    def on_lock(lock: Any) -> Any:
        if not lock:  # null: another tab holds it
            granted.set_result(False)
            return None
        granted.set_result(True)
        # The lock is held until this promise settles: when the thread lets it go.
        return js.Promise.new(create_once_callable(keep))

    options = to_js({"ifAvailable": True}, dict_converter=js.Object.fromEntries)
    locks.request(f"pyclient:{key}", options, create_once_callable(on_lock))
    if not await granted:
        return None

    def let_go() -> None:
        while release:
            release.pop()()

    return let_go
