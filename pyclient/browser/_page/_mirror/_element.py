"""Mirror elements: what the chat's code holds of the page's elements when it runs in a worker.

A `MirrorElement` answers like the DOM element it stands for (`className`, `dataset`,
`classList`, `getAttribute`, `matches`, `addEventListener`...) from its own state, and each
change it makes becomes one operation in its document's batch, as its tree's changes do
(`pyclient.browser._page._mirror._node`). Only what the person changes on the page is read
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

from collections.abc import Callable
from typing import Any

from ._node import ELEMENT_NODE, MirrorNode, Owner
from ._selectors import Matchable, matcher
from ._views import ClassList, Dataset, Style

__all__ = ["MirrorElement"]

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

    def blank(self) -> MirrorElement:
        copy = MirrorElement(self.owner, self.localName, emit=False)
        copy.copy_attributes_of(self)
        copy.style.copy_of(self.style)
        self.owner.known(copy)
        return copy

    @property
    def tagName(self) -> str:
        return str(self.localName).upper()

    @property
    def parentElement(self) -> MirrorElement | None:
        parent = self.parentNode
        return parent if isinstance(parent, MirrorElement) else None

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
            self.owner.op(["a", self.node_id, name, value])

    def removeAttribute(self, name: str) -> None:
        name = name.lower()
        if name in self._attributes:
            del self._attributes[name]
            self.owner.op(["a", self.node_id, name, None])

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
            return getattr(self.owner.real(self), name)
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
            self.owner.op(["p", self.node_id, name, value])
        elif name in ("textContent", "innerHTML", "parentNode", "childNodes", "node_id", "_owner"):  # MirrorNode's fields
            object.__setattr__(self, name, value)
        elif name.startswith("on") or callable(value):
            raise AttributeError(f"the mirror of <{self.localName}> cannot set {name!r}: a function cannot cross "
                                 "to the page; use addEventListener")
        elif isinstance(value, (str, int, float, bool)) or value is None:
            # Any other plain property (spellcheck, step, ...): set on the page, read back from here.
            self.__dict__.setdefault("properties", {})[name] = value
            self.owner.op(["p", self.node_id, name, value])
        else:
            raise AttributeError(f"the mirror of <{self.localName}> cannot set {name!r} to a {type(value).__name__}")

    @property
    def innerHTML(self) -> str:
        return str(self.owner.real(self).innerHTML)

    @innerHTML.setter
    def innerHTML(self, html: str) -> None:
        for child in self.childNodes:
            child.parentNode = None
        self.childNodes = []
        self.owner.op(["p", self.node_id, "innerHTML", str(html)])

    def insertAdjacentHTML(self, where: str, html: str) -> None:
        """HTML (made by pyclient, e.g. its Markdown) parsed on the page; the mirror does not
        know the nodes it makes (reads of them go to the page)."""
        if where not in ("beforeend", "afterbegin", "beforebegin", "afterend"):
            raise ValueError(f"insertAdjacentHTML: {where!r} is not a position")
        self.owner.op(["call", self.node_id, "insertAdjacentHTML", [where, str(html)]])

    @property
    def real(self) -> Any:
        """The page's node (a PyScript proxy: each access is a round trip to the page)."""
        return self.owner.real(self)

    # -- queries ---------------------------------------------------------------------------

    def matches(self, selector: str) -> bool:
        return matcher(selector, self)(self)

    def matched_by(self, test: Callable[[Matchable], bool]) -> bool:
        return test(self)

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
        self.owner.op(["call", self.node_id, method, [arg.to_py() if hasattr(arg, "to_py") else arg for arg in args]])

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
        self.owner.op(["end", self.node_id, slack, force])

    def hold_scroll(self) -> None:
        """The page notes how far the box is from its end (`release_scroll` goes back there):
        both run on the page in one batch with what was inserted between them."""
        self.owner.op(["hold", self.node_id])

    def release_scroll(self) -> None:
        """Back to the distance from the end that `hold_scroll` noted, on the page."""
        self.owner.op(["release", self.node_id])

    def addEventListener(self, kind: str, listener: Callable[[Any], Any], options: Any = None,
                         *, prevent: str | None = None) -> None:
        """Listen on the page's node; `prevent` names the rule by which the page cancels the
        event where it happens (renderer.js: "always", "files_only", "dragged_files", "escape")."""
        once = bool(getattr(options, "once", False)) if options is not None and not isinstance(options, bool) else False
        listeners = self._listeners.setdefault(kind, [])
        if not listeners:
            self.owner.listen(self, kind, prevent)
        listeners.append((listener, once))

    def removeEventListener(self, kind: str, listener: Callable[[Any], Any], *args: Any) -> None:
        listeners = self._listeners.get(kind, [])
        listeners[:] = [(each, once) for each, once in listeners if each is not listener]
        if not listeners and kind in self._listeners:
            del self._listeners[kind]
            self.owner.unlisten(self, kind)

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
