"""Message bubbles: the user's text as text, the assistant's as Markdown, updated in place as it streams.

A user message is one text node, with its files under it (`_media_nodes`); an assistant
message is Markdown (`_markdown`). Streaming stays linear: the text is cut into blocks that
later text cannot change (`BlockSplitter`), each finished block is rendered once and kept, and
only the live block after the last cut is rendered again, at most once a frame and spaced by
its own cost (`RENDER_SPACING`); the deltas meanwhile show as plain text after it, the tail.
A browser lays out a changed paragraph whole, so the tail is a column of boxes of about
`TAIL_CHUNK` characters, a live block past `LIVE_LIMIT` is not rendered again while it
streams, and a text with a line of `WIDE_LINE` characters gets the maximum width outright
(`pyclient-wide`) rather than a fit that costs a pass over all of it. When the message ends,
the bubble holds the Markdown of the whole text, as if rendered at once.

```python
from pyclient.browser._widgets._bubbles import Bubble

bubble = Bubble("m1", "assistant")
bubble.update("Hello **wor", streaming=True)
bubble.update("Hello **world**", streaming=False)
print(bubble.node.querySelector("strong").textContent)   # world
```
"""

from __future__ import annotations

import time
from typing import Any

from ..._tools._content import split_parts
from .._page._document import page_document
from .._page._nodes import TEXT_NODE, el
from ._markdown import BlockSplitter, render
from ._media_nodes import media_list
from ._widget import Click, Widget

__all__ = ["LIVE_LIMIT", "RENDER_SPACING", "TAIL_CHUNK", "THUMBNAIL", "WIDE_LINE", "Bubble"]

THUMBNAIL = (256, 160, 48)
"""The box of a sent image's thumbnail (width, height, least width; chat.css's 16rem × 10rem),
set before it loads so the list does not grow under the reader."""

RENDER_SPACING = 8.0
"""While a message streams, the next Markdown render waits this many times the last one's cost.

So Markdown renders take at most a ninth of the streaming time: a block of a few kilobytes
still renders every frame."""

LIVE_LIMIT = 8_000
"""A live block longer than this (characters) is not rendered while it streams, until it is cut
or the message ends; its text streams in the tail (laying it out would cost its whole length)."""

TAIL_CHUNK = 4_000
"""The tail's boxes hold about this many characters each (a new box starts after a space or a
newline once the last box holds this many): each frame lays out only the last box."""

WIDE_LINE = 1_000
"""A line of this many characters is wider than any screen: its bubble takes its maximum width."""


class Bubble(Widget):
    """The `<li>` of one user or assistant message (`node`).

    Args:
        message_id: the message's id.
        role: "user" or "assistant" (class `pyclient-<role>`, `data-role`).

    Attributes:
        text: the text shown now (rendered part and streamed tail).
    """

    def __init__(self, message_id: str, role: str) -> None:
        super().__init__("m:" + message_id, el("li", f"pyclient-message pyclient-{role}"))
        self.message_id = message_id
        self.role = role
        node = self.node
        node.dataset.role = role
        self.text = ""
        self._text_node = page_document().createTextNode("")  # a user's text
        if role == "assistant":
            content = el("div", "pyclient-markdown")
            self._blocks = el("div", "pyclient-md-blocks")  # finished blocks, rendered once
            self._live = el("div", "pyclient-md-live")      # the text after the last cut
            self._tail_box = el("div", "pyclient-md-tail")  # the streamed tail, in boxes
            content.append(self._blocks, self._live)
            node.append(content, self._tail_box)
        else:
            node.append(self._text_node)
        self._splitter = BlockSplitter()
        self._frozen = 0        # text[:_frozen] is in _blocks
        self._tail = 0          # characters at the end of `text` shown as plain text
        self._chunk = 0         # characters in the tail's last box
        self._next_render = 0.0
        self._live_html = ""    # the HTML the live block shows
        self._interrupted = False
        self._line = 0          # where the last line of `text` starts (until a wide one is seen)
        self._content: Any = None   # the user message's content shown (see show_content)
        self._files: Any = None     # the node of its files, if it has any
        self.bar: Widget | None = None  # its action bar, once the chat gave it one

    def on_command(self, click: Click) -> bool:
        """A click in the bubble is its bar's to handle (the bar's buttons, its edit box's)."""
        return self.bar is not None and self.bar.on_command(click)

    def attach_bar(self, bar: Widget) -> None:
        """Put `bar` (its `MessageBar`) under the bubble's text: the bubble owns it from now on."""
        self.bar = bar
        self.node.append(bar.node)

    def show_content(self, content: Any) -> None:
        """Show a user message's `content` (a str, or AG-UI parts): its text, and its files
        under it. Read once per content (a message's own list): decoding its files costs their size."""
        if content is self._content:
            return
        self._content = content
        text, files = split_parts(content)
        self._plain(text)
        self.node.classList.toggle("pyclient-files-only", bool(files) and not text)
        if self._files is not None:
            self._files.remove()
            self._files = None
        if files:
            self._files = media_list(files, "pyclient-message-files", box=THUMBNAIL)
            self.node.append(self._files)

    def update(self, text: str, *, streaming: bool) -> None:
        """Show `text`; `streaming` while more may come (see the module docstring)."""
        if self.role != "assistant":
            self._plain(text)
            return
        if text == self.text and (streaming or not self._tail):
            return
        now = time.perf_counter()
        extends = text.startswith(self.text)
        if extends and self._line >= 0:
            self._find_wide_line(text, len(self.text))
        if streaming and extends and (now < self._next_render or len(text) - self._frozen > LIVE_LIMIT) \
                and self._splitter.cut(text) == self._frozen:
            self._append_tail(text[len(self.text):])
            self.text = text
            return
        if not extends:  # replaced, not extended: start again
            self._line = 0
            self.node.classList.remove("pyclient-wide")
            self._splitter = BlockSplitter()
            self._frozen = 0
            self._blocks.replaceChildren()
            self._live_html = ""
            self._find_wide_line(text, 0)
        cut = self._splitter.cut(text)
        if cut > self._frozen:
            # markdown-it with raw HTML off: see _markdown.
            self._blocks.insertAdjacentHTML("beforeend", render(text[self._frozen:cut]))
            self._frozen = cut
            self._live_html = ""
        self._show_live(render(text[self._frozen:]))
        if self._tail:
            self._tail_box.replaceChildren()
            self._tail = self._chunk = 0
        self.text = text
        # Markdown's time only: reading a size here to count the layout too would lay the page
        # out now, in the middle of the frame's work (see LIVE_LIMIT for the layout's cost).
        self._next_render = now + RENDER_SPACING * (time.perf_counter() - now)

    def _find_wide_line(self, text: str, start: int) -> None:
        """Look for a line of `WIDE_LINE` characters in `text[start:]` (the lines before are
        shorter); on finding one, give the bubble its maximum width (`_line` -1: done)."""
        line = self._line
        while True:
            end = text.find("\n", start)
            if (end if end >= 0 else len(text)) - line >= WIDE_LINE:
                self._line = -1
                self.node.classList.add("pyclient-wide")
                return
            if end < 0:
                break
            line = start = end + 1
        self._line = line

    def _append_tail(self, added: str) -> None:
        """Show `added` (plain text) at the end of the tail: in its last box while that holds
        fewer than `TAIL_CHUNK` characters, then in new boxes, each cut after a space or newline
        (a word longer than the room left ends its box)."""
        self._tail += len(added)
        box = self._tail_box.lastChild
        while added:
            room = TAIL_CHUNK - self._chunk if box else TAIL_CHUNK
            end = len(added)
            if end > room:
                end = max(added.rfind(" ", 0, room), added.rfind("\n", 0, room)) + 1
                if not end:
                    after = [i for i in (added.find(" ", max(room, 0)), added.find("\n", max(room, 0))) if i >= 0]
                    end = min(after) + 1 if after else len(added)
            piece, added = added[:end], added[end:]
            if box:
                box.firstChild.appendData(piece)
                self._chunk += len(piece)
            else:
                box = el("div", "", piece)
                self._tail_box.append(box)
                self._chunk = len(piece)
            if added:
                box = None  # the rest starts a new box

    def _show_live(self, html: str) -> None:
        """Show `html` (markdown-it's, of the text after the last cut) in the live block.

        When it only adds text at the end of the last paragraph (a long paragraph streaming),
        that text is appended to the paragraph's text node: the browser then lays out the
        longer line run, where new nodes would make it shape the whole paragraph again (a
        40,000-word paragraph: about half the time).
        """
        shown, self._live_html = self._live_html, html
        end = "</p>\n"
        if len(html) >= len(shown) and shown.endswith(end) and html.endswith(end) \
                and html.startswith(shown[:-len(end)]):
            added = html[len(shown) - len(end):-len(end)]
            if "<" not in added and "&" not in added:  # text only: no tag, no entity
                paragraph = self._live.lastElementChild  # None in a worker's mirror: its HTML is the page's
                last = paragraph.lastChild if paragraph else None
                if last and last.nodeType == TEXT_NODE:
                    last.appendData(added)
                    return
        self._live.innerHTML = html

    def _plain(self, text: str) -> None:
        shown = self.text
        if shown == text:
            return
        if text.startswith(shown):
            self._text_node.appendData(text[len(shown):])
        else:
            self._text_node.data = text
        self.text = text

    def mark_interrupted(self) -> None:
        """The page died while this message streamed: its text is partial (`data-interrupted`)."""
        if not self._interrupted:
            self._interrupted = True
            self.node.dataset.interrupted = "true"
            self.node.title = "interrupted: the page was reloaded while this answer streamed"
