"""The "Thinking" section of a reasoning message: a `<details>` above the answer it led to.

An agent's reasoning (`REASONING_*` events, `THINKING_*` from older servers: a message of role
`"reasoning"` in the history) is shown as it streams, in a collapsible section headed
"Thinking", open while it streams. Once the answer starts (the next text or tool call shows) it
folds, once: a person who opens it again keeps it open. A reasoning message shown after the
fact (a reload, a snapshot) starts folded. Its text is model output: text nodes, invisible
characters marked, never HTML. Encrypted reasoning (`encryptedValue`) is never shown: a
reasoning message with nothing but that gets no section at all.

```python
from pyclient.browser._widgets._thinking_section import Thinking

thinking = Thinking("r1", streaming=True)
thinking.update("First, the venue", streaming=True)
print(thinking.node.querySelector("summary").textContent, thinking.open)   # Thinking… True
thinking.update("First, the venue. Then the date.", streaming=False)
thinking.fold()                       # the answer started
print(thinking.node.querySelector("summary").textContent, thinking.open)   # Thinking False
```
"""

from __future__ import annotations

from .._page._nodes import append_visible, el
from ._widget import Widget

__all__ = ["Thinking"]


class Thinking(Widget):
    """The `<li>` of one reasoning message (`node`), a `<details>` inside.

    Args:
        message_id: the reasoning message's id (`data-message-id`).
        streaming: True while it streams: the section starts open; else folded.
    """

    def __init__(self, message_id: str, *, streaming: bool) -> None:
        super().__init__("m:" + message_id, el("li", "pyclient-thinking"))
        self.message_id = message_id
        self.text = ""
        self._folded = not streaming     # folded once already: never again by itself
        node = self.node
        node.dataset.role = "reasoning"
        node.dataset.messageId = message_id
        self._details = el("details", "pyclient-thinking-details")
        self._summary = el("summary", "pyclient-thinking-summary", "Thinking…" if streaming else "Thinking")
        self._body = el("div", "pyclient-thinking-text")
        self._details.append(self._summary, self._body)
        self._details.open = streaming
        node.append(self._details)
        self._streaming = streaming
        node.dataset.streaming = "true" if streaming else "false"

    @property
    def open(self) -> bool:
        """True while the section is unfolded."""
        return bool(self._details.open)

    def update(self, text: str, *, streaming: bool) -> None:
        """Show `text` (appended when it extends what is shown); `streaming` while more may come."""
        if text != self.text:
            if text.startswith(self.text):
                append_visible(self._body, text[len(self.text):])
            else:
                self._body.replaceChildren()
                append_visible(self._body, text)
            self.text = text
        if streaming != self._streaming:
            self._streaming = streaming
            self._summary.textContent = "Thinking…" if streaming else "Thinking"
            self.node.dataset.streaming = "true" if streaming else "false"

    def fold(self) -> None:
        """The answer started: fold the section, the first time only."""
        if self._streaming:
            self.update(self.text, streaming=False)
        if not self._folded:
            self._folded = True
            self._details.open = False
