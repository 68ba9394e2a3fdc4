"""`FakeDom`: a small in-memory DOM implementing `pyclient._binding._elements.Dom`, to test element-scoped tools on CPython.

Elements are `FakeElement`s in a tree hanging off `dom.document` (whose child is
`dom.body`); an element is connected while that tree holds it. Like a `MutationObserver`,
connection changes are not reported by `append()`/`remove()` themselves: the tree changes
at once, the watches hear of it on `dom.flush()` (what the tests call to play "a microtask
later") or `dom.check()` (what the core calls before every tool resolution). Each watch
compares the element's connection with what it last reported, so an element removed and
re-inserted before a flush reports nothing, as in the page.

```python
from pyclient.testing import FakeDom

dom = FakeDom()
panel = dom.body.append_child("section", id="chat")
seen = []
unwatch = dom.watch(panel, seen.append)
panel.remove()
assert seen == [] and not panel.is_connected    # the tree changed; nobody was told yet
dom.flush()
assert seen == [False]
unwatch()
assert dom.watch_count == 0
```
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

from pyclient import ConfigurationError

__all__ = ["FakeDom", "FakeElement"]

logger = logging.getLogger("pyclient")

_SELECTOR = re.compile(r"([A-Za-z][\w-]*)?(?:#([\w-]+))?")


class FakeElement:
    """One element (or the document node) of a `FakeDom`.

    Attributes:
        tag: the tag name ("#document" for the document node).
        attributes: name -> value (`id` included).
        children: child elements, in order.
        parent: the parent element, or None (detached, or the document).
        dom: the `FakeDom` that made it.
    """

    __slots__ = ("__weakref__", "attributes", "children", "dom", "parent", "tag")

    def __init__(self, dom: FakeDom, tag: str, id: str | None = None) -> None:
        self.dom = dom
        self.tag = tag
        self.attributes: dict[str, str] = {}
        self.children: list[FakeElement] = []
        self.parent: FakeElement | None = None
        if id is not None:
            self.attributes["id"] = id

    def __repr__(self) -> str:
        ident = f"#{self.id}" if self.id else ""
        state = "connected" if self.is_connected else "detached"
        return f"<FakeElement {self.tag}{ident} {state}>"

    @property
    def id(self) -> str | None:
        """The `id` attribute, or None."""
        return self.attributes.get("id")

    @property
    def is_document(self) -> bool:
        return self is self.dom.document

    @property
    def is_connected(self) -> bool:
        """True while the element is in `dom.document`'s tree."""
        node: FakeElement | None = self
        while node is not None:
            if node.is_document:
                return True
            node = node.parent
        return False

    def append_child(self, tag: str, id: str | None = None) -> FakeElement:
        """Create an element and append it as the last child; returns it."""
        child = FakeElement(self.dom, tag, id)
        self.append(child)
        return child

    def append(self, element: FakeElement) -> None:
        """Move `element` (detached or elsewhere in the tree) to the end of this one's children."""
        if not isinstance(element, FakeElement) or element.dom is not self.dom:
            raise TypeError(f"append() takes a FakeElement of the same FakeDom, got {element!r}")
        if element.is_document:
            raise ValueError("the document node cannot be appended")
        if element.contains(self):
            raise ValueError(f"cannot append {element!r} inside itself")
        if element.parent is not None:
            element.parent.children.remove(element)
        element.parent = self
        self.children.append(element)
        self.dom.mutated()

    def remove(self) -> None:
        """Detach the element from its parent (it keeps its own subtree); nothing if detached."""
        if self.is_document:
            raise ValueError("the document node cannot be removed")
        if self.parent is None:
            return
        self.parent.children.remove(self)
        self.parent = None
        self.dom.mutated()

    def contains(self, other: FakeElement) -> bool:
        """True if `other` is this element or inside it."""
        node: FakeElement | None = other
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def descendants(self) -> Iterator[FakeElement]:
        """The elements inside this one, in document order (depth first)."""
        for child in self.children:
            yield child
            yield from child.descendants()


class _Watch:
    __slots__ = ("callback", "connected", "element")

    def __init__(self, element: FakeElement, callback: Callable[[bool], None]) -> None:
        self.element = element
        self.callback = callback
        self.connected = element.is_connected


class FakeDom:
    """An in-memory document: `dom.document` > `dom.body` > what the test appends.

    Attributes:
        document: the document node (connected by definition; not an element).
        body: the body element.
        watches: the live watches by key (`len(dom.watches)` == `dom.watch_count`).
        errors: exceptions raised by watch callbacks (logged and kept, as the page's
            observer logs them and goes on with the other callbacks).
        pending: True while a tree change has not been flushed.
    """

    def __init__(self) -> None:
        self.document = FakeElement(self, "#document")
        self.body = FakeElement(self, "body")
        self.document.children.append(self.body)
        self.body.parent = self.document
        self.watches: dict[int, _Watch] = {}
        self.errors: list[BaseException] = []
        self.pending = False
        self._keys = itertools.count()

    def __repr__(self) -> str:
        return f"<FakeDom watches={len(self.watches)} pending={self.pending}>"

    # -- for tests ---------------------------------------------------------------------------

    @property
    def watch_count(self) -> int:
        """How many watches are live (to prove none leaks)."""
        return len(self.watches)

    def flush(self) -> None:
        """Deliver the queued connection changes: what the page's observer does a microtask later."""
        if self.pending:
            self._report()

    def query(self, selector: str) -> FakeElement | None:
        """The first connected element matching `#id`, `tag` or `tag#id` (document order), or None."""
        match = _SELECTOR.fullmatch(selector.strip())
        if match is None or not any(match.groups()):
            raise ValueError(f"FakeDom supports only '#id', 'tag' and 'tag#id' selectors, got {selector!r}")
        tag, ident = match.groups()
        for element in self.document.descendants():
            if (not tag or element.tag == tag) and (not ident or element.id == ident):
                return element
        return None

    def mutated(self) -> None:
        """The tree changed: watches hear of it at the next `flush()` or `check()`."""
        self.pending = True

    def _report(self) -> None:
        self.pending = False
        # Callbacks may add or remove watches, so iterate over a copy and skip removed ones.
        for key, watch in list(self.watches.items()):
            if key not in self.watches:
                continue
            connected = watch.element.is_connected
            if connected == watch.connected:
                continue
            watch.connected = connected
            try:
                watch.callback(connected)
            except Exception as exc:  # one failing callback must not stop the others
                logger.exception("FakeDom: a watch callback raised")
                self.errors.append(exc)

    # -- pyclient._binding._elements.Dom ------------------------------------------------------------

    def element(self, element_or_selector: Any, what: str) -> FakeElement:
        if isinstance(element_or_selector, str):
            element = self.query(element_or_selector)
            if element is None:
                raise ConfigurationError(
                    f"{what}: no element matches the selector {element_or_selector!r}. "
                    "Create the element first, or pass the element itself."
                )
            return element
        # A wrapper of an element (as pyscript.web's) is unwrapped, as in the page.
        element = getattr(element_or_selector, "_dom_element", element_or_selector)
        if not isinstance(element, FakeElement) or element.is_document:
            raise ConfigurationError(
                f"{what} needs a DOM element or a CSS selector, got {type(element_or_selector).__name__}. "
                "Pass e.g. dom.query('#chat') or '#chat'."
            )
        if element.dom is not self:
            raise ConfigurationError(f"{what}: {element!r} belongs to another FakeDom.")
        return element

    def attribute(self, element: FakeElement, name: str) -> str | None:
        return element.attributes.get(name)

    def set_attribute(self, element: FakeElement, name: str, value: str | None) -> None:
        # Attribute changes are no tree change: the page's observer does not watch them.
        if value is None:
            element.attributes.pop(name, None)
        else:
            element.attributes[name] = str(value)

    def closest_attribute(self, element: FakeElement, name: str) -> str | None:
        node: FakeElement | None = element
        while node is not None and not node.is_document:
            if name in node.attributes:
                return node.attributes[name]
            node = node.parent
        return None

    def contains(self, outer: FakeElement, inner: FakeElement) -> bool:
        return outer.contains(inner)

    def is_connected(self, element: FakeElement) -> bool:
        return element.is_connected

    def watch(self, element: FakeElement, callback: Callable[[bool], None]) -> Callable[[], None]:
        key = next(self._keys)
        self.watches[key] = _Watch(element, callback)

        def unwatch() -> None:
            self.watches.pop(key, None)

        return unwatch

    def check(self) -> None:
        """Report connection changes now (the page's `MountObserver.check()`)."""
        self._report()
