"""`Widget`: what every piece of the chat is, and `Widgets`, the chat's one registry of them by key.

A widget builds its nodes once, in its constructor (`node` is its root, marked `data-widget`),
updates them in place from the thread's state, goes with `dispose()`, and handles the commands
of its own buttons that change only its view (`on_command(Click)`: the chat's one delegated
listener routes a click to the nearest widget first, and a widget hands on to the widgets it
owns; what acts on the thread goes to the chat's commands, which check that the click is the
person's). Its `key` (`"m:<message id>"`, `"c:<call id>"`, `"i:<interrupt id>"`) is the one
the list, the registry and the timeline share.

```python
from pyclient.browser._widgets._widget import Click, Widget, Widgets

class Note(Widget):
    def __init__(self, key: str) -> None:
        super().__init__(key, node=None)

    def on_command(self, click: Click) -> bool:
        return click.command == "fold"

widgets = Widgets()
widgets.add(Note("m:1"))
print(type(widgets.get("m:1", Note)).__name__, widgets.get("m:1", Widgets), len(widgets))  # Note None 1
print(widgets.get("m:1", Note).on_command(Click("fold", target=None, trusted=True)))      # True
```
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Click", "Widget", "Widgets"]

W = TypeVar("W", bound="Widget")


@dataclass(frozen=True)
class Click:
    """A click on a button with `data-command`, as the chat's listener read it.

    Attributes:
        command: the button's `data-command`.
        target: the button.
        trusted: `event.isTrusted`: the person clicked, not a script.
    """

    command: str
    target: Any
    trusted: bool


class Widget:
    """A piece of the chat with its nodes (`node`) and its place in the list (`key`).

    Args:
        key: its key in the chat's list and registry.
        node: its root node, built once.

    Attributes:
        dataset: `node.dataset` (None without a node).
    """

    def __init__(self, key: str, node: Any) -> None:
        self.key = key
        self.node = node
        # Its node's `dataset`, read once: each read of a node's property is a call into JS.
        self.dataset: Any = None
        if node is not None:
            self.dataset = node.dataset
            self.dataset.widget = key

    def on_command(self, click: Click) -> bool:
        """Handle `click` (on a `[data-command]` inside the widget) if its command is the
        widget's own; say whether it was."""
        return False

    def dispose(self) -> None:
        """Take the widget's nodes out of the page (it is gone from the history)."""
        if self.node is not None:
            self.node.remove()


class Widgets:
    """The chat's widgets by key, in the order they were made, and by kind: the list asks for
    one kind each frame (its "Thinking" sections, its bubbles) among a thousand cards."""

    def __init__(self) -> None:
        self._by_key: dict[str, Widget] = {}
        self._by_kind: dict[type[Widget], dict[str, Widget]] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def add(self, widget: W) -> W:
        """Keep `widget` under its key (one it replaces is forgotten, not disposed)."""
        self.forget(widget.key)
        self._by_key[widget.key] = widget
        self._by_kind.setdefault(type(widget), {})[widget.key] = widget
        return widget

    def get(self, key: str, kind: type[W]) -> W | None:
        """The widget under `key` if it is a `kind`, else None."""
        widget = self._by_key.get(key)
        return widget if isinstance(widget, kind) else None

    def forget(self, key: str) -> Widget | None:
        """Drop the widget under `key` from the registry (its nodes are the caller's to remove)."""
        widget = self._by_key.pop(key, None)
        if widget is not None:
            self._by_kind[type(widget)].pop(key, None)
        return widget

    def of_kind(self, kind: type[W]) -> Iterator[W]:
        """The widgets that are a `kind`, in the order they were made (within each subclass)."""
        for made, widgets in self._by_kind.items():
            if issubclass(made, kind):
                yield from widgets.values()  # type: ignore[misc]
