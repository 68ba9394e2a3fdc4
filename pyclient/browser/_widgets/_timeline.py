"""The chat's message list: its items in history order, and the notices between them.

`Timeline` keeps each item of the `<ol>` under a key (`"m:<message id>"` for a bubble,
`"c:<tool call id>"` for a card, `"n:<name>"` for a notice) and the keys in list order, in
Python, so the chat can tell what to move without reading the DOM. New items go at the end;
`place(keys)` puts the list in history order after anything that can reorder it (a snapshot, a
restore), moving the nodes that stay (never rebuilding them): in the common case it only
appends, and items that belong before all the others (a widened history window's) move to the
front in one `prepend`. A notice sits after the item it was added after, or at the end.
`error_notice(error)` is the error bubble: a sentence for the person
(`pyclient.browser._widgets._error_words`), the error itself under "Details", and Retry.

```python
from pyclient.browser._page._nodes import el
from pyclient.browser._widgets._timeline import Timeline, stopped_notice

timeline = Timeline(el("ol"))
timeline.add("m:1", el("li", "", "hello"))
timeline.add_notice("n:stopped-1", stopped_notice(), after=timeline.last)
timeline.add("c:2", el("li", "", "card"))
print(timeline.place(["c:2", "m:1"]), [li.textContent for li in timeline.node.children])
# prints "[] ['card', 'hello', 'Stopped']"
```
"""

from __future__ import annotations

from typing import Any

from .._page._nodes import append_visible, el, marked
from ._error_words import error_text

__all__ = ["Timeline", "cancelled_notice", "error_notice", "stopped_notice"]


def error_notice(error: BaseException) -> Any:
    """The error bubble of a failed run: what happened in words, the details, a Retry button."""
    bubble = el("li", "pyclient-notice pyclient-error", role="alert")
    bubble.dataset.kind = "error"
    bubble.append(marked("p", "pyclient-error-text", error_text(error)))  # may name the server's content type
    details = el("details", "pyclient-error-details")
    details.append(el("summary", "", "Details"))
    detail = el("pre")
    append_visible(detail, str(error))  # the server's words: text, invisible characters marked
    details.append(detail)
    bubble.append(details, el("button", "pyclient-retry-run", "Retry", type="button", data_command="retry-run"))
    return bubble


def stopped_notice() -> Any:
    """The marker after a run the user stopped."""
    node = el("li", "pyclient-notice pyclient-stopped", "Stopped")
    node.dataset.kind = "stopped"
    return node


def cancelled_notice(reason: str | None = None) -> Any:
    """The marker after a run the agent cancelled (`RUN_FINISHED.outcome.type == "cancelled"`)."""
    node = el("li", "pyclient-notice pyclient-stopped pyclient-cancelled")
    append_visible(node, reason or "Cancelled by the agent")  # the machine's words, or the agent's
    node.dataset.kind = "cancelled"
    return node


class Timeline:
    """The items of the chat's list (`node`, an `<ol>`), by key, in list order.

    Args:
        node: the list element.
    """

    def __init__(self, node: Any) -> None:
        self.node = node
        self._nodes: dict[str, Any] = {}
        self._order: list[str] = []
        self._notices: dict[str, str | None] = {}  # notice key -> the key it follows (None: the end)

    def __bool__(self) -> bool:
        return bool(self._order)

    def __contains__(self, key: str) -> bool:
        return key in self._nodes

    @property
    def last(self) -> str | None:
        """The key of the last item, or None when the list is empty."""
        return self._order[-1] if self._order else None

    @property
    def last_item(self) -> str | None:
        """The key of the last item that is not a notice, or None when there is none."""
        return next((key for key in reversed(self._order) if key not in self._notices), None)

    def add(self, key: str, node: Any, *, after: str | None = None) -> None:
        """Add a new item at the end, or after the item `after` (and its notices) when it is
        there (a later `place()` moves it if history says otherwise)."""
        self._nodes[key] = node
        if after is None:
            self.node.append(node)
            self._order.append(key)
        else:
            self._insert(key, node, after)

    def add_notice(self, key: str, node: Any, *, after: str | None) -> None:
        """Insert a notice after the item `after` (and the notices already there), or at the end."""
        self._notices[key] = after
        self._nodes[key] = node
        self._insert(key, node, after)

    def _insert(self, key: str, node: Any, after: str | None) -> None:
        if after is not None and after in self._nodes:
            order = self._order
            position = len(order)
            while order[position - 1] != after:  # from the end, with no copy: new items go near it
                position -= 1
            while position < len(order) and order[position] in self._notices:
                position += 1
        else:
            position = len(self._order)
        if position < len(self._order):
            self.node.insertBefore(node, self._nodes[self._order[position]])
        else:
            self.node.append(node)
        self._order.insert(position, key)

    def remove(self, key: str) -> None:
        """Take an item (or notice) out; nothing when there is none."""
        node = self._nodes.pop(key, None)
        if node is not None:
            node.remove()
            self._order.remove(key)
            self._notices.pop(key, None)

    def place(self, keys: list[str], *, front: bool = False) -> list[str]:
        """Put the items in the order of `keys` (history order), each notice after its item.
        `front`: `keys` are earlier items only, to go before every item there (which stay).

        Returns:
            The keys of the items that are no longer in `keys` (removed from the list), so the
            caller can drop what it keeps for them.
        """
        if front:
            taken = set(keys)
            keys = keys + [key for key in self._order if key not in self._notices and key not in taken]
        present = set(keys)
        after: dict[str | None, list[str]] = {}
        for notice, anchor in self._notices.items():
            after.setdefault(anchor if anchor in present else None, []).append(notice)
        expected: list[str] = []
        for key in keys:
            expected.append(key)
            expected.extend(after.get(key, ()))
        expected.extend(after.get(None, ()))
        if expected == self._order:
            return []
        count = len(self._order)
        gone: list[str] = []
        if expected[:count] == self._order:
            for key in expected[count:]:
                self.node.append(self._nodes[key])
        elif earlier := _moved_to_front(self._order, expected):  # made at the end, they go first
            self.node.prepend(*(self._nodes[key] for key in earlier))
        else:  # a snapshot changed the history: move what stays (after what is in place), drop what went
            same = next((i for i, (a, b) in enumerate(zip(expected, self._order, strict=False)) if a != b),
                        min(len(expected), count))
            for key in expected[same:]:
                self.node.append(self._nodes[key])
            kept = set(expected)
            gone = [key for key in self._order if key not in kept]
            for key in gone:
                self._nodes.pop(key).remove()
                self._notices.pop(key, None)
        self._order = expected
        return gone


def _moved_to_front(order: list[str], expected: list[str]) -> list[str]:
    """The keys at the end of `order` that `expected` wants before all the others, when that is
    the only difference (else none): `order` is `old + new`, `expected` is `new + old`."""
    if len(order) != len(expected) or not order or order[0] == expected[0]:
        return []
    try:
        split = expected.index(order[0])
    except ValueError:
        return []
    front = expected[:split]
    if expected[split:] != order[:len(order) - split] or set(order[len(order) - split:]) != set(front):
        return []
    return front
