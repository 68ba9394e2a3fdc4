"""The action bar under each message bubble: copy, edit and resend, regenerate, ‹ 1/2 › branches, thumbs.

`MessageBars` gives every bubble of the chat's list a `MessageBar` (built once, under the
bubble, updated from a `pyclient.browser._widgets._bar_views.BarView`) and does what its buttons
ask: Copy (`navigator.clipboard.writeText`, through `pyclient.browser._page._page_promise`, from
the main thread or a worker), Edit (a text box in the bubble; Send resends with `thread.edit`),
Regenerate, ‹ and › (`thread.show_branch`) and the thumbs (`thread.set_feedback`, and the
chat's `on_feedback`). Every button is a `<button>` with an `aria-label`, reached with Tab, and
acts only on a trusted event (`event.isTrusted`); while a run is in flight, Edit, Regenerate
and the picker are disabled. What each does: docs/chat.md ("Message actions").

```python
from pyclient.browser._widgets._message_bar import MessageBar
from pyclient.browser._widgets._bar_views import BarView

bar = MessageBar("m1", "assistant", feedback=True)
bar.update(BarView("m1", "assistant", "Hello", regenerate=True, rate=True, rating="up"), busy=False)
print(bar.node.querySelector("[data-rating='up']").getAttribute("aria-pressed"))   # true
print(bar.node.querySelector(".pyclient-regenerate").hidden)                       # False
```
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._base._errors import LocalProtocolError
from ..._conversation._feedback import RATINGS, Rating
from .._page._nodes import el, set_visible
from .._page._page_promise import settled
from .._page._page_window import page_window
from ._bar_views import BarView, bar_views
from ._bubbles import Bubble
from ._widget import Click, Widget

if TYPE_CHECKING:
    from ag_ui.core import Message

    from ..._api._thread import Thread

__all__ = ["BAR_COMMANDS", "COPIED", "MessageBar", "MessageBars"]

logger = logging.getLogger("pyclient")

BAR_COMMANDS = frozenset({"copy-message", "edit-message", "edit-send", "edit-cancel", "regenerate", "branch", "rate"})
"""The `data-command`s of the bars' buttons (the chat hands their clicks to `MessageBars.click`)."""

COPIED = "Copied"
"""What the live region says once a message is on the clipboard."""

_SAY_FOR_S = 2.0  # how long the live region keeps its words

# The icons: our own constant SVG (never model output), drawn in the button's text colour.
_SVG = ('<svg class="pyclient-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false" fill="none" '
        'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{}</svg>')
_THUMB = ('<path d="M7 10v11"/><path d="M15 5.9 14 10h5.8a2 2 0 0 1 1.9 2.6l-2.3 7A2 2 0 0 1 17.5 21H4a1 1 0 '
          '0 1-1-1v-9a1 1 0 0 1 1-1h2.8a2 2 0 0 0 1.8-1.1L12 2a3 3 0 0 1 3 3.9Z"/>')
ICONS = {
    "copy": '<rect x="9" y="9" width="12" height="12" rx="2"/><path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10'
            'a1 1 0 0 1 1 1v1"/>',
    "copied": '<path d="M20 6 9 17l-5-5"/>',
    "edit": '<path d="M12 20h9"/><path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z"/>',
    "regenerate": '<path d="M21 12a9 9 0 1 1-2.6-6.4L21 8"/><path d="M21 3v5h-5"/>',
    "up": _THUMB,
    "down": f'<g transform="rotate(180 12 12)">{_THUMB}</g>',
}


def _icon_button(cls: str, icon: str, label: str, command: str, **attributes: str) -> Any:
    button = el("button", f"pyclient-action {cls}", type="button", aria_label=label, title=label,
                data_command=command, **attributes)
    button.innerHTML = _SVG.format(ICONS[icon])
    return button


class MessageBar(Widget):
    """The bar of one bubble (`node`), and for a user message its edit box (`editor`).

    Args:
        message_id: the bubble's message.
        role: "user" or "assistant".
        feedback: the chat offers thumbs.
    """

    def __init__(self, message_id: str, role: str, *, feedback: bool) -> None:
        super().__init__("b:" + message_id, el("div", "pyclient-actions", role="group", aria_label="Message actions",
                                               data_message_id=message_id))
        self.message_id = message_id
        self.role = role
        self.text = ""
        self.branch_of: str | None = None  # the message the picker's alternatives start at
        node = self.node
        what = "version" if role == "user" else "answer"
        self._what = what
        # No text node in the bar: the bubble's textContent stays the message's (the glyphs
        # and the count are CSS `content`, the buttons' names their aria-labels).
        picker = self._picker = el("span", "pyclient-branch", role="group", aria_label=f"Other {what}s")
        self._previous = el("button", "pyclient-action pyclient-branch-previous", type="button",
                            aria_label=f"Previous {what}", title=f"Previous {what}", data_command="branch")
        self._count = el("span", "pyclient-branch-count", role="img")
        self._next = el("button", "pyclient-action pyclient-branch-next", type="button",
                        aria_label=f"Next {what}", title=f"Next {what}", data_command="branch")
        picker.append(self._previous, self._count, self._next)
        picker.hidden = True
        self._copy = _icon_button("pyclient-copy", "copy", "Copy message", "copy-message")
        node.append(self._copy)  # the picker goes on the outer side: first for an answer, last for the user
        self._edit = self._regenerate = None
        self._thumbs: dict[str, Any] = {}
        self.editor: Any = None   # the edit box, while it is open
        self.bubble: Any = None   # the bubble's <li>, once the bar is under it
        self._box: Any = None
        if role == "user":
            self._edit = _icon_button("pyclient-edit", "edit", "Edit message", "edit-message")
            node.append(self._edit, picker)
        else:
            self._regenerate = _icon_button("pyclient-regenerate", "regenerate", "Regenerate answer", "regenerate")
            self._regenerate.hidden = True
            node.prepend(picker)
            node.append(self._regenerate)
            if feedback:
                for rating, label in (("up", "Good answer"), ("down", "Bad answer")):
                    thumb = self._thumbs[rating] = _icon_button(
                        f"pyclient-rate pyclient-rate-{rating}", rating, label, "rate", data_rating=rating,
                        aria_pressed="false")
                    thumb.hidden = True
                    node.append(thumb)
        self._shown: tuple[Any, ...] | None = None

    @property
    def editing(self) -> bool:
        """The edit box is open."""
        return self.editor is not None

    def update(self, view: BarView, *, busy: bool) -> None:
        """Show what `view` offers; `busy`: a run is in flight (what the thread refuses is disabled)."""
        self.text = view.text
        shown = (view, busy)
        if shown == self._shown:
            return
        self._shown = shown
        point = view.branch
        self.branch_of = point.message_id if point is not None else None
        self._picker.hidden = point is None
        if point is not None:
            self._count.dataset.count = f"{point.index + 1}/{point.count}"
            self._count.setAttribute("aria-label", f"{self._what.capitalize()} {point.index + 1} of {point.count}")
            self._previous.dataset.index = str(point.index - 1)
            self._next.dataset.index = str(point.index + 1)
            self._previous.disabled = busy or point.index == 0
            self._next.disabled = busy or point.index + 1 >= point.count
        if self._edit is not None:
            self._edit.disabled = busy
        if self._regenerate is not None:
            self._regenerate.hidden = not view.regenerate
            self._regenerate.disabled = busy
        for rating, thumb in self._thumbs.items():
            thumb.hidden = not view.rate
            thumb.setAttribute("aria-pressed", "true" if view.rating == rating else "false")

    def on_command(self, click: Click) -> bool:
        """Edit and the edit box's Cancel: they open and close the box (the person's clicks only);
        what acts on the thread is `MessageBars.click`'s."""
        if click.command not in ("edit-message", "edit-cancel"):
            return False
        if not click.trusted:
            logger.warning("pyclient: ignored an untrusted click on %s of message %s", click.command, self.message_id)
        elif click.command == "edit-message":
            self.open_editor()
        else:
            self.close_editor()
        return True

    def open_editor(self) -> None:
        """Open the edit box under the bubble's text, with the message's text, focused; the
        text hides meanwhile (made on opening, removed on closing: the bubble's textContent
        stays the message's)."""
        if self.role != "user" or self.bubble is None:
            return
        if self.editor is None:
            editor = self.editor = el("div", "pyclient-editor", data_message_id=self.message_id)
            label = el("label", "pyclient-visually-hidden", "Edit your message")
            self._box = el("textarea", "pyclient-editor-text", rows="3", id=f"pyclient-edit-{self.message_id}")
            label.htmlFor = self._box.id
            buttons = el("div", "pyclient-buttons")
            buttons.append(el("button", "pyclient-edit-send", "Send", type="button", data_command="edit-send"),
                           el("button", "pyclient-edit-cancel", "Cancel", type="button", data_command="edit-cancel"))
            editor.append(label, self._box, buttons)
            self.bubble.append(editor)
            self.bubble.classList.add("pyclient-editing")
        self._box.value = self.text
        self._box.focus()

    def close_editor(self) -> None:
        """Remove the edit box; the bubble shows its text again."""
        if self.editor is not None:
            self.editor.remove()
            self.editor = self._box = None
            if self.bubble is not None:
                self.bubble.classList.remove("pyclient-editing")
            if self._edit is not None:
                self._edit.focus()

    def edited_text(self) -> str:
        """What the edit box holds ("" when it is closed)."""
        return str(self._box.value) if self._box is not None else ""

    def copied(self, done: bool) -> None:
        """Show (or stop showing) that the text is on the clipboard: the Copy button's check."""
        self._copy.innerHTML = _SVG.format(ICONS["copied" if done else "copy"])
        self._copy.dataset.copied = "true" if done else "false"


class MessageBars:
    """The bars of one chat's bubbles, and what their buttons do; see the module docstring.

    Args:
        thread: the chat's thread.
        on_feedback: the chat's `on_feedback(message_id, rating)`, or None (no thumbs).
        act: runs a regenerate or an edit as the chat's own send (`Commands.act`): returns
            False when a run may not start now.
    """

    def __init__(self, thread: Thread, *, on_feedback: Callable[[str, Rating | None], Any] | None,
                 act: Callable[[Callable[[], Coroutine[Any, Any, None]]], bool]) -> None:
        self.thread = thread
        self._on_feedback = on_feedback
        self._act = act
        self._bubbles: Mapping[str, Bubble] = {}  # the list's bubbles by message id, as last updated
        self.notice = el("span", "pyclient-visually-hidden pyclient-copy-notice", role="status", aria_live="polite")
        self._clear: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def update(self, bubbles: Mapping[str, Bubble], *, busy: bool, messages: Sequence[Message] | None = None,
               only: bool = False) -> None:
        """Give each bubble (by message id) its bar, and show what each offers now.

        `messages`: the history the list shows (`thread.messages` by default). `only`: they are
        some of it (earlier messages just made): only their bars are made or shown again."""
        thread = self.thread
        self._bubbles = bubbles  # a bubble that left the list took its bar with it
        views = bar_views(thread.messages if messages is None else messages, thread.branch_points(),
                          thread.feedback, feedback=self._on_feedback is not None)
        for message_id, view in views.items():
            bubble = bubbles.get(message_id)
            if bubble is None:
                continue
            bar = _bar_of(bubble)
            if bar is None:
                bar = MessageBar(message_id, view.role, feedback=self._on_feedback is not None)
                bar.bubble = bubble.node
                bubble.attach_bar(bar)
            bar.update(view, busy=busy or thread.read_only)

    def _bar(self, message_id: str | None) -> MessageBar | None:
        bubble = self._bubbles.get(message_id) if message_id is not None else None
        return _bar_of(bubble) if bubble is not None else None

    def _bars(self) -> Iterator[MessageBar]:
        return (bar for bubble in self._bubbles.values() if (bar := _bar_of(bubble)) is not None)

    def say(self, words: str) -> None:
        """Put `words` in the live region for a moment."""
        set_visible(self.notice, words)  # a browser's error, read aloud: invisible characters named
        if self._clear is not None:
            self._clear.cancel()
        self._clear = asyncio.get_event_loop().call_later(_SAY_FOR_S, self._cleared)

    def _cleared(self) -> None:
        self._clear = None
        self.notice.textContent = ""
        for bar in self._bars():
            bar.copied(False)

    def click(self, command: str, *, trusted: bool, message_id: str | None, index: str | None = None,
              rating: str | None = None) -> None:
        """A click on a bar's button (`data-command` in `BAR_COMMANDS`) of the bubble `message_id`."""
        bar = self._bar(message_id)
        if bar is None:
            return
        if not trusted:  # a script's synthetic click is not the person's
            logger.warning("pyclient: ignored an untrusted click on %s of message %s", command, message_id)
            return
        if command == "copy-message":
            self._start(self._copy(bar))
        elif command == "edit-send":
            text = bar.edited_text().strip()
            if text and self._act(lambda: self.thread.edit(bar.message_id, text)):
                bar.close_editor()
        elif command == "regenerate":
            self._act(self.thread.regenerate)
        elif command == "branch" and index is not None and bar.branch_of is not None:
            try:
                self.thread.show_branch(bar.branch_of, int(index))
            except LocalProtocolError as exc:  # a run started meanwhile, or the button outlived its branch
                logger.info("pyclient: %s", exc)
        elif command == "rate" and rating in RATINGS:
            self._rate(bar.message_id, None if self.thread.feedback(bar.message_id) == rating else rating)

    def key(self, key: str, message_id: str | None) -> None:
        """A key in an edit box: Escape closes it."""
        bar = self._bar(message_id)
        if bar is not None and key == "Escape":
            bar.close_editor()

    def _rate(self, message_id: str, rating: Rating | None) -> None:
        try:
            self.thread.set_feedback(message_id, rating)
        except LocalProtocolError as exc:  # another tab holds the thread: nothing to keep here
            self.say("Could not rate: this conversation is open in another tab")
            logger.info("pyclient: %s", exc)
            return
        if self._on_feedback is not None:
            try:
                self._on_feedback(message_id, rating)
            except Exception:
                logger.exception("pyclient: the chat's on_feedback callback raised for message %s", message_id)

    async def _copy(self, bar: MessageBar) -> None:
        clipboard = getattr(page_window().navigator, "clipboard", None)
        if clipboard is None:
            self.say("Could not copy: the clipboard is not available in this page")
            return
        outcome = await settled(clipboard, "writeText", bar.text)
        if outcome.error is None:
            bar.copied(True)
            self.say(COPIED)
        else:
            self.say(f"Could not copy ({outcome.error})")

    def _start(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)  # asyncio holds tasks weakly
        task.add_done_callback(self._tasks.discard)


def _bar_of(bubble: Bubble) -> MessageBar | None:
    return bubble.bar if isinstance(bubble.bar, MessageBar) else None
