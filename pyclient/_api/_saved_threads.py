"""`SavedThreads`: the threads an agent kept in a store, listed, renamed and deleted.

`SavedThreads(agent, store)` reads the summary records a `pyclient.ListingStore` keeps beside
each snapshot (`pyclient._driver._summaries`), never a snapshot: `await saved.list()` gives the agent's
threads as `ThreadSummary`s, newest first (a record that cannot be read, or that a list could
not show, is left out, logged once, and its key kept in `saved.unreadable`); `rename(thread_id, title)` keeps a title with the
thread (an empty one goes back to the first message's text); `delete(thread_id)` closes a live
thread of the agent with that id (after its last save), then forgets the snapshot and its
summary. `watch(callback)` is called after each change to the store's summaries made in this
process: a thread's save that changed its summary, a rename, a delete. A store that cannot list
(only `load`, `save` and `delete`) raises a `ConfigurationError` that names the two methods it
lacks. `pyclient.browser.ThreadList` is the page's view of it.

```python
import asyncio
from pyclient import Agent, MemoryStore, SavedThreads
from pyclient.testing import ScriptedAgent

async def main():
    server = ScriptedAgent()
    server.otherwise().say("Hello!")
    agent = Agent("main", "http://agent.test/agent", transport=server.transport())
    store = MemoryStore()
    saved = SavedThreads(agent, store)
    for thread_id, text in (("t1", "Plan a trip"), ("t2", "Write a poem")):
        thread = agent.thread(thread_id=thread_id, store=store)
        await thread.send(text)
        thread.close()
    print([(s.thread_id, s.title, s.messages) for s in await saved.list()])
    # [('t2', 'Write a poem', 2), ('t1', 'Plan a trip', 2)]
    await saved.rename("t1", "Lisbon")
    await saved.delete("t2")
    print([(s.thread_id, s.title, s.named) for s in await saved.list()])   # [('t1', 'Lisbon', True)]

asyncio.run(main())
```
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .._base._errors import ConfigurationError
from .._base._store import ListingStore, Store
from .._binding._platform import Platform
from .._driver._summaries import ThreadSummary, told, watch

__all__ = ["SavedThreads", "SavedThreadsAgent", "listing_store"]

logger = logging.getLogger("pyclient")


class _Thread(Protocol):
    """What `SavedThreads` needs of a live thread."""

    @property
    def thread_id(self) -> str: ...
    @property
    def store(self) -> Store | None: ...
    async def saved(self) -> None: ...
    def close(self, reason: str = "closed") -> None: ...


class SavedThreadsAgent(Protocol):
    """What `SavedThreads` needs of an `Agent` (a `ThreadList` needs it too)."""

    @property
    def name(self) -> str: ...
    @property
    def platform(self) -> Platform: ...
    @property
    def threads(self) -> Iterable[Any]: ...


def listing_store(store: Store | bool, platform: Platform, who: str = "SavedThreads") -> ListingStore:
    """The listing store `store` names (True: the platform's).

    Raises:
        ConfigurationError: `store` is not a store, or cannot list its threads.
    """
    kept = platform.default_store() if store is True else store
    if isinstance(kept, ListingStore):
        return kept
    if isinstance(kept, Store):
        raise ConfigurationError(
            f"{who} lists the threads of a store, but {type(kept).__name__} has only load, save and delete. "
            "Add the two async methods of pyclient.ListingStore, list_threads(prefix) and "
            "update_summary(key, fields) (see docs/persistence.md, 'Listing threads'), or use "
            "store=True (IndexedDB), pyclient.FileStore(path) or pyclient.MemoryStore()."
        )
    raise ConfigurationError(
        f"{who} needs a pyclient store (True for the platform's), got {type(kept).__name__}. "
        "Pass the store= your threads use: True, pyclient.FileStore(path) or pyclient.MemoryStore()."
    )


class SavedThreads:
    """The threads of `agent` kept in `store`; see the module docstring.

    Args:
        agent: the `Agent` whose threads these are (keys `"<agent name>/<thread id>"`).
        store: the store its threads use (`True`: the platform's, IndexedDB in the page).

    Raises:
        ConfigurationError: the store cannot list its threads (it is not a `ListingStore`).

    Attributes:
        agent: as given.
        store: the `ListingStore`.
        unreadable: the keys of the agent's records the last `list()` left out: they cannot be
            read (their JSON cut short) or a list could not show them (a time of 1e20, a count
            that is a word), sorted.
    """

    def __init__(self, agent: SavedThreadsAgent, store: Store | bool = True) -> None:
        self.agent = agent
        self.store = listing_store(store, agent.platform)
        self.unreadable: builtins.list[str] = []
        self._told: set[str] = set()  # the unreadable keys already logged

    def __repr__(self) -> str:
        return f"<SavedThreads {self.agent.name!r} in {self.store!r}>"

    def key(self, thread_id: str) -> str:
        """The store key of the agent's thread `thread_id`."""
        return f"{self.agent.name}/{thread_id}"

    async def list(self) -> builtins.list[ThreadSummary]:
        """The agent's saved threads, newest first; the records that are not a thread's summary
        are left out (their keys in `unreadable`), so one damaged record never hides the rest."""
        records = await self.store.list_threads(self.key(""))
        summaries: builtins.list[ThreadSummary] = []
        unreadable: builtins.list[str] = []
        for key, record in records.items():
            summary = ThreadSummary.of(key, record)
            if summary is None:
                unreadable.append(key)
            elif summary.agent == self.agent.name:  # not an agent named "<this name>/...", whose keys match too
                summaries.append(summary)
        self.unreadable = sorted(unreadable)
        for key in self.unreadable:
            if key not in self._told:
                self._told.add(key)
                logger.warning("pyclient: saved thread %r is left out of the list: its summary record cannot be "
                               "read (cut short, or a value of the wrong type)", key)
        return sorted(summaries, key=lambda summary: (summary.updated_at, summary.key), reverse=True)

    async def rename(self, thread_id: str, title: str) -> None:
        """Keep `title` with the thread (on one line); an empty one goes back to its first message."""
        name = " ".join(str(title).split())
        await self.store.update_summary(self.key(thread_id), {"name": name or None})
        told(self.store)

    async def delete(self, thread_id: str) -> None:
        """Forget the thread: a live one of this agent is closed first, after its last save."""
        for thread in self._live(thread_id):
            await thread.saved()
            thread.close("deleted")
            await thread.saved()  # a save in flight when it closed
        await self.store.delete(self.key(thread_id))
        told(self.store)

    def _live(self, thread_id: str) -> builtins.list[_Thread]:
        return [thread for thread in self.agent.threads if thread.thread_id == thread_id and thread.store is self.store]

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` after each change to the store's summaries; returns the unsubscribe."""
        return watch(self.store, callback)
