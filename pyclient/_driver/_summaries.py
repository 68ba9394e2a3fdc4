"""The summary of a saved thread: a small record beside its snapshot, so that threads list cheaply.

A thread kept in a `pyclient.ListingStore` writes, after a save, its summary record with
`store.update_summary(key, fields)` when what a list shows of it changed (its title, its
number of messages, its last message): never on a save of streaming text alone, and never
before its first message. Its fields are listed in docs/persistence.md ("Listing threads").
`ThreadSummary.of(key, record)` reads one back: None for a record that is not a thread's, or
whose values a list could not show (a time no date can show, such as 1e20 or NaN, a negative
count, a record under another thread's key). Whoever changes a store's records tells it with
`told(store)`; `watch(store, callback)` hears it (a `ThreadList` shows a new thread that way).

```python
from ag_ui.core import UserMessage
from pyclient._driver._summaries import ThreadSummary, title_of

print(title_of([UserMessage(id="u1", content="  Plan a\\n trip to Lisbon  ")]))   # Plan a trip to Lisbon
summary = ThreadSummary.of("main/t1", {"agent": "main", "thread_id": "t1", "title": "Plan a trip",
                                       "name": "Lisbon", "messages": 2, "updated_at": 5.0})
print(summary.title, summary.named, summary.messages)                            # Lisbon True 2
print(ThreadSummary.of("main/t2", {"title": 3}))                                 # None
print(ThreadSummary.of("main/t1", {"agent": "main", "thread_id": "t1", "updated_at": float("nan")}))   # None
```
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._base._store import ListingStore, Store

if TYPE_CHECKING:
    from ag_ui.core import Message

__all__ = ["LATEST_TIME", "TITLE_CHARS", "SummaryWriter", "ThreadSummary", "now", "title_of", "told", "watch"]

logger = logging.getLogger("pyclient")

TITLE_CHARS = 80
"""The longest title taken from a first message (longer ones end with "…")."""

LATEST_TIME = 253_402_300_799.0
"""The last second of the year 9999 (UTC): a summary's times lie between 0 and this, which every
platform's dates can show."""

_MOST_MESSAGES = 2**53  # a count JavaScript holds exactly


@dataclass(frozen=True)
class ThreadSummary:
    """One saved thread as a list shows it.

    Attributes:
        key: its key in the store (`"<agent name>/<thread id>"`).
        agent, thread_id: whose thread it is.
        title: the name the person gave it, else its first user message's text ("" when it
            has none).
        named: the title is a name the person gave it.
        messages: how many messages it holds.
        updated_at: when it last changed (seconds since the epoch).
        created_at: when it was started, if known.
    """

    key: str
    agent: str
    thread_id: str
    title: str
    named: bool
    messages: int
    updated_at: float
    created_at: float | None = None

    @classmethod
    def of(cls, key: str, record: Any) -> ThreadSummary | None:
        """The summary a store's `record` holds, or None when it is not a thread's summary."""
        if not isinstance(record, dict):
            return None
        agent, thread_id = record.get("agent"), record.get("thread_id")
        title, name = record.get("title", ""), record.get("name")
        updated: Any = record.get("updated_at")
        created, count = record.get("created_at"), record.get("messages", 0)
        if not (isinstance(agent, str) and isinstance(thread_id, str) and isinstance(title, str)):
            return None
        if key != f"{agent}/{thread_id}":
            return None  # opening it would open another key
        if not _moment(updated) or not (created is None or _moment(created)):
            return None
        if not (isinstance(name, str) or name is None) or not isinstance(count, int) or isinstance(count, bool):
            return None
        if not 0 <= count < _MOST_MESSAGES:
            return None
        return cls(key=key, agent=agent, thread_id=thread_id, title=name or title, named=bool(name),
                   messages=count, updated_at=float(updated), created_at=None if created is None else float(created))


def now() -> float:
    """Seconds since the epoch: when a summary is written."""
    return time.time()


def _moment(value: Any) -> bool:
    """A time a list can show: seconds since the epoch, up to `LATEST_TIME` (NaN compares false)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= LATEST_TIME


def title_of(messages: Sequence[Message]) -> str:
    """The first user message's text on one line, cut at `TITLE_CHARS` ("" without one)."""
    for message in messages:
        if message.role != "user":
            continue
        content = message.content
        if isinstance(content, str):
            text = content
        else:  # content parts: the text ones
            text = " ".join(part.text for part in content if part.type == "text")
        words = " ".join(text.split())
        if words:
            return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1].rstrip() + "…"
    return ""


# -- who hears that a store's records changed ---------------------------------------------------

_watchers: dict[int, tuple[Store, list[Callable[[], None]]]] = {}


def watch(store: Store, callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback()` each time the summaries of `store` changed; returns the unsubscribe."""
    entry = _watchers.setdefault(id(store), (store, []))
    entry[1].append(callback)

    def unsubscribe() -> None:
        if callback in entry[1]:
            entry[1].remove(callback)
        if not entry[1] and _watchers.get(id(store)) is entry:
            del _watchers[id(store)]

    return unsubscribe


def told(store: Store) -> None:
    """The summaries of `store` changed (a save, a rename, a delete): tell its watchers."""
    entry = _watchers.get(id(store))
    for callback in list(entry[1]) if entry is not None else ():
        try:
            callback()
        except Exception:
            logger.exception("pyclient: a watcher of the saved threads failed")


# -- the writer a stored thread has -------------------------------------------------------------

class SummaryWriter:
    """Writes one thread's summary record after its saves; see the module docstring.

    Args:
        store: the thread's store (nothing is written when it is not a `ListingStore`).
        key, agent, thread_id: the thread's key and names.
        messages: the thread's history now.
        clock: seconds since the epoch (`now` by default).
    """

    def __init__(self, store: Store, key: str, agent: str, thread_id: str,
                 messages: Callable[[], Sequence[Message]], clock: Callable[[], float] | None = None) -> None:
        self._store = store if isinstance(store, ListingStore) else None
        self._key = key
        self._names = {"agent": agent, "thread_id": thread_id}
        self._messages = messages
        self._clock = clock or (lambda: now())  # looked up at each write (tests set the time)
        self._written: tuple[str, int, str] | None = None  # what the record shows, as last written
        self._fresh = True   # started here: its first record says when

    def loaded(self, restored: bool) -> None:
        """The load ended: a restored thread's record already shows what it restored."""
        if restored:
            self._fresh = False
            self._written = self._shown()

    def _shown(self) -> tuple[str, int, str] | None:
        messages = self._messages()
        if not messages:
            return None
        return title_of(messages), len(messages), messages[-1].id

    async def saved(self) -> None:
        """The snapshot was saved: write the record if what it shows changed (errors are logged)."""
        if self._store is None:
            return
        shown = self._shown()
        if shown is None or shown == self._written:
            return
        title, count, _ = shown
        moment = self._clock()
        fields: dict[str, Any] = {**self._names, "title": title, "messages": count, "updated_at": moment}
        if self._fresh and self._written is None:
            fields["created_at"] = moment
        try:
            await self._store.update_summary(self._key, fields)
        except Exception as exc:
            logger.warning("pyclient: saving the summary of thread %s failed: %s", self._names["thread_id"], exc)
            return
        self._written = shown
        told(self._store)
