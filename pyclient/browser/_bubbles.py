"""Message bubbles: the user's text as text, the assistant's as Markdown, updated in place as it streams.

A user message is one text node. An assistant message is Markdown rendered by
`pyclient.browser._markdown` (html off, safe links, no images), written as the bubble's HTML.

Streaming stays linear. The text is cut into blocks that later text cannot change
(`BlockSplitter`: a blank line outside code fences, before a line that starts a new block);
each finished block is rendered once and kept, and only the text after the last cut is
rendered again as more arrives. That render happens at most once per animation frame (the chat
updates bubbles once per frame), and never more often than its own cost allows: after a
render that took `t` (Markdown and the layout of what it wrote), the next waits
`RENDER_SPACING * t`, and the deltas that arrive meanwhile are appended as plain text (to a
node of their own, which lays out in no time however long the block before it). So each delta costs its own length, a long answer made of many
paragraphs never renders its beginning twice, and the text is always all there. When the
message ends (`streaming=False`) the text after the last cut is rendered once more. A text
that is replaced rather than extended (a snapshot) is rendered afresh.

```python
from pyclient.browser._bubbles import Bubble

bubble = Bubble("m1", "assistant")
bubble.update("Hello **wor", streaming=True)
bubble.update("Hello **world**", streaming=False)
print(bubble.node.querySelector("strong").textContent)   # world
```
"""

from __future__ import annotations

import time
from typing import Any

import js

from ._markdown import BlockSplitter, render
from ._nodes import TEXT_NODE, el

__all__ = ["RENDER_SPACING", "Bubble"]

RENDER_SPACING = 8.0
"""While a message streams, the next Markdown render waits this many times the last one's cost.

So renders take at most a ninth of the streaming time, however long the block: a block of a
few kilobytes still renders every frame, one of a few hundred renders a few times."""


class Bubble:
    """The `<li>` of one user or assistant message (`node`).

    Args:
        message_id: the message's id.
        role: "user" or "assistant" (class `pyclient-<role>`, `data-role`).

    Attributes:
        text: the text shown now (rendered part and streamed tail).
    """

    def __init__(self, message_id: str, role: str) -> None:
        self.message_id = message_id
        self.role = role
        node = self.node = el("li", f"pyclient-message pyclient-{role}")
        node.dataset.role = role
        self.text = ""
        self._text_node = js.document.createTextNode("")
        if role == "assistant":
            content = el("div", "pyclient-markdown")
            self._blocks = el("div", "pyclient-md-blocks")  # finished blocks, rendered once
            self._live = el("div", "pyclient-md-live")      # the text after the last cut
            content.append(self._blocks, self._live)
            node.append(content, self._text_node)          # the text node: the streamed tail
        else:
            node.append(self._text_node)
        self._splitter = BlockSplitter()
        self._frozen = 0        # text[:_frozen] is in _blocks
        self._tail = 0          # characters at the end of `text` shown as plain text
        self._next_render = 0.0
        self._live_html = ""    # the HTML the live block shows
        self._interrupted = False

    def update(self, text: str, *, streaming: bool) -> None:
        """Show `text`; `streaming` while more may come (see the module docstring)."""
        if self.role != "assistant":
            self._plain(text)
            return
        if text == self.text and (streaming or not self._tail):
            return
        now = time.perf_counter()
        extends = text.startswith(self.text)
        if streaming and extends and now < self._next_render:
            self._text_node.appendData(text[len(self.text):])
            self._tail += len(text) - len(self.text)
            self.text = text
            return
        if not extends:  # replaced, not extended: start again
            self._splitter = BlockSplitter()
            self._frozen = 0
            self._blocks.replaceChildren()
            self._live_html = ""
        cut = self._splitter.cut(text)
        if cut > self._frozen:
            # markdown-it with raw HTML off: see _markdown.
            self._blocks.insertAdjacentHTML("beforeend", render(text[self._frozen:cut]))
            self._frozen = cut
            self._live_html = ""
        self._show_live(render(text[self._frozen:]))
        self._text_node.data = ""
        self._tail = 0
        self.text = text
        if streaming:
            # The spacing counts the layout of what was written too: a long block costs more
            # to lay out than to render (a 40,000-word paragraph: ~15 ms of Markdown, 50 ms and
            # more of layout). Updates come in animation frames, where the browser lays the
            # page out anyway: reading a size only does it now.
            _ = self.node.offsetHeight
        self._next_render = now + RENDER_SPACING * (time.perf_counter() - now)

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
                last = self._live.lastElementChild.lastChild
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
