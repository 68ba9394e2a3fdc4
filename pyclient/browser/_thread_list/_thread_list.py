"""`ThreadList`: the threads an agent kept in a store, beside its chat: open, start, rename, delete.

`ThreadList(agent, element, store=True, chat="#chat")` lists the agent's saved threads
(`pyclient.SavedThreads`: the summary records beside the snapshots, never a snapshot), newest
first, and shows one of them in a `Chat` on the `chat` element (or calls `on_open` with its
id). What the person sees and does (open, new, rename, delete), how it follows the store and
how it and the chat cooperate is in `docs/chat.md` ("Saved threads beside the chat"). The list
builds its nodes once and updates them from its state (the summaries, the thread shown, the
one being renamed, the one asking to be deleted); its buttons act only on trusted events
(`event.isTrusted`). It lives in the page's main thread and in a PyScript worker alike.

```python
from pyscript import document
from pyclient import Agent, MemoryStore
from pyclient.browser import ThreadList

side, main = document.createElement("aside"), document.createElement("section")
document.body.append(side, main)
agent = Agent("main", url="/agent")
threads = ThreadList(agent, side, store=MemoryStore(), chat=main, chat_options={"title": "Assistant"})
await threads.ready                              # listed, and a thread opened
print(threads.thread.thread_id == threads.current, side.querySelector(".pyclient-threads-empty").hidden)   # True False
threads.dispose()
threads.thread.close()
```
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..._api._saved_threads import SavedThreads, SavedThreadsAgent
from ..._base._errors import ConfigurationError
from ..._base._store import Store
from ..._driver._summaries import ThreadSummary, now
from .._chat._chat import Chat
from .._chat._stylesheet import styled_root
from .._page._document import dom_node
from .._page._nodes import Listeners, el, set_visible
from .._page._page_window import page_window
from ._thread_row import ThreadRow
from ._thread_words import shown_title, unreadable_words

if TYPE_CHECKING:
    from ..._api._thread import Thread

__all__ = ["ThreadList"]


class _Agent(SavedThreadsAgent, Protocol):
    """What a `ThreadList` needs of an `Agent`: its `SavedThreads`' needs, and opening a thread
    (the agent imports the page, not the other way)."""

    def thread(self, element_or_selector: Any = None, thread_id: str | None = None, **options: Any) -> Thread: ...

logger = logging.getLogger("pyclient")

REDRAW_SECONDS = 60.0
"""How often the "… ago" words are redrawn."""


class ThreadList:
    """The saved threads of `agent` in `store`, listed in `element`; see the module docstring.

    Args:
        agent: the `Agent` whose threads these are.
        element: the container (a JS element or a CSS selector); the list appends its root.
        store: the store the threads are kept in: True (the page's IndexedDB) or a
            `pyclient.ListingStore`.
        chat: the element (or selector) the open thread is mounted on and shown in a `Chat`.
        chat_options: keyword arguments of each `Chat` it makes (`title=`, `suggestions=`...).
        on_open: called with the thread id each time a thread is opened or started.
        title: the list's heading.
        theme: "light" or "dark" forces that theme; None follows the system.
        stylesheet: the URL of `chat.css` to link instead of putting it inline (as for `Chat`).
        nonce: the Content-Security-Policy nonce of the inline stylesheet (as for `Chat`).

    Raises:
        ConfigurationError: the store cannot list its threads (it names the two methods it
            needs), neither `chat` nor `on_open` is given, or no element matches `element`.
        ValueError: `theme` is not None, "light" or "dark".

    Attributes:
        agent, store: as given (the store resolved).
        saved: the `SavedThreads` it reads.
        ready: a future done once the list is read and a thread opened.
    """

    def __init__(
        self,
        agent: _Agent,
        element: Any,
        *,
        store: Store | bool = True,
        chat: Any = None,
        chat_options: Mapping[str, Any] | None = None,
        on_open: Callable[[str], Any] | None = None,
        title: str = "Chats",
        theme: Literal["light", "dark"] | None = None,
        stylesheet: str | None = None,
        nonce: str | None = None,
    ) -> None:
        if theme not in (None, "light", "dark"):
            raise ValueError(f"theme={theme!r} is not a theme. Pass 'light', 'dark' or None (follow the system).")
        self.agent = agent
        self.saved = SavedThreads(agent, store)
        self.store = self.saved.store
        if chat is None and on_open is None:
            raise ConfigurationError(
                "ThreadList opens threads somewhere: pass chat= (the element the open thread is shown "
                "on, in a Chat) or on_open= (a function called with the thread id)."
            )
        container = page_window().document.querySelector(element) if isinstance(element, str) else element
        if not container:
            raise ConfigurationError(f"ThreadList: no element matches {element!r}. Pass an element or a selector.")
        self._chat_target = chat
        self._chat_options = dict(chat_options or {})
        self._on_open = on_open
        self.thread: Thread | None = None
        self.chat: Chat | None = None
        self.current: str | None = None
        """The id of the thread shown (listed once it has a message)."""
        self._summaries: list[ThreadSummary] = []
        self._loaded = False
        self._editing: str | None = None
        self._confirming: str | None = None
        self._items: dict[str, ThreadRow] = {}
        self._order: list[str] = []
        self._switching = asyncio.Lock()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._refreshing: asyncio.Future[None] | None = None
        self._stale = False
        self._disposed = False

        root = self._root = styled_root("nav", "pyclient-chat pyclient-thread-list", theme, href=stylesheet,
                                        nonce=nonce, aria_label=title or "Threads")
        header = el("header", "pyclient-header")
        if title:
            header.append(el("h2", "pyclient-title", title))
        self._new = el("button", "pyclient-thread-new", "+ New chat", type="button", data_command="new")
        header.append(self._new)
        self._list = el("ul", "pyclient-threads")
        self._empty = el("p", "pyclient-threads-empty", "No saved chats yet: they appear here after their first message.")
        self._empty.hidden = True
        self._unreadable = el("p", "pyclient-threads-unreadable")
        self._unreadable.hidden = True
        self._said = el("p", "pyclient-visually-hidden", role="status", aria_live="polite")
        root.append(header, self._list, self._empty, self._unreadable, self._said)
        dom_node(container).append(root)

        listeners = self._listeners = Listeners(self)
        listeners.listen(root, "click", "_on_click")
        listeners.listen(root, "submit", "_on_submit", prevent="always")
        listeners.listen(root, "keydown", "_on_key", prevent="escape")
        self._finalizer = weakref.finalize(self, listeners.release)
        self._unwatch = self.saved.watch(self._heard)
        self._timer: asyncio.TimerHandle | None = None
        self.ready: asyncio.Future[None] = self._spawn(self._start())   # a failure is logged too

    def __repr__(self) -> str:
        return f"<ThreadList {self.agent.name!r} {len(self._summaries)} threads, showing {self.current!r}>"

    @property
    def element(self) -> Any:
        """The list's root element (`nav.pyclient-thread-list`)."""
        return self._root

    @property
    def summaries(self) -> list[ThreadSummary]:
        """The threads listed, newest first."""
        return list(self._summaries)

    # -- what it does (each also a method a page may call) ----------------------------------

    async def _start(self) -> None:
        await self.refresh()
        newest = self._summaries[0].thread_id if self._summaries else None
        await (self.open(newest) if newest is not None else self.new())
        self._tick()

    async def refresh(self) -> None:
        """Read the list again from the store and redraw it."""
        self._summaries = await self.saved.list()
        self._loaded = True
        self._draw()

    async def open(self, thread_id: str) -> None:
        """Show the thread `thread_id` (a saved one, or a new id to start it)."""
        async with self._switching:
            if self._disposed or (thread_id == self.current and (self._chat_target is None or self.thread is not None)):
                return
            self.current = thread_id
            self._editing = self._confirming = None
            self._draw()
            if self._chat_target is not None:
                shown = self.thread
                if shown is not None:
                    await shown.saved()   # its last state, then let it go (as a reload would)
                    shown.close("another thread was opened")
                thread = self.agent.thread(self._chat_target, thread_id=thread_id, store=self.store)
                self.thread = thread
                self.chat = Chat(thread, thread.element, **self._chat_options)
            if self._on_open is not None:
                result = self._on_open(thread_id)
                if isinstance(result, Awaitable):
                    await result

    async def new(self) -> str:
        """Start a new thread (listed once its first message is saved); returns its id."""
        thread_id = str(uuid.uuid4())
        await self.open(thread_id)
        return thread_id

    async def rename(self, thread_id: str, title: str) -> None:
        """Keep `title` with the thread; an empty one goes back to its first message."""
        await self.saved.rename(thread_id, title)
        await self.refresh()

    async def delete(self, thread_id: str) -> None:
        """Delete the thread (a new one is started first when it is the one shown)."""
        if thread_id == self.current:
            await self.new()
        await self.saved.delete(thread_id)
        await self.refresh()

    def dispose(self) -> None:
        """Remove the list's nodes and listeners; the thread shown and its chat stay."""
        if self._disposed:
            return
        self._disposed = True
        self._unwatch()
        if self._timer is not None:
            self._timer.cancel()
        self._finalizer()
        self._root.remove()

    # -- the store changed ------------------------------------------------------------------

    def _heard(self) -> None:
        self._stale = True
        if self._refreshing is None and not self._disposed:
            self._refreshing = self._spawn(self._refresh_while_stale())

    async def _refresh_while_stale(self) -> None:
        try:
            while self._stale and not self._disposed:
                self._stale = False
                await self.refresh()
        finally:
            self._refreshing = None

    def _tick(self) -> None:
        if self._disposed:
            return
        self._draw()
        self._timer = asyncio.get_running_loop().call_later(REDRAW_SECONDS, self._tick)

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # asyncio holds tasks weakly
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("pyclient: the thread list failed", exc_info=task.exception())

    # -- the person's input -----------------------------------------------------------------

    def _on_click(self, event: Any) -> None:
        target = event.target.closest("[data-command]")
        if not target or not self._root.contains(target):
            return
        command = str(target.dataset.command)
        if not event.isTrusted:  # a script's synthetic click is not the person's
            logger.warning("pyclient: ignored an untrusted click on the thread list (%s)", command)
            return
        node = target.closest(".pyclient-thread")
        thread_id = str(node.dataset.threadId) if node else None
        if command == "new":
            self._spawn(self.new())
        elif thread_id is None:
            return
        elif command == "open":
            self._spawn(self.open(thread_id))
        elif command == "rename":
            self._editing, self._confirming = thread_id, None
            self._draw()
            item = self._items[thread_id]
            item.input.value = next((s.title for s in self._summaries if s.thread_id == thread_id), "")
            item.input.focus()
            item.input.select()
        elif command == "delete":
            self._confirming, self._editing = thread_id, None
            self._draw()
            self._items[thread_id].no.focus()
        elif command == "confirm-delete":
            self._confirming = None
            title = self._title_of(thread_id)
            self._spawn(self._deleted(thread_id, title))
        elif command == "cancel":
            self._cancel(thread_id)

    def _on_submit(self, event: Any) -> None:
        event.preventDefault()
        node = event.target.closest(".pyclient-thread")
        if not node or not event.isTrusted:
            if node:
                logger.warning("pyclient: ignored an untrusted rename on the thread list")
            return
        thread_id = str(node.dataset.threadId)
        if thread_id != self._editing:
            return
        item = self._items[thread_id]
        title = str(item.input.value)
        self._editing = None
        self._draw()
        item.open.focus()
        self._spawn(self._renamed(thread_id, title))

    def _on_key(self, event: Any) -> None:
        if event.key != "Escape" or (self._editing is None and self._confirming is None):
            return
        event.preventDefault()
        node = event.target.closest(".pyclient-thread")
        if node:
            self._cancel(str(node.dataset.threadId))

    def _cancel(self, thread_id: str) -> None:
        back = "rename" if self._editing == thread_id else "delete"
        self._editing = self._confirming = None
        self._draw()
        item = self._items.get(thread_id)
        if item is not None:
            (item.rename if back == "rename" else item.delete).focus()

    async def _renamed(self, thread_id: str, title: str) -> None:
        await self.rename(thread_id, title)
        self._say(f"Renamed to “{self._title_of(thread_id)}”")

    async def _deleted(self, thread_id: str, title: str) -> None:
        await self.delete(thread_id)
        self._new.focus()
        self._say(f"Deleted “{title}”")

    def _title_of(self, thread_id: str) -> str:
        return shown_title(next((s.title for s in self._summaries if s.thread_id == thread_id), ""))

    def _say(self, words: str) -> None:
        if not self._disposed:
            set_visible(self._said, words)

    # -- drawing -----------------------------------------------------------------------------

    def _draw(self) -> None:
        """Bring the nodes in line with the state: one item per summary, newest first."""
        if self._disposed:
            return
        moment = now()
        order = [summary.thread_id for summary in self._summaries]
        for summary in self._summaries:
            item = self._items.get(summary.thread_id)
            if item is None:
                item = self._items[summary.thread_id] = ThreadRow(summary.thread_id)
            mode = "edit" if summary.thread_id == self._editing else (
                "confirm" if summary.thread_id == self._confirming else "")
            item.show(summary, moment, current=summary.thread_id == self.current, mode=mode)
        for gone in set(self._items) - set(order):
            self._items.pop(gone).node.remove()
        if order != self._order:  # moved, added or removed: put them in order (append moves a node)
            for thread_id in order:
                self._list.append(self._items[thread_id].node)
            self._order = order
        self._empty.hidden = not self._loaded or bool(order)
        words = unreadable_words(len(self.saved.unreadable))
        if self._unreadable.textContent != words:
            self._unreadable.textContent = words
            self._unreadable.hidden = not words
