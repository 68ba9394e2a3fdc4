"""The part of a long history the chat's list shows: the last screens at first, earlier ones as the person scrolls up.

A thread restored with thousands of messages would otherwise get a bubble or a card for each
at once: seconds of work before the last screen shows, and a DOM of tens of thousands of
nodes. `HistoryWindow` says which messages the chat's list makes nodes for, from `start` to the
end, and widens by a batch a frame while the list is scrolled near its top, keeping what the
person reads in place. Messages are only ever added to the window, so what was made stays (a
bubble being edited, a card's form), and each batch is sized to the frame budget from how long
the last took (`drawn()`). Messages outside the window are not even parsed. The browser's
find-in-page sees only what has nodes: `windowed=False` makes everything. Its states:
docs/architecture.md ("How a frame draws the chat").

```python
from pyclient.browser._chat._history_window import HistoryWindow

window = HistoryWindow(first=3, batch=2)
history = [f"m{i}" for i in range(6)]
print(window.pass_messages(history), window.state, window.earlier)   # (['m3', 'm4', 'm5'], False) tail True
window.widen()
print(window.pass_messages(history), window.messages(history))
# (['m1', 'm2'], True) ['m1', 'm2', 'm3', 'm4', 'm5']
window.widen()
print(window.pass_messages(history), window.state, window.earlier)   # (['m0'], True) whole False
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar

__all__ = ["BATCH", "BUDGET", "FIRST", "MAX_BATCH", "HistoryWindow"]

FIRST = 60
"""Messages a long history shows first: the last few screens (a screen holds about ten)."""

BATCH = 8
"""Earlier messages made per frame at least while the person scrolls up: a message with its
Markdown bubble and bar costs milliseconds on a slow page, and larger batches made visible
gaps between frames there (bench/window.py; the figures in bench/README.md)."""

MAX_BATCH = 300
"""At most this many a frame: `drawn()` sizes the next batch to the frame budget."""

BUDGET = 0.03
"""Seconds a frame's batch should take to draw (the chat's card updates get as much)."""

T = TypeVar("T")

State = Literal["unset", "tail", "widening", "whole"]


class HistoryWindow:
    """Which messages of the history the chat's list makes nodes for: from `start` on.

    Args:
        first: how many of the last messages a long history shows first (more when the
            person's last message is further back: it and all that followed show).
        batch: how many earlier messages `widen()` takes in.
        windowed: False makes every message (`state` starts `"whole"`).
    """

    def __init__(self, first: int = FIRST, batch: int = BATCH, *, windowed: bool = True) -> None:
        if first < 1 or batch < 1:
            raise ValueError(f"first={first} and batch={batch} must both be at least 1")
        self.first = first
        self.batch = batch
        self.state: State = "unset" if windowed else "whole"
        self.start = 0
        self.taken = 0  # in `widening`: where the batch taken in ends (the previous `start`)
        self._least = batch

    @property
    def earlier(self) -> bool:
        """Some earlier messages have no nodes, and none are being taken in (scrolling up takes them)."""
        return self.state == "tail"

    def messages(self, history: Sequence[T]) -> Sequence[T]:
        """The messages of `history` in the window, in order."""
        count = len(history)
        if self.state == "unset" and count or self.state in ("tail", "widening") and self.start >= count:
            self.start = self._tail_start(history)
            self.state = "tail" if self.start else "whole"
        return history[self.start:] if self.start else history

    def _tail_start(self, history: Sequence[T]) -> int:
        """Where the tail starts: the last `first` messages, and at the latest the person's last
        message. A new chat's first pass with messages may come after a whole turn (the page
        busy with the stream: a thousand calls and their results): the person's message, the
        calls and what followed are the live turn and all get nodes, not a tail of tool results."""
        start = max(0, len(history) - self.first)
        for index in range(len(history) - 1, start - 1, -1):
            if getattr(history[index], "role", None) == "user":
                return start
        for index in range(start - 1, -1, -1):
            if getattr(history[index], "role", None) == "user":
                return index
        return start

    def pass_messages(self, history: Sequence[T]) -> tuple[Sequence[T], bool]:
        """What a full pass of the list reads: the batch `widen()` took in and True (its items
        go before all those shown), else the window's messages and False."""
        if self.state != "widening" or self.taken > len(history):
            return self.messages(history), False
        self.state = "tail" if self.start else "whole"
        return history[self.start:self.taken], True

    def just_taken(self, history: Sequence[T], reach: int = 20) -> Sequence[T]:
        """The batch the last front pass read, and what follows it up to the next user message
        (at most `reach` more): what the action bars of its bubbles depend on."""
        end = min(len(history), self.taken)
        while end < min(len(history), self.taken + reach) and getattr(history[end], "role", "user") != "user":
            end += 1
        return history[self.start:end]

    def drawn(self, seconds: float) -> None:
        """The last batch took `seconds` to draw: the next is sized to take about `BUDGET`
        (`batch` grows up to `MAX_BATCH` on a fast page, never below what it was made with)."""
        taken = max(1, self.taken - self.start)
        self.batch = max(self._least, min(MAX_BATCH, int(taken * BUDGET / max(seconds, 1e-4))))

    def widen(self) -> bool:
        """Take in `batch` earlier messages (the next full pass makes them); False when there
        were none left, or a batch waits to be drawn."""
        if self.state != "tail":
            return False
        self.state = "widening"
        self.taken = self.start
        self.start = max(0, self.start - self.batch)
        return True
