"""A chat UI for a `Thread`: messages, tool cards, approvals, errors, an event log and a send form.

`Chat(thread, element)` renders the thread into `element` and sends what the user types. It
builds on the thread's listener API only (`thread.subscribe`, `thread.subscribe_events`,
`thread.tool_part`, `thread.renderer`), so it is also the reference for writing your own UI.

What it shows: user messages as text, assistant messages as Markdown (raw HTML off, links
limited to http(s) and mailto, no images: `pyclient.browser._markdown`), one card per tool
call with its status in words and its arguments and result (`pyclient.browser._cards`),
approval bars with an edit form (`pyclient.browser._approval`), an error bubble with a Retry
button, a "Stopped" marker after a stop, the run status in words ("Ready", "Thinking…",
"Working…", "Waiting for you", "Stopped", "Something went wrong") in a polite live region,
an empty state with suggestions, and an event log panel (`pyclient.browser._eventlog`). It
follows new content unless the user scrolled up ("Jump to latest" brings it back); Escape
in the input stops a run.

Rendering is batched: thread events only mark what changed (`pyclient.browser._changes`: a
message id for a text delta, a tool call id for a `TOOL_CALL_*` event or a call's status,
"everything" for anything else), and one animation frame applies it, updating nodes in place
(`pyclient.browser._timeline` keeps them in history order). Card updates take at most
`FRAME_BUDGET` seconds a frame; the rest waits for the next. A timer stands in for the frame
in a hidden tab, and the chat applies everything at once when the run stops, so the final
state is always shown.

Model output, tool arguments and results are never HTML: text nodes, with bidi controls and
zero-width characters made visible, except the assistant's Markdown, which markdown-it
writes with raw HTML off. Buttons that answer a call (Approve, Reject, Retry, Cancel) and
the suggestion and Retry buttons act only on trusted user events (`event.isTrusted`), never
on synthetic clicks. A thread kept in a store (`store=`) is restored at once
(`thread.restore()`): its history, its cards, the partial text of a run the reload cut
(marked `data-interrupted`); a thread another tab holds is shown read-only.

Styling ships with the package (`chat.css`, injected once per document as
`<style id="pyclient-chat-style">`, first in `<head>` so page rules win). Everything is
scoped under `.pyclient-chat`; the chat has its own opaque background, light or dark after
`prefers-color-scheme`, or forced with `data-theme="light"` / `"dark"` on its root
(`theme=`). Theme it with CSS custom properties, on the chat or any ancestor:

| property | what |
| --- | --- |
| `--pyclient-bg` | the chat's background |
| `--pyclient-fg` | its text colour |
| `--pyclient-muted` | secondary text (status, times, hints) |
| `--pyclient-accent` | buttons, links, focus rings |
| `--pyclient-accent-fg` | text on the accent colour |
| `--pyclient-user-bg` | the user's bubbles |
| `--pyclient-assistant-bg` | the assistant's bubbles |
| `--pyclient-card-bg` | tool cards |
| `--pyclient-border` | borders |
| `--pyclient-danger` | errors and failed calls |
| `--pyclient-radius` | corner radius |
| `--pyclient-font` | font family |
| `--pyclient-mono` | monospace font (arguments, results, code) |
| `--pyclient-max-height` | the chat's maximum height (`100vh`); it fills a container with a height, and the message list scrolls |

The chat lives as long as its thread: the thread's listener holds it, and the page's event
listeners hold it only weakly, so a chat whose thread is closed (`thread.close()`) or freed
removes its listeners and destroys its proxies.
See https://developer.mozilla.org/en-US/docs/Web/API/Event/isTrusted

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat

agent = Agent("main", url="/agent")
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"),
            suggestions=("Make it blue",), title="Assistant")
print(document.querySelector("#chat .pyclient-suggestion").textContent)   # Make it blue
chat.dispose()     # removes its nodes and listeners
```
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import js
from pyodide.ffi import create_proxy

from .._errors import LocalProtocolError, ToolError
from ._approval import ApprovalBar, approval_bar, interrupted_bar
from ._bubbles import Bubble
from ._changes import Changes
from ._cards import Card
from ._eventlog import EventLog
from ._forms import FormError
from ._nodes import FrameScheduler, el
from ._timeline import Timeline, error_notice, stopped_notice

if TYPE_CHECKING:
    from ag_ui.core import Message

    from .._events import AGUIEvent
    from .._listeners import ThreadEvent
    from .._thread import Thread

__all__ = ["STYLE_ID", "Chat", "install_stylesheet"]

logger = logging.getLogger("pyclient")

STYLE_ID = "pyclient-chat-style"
"""The id of the `<style>` element that holds the chat's stylesheet (one per document)."""

_WAITING = frozenset({"awaiting_approval", "awaiting_input"})
_TERMINAL = frozenset({"completed", "failed", "cancelled"})
# Seconds of card updates one frame may take; the rest waits for the next frame.
FRAME_BUDGET = 0.03
# How close to the bottom (px) the list must be to count as "at the bottom" (following).
_FOLLOW_SLACK = 24

_ids = itertools.count(1)


def install_stylesheet(document: Any = None) -> None:
    """Put the chat's stylesheet in `document` (the page's by default), once.

    It goes first in `<head>`, so the page's own rules win at equal specificity.
    """
    document = document or js.document
    if document.getElementById(STYLE_ID):
        return
    # The file beside this module (a wheel is installed unpacked, in Pyodide too), read without
    # importlib.resources, whose import cost about 40 ms of the page's boot.
    css = Path(__file__).with_name("chat.css").read_text("utf-8")
    style = document.createElement("style")
    style.id = STYLE_ID
    style.textContent = css
    document.head.prepend(style)


def _text_of(message: Message) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal user content: its text parts
        return "\n".join(str(getattr(part, "text", "")) for part in content if getattr(part, "type", "") == "text")
    return ""


class Chat:
    """Renders `thread` into `element` and sends what the user types; see the module docstring.

    Args:
        thread: the thread to show.
        element: the container (a JS element); the chat appends its root to it.
        placeholder: the input's placeholder text.
        suggestions: messages offered as buttons while the thread has no messages; a click
            (by the user) sends one.
        title: a heading shown in the chat's header (none by default).
        theme: "light" or "dark" forces that theme (`data-theme` on the root); None follows
            the system (`prefers-color-scheme`).

    Raises:
        ValueError: `theme` is not None, "light" or "dark".
    """

    def __init__(
        self,
        thread: Thread,
        element: Any,
        *,
        placeholder: str = "Ask the agent…",
        suggestions: Iterable[str] = (),
        title: str | None = None,
        theme: Literal["light", "dark"] | None = None,
    ) -> None:
        if theme not in (None, "light", "dark"):
            raise ValueError(f"theme={theme!r} is not a theme. Pass 'light', 'dark' or None (follow the system).")
        self.thread = thread
        self.suggestions = tuple(str(text) for text in suggestions)
        install_stylesheet()
        prefix = f"pyclient-chat-{next(_ids)}"
        root = self._root = el("div", "pyclient-chat")
        if theme is not None:
            root.dataset.theme = theme

        header = el("header", "pyclient-header")
        if title:
            header.append(el("h2", "pyclient-title", title))
        self._status = el("span", "pyclient-run-status", "Ready", role="status", aria_live="polite")
        self._log = EventLog(thread.thread_id)
        self._log.node.id = f"{prefix}-log"
        self._log_toggle = el("button", "pyclient-log-toggle", "Events", type="button",
                              aria_expanded="false", aria_controls=self._log.node.id, data_command="toggle-log")
        self._log_toggle.title = "Show the AG-UI events of this thread"
        header.append(self._status, self._log_toggle)

        body = el("div", "pyclient-body")
        self._empty = el("div", "pyclient-empty")
        self._empty.append(el("p", "pyclient-welcome", "Start the conversation: ask a question or try a suggestion."
                               if self.suggestions else "Start the conversation: type a message below."))
        if self.suggestions:
            choices = el("div", "pyclient-suggestions", role="group", aria_label="Suggestions")
            for index, text in enumerate(self.suggestions):
                choices.append(el("button", "pyclient-suggestion", text, type="button",
                                  data_command="suggest", data_index=str(index)))
            self._empty.append(choices)
        self._list = el("ol", "pyclient-messages", role="log", aria_live="polite", aria_label="Conversation",
                        tabindex="0")
        self._jump = el("button", "pyclient-jump", "Jump to latest ↓", type="button", data_command="jump")
        self._jump.hidden = True
        body.append(self._empty, self._list, self._jump)

        self._form = el("form", "pyclient-form")
        self._input = el("input", "", id=f"{prefix}-input", name="message", autocomplete="off",
                         placeholder=placeholder)
        label = el("label", "pyclient-visually-hidden", "Message")
        label.htmlFor = self._input.id
        self._send = el("button", "pyclient-send", "Send", type="submit")
        self._stop = el("button", "pyclient-stop", "Stop", type="button", data_command="stop")
        self._stop.title = "Stop the answer (Escape)"
        self._form.append(label, self._input, self._send, self._stop)
        root.append(header, self._log.node, body, self._form)
        element.append(root)

        self._bubbles: dict[str, Bubble] = {}     # message id -> its bubble
        self._cards: dict[str, Card] = {}         # tool call id -> its card
        self._approvals: dict[str, ApprovalBar] = {}  # tool call id -> its approval bar
        self._timeline = Timeline(self._list)     # the list's items by key, in order
        self._changes = Changes(thread.run_status)  # what to draw at the next frame
        self._renderers: dict[str, Any] = {}      # tool name -> its renderer, looked up once a frame
        self._waiting: set[str] = set()    # call ids waiting for the user
        self._working: set[str] = set()    # call ids whose handler runs
        self._stops = 0
        self._error_shown: BaseException | None = None
        self._follow = True
        self._disposed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._frames = FrameScheduler(self, "_flush")
        # The class and message id of the text delta marked last (see _on_event); None once
        # anything else happened since.
        self._marked_type: type | None = None
        self._marked: str | None = None
        # Kept so dispose() can remove the listeners and destroy the proxies. The proxies
        # reach the chat through a weak reference: a JS listener must not keep it alive.
        self._proxies: list[tuple[Any, str, Any]] = []
        self._listen(root, "click", "_on_click")
        self._listen(root, "submit", "_on_submit")
        self._listen(self._input, "keydown", "_on_key")
        self._listen(self._list, "scroll", "_on_scroll")
        # Events apart from changes: a long answer is tens of thousands of events, and this
        # way each costs one call, with no `ThreadEvent` built for it.
        self._unsubscribe = thread.subscribe(self._on_thread, events=False)
        self._unsubscribe_events = thread.subscribe_events(self._on_event)
        self._finalizer = weakref.finalize(self, _release, self._proxies)
        self._frames.run_now()
        if thread.store is not None:
            restoring = asyncio.ensure_future(self._restore())
            self._restoring = restoring  # asyncio holds tasks weakly

    @property
    def element(self) -> Any:
        """The chat's root element (`.pyclient-chat`)."""
        return self._root

    async def _restore(self) -> None:
        try:
            await self.thread.restore()
        except Exception:
            logger.exception("pyclient: restoring thread %s failed", self.thread.thread_id)
        if not self._disposed:
            self._changes.full = True
            self._frames.run_now()

    def _listen(self, target: Any, kind: str, method: str) -> None:
        reference = weakref.ref(self)

        def listener(event: Any) -> None:
            chat = reference()
            if chat is not None:
                getattr(chat, method)(event)

        proxy = create_proxy(listener)
        target.addEventListener(kind, proxy)
        self._proxies.append((target, kind, proxy))

    def dispose(self) -> None:
        """Remove the chat's nodes and listeners; the thread is left as it is."""
        if self._disposed:
            return
        self._disposed = True
        self._unsubscribe()
        self._unsubscribe_events()
        self._frames.cancel()
        self._finalizer()
        self._root.remove()

    # -- user input ----------------------------------------------------------------------

    def _can_send(self) -> bool:
        thread = self.thread
        return not (self._tasks or thread.run_status in ("running", "closed") or thread.read_only)

    def _send_text(self, text: str) -> None:
        if not text or not self._can_send():
            return
        self._input.value = ""
        self._follow = True  # the user's own message: show it and what follows
        self._run(self.thread.send(text))
        self._input.focus()

    def _run(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)  # keep a reference until it is done (asyncio holds tasks weakly)
        task.add_done_callback(self._sent)
        self._changes.full = True
        self._frames.run_now()  # "running" from the click on: the send starts a moment later

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            # send() raises only for misuse or a bug; say so instead of "never retrieved".
            logger.error("pyclient: sending from the chat failed", exc_info=task.exception())
        if not self._disposed:
            self._changes.full = True
            self._frames.run_now()

    def _on_submit(self, event: Any) -> None:
        event.preventDefault()  # the edit forms of approval cards submit nothing either
        if event.target == self._form:
            self._send_text(str(self._input.value).strip())

    def _on_key(self, event: Any) -> None:
        if event.key == "Escape" and self.thread.run_status == "running":
            event.preventDefault()
            self._stop_run()

    def _stop_run(self) -> None:
        self._changes.user_stopped()
        self.thread.stop()

    def _on_scroll(self, event: Any) -> None:
        box = self._list
        at_bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= _FOLLOW_SLACK
        self._follow = bool(at_bottom)
        self._jump.hidden = bool(at_bottom)

    def _on_click(self, event: Any) -> None:
        target = event.target.closest("[data-command]")
        if not target or not self._root.contains(target):
            return
        command = str(target.dataset.command)
        if command == "stop":
            self._stop_run()
        elif command == "jump":
            self._follow = True
            self._jump.hidden = True
            self._list.scrollTop = self._list.scrollHeight
        elif command == "toggle-log":
            opened = self._log.toggle()
            self._log_toggle.setAttribute("aria-expanded", "true" if opened else "false")
            if opened:
                self._log.reopen()
            if self._follow:  # the list changed size: still at its end
                self._list.scrollTop = self._list.scrollHeight
        elif command == "download-log":
            self._log.download()
        elif not event.isTrusted:  # a script's synthetic click is not the user's
            card = target.closest(".pyclient-tool")
            what = card.dataset.toolCallId if card else command
            logger.warning("pyclient: ignored an untrusted click for %s", what)
        elif command == "suggest":
            self._send_text(self.suggestions[int(target.dataset.index)])
        elif command == "retry-run":
            if self._can_send():
                self._run(self.thread.run())
        else:
            card = target.closest(".pyclient-tool")
            if card:
                self._answer(str(card.dataset.toolCallId), command, str(target.getAttribute("data-for")))

    def _answer(self, call_id: str, command: str, status: str) -> None:
        """A trusted click on a card's button: act if the call is still in the status it answers."""
        thread = self.thread
        try:
            action = thread.action(call_id)
        except LocalProtocolError:
            return
        bar = self._approvals.get(call_id)
        if command == "edit":
            if bar is not None:
                bar.toggle_edit()
            return
        if action.status != status:
            return
        if command == "approve":
            try:
                if bar is not None and bar.editing:
                    action.approve(arguments=bar.read())
                else:
                    action.approve()
            except (FormError, ToolError) as exc:
                if bar is not None:
                    bar.show_error(str(exc))
        elif command == "reject":
            action.reject("the user clicked Reject")
        elif command == "retry":
            action.retry()
        elif command == "cancel":
            action.cancel("the user clicked Cancel")

    # -- what changed --------------------------------------------------------------------

    def _on_event(self, event: AGUIEvent) -> None:
        # Only marks: the DOM is written once per frame (see _changes). Kept short: it runs for
        # every event of every stream.
        self._log.add(event)
        if type(event) is self._marked_type and getattr(event, "message_id", None) == self._marked:
            return  # the same message's delta again, nothing else in between: already marked
        marked = self._changes.event(event)
        self._marked_type, self._marked = (type(event), marked) if marked is not None else (None, None)
        self._frames.request()  # once: it returns at once while a frame is pending

    def _on_thread(self, event: ThreadEvent) -> None:
        self._marked_type = None  # the next delta marks again (note() reads what it marked)
        when = self._changes.note(event)
        if when == "frame":
            self._frames.request()  # once: it returns at once while a frame is pending
        elif when == "closed":
            self.dispose()
        else:
            # The run is over: show its final state now, all of it, frame or no frame (a hidden
            # tab). Scrolling waits for the next frame: it reads the list's height, which would
            # lay the page out here, in the run's task, on top of the frame's own layout.
            self._frames.cancel()
            self._flush(budget=float("inf"), scroll=False)
            self._frames.request()

    # -- rendering -----------------------------------------------------------------------

    def _flush(self, budget: float = FRAME_BUDGET, *, scroll: bool = True) -> None:
        """Apply what changed: nodes first (in history order), then card updates for up to
        `budget` seconds; what is left waits for the next frame. `scroll`: follow the end of
        the list (when following)."""
        if self._disposed:
            return
        started = time.perf_counter()
        self._marked_type = None  # the marks are drawn and cleared: the next delta marks again
        self._renderers.clear()
        changes = self._changes
        if changes.full:
            changes.full = False
            self._reconcile()
        else:
            if self._changes.messages:
                self._update_messages()
            for call_id in self._changes.calls:
                if call_id not in self._cards and call_id in self._changes.names:
                    self._card(call_id, self._changes.names[call_id])
        self._changes.messages.clear()
        self._update_cards(started + budget)
        self._show_notices()
        self._show_status()
        self._empty.hidden = bool(self._timeline) or self.thread.read_only
        self._log.flush()
        if self._follow and scroll:
            self._list.scrollTop = self._list.scrollHeight
        if self._changes.calls:
            self._frames.request()

    def _reconcile(self) -> None:
        """Everything: every message and call in history order, nodes made or moved as needed;
        the cards that may have changed are queued for `_update_cards`."""
        thread = self.thread
        interrupted = set(thread.interrupted_messages)
        keys: list[str] = []
        seen: set[str] = set()
        for message in thread.messages:
            role = message.role
            if role == "tool":
                continue
            text = _text_of(message)
            key = "m:" + message.id
            if role in ("user", "assistant") and (text or role == "user") and key not in seen:
                seen.add(key)
                keys.append(key)
                bubble = self._bubble(message.id, role)
                bubble.update(text, streaming=message.id in self._changes.streaming)
                if message.id in interrupted:
                    bubble.mark_interrupted()
            for call in getattr(message, "tool_calls", None) or ():
                key = "c:" + call.id
                if key in seen:
                    continue  # an id a later run used again: one card
                seen.add(key)
                keys.append(key)
                card = self._cards.get(call.id)
                if card is None:
                    card = self._card(call.id, call.function.name)
                if card.status not in _TERMINAL:
                    self._changes.calls[call.id] = None
                if message.id in interrupted:
                    card.node.dataset.interrupted = "true"
        for key in self._timeline.place(keys):  # gone from the history (a snapshot)
            self._bubbles.pop(key[2:], None)
            self._cards.pop(key[2:], None)
            self._approvals.pop(key[2:], None)

    def _update_messages(self) -> None:
        """The bubbles of the messages whose text changed (text deltas)."""
        wanted = self._changes.messages
        for message in self.thread.messages:
            if message.id in wanted and message.role in ("user", "assistant"):
                text = _text_of(message)
                if text or message.id in self._bubbles:
                    self._bubble(message.id, message.role).update(text, streaming=message.id in self._changes.streaming)

    def _update_cards(self, deadline: float) -> None:
        """Update the queued cards, in order, until `deadline` (`time.perf_counter()`)."""
        done = 0
        for call_id in list(self._changes.calls):
            del self._changes.calls[call_id]
            self._update_card(call_id)
            done += 1
            if done % 4 == 0 and time.perf_counter() > deadline:
                return

    def _bubble(self, message_id: str, role: str) -> Bubble:
        bubble = self._bubbles.get(message_id)
        if bubble is None:
            bubble = self._bubbles[message_id] = Bubble(message_id, role)
            self._timeline.add("m:" + message_id, bubble.node)
        return bubble

    def _card(self, call_id: str, name: str) -> Card:
        card = self._cards[call_id] = Card(call_id, name)
        self._timeline.add("c:" + call_id, card.node)
        return card

    def _renderer(self, tool_name: str) -> Any:
        if tool_name not in self._renderers:
            self._renderers[tool_name] = self.thread.renderer(tool_name)
        return self._renderers[tool_name]

    def _update_card(self, call_id: str) -> None:
        try:
            part = self.thread.tool_part(call_id)
        except LocalProtocolError:
            return  # not in the history (yet): the next full pass finds it
        card = self._cards.get(call_id) or self._card(call_id, part.tool_name)
        card.update(part, self._renderer(part.tool_name))
        status = card.status
        (self._waiting.add if status in _WAITING else self._waiting.discard)(call_id)
        (self._working.add if status == "executing" else self._working.discard)(call_id)
        self._update_bar(card, part.action.status if part.action is not None else None, part)

    def _update_bar(self, card: Card, status: str | None, part: Any) -> None:
        if card.bar_status == status:
            return
        # The buttons answer one status; in any other they would lie (its registration left, say).
        self._approvals.pop(card.call_id, None)
        if status == "awaiting_approval" and part.tool is not None:
            bar = approval_bar(part.tool_name, part.tool.description, part.tool.parameters, part.arguments)
            self._approvals[card.call_id] = bar
            card.set_bar(status, bar.node)
        elif status == "interrupted":
            card.set_bar(status, interrupted_bar())
        else:
            card.set_bar(None, None)

    def _show_notices(self) -> None:
        """The "Stopped" markers (after the last item when the run stopped) and the error bubble."""
        while self._changes.stop_marks:
            self._changes.stop_marks -= 1
            self._stops += 1
            self._timeline.add_notice(f"n:stopped-{self._stops}", stopped_notice(), after=self._timeline.last)
        error = self.thread.error if self.thread.run_status == "error" else None
        if error is self._error_shown:
            return
        self._timeline.remove("n:error")
        self._error_shown = error
        if error is not None:
            # The developer's detail goes to the console; the bubble speaks to the user.
            js.console.error(f"pyclient: the run of thread {self.thread.thread_id} failed: {error!r}")
            self._timeline.add_notice("n:error", error_notice(error), after=None)

    def _show_status(self) -> None:
        thread = self.thread
        # A send scheduled but not started yet counts as running (no second send meanwhile).
        status: str = "running" if self._tasks and thread.run_status != "closed" else thread.run_status
        if thread.read_only:
            words = "Read-only: open in another tab"
            self._root.dataset.readOnly = "true"
        elif status == "closed":
            words = "Closed"
        elif status == "error":
            words = "Something went wrong"
        elif status == "running":
            words = "Waiting for you" if self._waiting else "Working…" if self._working else "Thinking…"
        elif self._changes.stopped:
            words = "Stopped"
        else:
            words = "Ready"
        if self._status.textContent != words:
            self._status.textContent = words
        self._status.dataset.status = status
        self._root.dataset.status = status
        self._send.disabled = status == "running" or thread.read_only or status == "closed"
        self._stop.disabled = status != "running"
        self._input.disabled = thread.read_only or status == "closed"


def _release(proxies: list[tuple[Any, str, Any]]) -> None:
    """Remove the chat's JS listeners and destroy their proxies (on dispose, or when it is freed)."""
    for target, kind, proxy in proxies:
        target.removeEventListener(kind, proxy)
        proxy.destroy()
    proxies.clear()
