"""The views a mirror element hands out: `dataset`, `style` and `classList`.

Each reads from the element's own state and writes through the element (`setAttribute`, one
style operation), so a change is one operation in the batch, as on the element itself.

```python
from pyclient.browser._page._mirror import MirrorDocument

item = MirrorDocument(post=lambda ops: None).createElement("li")
item.dataset.toolCallId = "c1"
item.classList.add("pyclient-tool", "done")
item.classList.toggle("done")
item.style.maxHeight = "10rem"
print(item.getAttribute("data-tool-call-id"), item.className, item.style.maxHeight)   # c1 pyclient-tool 10rem
```
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ClassList", "Dataset", "Style"]


class _Element(Protocol):
    """What a view needs of its element (a `MirrorElement`)."""

    node_id: int

    @property
    def owner(self) -> Any: ...

    def getAttribute(self, name: str) -> str | None: ...

    def setAttribute(self, name: str, value: Any) -> None: ...

    def removeAttribute(self, name: str) -> None: ...


class Dataset:
    """`element.dataset`: `data-*` attributes by their camelCase names."""

    _element: _Element

    def __init__(self, element: _Element) -> None:
        object.__setattr__(self, "_element", element)

    def __getattr__(self, name: str) -> str | None:
        return self._element.getAttribute(_data_name(name))

    def __setattr__(self, name: str, value: Any) -> None:
        self._element.setAttribute(_data_name(name), str(value))

    def __delattr__(self, name: str) -> None:
        self._element.removeAttribute(_data_name(name))


def _data_name(name: str) -> str:
    return "data-" + "".join(f"-{c.lower()}" if c.isupper() else c for c in name)


class Style:
    """`element.style`: each property set is an operation (read back from what was set)."""

    _element: _Element
    _values: dict[str, str]

    def __init__(self, element: _Element) -> None:
        object.__setattr__(self, "_element", element)
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name: str) -> str:
        return self._values.get(name, "")

    def __setattr__(self, name: str, value: Any) -> None:
        self._values[name] = str(value)
        self._element.owner.op(["s", self._element.node_id, name, str(value)])

    def copy_of(self, other: Style) -> None:
        """Take `other`'s values, with no operation (a clone's: the page copies the node)."""
        self._values.update(other.values())

    def values(self) -> dict[str, str]:
        """The properties set on this style, by name (a copy)."""
        return dict(self._values)

    def setProperty(self, name: str, value: str) -> None:
        self._values[name] = str(value)
        self._element.owner.op(["s", self._element.node_id, name, str(value)])


class ClassList:
    """`element.classList` over the mirror's `class` attribute."""

    def __init__(self, element: _Element) -> None:
        self._element = element

    def _names(self) -> list[str]:
        return (self._element.getAttribute("class") or "").split()

    def contains(self, name: str) -> bool:
        return name in self._names()

    def add(self, *names: str) -> None:
        have = self._names()
        self._set(have + [name for name in names if name not in have])

    def remove(self, *names: str) -> None:
        self._set([name for name in self._names() if name not in names])

    def toggle(self, name: str, force: bool | None = None) -> bool:
        on = (not self.contains(name)) if force is None else bool(force)
        (self.add if on else self.remove)(name)
        return on

    def _set(self, names: list[str]) -> None:
        self._element.setAttribute("class", " ".join(names))
