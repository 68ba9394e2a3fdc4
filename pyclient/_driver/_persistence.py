"""Keeping a thread across page loads: restoring it, holding it against other tabs, saving it.

A thread made with `store=` has a `Persistence`. It takes the thread's lock (a Web Lock in the
page: one tab answers its calls, the others show it read-only), restores the saved snapshot
into the machine, and then saves after every transition that matters (as records where the
store takes them: `pyclient._driver._journal`), at most every `streaming_save_interval` seconds
while text streams. At most one save is in flight, and the next pass writes what changed
meanwhile, so the last state is always the one saved; where it is, is the save table of
`pyclient._conversation._lifecycle`. A saved copy that cannot be read is set aside and the
thread starts afresh; a thread deleted elsewhere stops saving and says so (`DELETED`). Both,
and the summary record a listing store gets, are in docs/persistence.md.

```python
import asyncio
from pyclient import Agent, MemoryStore

async def main():
    store = MemoryStore()
    agent = Agent("main", "http://127.0.0.1:8000/agent")
    thread = agent.thread(thread_id="support", store=store)
    print(await thread.restore())            # False
    thread.state = {"step": 1}
    await thread.send("hi")                  # saved after every transition that matters
    thread.close()
    again = agent.thread(thread_id="support", store=store)
    print(await again.restore(), again.state, again.messages[0].content)   # True {'step': 1} hi

asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Iterable

from .._base._errors import ConfigurationError, LocalProtocolError
from .._base._store import GuardedStore, Store
from .._binding._platform import Platform
from .._conversation._lifecycle import WRITING, SaveEvent, SaveState, next_save_state
from .._conversation._machine import Conversation
from .._conversation._records import Change
from .._tools._client_tool import ClientTool
from ._journal import Journal
from ._publisher import Publisher
from ._summaries import SummaryWriter, told, watch

__all__ = ["STREAMING_SAVE_INTERVAL", "Persistence", "resolve_store"]

logger = logging.getLogger("pyclient")

STREAMING_SAVE_INTERVAL = 1.0
"""Seconds between saves of a thread kept in a store while text streams (`thread.streaming_save_interval`)."""

_KEEPING = frozenset({SaveState.HELD, *WRITING, SaveState.READ_ONLY})
"""The save states in which a delete elsewhere is looked for (the thread is the store's)."""


def resolve_store(store: Store | bool | None, thread_id: str | None, platform: Platform) -> Store | None:
    """The store `agent.thread(..., store=...)` names: None, the platform's (True), or the one given.

    Raises:
        ConfigurationError: `store` is not a `Store`, or is given without a `thread_id`, or is
            True on a platform without a store.
    """
    if store is None or store is False:
        return None
    if thread_id is None:
        raise ConfigurationError(
            "store= keeps a thread across page loads under its thread_id, but no thread_id was "
            "given (a new random one would never be found again). Pass e.g. "
            "agent.thread(..., thread_id='support', store=...)."
        )
    if store is True:
        return platform.default_store()
    if not isinstance(store, Store):
        raise ConfigurationError(
            f"store must be a pyclient Store (async load, save and delete), True or None, got "
            f"{type(store).__name__}. Pass pyclient.MemoryStore() or pyclient.FileStore(path)."
        )
    return store


class Persistence:
    """The saved copy of one thread; see the module docstring.

    Args:
        store: where the thread is kept.
        key: its key in the store (`"<agent name>/<thread id>"`).
        machine: the thread's conversation machine (restored in place, saved from).
        platform: holds the lock between tabs.
        publisher: the thread's publisher, watched for checkpoints.
        tools: the tools the thread serves now, to give restored calls their tool.
        loaded: called once the load ended, with True when a saved conversation was restored.
        file_limit: the largest file saved with its bytes.
        agent: the agent's name, for the thread's summary record.

    Attributes:
        state: the `SaveState`.
        streaming_save_interval: while text streams, the seconds between two saves of the
            partial text.
        set_aside: the key the saved copy was moved to when it could not be read (None: it was
            read, or there was none).
    """

    def __init__(
        self,
        store: Store,
        key: str,
        machine: Conversation,
        platform: Platform,
        publisher: Publisher,
        tools: Callable[[], Iterable[ClientTool]],
        loaded: Callable[[bool], None],
        file_limit: int | None = None,
        agent: str = "",
    ) -> None:
        self.store = store
        self.key = key
        self.state = SaveState.UNLOADED
        self.streaming_save_interval = STREAMING_SAVE_INTERVAL
        self._machine = machine
        self._platform = platform
        self._tools = tools
        self._loaded = loaded
        self._journal = Journal(store, key, file_limit)  # a larger file is saved as a text part that names it
        self._loading: asyncio.Future[bool] | None = None
        self._saving: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._release: Callable[[], None] | None = None
        self._checkpoint = machine.checkpoint
        self._summary = SummaryWriter(store, key, agent, machine.thread_id, lambda: machine.history.view())
        self._publisher = publisher
        publisher.watch(self._heard)
        self.set_aside: str | None = None
        self._kept = False  # the store held the thread (restored, or saved here): gone means deleted elsewhere
        self._checking: asyncio.Future[bool] | None = None
        self._cleaning: asyncio.Future[None] | None = None
        self._unwatch: Callable[[], None] = lambda: None
        if isinstance(store, GuardedStore):
            # The registry must not keep a thread nobody closed alive: it holds the method weakly.
            method = weakref.WeakMethod(self._store_changed)

            def heard() -> None:
                changed = method()
                if changed is not None:
                    changed()

            self._unwatch = watch(store, heard)

    def __repr__(self) -> str:
        return f"<Persistence {self.key!r} {self.state}>"

    @property
    def read_only(self) -> bool:
        """True when another tab holds the thread: it is shown here, never answered or saved."""
        return self.state is SaveState.READ_ONLY

    @property
    def deleted(self) -> bool:
        """True once the thread was deleted from its store elsewhere: it is never saved again."""
        return self.state is SaveState.DELETED

    def _move(self, event: SaveEvent) -> SaveState:
        before = self.state
        self.state = next_save_state(before, event)
        return before

    # -- loading ---------------------------------------------------------------------------

    def start(self) -> asyncio.Future[bool]:
        """Begin the load (once; later calls get the same future). Needs a running event loop."""
        if self._loading is None:
            self._loading = asyncio.ensure_future(self._load())
            if self.state is SaveState.UNLOADED:
                self._move(SaveEvent.LOAD)
        return self._loading

    async def restore(self) -> bool:
        """Wait for the load; True when a saved conversation was restored."""
        return await asyncio.shield(self.start())

    async def _load(self) -> bool:
        machine = self._machine
        restored = False
        held = False
        try:
            release = await self._platform.hold_thread(self.key)
            if release is None:
                logger.info("pyclient: thread %s is held by another tab: read-only here", machine.thread_id)
                self._move(SaveEvent.SHARE)
            else:
                self._release, held = release, True
            unreadable: Exception | None = None
            try:
                data = await self._journal.load()
            except (ValueError, TypeError) as exc:  # the store's text does not parse: cut short, not a dict
                data, unreadable = None, exc
            if data is not None and machine.run_status != "closed":
                try:
                    machine.restore(data, {tool.name: tool for tool in self._tools()})
                    self._journal.restored(machine, data)
                    restored = self._kept = True
                except LocalProtocolError as exc:
                    unreadable = exc
            if unreadable is not None and machine.run_status != "closed":
                await self._start_afresh(unreadable, held)
        finally:
            if self.state is SaveState.LOADING:
                self._move(SaveEvent.HOLD if held else SaveEvent.SHARE)
        if restored:
            logger.info("pyclient: restored thread %s (%d messages)", machine.thread_id, len(machine.history))
        self._summary.loaded(restored)
        self._loaded(restored)
        return restored

    async def _start_afresh(self, error: Exception, held: bool) -> None:
        """The saved copy cannot be read: move it aside (this tab holds the thread) and say so once."""
        thread_id = self._machine.thread_id
        store = self.store
        if not held:
            logger.warning("pyclient: thread %s is shown empty: its saved copy cannot be read (%s)", thread_id, error)
            return
        if not isinstance(store, GuardedStore):
            logger.warning("pyclient: thread %s starts afresh: its saved copy cannot be read (%s); %s cannot keep "
                           "it aside (no set_aside), so the next save replaces it", thread_id, error,
                           type(store).__name__)
            return
        try:
            self.set_aside = await store.set_aside(self.key)
        except Exception as exc:
            logger.warning("pyclient: thread %s starts afresh: its saved copy cannot be read (%s), nor moved "
                           "aside (%s: %s); the next save replaces it", thread_id, error, type(exc).__name__, exc)
            return
        logger.warning("pyclient: thread %s starts afresh: its saved copy cannot be read (%s); it is kept, "
                       "unchanged, under the key %r", thread_id, error, self.set_aside)
        told(store)  # its summary went with it

    # -- a delete elsewhere ------------------------------------------------------------------

    def _store_changed(self) -> None:
        # The store's summaries changed (a save, a rename, another tab's delete): is the thread still there?
        if self.state in _KEEPING and self._kept and self._checking is None:
            self._checking = asyncio.ensure_future(self._check_heard())

    async def _check_heard(self) -> bool:
        try:
            return await self.check_kept()
        finally:
            self._checking = None

    async def check_kept(self) -> bool:
        """Ask the store whether it still holds the thread (a `GuardedStore`, once it held it);
        when it does not, the thread was deleted elsewhere: it stops saving and says so.

        Returns:
            False when the thread was deleted elsewhere (now or before).
        """
        return await self._ask(cleanup=True)

    async def _ask(self, *, cleanup: bool) -> bool:
        # `cleanup`: a save pass may be writing now (not so for the pass's own check before it writes).
        store = self.store
        if self.state not in _KEEPING or not self._kept or not isinstance(store, GuardedStore):
            return not self.deleted
        try:
            there = await store.exists(self.key)
        except Exception as exc:  # cannot tell: go on saving, as before the check
            logger.warning("pyclient: cannot tell whether thread %s is still saved: %s", self._machine.thread_id, exc)
            return True
        if not there and self.state in _KEEPING:
            self._gone(cleanup=cleanup and self.state in WRITING)
        return not self.deleted

    def _gone(self, *, cleanup: bool) -> None:
        machine = self._machine
        self._move(SaveEvent.GONE)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        logger.warning("pyclient: thread %s was deleted from its store elsewhere (another tab or process): "
                       "it is no longer saved, and takes no more messages", machine.thread_id)
        if cleanup:  # a save under way writes the thread back: delete it again once that ends
            self._cleaning = asyncio.ensure_future(self._delete_after_save())
        self._publisher.notify("status", machine.run_status)

    async def _delete_after_save(self) -> None:
        try:
            while self._saving is not None:
                await asyncio.shield(self._saving)
            await self.store.delete(self.key)
            told(self.store)
        except Exception as exc:
            logger.warning("pyclient: deleting what thread %s saved after it was deleted failed: %s",
                           self._machine.thread_id, exc)
        finally:
            self._cleaning = None

    # -- saving ----------------------------------------------------------------------------

    def _heard(self, changes: list[Change]) -> None:
        # The publisher calls its watchers when the checkpoint moved or changes came: a round of
        # changes without a new checkpoint (text deltas) saves on the streaming timer only.
        machine = self._machine
        if machine.checkpoint != self._checkpoint:
            self._checkpoint = machine.checkpoint
            self._change()
        if machine.run_status == "running" and any(change.kind == "messages" for change in changes):
            self._save_streaming_text()

    def _change(self) -> None:
        if self.state is SaveState.HELD:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return  # no event loop: the next change inside one saves the whole thread
            self._move(SaveEvent.CHANGE)
            self._saving = asyncio.ensure_future(self._save_loop())
        else:
            self._move(SaveEvent.CHANGE)  # written by the pass in flight, or not saved at all

    async def _save_loop(self) -> None:
        try:
            while self.state in WRITING:
                self._move(SaveEvent.WRITE)
                if not await self._ask(cleanup=False):
                    break  # deleted elsewhere: nothing is written
                try:
                    await self._journal.save(self._machine)
                except Exception as exc:
                    logger.warning("pyclient: saving thread %s failed: %s", self._machine.thread_id, exc)
                else:
                    self._kept = True
                    await self._summary.saved()
                self._move(SaveEvent.SAVED)  # DIRTY: one more pass; SAVING: all saved
        finally:
            self._saving = None

    def _save_streaming_text(self) -> None:
        """Text is streaming: save what arrived, at most every `streaming_save_interval` seconds.

        Never one write per delta, yet a page that dies mid-answer keeps what had arrived by the
        last timed save (restored as interrupted text).
        """
        if self._timer is not None or self.state not in (SaveState.HELD, *WRITING):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self.streaming_save_interval, self._timer_fired)

    def _timer_fired(self) -> None:
        self._timer = None
        self._change()

    async def saved(self) -> None:
        """Wait until the latest state is saved (a check for a delete elsewhere, and what it
        deletes again, included)."""
        while (pending := self._checking or self._saving or self._cleaning) is not None:
            await asyncio.shield(pending)

    def close(self) -> None:
        """Stop saving and let the lock go (a save in flight still ends)."""
        self._move(SaveEvent.CLOSE)
        self._unwatch()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        release, self._release = self._release, None
        if release is not None:
            release()
