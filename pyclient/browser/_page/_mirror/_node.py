"""Mirror nodes: what the chat's code holds of the page's DOM when it runs in a worker.

A `MirrorElement` answers like the DOM element it stands for (`textContent`, `append`,
`dataset`, `classList`, `querySelector`, `addEventListener`...) from its own state, and each
change it makes becomes one operation in its document's batch
(`pyclient.browser._page._mirror._document`), which the page applies in one go
(`pyclient/browser/assets/renderer.js`). Only what the person changes on the page is read
from the real node, through PyScript's blocking proxy: an input's `value`, a box's `checked`,
a `<details>`'s `open`, scroll positions, `files`, `isConnected` of the page node it hangs on.

```python
from pyclient.browser._page._mirror import MirrorDocument

document = MirrorDocument(post=lambda ops: None)      # a document whose batches go nowhere
item = document.createElement("li")
item.className = "note"
item.dataset.key = "a1"
item.append("first", document.createElement("b"))
print(item.textContent, item.getAttribute("data-key"), item.matches("li.note"))   # first a1 True
print(document.pending[-1])                                                        # ['append', 1, [3, 2]]
```
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ._selectors import matcher
from ._views import ClassList, Dataset, Style

__all__ = ["MirrorElement", "MirrorFragment", "MirrorNode", "MirrorText", "Owner"]

ELEMENT_NODE, TEXT_NODE, FRAGMENT_NODE = 1, 3, 11

# Properties that are their attribute (set as the attribute, read back from it).
_REFLECTED = {
    "id": "id", "className": "class", "title": "title", "htmlFor": "for", "name": "name", "href": "href",
    "src": "src", "alt": "alt", "placeholder": "placeholder", "accept": "accept", "download": "download",
    "tabIndex": "tabindex", "type": "type", "role": "role", "lang": "lang", "dir": "dir", "rel": "rel",
    "target": "target", "width": "width", "height": "height", "decoding": "decoding", "loading": "loading",
    "autocomplete": "autocomplete", "min": "min", "max": "max", "step": "step", "rows": "rows",
    "colSpan": "colspan", "htmlFor_": "for",
}
# Boolean properties that are their attribute's presence.
_FLAGS = {"hidden": "hidden", "disabled": "disabled", "multiple": "multiple", "required": "required",
          "readOnly": "readonly", "selected": "selected"}
# What the person changes on the page: read from the real node, written as an operation.
_LIVE = frozenset({"value", "checked", "open", "files", "scrollTop", "scrollLeft", "scrollHeight", "scrollWidth",
                   "clientHeight", "clientWidth", "offsetHeight", "offsetWidth", "selectionStart", "selectionEnd",
                   "indeterminate", "naturalWidth", "naturalHeight", "complete", "validity", "validationMessage"})


class Owner(Protocol):
    """What a mirror node needs of its document."""

    def op(self, operation: list[Any]) -> None: ...

    def node_id(self) -> int: ...

    def forget(self, node_id: int) -> None: ...

    def coerce(self, item: Any) -> MirrorNode: ...

    def real(self, node: MirrorNode) -> Any: ...

    def listen(self, node: MirrorElement, kind: str, rule: str | None) -> None: ...

    def unlisten(self, node: MirrorElement, kind: str) -> None: ...

    def known(self, node: MirrorElement) -> None: ...


class MirrorNode:
    """A node of the mirror: its id in the page's table, its parent, its children."""

    nodeType = 0

    def __init__(self, owner: Owner, node_id: int | None = None) -> None:
        self._owner = owner
        self.node_id = owner.node_id() if node_id is None else node_id
        self.parentNode: MirrorElement | MirrorFragment | None = None
        self.childNodes: list[MirrorNode] = []
        weakref.finalize(self, owner.forget, self.node_id)

    # -- tree ----------------------------------------------------------------------------

    @property
    def parentElement(self) -> MirrorElement | None:
        parent = self.parentNode
        return parent if isinstance(parent, MirrorElement) else None

    @property
    def firstChild(self) -> MirrorNode | None:
        return self.childNodes[0] if self.childNodes else None

    @property
    def lastChild(self) -> MirrorNode | None:
        return self.childNodes[-1] if self.childNodes else None

    @property
    def nextSibling(self) -> MirrorNode | None:
        siblings = self.parentNode.childNodes if self.parentNode else []
        index = _index(siblings, self)
        return siblings[index + 1] if 0 <= index < len(siblings) - 1 else None

    @property
    def previousSibling(self) -> MirrorNode | None:
        siblings = self.parentNode.childNodes if self.parentNode else []
        index = _index(siblings, self)
        return siblings[index - 1] if index > 0 else None

    @property
    def children(self) -> list[MirrorElement]:
        return [node for node in self.childNodes if isinstance(node, MirrorElement)]

    @property
    def childElementCount(self) -> int:
        return len(self.children)

    @property
    def firstElementChild(self) -> MirrorElement | None:
        return next(iter(self.children), None)

    @property
    def lastElementChild(self) -> MirrorElement | None:
        children = self.children
        return children[-1] if children else None

    @property
    def nextElementSibling(self) -> MirrorElement | None:
        node = self.nextSibling
        while node is not None and not isinstance(node, MirrorElement):
            node = node.nextSibling
        return node

    @property
    def previousElementSibling(self) -> MirrorElement | None:
        node = self.previousSibling
        while node is not None and not isinstance(node, MirrorElement):
            node = node.previousSibling
        return node

    @property
    def isConnected(self) -> bool:
        top: MirrorNode = self
        while top.parentNode is not None:
            top = top.parentNode
        return isinstance(top, MirrorElement) and top.adopted and bool(self._owner.real(top).isConnected)

    def contains(self, other: Any) -> bool:
        node = other if isinstance(other, MirrorNode) else None
        while node is not None:
            if node is self:
                return True
            node = node.parentNode
        return False

    def detach(self) -> None:
        """Leave the parent's children, in the mirror only (the caller sends the operation)."""
        parent = self.parentNode
        if parent is not None:
            parent.childNodes.remove(self)
            self.parentNode = None

    def _coerced(self, items: tuple[Any, ...]) -> list[MirrorNode]:
        """The nodes `items` name: strings become text nodes, page nodes are adopted."""
        return [self._owner.coerce(item) for item in items]

    @staticmethod
    def _take(nodes: list[MirrorNode]) -> list[MirrorNode]:
        """`nodes` taken from where they were, for an insertion; a fragment gives its children."""
        taken: list[MirrorNode] = []
        for node in nodes:
            if isinstance(node, MirrorFragment):
                moved = list(node.childNodes)
                node.childNodes.clear()
                for child in moved:
                    child.parentNode = None
                taken.extend(moved)
            else:
                node.detach()
                taken.append(node)
        return taken

    def insert_at(self, index: int, nodes: list[MirrorNode]) -> None:
        """Make `nodes` children at `index`, in the mirror only (the caller sends the operation)."""
        if not isinstance(self, (MirrorElement, MirrorFragment)):
            raise TypeError("only elements and fragments have children")
        for node in nodes:
            node.parentNode = self
        self.childNodes[index:index] = nodes

    def append(self, *items: Any) -> None:
        if items:
            nodes = self._coerced(items)  # a fragment's own id is sent: the page moves its children
            self.insert_at(len(self.childNodes), self._take(nodes))
            self._owner.op(["append", self.node_id, [node.node_id for node in nodes]])

    def appendChild(self, item: Any) -> Any:
        self.append(item)
        return item

    def prepend(self, *items: Any) -> None:
        if items:
            nodes = self._coerced(items)
            self.insert_at(0, self._take(nodes))
            self._owner.op(["prepend", self.node_id, [node.node_id for node in nodes]])

    def insertBefore(self, item: Any, reference: MirrorNode | None) -> Any:
        node = self._owner.coerce(item)
        if reference is None:
            return self.appendChild(node)
        taken = self._take([node])
        self.insert_at(_index(self.childNodes, reference), taken)
        self._owner.op(["insert", self.node_id, node.node_id, reference.node_id])
        return node

    def removeChild(self, child: MirrorNode) -> MirrorNode:
        child.remove()
        return child

    def replaceChildren(self, *items: Any) -> None:
        nodes = self._coerced(items)
        taken = self._take(nodes)
        for child in self.childNodes:
            child.parentNode = None
        self.childNodes = []
        self.insert_at(0, taken)
        self._owner.op(["children", self.node_id, [node.node_id for node in nodes]])

    def remove(self) -> None:
        self.detach()
        self._owner.op(["remove", self.node_id])

    def before(self, *items: Any) -> None:
        self._beside(items, 0, "before")

    def after(self, *items: Any) -> None:
        self._beside(items, 1, "after")

    def replaceWith(self, *items: Any) -> None:
        parent = self.parentNode
        nodes = self._coerced(items)
        taken = self._take(nodes)
        if parent is not None:
            index = _index(parent.childNodes, self)
            self.detach()
            parent.insert_at(index, taken)
        self._owner.op(["replace", self.node_id, [node.node_id for node in nodes]])

    def _beside(self, items: tuple[Any, ...], offset: int, code: str) -> None:
        parent = self.parentNode
        nodes = self._coerced(items)
        taken = self._take(nodes)
        if parent is not None:
            parent.insert_at(_index(parent.childNodes, self) + offset, taken)
        self._owner.op([code, self.node_id, [node.node_id for node in nodes]])

    # -- text ----------------------------------------------------------------------------

    @property
    def textContent(self) -> str:
        return "".join(node.textContent for node in self.childNodes)

    @textContent.setter
    def textContent(self, text: str) -> None:
        self.replaceChildren(*([str(text)] if text else []))

    def descendants(self) -> Iterator[MirrorElement]:
        """The elements below, in document order."""
        for node in self.childNodes:
            if isinstance(node, MirrorElement):
                yield node
                yield from node.descendants()

    def querySelectorAll(self, selector: str) -> list[MirrorElement]:
        test = matcher(selector, self)  # type: ignore[arg-type]
        return [node for node in self.descendants() if test(node)]

    def querySelector(self, selector: str) -> MirrorElement | None:
        test = matcher(selector, self)  # type: ignore[arg-type]
        return next((node for node in self.descendants() if test(node)), None)

    def cloneNode(self, deep: bool = False) -> MirrorNode:
        """A copy (with its subtree when `deep`): the page clones its node in one operation and
        numbers the copy's nodes in document order, as here."""
        copies: list[MirrorNode] = []
        copy = self.copy_tree(bool(deep), copies)
        self._owner.op(["clone", self.node_id, bool(deep), [node.node_id for node in copies]])
        return copy

    def copy_tree(self, deep: bool, copies: list[MirrorNode]) -> MirrorNode:
        """A copy made without operations, each new node appended to `copies` in document order."""
        copy = self._blank()
        copies.append(copy)
        if deep:
            for child in self.childNodes:
                child_copy = child.copy_tree(True, copies)
                child_copy.parentNode = copy  # type: ignore[assignment]
                copy.childNodes.append(child_copy)
        return copy

    def _blank(self) -> MirrorNode:
        """This node without its children, made without an operation (cloneNode sends one)."""
        raise NotImplementedError


def _index(nodes: list[MirrorNode], node: MirrorNode) -> int:
    return next((i for i, each in enumerate(nodes) if each is node), -1)


class MirrorText(MirrorNode):
    """A text node (`appendData` streams text into it; setting `data` or `textContent` replaces it)."""

    nodeType = TEXT_NODE

    def __init__(self, owner: Owner, text: str, *, emit: bool = True) -> None:
        super().__init__(owner)
        self._data = text
        if emit:
            owner.op(["t", self.node_id, text])

    def _blank(self) -> MirrorText:
        return MirrorText(self._owner, self._data, emit=False)

    @property
    def data(self) -> str:
        return self._data

    @data.setter
    def data(self, text: str) -> None:
        # A replaced text (a user's message edited, or rewritten by a snapshot) reaches the page too.
        self._data = str(text)
        self._owner.op(["p", self.node_id, "data", self._data])

    @property
    def textContent(self) -> str:
        return self._data

    @textContent.setter
    def textContent(self, text: str) -> None:
        self.data = text

    @property
    def nodeValue(self) -> str:
        return self._data

    def appendData(self, text: str) -> None:
        self._data += text
        self._owner.op(["data", self.node_id, text])


class MirrorFragment(MirrorNode):
    """A document fragment: appending it moves its children."""

    nodeType = FRAGMENT_NODE

    def __init__(self, owner: Owner, *, emit: bool = True) -> None:
        super().__init__(owner)
        if emit:
            owner.op(["f", self.node_id])

    def _blank(self) -> MirrorFragment:
        return MirrorFragment(self._owner, emit=False)


class MirrorElement(MirrorNode):
    """An element of the mirror; see the module docstring.

    Args:
        owner: its document.
        tag: its tag name; None for a page element adopted by id (`node_id`).
        node_id: the id of an adopted page element.
    """

    nodeType = ELEMENT_NODE

    def __init__(self, owner: Owner, tag: str | None, node_id: int | None = None, *, emit: bool = True) -> None:
        object.__setattr__(self, "_attributes", {})
        object.__setattr__(self, "_listeners", {})
        super().__init__(owner, node_id)
        object.__setattr__(self, "adopted", tag is None)
        object.__setattr__(self, "localName", (tag or "").lower())
        object.__setattr__(self, "dataset", Dataset(self))
        object.__setattr__(self, "style", Style(self))
        object.__setattr__(self, "classList", ClassList(self))
        if tag is not None and emit:
            owner.op(["e", self.node_id, tag])

    def _blank(self) -> MirrorElement:
        copy = MirrorElement(self._owner, self.localName, emit=False)
        copy.copy_attributes_of(self)
        copy.style.copy_of(self.style)
        self._owner.known(copy)
        return copy

    @property
    def owner(self) -> Owner:
        return self._owner

    @property
    def tagName(self) -> str:
        return str(self.localName).upper()

    # -- attributes and properties ---------------------------------------------------------

    def copy_attributes_of(self, other: MirrorElement) -> None:
        """Take `other`'s attributes, with no operation (a clone's: the page copies the node)."""
        self._attributes.update((name, other.getAttribute(name)) for name in other.getAttributeNames())

    def getAttributeNames(self) -> list[str]:
        return list(self._attributes)

    def getAttribute(self, name: str) -> str | None:
        return self._attributes.get(name.lower())  # type: ignore[no-any-return]

    def hasAttribute(self, name: str) -> bool:
        return name.lower() in self._attributes

    def setAttribute(self, name: str, value: Any) -> None:
        name, value = name.lower(), str(value)
        if self._attributes.get(name) != value:
            self._attributes[name] = value
            self._owner.op(["a", self.node_id, name, value])

    def removeAttribute(self, name: str) -> None:
        name = name.lower()
        if name in self._attributes:
            del self._attributes[name]
            self._owner.op(["a", self.node_id, name, None])

    def toggleAttribute(self, name: str, force: bool | None = None) -> bool:
        on = (not self.hasAttribute(name)) if force is None else bool(force)
        if on:
            self.setAttribute(name, self.getAttribute(name) or "")
        else:
            self.removeAttribute(name)
        return on

    def __getattr__(self, name: str) -> Any:
        # Only called for what the class does not define: reflected, flag and live properties.
        if name in _REFLECTED:
            value = self.getAttribute(_REFLECTED[name])
            return "" if value is None else value
        if name in _FLAGS:
            return self.hasAttribute(_FLAGS[name])
        if name in _LIVE:
            if name == "files" and "picked" in self.__dict__:
                return self.__dict__["picked"]  # the files of the last change, cloned to the worker
            scrolled = self.__dict__.get("scrolled")
            if scrolled is not None and name in scrolled:
                return scrolled[name]  # where the box was at the scroll event being handled
            return getattr(self._owner.real(self), name)
        properties = self.__dict__.get("properties")
        if properties is not None and name in properties:
            return properties[name]
        raise AttributeError(f"the mirror of <{self.localName}> has no {name!r}: read the page's node with .real")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _REFLECTED:
            self.setAttribute(_REFLECTED[name], value)
        elif name in _FLAGS:
            self.toggleAttribute(_FLAGS[name], bool(value))
        elif name in _LIVE:
            self._owner.op(["p", self.node_id, name, value])
        elif name in ("textContent", "innerHTML", "parentNode", "childNodes", "node_id", "_owner"):
            object.__setattr__(self, name, value)
        elif name.startswith("on") or callable(value):
            raise AttributeError(f"the mirror of <{self.localName}> cannot set {name!r}: a function cannot cross "
                                 "to the page; use addEventListener")
        elif isinstance(value, (str, int, float, bool)) or value is None:
            # Any other plain property (spellcheck, step, ...): set on the page, read back from here.
            self.__dict__.setdefault("properties", {})[name] = value
            self._owner.op(["p", self.node_id, name, value])
        else:
            raise AttributeError(f"the mirror of <{self.localName}> cannot set {name!r} to a {type(value).__name__}")

    @property
    def innerHTML(self) -> str:
        return str(self._owner.real(self).innerHTML)

    @innerHTML.setter
    def innerHTML(self, html: str) -> None:
        for child in self.childNodes:
            child.parentNode = None
        self.childNodes = []
        self._owner.op(["p", self.node_id, "innerHTML", str(html)])

    def insertAdjacentHTML(self, where: str, html: str) -> None:
        """HTML (made by pyclient, e.g. its Markdown) parsed on the page; the mirror does not
        know the nodes it makes (reads of them go to the page)."""
        if where not in ("beforeend", "afterbegin", "beforebegin", "afterend"):
            raise ValueError(f"insertAdjacentHTML: {where!r} is not a position")
        self._owner.op(["call", self.node_id, "insertAdjacentHTML", [where, str(html)]])

    @property
    def real(self) -> Any:
        """The page's node (a PyScript proxy: each access is a round trip to the page)."""
        return self._owner.real(self)

    # -- queries ---------------------------------------------------------------------------

    def matches(self, selector: str) -> bool:
        return matcher(selector, self)(self)

    def closest(self, selector: str) -> MirrorElement | None:
        test = matcher(selector, self)
        node: MirrorElement | None = self
        while node is not None:
            if test(node):
                return node
            node = node.parentElement
        return None

    # -- behaviour -------------------------------------------------------------------------

    def _call(self, method: str, *args: Any) -> None:
        # Options made with to_js (a JS object) go as the dict they were made from.
        self._owner.op(["call", self.node_id, method, [arg.to_py() if hasattr(arg, "to_py") else arg for arg in args]])

    def focus(self, *args: Any) -> None:
        self._call("focus", *args)

    def blur(self) -> None:
        self._call("blur")

    def click(self) -> None:
        self._call("click")

    def select(self) -> None:
        self._call("select")

    def scrollIntoView(self, *args: Any) -> None:
        self._call("scrollIntoView", *args)

    def scroll_to_end(self, slack: int = 0, *, force: bool = False) -> None:
        """`scrollTop = scrollHeight`, done on the page in one operation; unless the person has
        scrolled more than `slack` px from the end since the last (renderer.js decides where the
        scroll happens, as this op may cross theirs), or `force`."""
        self._owner.op(["end", self.node_id, slack, force])

    def hold_scroll(self) -> None:
        """The page notes how far the box is from its end (`release_scroll` goes back there):
        both run on the page in one batch with what was inserted between them."""
        self._owner.op(["hold", self.node_id])

    def release_scroll(self) -> None:
        """Back to the distance from the end that `hold_scroll` noted, on the page."""
        self._owner.op(["release", self.node_id])

    def addEventListener(self, kind: str, listener: Callable[[Any], Any], options: Any = None,
                         *, prevent: str | None = None) -> None:
        """Listen on the page's node; `prevent` names the rule by which the page cancels the
        event where it happens (renderer.js: "always", "files_only", "dragged_files", "escape")."""
        once = bool(getattr(options, "once", False)) if options is not None and not isinstance(options, bool) else False
        listeners = self._listeners.setdefault(kind, [])
        if not listeners:
            self._owner.listen(self, kind, prevent)
        listeners.append((listener, once))

    def removeEventListener(self, kind: str, listener: Callable[[Any], Any], *args: Any) -> None:
        listeners = self._listeners.get(kind, [])
        listeners[:] = [(each, once) for each, once in listeners if each is not listener]
        if not listeners and kind in self._listeners:
            del self._listeners[kind]
            self._owner.unlisten(self, kind)

    def scrolled_to(self, top: float, height: float, client: float) -> None:
        """Where the box is, as its scroll event said (read while that event is handled)."""
        object.__setattr__(self, "scrolled", {"scrollTop": top, "scrollHeight": height, "clientHeight": client})

    def scroll_settled(self) -> None:
        """The scroll event is handled: reads go to the page again."""
        object.__setattr__(self, "scrolled", None)

    def pick(self, files: Any) -> None:
        """The files the person picked (a change event's): what `files` reads from now on."""
        object.__setattr__(self, "picked", files)

    def dispatch(self, event: Any) -> None:
        """Call the listeners of `event.type` (an event the page forwarded)."""
        listeners = self._listeners.get(str(event.type), [])
        for listener, once in list(listeners):
            if once:
                self.removeEventListener(str(event.type), listener)
            listener(event)
