"""Threads kept across page loads in the page: IndexedDB through `pyscript.storage`, and Web Locks.

`IndexedDbStore` is the store behind `agent.thread(..., store=True)`: each thread is one JSON
text in the `@pyscript/pyclient` IndexedDB store, its records one each in
`@pyscript/pyclient-records`, and its summary in `@pyscript/pyclient.threads`, because
`pyscript.storage` reads a whole store when it opens it and a list must open the small
summaries only. Every write waits for `sync()`, so a save returns once the browser has it; a
text that does not parse is listed as None, skipped or set aside, never raised. Each tab reads
a store once, so a delete is told to the other tabs and workers on a `BroadcastChannel`
(`pyclient-store:<name>`), and each forgets the key and tells its watchers. `hold_thread(key)`
takes a Web Lock named after the thread without waiting: the first tab holds it, any other
gets None and shows the thread read-only (docs/persistence.md).

```python
from pyclient.browser import IndexedDbStore

store = IndexedDbStore()
await store.save("main/support", {"messages": []})
await store.append("main/support", {"seq": 1, "from": 0, "messages": [{"id": "u1"}], "head": {}})
print((await store.load("main/support"))["messages"])       # [{'id': 'u1'}]
await store.update_summary("main/support", {"title": "Hi"})
print(await store.list_threads("main/"))      # {'main/support': {'title': 'Hi'}}
await store.delete("main/support")            # the snapshot, its records and its summary
```
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import create_once_callable, create_proxy, to_js
from pyscript.storage import Storage, storage

from ..._base._replay import fold
from ..._base._store import parsed_record, unreadable_key
from ..._driver._summaries import told

__all__ = ["IndexedDbStore", "hold_thread"]


class IndexedDbStore:
    """A `pyclient.ListingStore`, `pyclient.RecordStore` and `pyclient.GuardedStore` in the page's
    IndexedDB (`pyscript.storage`), one JSON text per key and one per record.

    Args:
        name: the `pyscript.storage` name (the IndexedDB store is `@pyscript/<name>`, its
            records `@pyscript/<name>-records`, the summaries `@pyscript/<name>.threads`).
    """

    def __init__(self, name: str = "pyclient") -> None:
        self.name = name
        self._opening: asyncio.Future[Storage] | None = None
        self._opening_records: asyncio.Future[Storage] | None = None
        self._counts: dict[str, int] = {}  # records kept under each key, once counted
        self._opening_summaries: asyncio.Future[Storage] | None = None
        self._js_channel: Any = None       # the BroadcastChannel other tabs' deletes come on
        self._on_message: Any = None       # its listener's proxy, kept to remove it (`close`)
        channel = getattr(js, "BroadcastChannel", None)
        if channel is not None:
            self._js_channel = channel.new(f"pyclient-store:{name}")
            self._on_message = create_proxy(self._heard)
            self._js_channel.addEventListener("message", self._on_message)

    def __repr__(self) -> str:
        return f"<IndexedDbStore {self.name!r}>"

    def close(self) -> None:
        """Stop hearing other tabs' deletes (a store made for a while, as a test page's)."""
        if self._js_channel is not None:
            self._js_channel.removeEventListener("message", self._on_message)
            self._js_channel.close()
            self._on_message.destroy()
            self._js_channel = self._on_message = None

    def _announce(self, key: str) -> None:
        """Tell the other tabs' stores that `key` is gone (after IndexedDB has it)."""
        if self._js_channel is not None:
            self._js_channel.postMessage(json.dumps({"deleted": key}))

    def _heard(self, event: Any) -> None:
        # Another tab (or another store of this name here) deleted a key: what this one read
        # when it opened is out of date. Forget it without writing (IndexedDB has it already).
        message = parsed_record(event.data)
        key = message.get("deleted") if message else None
        if not isinstance(key, str):
            return
        for opening in (self._opening, self._opening_summaries, self._opening_records):
            if opening is None or not opening.done() or opening.cancelled() or opening.exception() is not None:
                continue
            kept = opening.result()
            names = self._record_keys(kept, key) if opening is self._opening_records else [key]
            for name in names:
                dict.pop(kept, name, None)  # the dict's own pop: Storage's __delitem__ would write
        self._counts.pop(key, None)
        told(self)

    def _open(self) -> asyncio.Future[Storage]:
        if self._opening is None:  # one open, shared by every caller
            self._opening = asyncio.ensure_future(storage(self.name))
        return self._opening

    def _open_records(self) -> asyncio.Future[Storage]:
        if self._opening_records is None:
            self._opening_records = asyncio.ensure_future(storage(self.name + "-records"))
        return self._opening_records

    @staticmethod
    def _record_keys(records: Storage, key: str) -> list[str]:
        prefix = key + "\x1f"
        return sorted(name for name in records if name.startswith(prefix))  # numbers are zero-padded

    async def load(self, key: str) -> dict[str, Any] | None:
        text = (await self._open()).get(key)
        if text is None:
            return None
        data = json.loads(text)  # a text cut short raises: the thread moves it aside
        records = await self._open_records()
        names = self._record_keys(records, key)
        self._counts[key] = len(names)
        # A record that does not parse ends the fold there, as a torn line does in a FileStore.
        return fold(data, (parsed_record(records[name]) for name in names)) if names else data

    async def exists(self, key: str) -> bool:
        return key in await self._open()

    async def set_aside(self, key: str) -> str:
        database = await self._open()
        aside = unreadable_key(key, lambda taken: taken in database)
        if key in database:
            database[aside] = database[key]  # the text as it is
            del database[key]
            await database.sync()
        records = await self._open_records()
        names = self._record_keys(records, key)
        for name in names:
            records[aside + name[len(key):]] = records[name]
            del records[name]
        if names:
            await records.sync()
        self._counts[key] = 0
        summaries = await self._summaries()
        if key in summaries:
            del summaries[key]
            await summaries.sync()
        self._announce(key)
        return aside

    async def save(self, key: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)
        database = await self._open()
        database[key] = text
        await database.sync()
        await self._drop_records(key)  # after the new text is in: left-over records are skipped by seq

    async def append(self, key: str, record: dict[str, Any]) -> None:
        text = json.dumps(record)
        records = await self._open_records()
        count = self._counts.get(key)
        if count is None:
            count = len(self._record_keys(records, key))
        records[f"{key}\x1f{count:012d}"] = text
        self._counts[key] = count + 1
        await records.sync()

    async def _drop_records(self, key: str) -> None:
        if self._counts.get(key) == 0:
            return
        records = await self._open_records()
        names = self._record_keys(records, key)
        for name in names:
            del records[name]
        self._counts[key] = 0
        if names:
            await records.sync()

    async def delete(self, key: str) -> None:
        database = await self._open()
        if key in database:
            del database[key]
            await database.sync()
        await self._drop_records(key)
        summaries = await self._summaries()
        if key in summaries:
            del summaries[key]
            await summaries.sync()
        self._announce(key)

    def _summaries(self) -> asyncio.Future[Storage]:
        if self._opening_summaries is None:
            self._opening_summaries = asyncio.ensure_future(storage(f"{self.name}.threads"))
        return self._opening_summaries

    async def list_threads(self, prefix: str = "") -> dict[str, dict[str, Any] | None]:
        summaries = await self._summaries()
        return {str(key): parsed_record(text) for key, text in summaries.items() if str(key).startswith(prefix)}

    async def update_summary(self, key: str, fields: dict[str, Any]) -> None:
        summaries = await self._summaries()
        record = parsed_record(summaries.get(key, "{}")) or {}  # one that cannot be read is replaced
        record.update(fields)
        summaries[key] = json.dumps(record)
        await summaries.sync()


HOLD_WAIT_MS = 3000
"""How long a thread waits for a lock another tab holds before it is shown read-only. Not at
once: a page reloaded while its worker answered a run comes back before the old worker let the
lock go."""


async def hold_thread(key: str) -> Callable[[], None] | None:
    """Take the Web Lock `pyclient:<key>` unless another tab holds it for `HOLD_WAIT_MS`.

    A lock no tab holds is taken at once, however long the browser takes to say so (asked with
    `ifAvailable`, no timer): a timer alone read a grant slowed by a busy machine as another
    tab's hold, and showed a fresh page read-only.

    Returns:
        A function that releases it, or None when another tab holds it. Without the Web
        Locks API (an insecure context) every tab holds it.
    """
    locks = getattr(js.navigator, "locks", None)
    if locks is None:
        return lambda: None
    release: list[Any] = []

    def keep(resolve: Any, reject: Any) -> None:
        release.append(resolve)

    async def request(options: dict[str, Any]) -> bool:
        granted: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def on_lock(lock: Any) -> Any:
            held = getattr(lock, "name", None) is not None  # JS null: `ifAvailable`, and another tab holds it
            if not granted.done():
                granted.set_result(held)
            # A lock is held until this promise settles: when the thread lets it go.
            return js.Promise.new(create_once_callable(keep)) if held else None

        def failed(error: Any) -> None:  # the wait was aborted: another tab holds it still
            if not granted.done():
                granted.set_result(False)

        js_options = to_js(options, dict_converter=js.Object.fromEntries)
        locks.request(f"pyclient:{key}", js_options, create_once_callable(on_lock)).catch(create_once_callable(failed))
        return await granted

    if not await request({"ifAvailable": True}) \
            and not await request({"signal": js.AbortSignal.timeout(HOLD_WAIT_MS)}):
        return None

    def let_go() -> None:
        while release:
            release.pop()()

    return let_go
