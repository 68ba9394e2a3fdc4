"""The chat's shell: the frame and composer `assets/shell.js` draws at first paint, adopted by a `Chat`.

A page marks its chat's element `data-pyclient-chat`; `pyclient.js` draws the shell there before
Python starts, and the person can type, attach and send at once (docs/chat.md, "The shell").
`find_shell(element)` finds it for the `Chat` made on that element, which keeps its root, form,
input and outbox and replaces the rest. `Outbox` holds the messages the shell handed over
(`pyclient-send` events, in order) until each is sent and drawn: one at a time, when the thread
may send, each exactly once; what can never go (a read-only or deleted thread) is given back.

```python
from pyclient.browser._chat._shell import Outbox
from pyclient.browser._page._mirror import MirrorDocument

outbox = Outbox(MirrorDocument(lambda ops: None, schedule=lambda flush: None).createElement("ol"))
outbox.receive(1, "hello", [])
item = outbox.next_to_send()
outbox.sending(item.id, messages=0)
outbox.drawn(messages=1)
print(item.text, outbox.node.dataset.taken, outbox.waiting)   # hello 1 False
```
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from .._page._document import find_node, know_children

__all__ = ["PLACEHOLDER", "WELCOME", "WELCOME_SUGGESTED", "Outbox", "Shell", "Waiting", "find_shell"]

# The chat's words, which the shell shows before Python runs (assets/shell.js says the same:
# tests/unit/browser/assets/test_shell_js.py), so nothing changes when the chat adopts it.
WELCOME = "Start the conversation: type a message below."
WELCOME_SUGGESTED = "Start the conversation: ask a question or try a suggestion."
PLACEHOLDER = "Ask the agent…"


@dataclass(frozen=True)
class Shell:
    """The shell's nodes a `Chat` keeps (the rest it replaces with its own)."""

    root: Any
    form: Any
    input: Any
    outbox: Any


def find_shell(element: Any) -> Shell | None:
    """The shell `shell.js` drew in `element` and no chat has adopted yet, or None."""
    root = find_node(element, ':scope > .pyclient-chat[data-shell="waiting"]')
    if root is None:
        return None
    form = find_node(root, ":scope > form.pyclient-form")
    field = find_node(root, ':scope > form > input[name="message"]')
    outbox = find_node(root, ":scope > ol.pyclient-outbox")
    if form is None or field is None or outbox is None:
        return None  # not a shell of this version: the chat draws its own
    know_children(root, [outbox, form])  # (its other parts go when the chat has adopted it)
    know_children(form, [field])
    return Shell(root, form, field, outbox)


@dataclass(frozen=True)
class Waiting:
    """A message the shell handed over: its outbox id, its text, its JS `File`s."""

    id: int
    text: str
    files: tuple[Any, ...]


class Outbox:
    """The messages the shell handed over, until their bubbles are drawn; see the module docstring.

    Args:
        node: the shell's `ol.pyclient-outbox`; `data-taken` tells the shell which items to remove.
    """

    def __init__(self, node: Any) -> None:
        self.node = node
        self._queue: deque[Waiting] = deque()
        self._sent: tuple[int, int] | None = None  # (id, messages before it) until its bubble shows
        self._taken = 0

    @property
    def waiting(self) -> bool:
        """Messages wait to be sent, or for their bubble."""
        return bool(self._queue) or self._sent is not None

    def receive(self, item_id: int, text: str, files: list[Any]) -> None:
        """A message the person sent in the shell (its outbox id)."""
        self._queue.append(Waiting(item_id, text, tuple(files)))

    def next_to_send(self) -> Waiting | None:
        """The next message to send, taken from the queue; None while one is on its way."""
        if self._sent is not None or not self._queue:
            return None
        return self._queue.popleft()

    def sending(self, item_id: int, *, messages: int) -> None:
        """`item_id` was sent when the history held `messages` messages: it is taken once more show."""
        self._sent = (item_id, messages)

    def drawn(self, *, messages: int) -> None:
        """The chat drew a history of `messages` messages: the message sent is in it."""
        if self._sent is not None and messages > self._sent[1]:
            self.take(self._sent[0])
            self._sent = None

    def refused(self) -> None:
        """The message on its way was refused (nothing was sent): it leaves the outbox."""
        if self._sent is not None:
            self.take(self._sent[0])
            self._sent = None

    def take(self, item_id: int) -> None:
        """The shell removes the outbox items up to `item_id` (sent and drawn, or given back)."""
        if item_id > self._taken:
            self._taken = item_id
            self.node.dataset.taken = str(item_id)

    def give_back(self) -> list[Waiting]:
        """Every waiting message, taken out of the outbox: they cannot be sent."""
        waiting = list(self._queue)
        self._queue.clear()
        for item in waiting:
            self.take(item.id)
        return waiting
