"""A thread's saves as records appended after a whole snapshot: a save costs what changed, not the thread.

`Journal.save(machine)` writes one of two things. To a store that can append (a `RecordStore`),
a record of what changed since the last save: the messages from the first that changed on, the
calls and interrupts whose saved form changed, and the thread's head (run state, shared state,
interrupted messages). Now and then (the first save after a load, after a failed write, when
the records outgrow the snapshot they follow) a whole snapshot instead, which drops the
records, so a load reads at most about twice the thread. A store with only `load`/`save` gets a
whole snapshot every time. Each record's `seq` is one above the last, and a load
(`pyclient._base._replay`) stops at one that is not, so it restores exactly what was complete
(docs/persistence.md, "Saves that do not grow with the thread").

```python
import asyncio
from pyclient import MemoryStore
from pyclient._driver._journal import Journal
from pyclient._conversation._machine import Conversation

async def main():
    store = MemoryStore()
    machine = Conversation("t1")
    journal = Journal(store, "main/t1")
    machine.add_user_message("hi")
    await journal.save(machine)                    # the first save: a whole snapshot
    machine.add_user_message("again")
    await journal.save(machine)                    # a record: the one new message
    print(store.count_records("main/t1"))          # 1
    restored = Conversation.from_snapshot(await Journal(store, "main/t1").load())
    print([m.content for m in restored.messages()])   # ['hi', 'again']

asyncio.run(main())
```
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic_core import PydanticSerializationError

from .._base._store import RecordStore, Store
from .._conversation._machine import Conversation
from .._tools._content import keep_within

__all__ = ["Journal"]

logger = logging.getLogger("pyclient")

_MIN_LOG_BYTES = 16_384
"""Records up to this size never make the next save a whole snapshot (a young thread's are tiny)."""


class Journal:
    """Saves one thread to its store, as records where the store takes them; see the module docstring.

    Args:
        store: where the thread is kept.
        key: its key there.
        file_limit: a file over this many bytes is saved as a text part that names it.
    """

    def __init__(self, store: Store, key: str, file_limit: int | None = None) -> None:
        self.store = store
        self.key = key
        self._file_limit = file_limit
        self._appends = isinstance(store, RecordStore)
        self._seq = 0
        self._whole = True  # the next save writes a whole snapshot
        self._base_bytes = 0
        self._log_bytes = 0
        # The saved form of the calls that may still change (answer not sent), and of every
        # interrupt, as last written: a record carries those that differ.
        self._calls: dict[str, dict[str, Any]] = {}
        self._interrupts: dict[str, dict[str, Any]] = {}

    def __repr__(self) -> str:
        return f"<Journal {self.key!r} seq {self._seq}>"

    async def load(self) -> dict[str, Any] | None:
        """The saved thread as one snapshot (its records folded in), or None."""
        data = await self.store.load(self.key)
        if not isinstance(data, dict):
            return data  # None, or not a snapshot: `Conversation.restore` says which
        seq = data.get("seq", 0)
        self._seq = seq if isinstance(seq, int) else 0
        self._whole = True  # the next save starts clean: no record after a torn one
        return data

    def restored(self, machine: Conversation, data: Mapping[str, Any]) -> None:
        """`machine` was just restored from `data`, what `load` returned: the store holds it, so
        the next save appends what changed since, unless the load left records out (`cut`) or
        the restore kept other messages than were saved (a tool message no call declares is
        dropped). A whole save after every restore cost a long thread a long task of the page
        before anything changed. The records already in the store are at
        most the size of its snapshot (see `save`): with the new ones, at most twice that."""
        history = machine.history
        saved = data.get("messages")
        if not self._appends or data.get("cut") or not isinstance(saved, list) or len(saved) != len(history):
            return
        history.mark_saved()
        self._calls = {call["id"]: dict(call) for call in data.get("calls") or () if isinstance(call, Mapping)
                       and (live := machine.calls.get(str(call.get("id")))) is not None and not (live.done and live.sent)}
        self._interrupts = {i["id"]: dict(i) for i in data.get("interrupts") or () if isinstance(i, Mapping) and "id" in i}
        self._base_bytes, self._log_bytes = history.json_size, 0
        self._whole = False

    async def save(self, machine: Conversation) -> None:
        """Save what changed since the last save (or the whole thread; see the module docstring)."""
        record = None
        if self._appends and not self._whole and self._log_bytes <= max(self._base_bytes, _MIN_LOG_BYTES):
            try:
                record = self._record(machine)
            except PydanticSerializationError:
                record = None  # a lone surrogate: the snapshot writes it in Python mode
        self._whole = True  # until the write below succeeds: a failed one is followed by a whole save
        if record is None:
            await self._save_whole(machine)
        else:
            text = json.dumps(record)
            await self.store.append(self.key, record)  # type: ignore[attr-defined]
            self._log_bytes += len(text)
            self._seq = record["seq"]
        self._whole = False

    async def _save_whole(self, machine: Conversation) -> None:
        data = machine.snapshot(self._file_limit)
        data["seq"] = self._seq  # records after it start above
        history = machine.history
        try:
            history.changed_since_save()  # what it holds is in `data`
        except PydanticSerializationError:
            pass
        self._track(machine, data["calls"], data["interrupts"])
        await self.store.save(self.key, data)
        self._base_bytes, self._log_bytes = history.json_size, 0

    def _record(self, machine: Conversation) -> dict[str, Any]:
        from .._conversation._snapshot import SavedCall, SavedInterrupt

        start, array = machine.history.changed_since_save()
        messages: list[dict[str, Any]] = json.loads(array)
        if self._file_limit is not None:
            for message in messages:
                if isinstance(message.get("content"), list):
                    message["content"] = keep_within(message["content"], self._file_limit)
        # The calls whose saved form may differ: the open ones, those open at the last save,
        # and those the changed messages declare (a call starts in its message).
        ids = dict.fromkeys(call.id for call in machine.calls.live())
        ids.update(dict.fromkeys(self._calls))
        for message in messages:
            for tool_call in message.get("toolCalls") or ():
                ids[tool_call.get("id")] = None
        calls = []
        for call_id in ids:
            call = machine.calls.get(call_id)
            if call is None:
                continue
            saved = SavedCall.of(call).model_dump(mode="json")
            if self._calls.get(call_id) != saved:
                calls.append(saved)
            if call.done and call.sent:
                self._calls.pop(call_id, None)  # final: never changes again
            else:
                self._calls[call_id] = saved
        interrupts = []
        for interrupt in machine.interrupts.values():
            saved = SavedInterrupt.of(interrupt).model_dump(mode="json")
            if self._interrupts.get(interrupt.id) != saved:
                interrupts.append(saved)
                self._interrupts[interrupt.id] = saved
        # Every other key of a whole snapshot (run state, shared state, subagents...), as it writes them.
        head = machine.snapshot(self._file_limit, whole=False)
        for key in ("messages", "calls", "interrupts"):
            del head[key]
        return {"seq": self._seq + 1, "from": start, "messages": messages, "head": head, "calls": calls,
                "interrupts": interrupts}

    def _track(self, machine: Conversation, calls: list[dict[str, Any]], interrupts: list[dict[str, Any]]) -> None:
        self._calls = {saved["id"]: saved for saved in calls
                       if not (machine.calls[saved["id"]].done and machine.calls[saved["id"]].sent)}
        self._interrupts = {saved["id"]: saved for saved in interrupts}
