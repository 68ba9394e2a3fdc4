"""Message bubbles: the user's text as text, the assistant's as Markdown, updated in place as it streams.

A user message is one text node. An assistant message is Markdown rendered by
`pyclient.browser._markdown` (html off, safe links, no images), written as the bubble's HTML.

While a message streams, its Markdown is rendered at most once per animation frame (the
chat updates bubbles once per frame) and never more often than its own cost allows: after a
render that took `t`, the next waits `RENDER_SPACING * t`, and the deltas that arrive
meanwhile are appended as plain text after the rendered part. So rendering takes at most
about a fifth of the time a long answer streams, each delta costs its own length, and the
text is always all there. When the message ends (`streaming=False`) it is rendered once
more, completely.

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

from ._markdown import render
from ._nodes import el

__all__ = ["RENDER_SPACING", "Bubble"]

RENDER_SPACING = 4.0
"""While a message streams, the next Markdown render waits this many times the last one's cost."""


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
            self._content: Any = el("div", "pyclient-markdown")
            node.append(self._content, self._text_node)  # the text node is the streamed tail
        else:
            node.append(self._text_node)
        self._rendered: str | None = None
        self._next_render = 0.0
        self._interrupted = False

    def update(self, text: str, *, streaming: bool) -> None:
        """Show `text`; `streaming` while more may come (see the module docstring)."""
        if self.role != "assistant":
            self._plain(text)
            return
        if text == self.text and (streaming or self._rendered == text):
            return
        now = time.perf_counter()
        if streaming and now < self._next_render and text.startswith(self.text):
            self._text_node.appendData(text[len(self.text):])
            self.text = text
            return
        self._content.innerHTML = render(text)  # markdown-it with raw HTML off: see _markdown
        self._text_node.data = ""
        self._rendered = self.text = text
        self._next_render = now + RENDER_SPACING * (time.perf_counter() - now)

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
