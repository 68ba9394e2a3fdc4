"""A chat UI for a `Thread`: messages, tool cards, approvals, errors, an event log and a send form.

`Chat(thread, element)` renders the thread into `element` and sends what the user types. It
builds on the thread's listener API only (`thread.subscribe`, `thread.subscribe_events`,
`thread.tool_part`, `thread.renderer`), so it is also the reference for writing your own UI.
What it shows, its attachments, theming and trust rules are in `docs/chat.md`. The chat is the
view: it builds its nodes once and listens on its root; thread events only mark what changed
(`pyclient.browser._chat._changes`), one animation frame applies it within `FRAME_BUDGET`
(`pyclient.browser._chat._reconcile`), trusted clicks and keys become commands on the thread
(`pyclient.browser._chat._commands`), and the form is its `_composer`. It lives as long as its thread: the page's listeners hold it
only weakly, so a chat whose thread is closed or freed removes its listeners and proxies.

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser import Chat

agent = Agent("main", url="/agent")
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"),
            suggestions=("Make it blue",), title="Assistant", accept=["image/*", "application/pdf"])
print(document.querySelector("#chat .pyclient-suggestion").textContent)   # Make it blue
print(document.querySelector("#chat .pyclient-file-picker").accept)      # image/*,application/pdf
chat.dispose()     # removes its nodes and listeners
```
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from ..._base._json import loads
from .._page._document import dom_node, hold_scroll, read_attribute, release_scroll, scroll_to_end
from .._page._nodes import FrameScheduler, Listeners, el
from .._page._page_window import page_window
from .._widgets._message_bar import BAR_COMMANDS, MessageBars
from .._widgets._state_view import StateView
from .._widgets._steps import StepLine
from .._widgets._widget import Click
from ._changes import Changes, marked_id
from ._commands import Commands
from ._composer import Composer
from ._eventlog import EventLog
from ._history_window import HistoryWindow
from ._reconcile import FRAME_BUDGET, MessageList
from ._shell import WELCOME, WELCOME_SUGGESTED, find_shell
from ._status import run_view, store_notice
from ._stylesheet import install_stylesheet, styled_root

if TYPE_CHECKING:
    from ..._api._thread import Thread
    from ..._base._listeners import ThreadEvent
    from ..._conversation._feedback import Rating
    from ..._wire._events import AGUIEvent

__all__ = ["Chat"]

logger = logging.getLogger("pyclient")

# How close to the bottom (px) the list must be to count as "at the bottom" (following).
_FOLLOW_SLACK = 24

_ids = itertools.count(1)


def _page_visible() -> bool:
    """The page is shown (its frames run); False in a hidden tab. In a worker the page applies
    each of the worker's frames as one batch: drawn all at once, a thousand new cards were one
    long task on the page's main thread; a frame's budget a batch keeps each short."""
    return str(page_window().document.visibilityState) == "visible"


def _suggestions_of(element: Any) -> list[str]:
    """The element's `data-suggestions` (a JSON list of strings), else none."""
    text = read_attribute(element, "data-suggestions")
    try:
        found = loads(text) if text else []
    except ValueError:
        found = None
    if not isinstance(found, list):
        logger.error("pyclient: data-suggestions=%r is not a JSON list of strings: no suggestions", text)
        return []
    return [str(item) for item in found]


def _attribute(node: Any, name: str) -> str | None:
    """An attribute's value, or None when the node has none (JS null)."""
    value = node.getAttribute(name)
    return value if isinstance(value, str) else None


class Chat:
    """Renders `thread` into `element` and sends what the user types; see the module docstring.

    Args:
        thread: the thread to show.
        element: the container (a JS element); the chat appends its root to it, or adopts the
            shell `pyclient.js` drew there (an element marked `data-pyclient-chat`, `_shell`).
        placeholder: the input's placeholder text; None: the shell's (`data-placeholder`),
            else "Ask the agent…".
        suggestions: messages offered as buttons while the thread has no messages; a click
            (by the user) sends one. None: the element's `data-suggestions` (a JSON list), if any.
        title: a heading shown in the chat's header; None: the element's `data-title`, if any.
        theme: "light" or "dark" forces that theme (`data-theme` on the root); None follows
            the system (`prefers-color-scheme`).
        accept: MIME patterns of the files the person may attach, e.g. `["image/*",
            "application/pdf"]` (also the file picker's `accept`); an empty list takes none (no
            attach button). None: the element's `data-accept` (comma-separated, "" for none),
            else any file.
        stylesheet: the URL of `chat.css` to link (`"/pyclient/chat.css"`, where `pyclient
            serve` serves it; `"pyclient/chat.css"` in a vendored folder) instead of putting
            the CSS inline: for a Content-Security-Policy whose `style-src` allows files
            (`'self'`) but not inline styles. None puts it inline, unless the page has a
            `<link rel="stylesheet">` to `…pyclient/chat.css` already (then that one is used).
        nonce: the Content-Security-Policy nonce the inline stylesheet carries (a `style-src
            'nonce-…'` policy); None takes the page's own, from the first element that has
            one (`<script nonce>`), if any.
        steps: show the step the agent is on (`STEP_STARTED` / `STEP_FINISHED`) in a line under
            the conversation while a run works (`pyclient.browser._widgets._steps`); False hides it.
        on_feedback: called as `on_feedback(message_id, "up" | "down" | None)` when the person
            rates an answer with its thumbs (None: the rating was cleared); the rating is kept
            with the thread (`thread.feedback(message_id)`). None (the default) shows no thumbs.
        windowed: a long history shows its last screens first, and earlier messages as the
            person scrolls up (`pyclient.browser._chat._history_window`); False makes every message at
            once (the browser's find-in-page then sees all of them).

    Raises:
        ValueError: `theme` is not None, "light" or "dark"; a pattern of `accept` is not a
            MIME type or a `type/*` family.
    """

    def __init__(
        self,
        thread: Thread,
        element: Any,
        *,
        placeholder: str | None = None,
        suggestions: Iterable[str] | None = None,
        title: str | None = None,
        theme: Literal["light", "dark"] | None = None,
        accept: Iterable[str] | None = None,
        stylesheet: str | None = None,
        nonce: str | None = None,
        steps: bool = True,
        on_feedback: Callable[[str, Rating | None], Any] | None = None,
        windowed: bool = True,
    ) -> None:
        if theme not in (None, "light", "dark"):
            raise ValueError(f"theme={theme!r} is not a theme. Pass 'light', 'dark' or None (follow the system).")
        self.thread = thread
        if suggestions is None:
            suggestions = _suggestions_of(element)
        if title is None:
            title = read_attribute(element, "data-title")
        if accept is None and (listed := read_attribute(element, "data-accept")) is not None:
            accept = [pattern.strip() for pattern in listed.split(",") if pattern.strip()]
        self.suggestions = tuple(str(text) for text in suggestions)
        # The shell pyclient.js drew at first paint (`_shell`): its root, form, input and outbox
        # stay (the person may be typing in it); the rest is made here and put beside them.
        shell = find_shell(element)
        if shell is None:
            root = styled_root("div", "pyclient-chat", theme, href=stylesheet, nonce=nonce)
        else:
            install_stylesheet(href=stylesheet, nonce=nonce)  # the shell linked it: found, nothing added
            root = shell.root
            if theme is not None:
                root.dataset.theme = theme
        self._root = root
        prefix = f"pyclient-chat-{next(_ids)}"

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
        # What became of the saved copy (read and set aside, deleted in another tab): said once, here.
        self._store_notice = el("p", "pyclient-store-notice", role="status")
        self._store_notice.hidden = True
        self._empty = el("div", "pyclient-empty")
        self._empty.append(el("p", "pyclient-welcome", WELCOME_SUGGESTED if self.suggestions else WELCOME))
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
        self._steps = StepLine() if steps else None  # the run's progress line
        body.append(self._store_notice, self._empty, self._list, *((self._steps.node,) if self._steps else ()), self._jump)

        self._state_view = StateView(thread.thread_id)  # agent.state_renderer's view of thread.state
        self._changes = Changes(thread.run_status, run_end=lambda: thread.run_end)  # what to draw next
        self._messages = MessageList(thread, self._list, self._changes, HistoryWindow(windowed=windowed))
        self._widen = False  # the list is near its top: take in earlier messages next frame
        self._commands = Commands(thread, suggestions=self.suggestions, bar=self._messages.bar,
                                  form=self._messages.form, changed=self._redraw, sending_text=self._sending_text)
        self._composer = Composer(thread, self._commands, root, shell, prefix=prefix, placeholder=placeholder,
                                  accept=accept)
        self._composer.place(root, header, self._log.node, body, self._state_view.node)
        if shell is None:
            dom_node(element).append(root)
        self._bars = MessageBars(thread, on_feedback=on_feedback, act=self._commands.act)
        self._bars_drawn: tuple[int, bool] | None = None  # the pass and the busy flag the bars show
        root.append(self._bars.notice)
        self._follow = True
        self._disposed = False
        self._frames = FrameScheduler(self, "_flush")
        # The class and message or call id of the delta marked last (see _on_event); None once
        # anything else happened since.
        self._marked_type: type | None = None
        self._marked: str | None = None
        # Kept so dispose() can remove the listeners and destroy the proxies; they reach the
        # chat through a weak reference (a JS listener must not keep it alive).
        listeners = self._listeners = Listeners(self)
        listeners.listen(root, "click", "_on_click")
        listeners.listen(self._list, "scroll", "_on_scroll")
        listeners.listen(self._list, "keydown", "_on_list_key")
        # Events apart from changes: a long answer is tens of thousands of events, and this
        # way each costs one call, with no `ThreadEvent` built for it.
        self._unsubscribe = thread.subscribe(self._on_thread, events=False)
        self._unsubscribe_events = thread.subscribe_events(self._on_event)
        self._finalizer = weakref.finalize(self, listeners.release)
        self._frames.run_now()
        if shell is not None:  # after the listeners: the shell removes its parts and hands over
            root.dataset.shell = "adopted"
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
            self._redraw()

    def dispose(self) -> None:
        """Remove the chat's nodes and listeners; the thread is left as it is."""
        if self._disposed:
            return
        self._disposed = True
        self._commands.dispose()
        self._composer.dispose()
        self._unsubscribe()
        self._unsubscribe_events()
        self._frames.cancel()
        self._finalizer()
        self._root.remove()

    # -- user input ----------------------------------------------------------------------

    def _sending_text(self) -> None:
        """The person's own message goes: empty the input, show it and what follows."""
        self._follow = True
        self._composer.sent()

    def _redraw(self) -> None:
        """Draw everything now (a send started or ended, a restore finished)."""
        self._changes.mark_full()
        self._frames.run_now()

    def _on_list_key(self, event: Any) -> None:
        if event.key == "Escape":  # in a message's edit box: close it
            holder = event.target.closest(".pyclient-editor")
            if holder:
                self._bars.key("Escape", _attribute(holder, "data-message-id"))

    def _on_scroll(self, event: Any) -> None:
        box = self._list
        at_bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= _FOLLOW_SLACK
        self._follow = bool(at_bottom)
        self._jump.hidden = bool(at_bottom)
        if self._messages.window.earlier and box.scrollTop < box.clientHeight and not self._widen:
            self._widen = True  # within a screen of the top: one batch of earlier messages a frame
            self._frames.request()

    def _on_click(self, event: Any) -> None:
        target = event.target.closest("[data-command]")
        if not target or not self._root.contains(target):
            return
        command = str(target.dataset.command)
        widget = self._messages.widget_for(target)
        if widget is not None and widget.on_command(Click(command, target, trusted=bool(event.isTrusted))):
            return  # a command of the widget's own view (Show all, Edit)
        if command == "jump":
            self._follow = True
            self._jump.hidden = True
            scroll_to_end(self._list, _FOLLOW_SLACK, force=True)
        elif command == "toggle-log":
            opened = self._log.toggle()
            self._log_toggle.setAttribute("aria-expanded", "true" if opened else "false")
            if opened:
                self._log.reopen()
            if self._follow:  # the list changed size: still at its end
                scroll_to_end(self._list, _FOLLOW_SLACK)
        elif command == "download-log":
            self._log.download()
        elif command in BAR_COMMANDS:  # a message's action bar (trusted clicks only)
            holder = target.closest("[data-message-id]")
            self._bars.click(command, trusted=bool(event.isTrusted),
                             message_id=_attribute(holder, "data-message-id") if holder else None,
                             index=_attribute(target, "data-index"), rating=_attribute(target, "data-rating"))
        else:  # what acts on the thread: the commands (trusted clicks only, but Stop)
            card = target.closest(".pyclient-tool")
            asked = target.closest("[data-interrupt-id]")  # a server tool's approval bar, an interrupt card
            self._commands.click(command, trusted=bool(event.isTrusted),
                                 call_id=_attribute(card, "data-tool-call-id") if card else None,
                                 interrupt_id=_attribute(asked, "data-interrupt-id") if asked else None,
                                 status=_attribute(target, "data-for"), index=_attribute(target, "data-index"))

    # -- what changed --------------------------------------------------------------------

    def _on_event(self, event: AGUIEvent) -> None:
        # Only marks: the DOM is written once per frame (see _changes). Kept short: it runs for
        # every event of every stream.
        self._log.add(event)
        if type(event) is self._marked_type and marked_id(event) == self._marked:
            return  # the same message's (or call's) delta again, nothing else in between: already marked
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
            # The run is over: show its final state now, frame or no frame (a hidden tab); on a
            # page the person sees, what takes more than a frame's budget (a thousand new cards)
            # comes in the next frames. Scrolling waits for the next frame: it reads the list's
            # height, which would lay the page out here, in the run's task, on top of the frame's.
            self._frames.cancel()
            self._flush(budget=FRAME_BUDGET if _page_visible() else float("inf"), scroll=False)
            self._frames.request()

    # -- drawing -------------------------------------------------------------------------

    def _flush(self, budget: float = FRAME_BUDGET, *, scroll: bool = True) -> None:
        """Draw what changed (`MessageList.draw`, up to `budget` seconds of card updates), then
        the status line and the form. `scroll`: follow the end of the list (when following)."""
        if self._disposed:
            return
        self._marked_type = None  # the marks are drawn and cleared: the next delta marks again
        held: float | None = None
        # One batch a frame, in a frame with no other full pass (a widened one reads the batch only).
        widened = False
        started = time.perf_counter()
        if self._widen and not self._changes.full:
            self._widen = False
            widened = self._messages.window.widen()
        if widened:
            self._changes.mark_full()
            held = hold_scroll(self._list)  # what the person reads stays where it is
        self._messages.draw(budget)
        steps = self._changes.take_steps()
        if self._steps is not None and steps is not None:
            self._steps.show(steps)
        busy = self.thread.run_status == "running" or self._commands.sending
        if self._bars_drawn != (self._messages.reconciled, busy):
            self._bars_drawn = (self._messages.reconciled, busy)
            window, history = self._messages.window, self.thread.message_view()
            if widened:  # the bars of the earlier messages just made (and of the answer they end in)
                self._bars.update(self._messages.bubbles(), busy=busy, messages=window.just_taken(history),
                                  only=True)
            else:
                self._bars.update(self._messages.bubbles(), busy=busy, messages=window.messages(history))
        if self._changes.take_state():  # once a frame, however many deltas came
            self._state_view.update(self.thread.state, self.thread.agent.renderer_for_state())
        self._show_status()
        self._composer.drawn(messages=len(self.thread.message_view()))
        self._empty.hidden = bool(self._messages) or self.thread.read_only or self.thread.deleted
        self._log.flush()
        if widened:  # after the action bars under the new bubbles: they are above it too
            release_scroll(self._list, held)
            self._messages.window.drawn(time.perf_counter() - started)
        if self._follow and scroll:
            scroll_to_end(self._list, _FOLLOW_SLACK)
        if self._messages.pending or self._widen:
            self._frames.request()

    def _show_status(self) -> None:
        thread = self.thread
        messages = self._messages
        view = run_view(thread.run_status, sending=self._commands.sending, read_only=thread.read_only,
                        waiting=messages.waiting, working=messages.working, run_end=thread.run_end,
                        asking=messages.asking, waiting_for_person=thread.waiting_for_person,
                        deleted=thread.deleted)
        if thread.read_only:
            self._root.dataset.readOnly = "true"
        notice = store_notice(set_aside=thread.set_aside is not None, deleted=thread.deleted)
        if self._store_notice.textContent != notice:
            self._store_notice.textContent = notice
            self._store_notice.hidden = not notice
            if notice:
                self._root.dataset.stored = "deleted" if thread.deleted else "set-aside"
        if self._status.textContent != view.words:
            self._status.textContent = view.words
        self._status.dataset.status = view.status
        self._root.dataset.status = view.status
        self._composer.show(view)
