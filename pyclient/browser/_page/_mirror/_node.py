"""Mirror nodes: the tree the chat's code holds of the page's DOM when it runs in a worker.

A `MirrorNode` keeps its parent and children and answers the DOM's tree reads (`childNodes`,
`nextSibling`, `textContent`, `querySelector`...) from its own state; each change to the tree
(`append`, `insertBefore`, `replaceChildren`, `remove`, `cloneNode`...) becomes one operation in
its document's batch (`pyclient.browser._page._mirror._document`), which the page applies in one
go (`pyclient/browser/assets/renderer.js`). Text nodes and fragments are here; elements, with
their attributes, properties and listeners, are `pyclient.browser._page._mirror._element`'s.

```python
from pyclient.browser._page._mirror import MirrorDocument

document = MirrorDocument(post=lambda ops: None)      # a document whose batches go nowhere
fragment = document.createDocumentFragment()
fragment.append("first", document.createElement("b"), "last")
print(len(fragment.childNodes), fragment.firstChild.nextSibling.tagName, fragment.lastChild.data)   # 3 B last
print(fragment.textContent, document.pending[-1])                        # firstlast ['append', 1, [3, 2, 4]]
```
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ._selectors import Matchable, matcher

__all__ = ["ELEMENT_NODE", "FRAGMENT_NODE", "TEXT_NODE", "MirrorFragment", "MirrorNode", "MirrorText", "Owner"]

ELEMENT_NODE, TEXT_NODE, FRAGMENT_NODE = 1, 3, 11


class Owner(Protocol):
    """What a mirror node needs of its document."""

    def op(self, operation: list[Any]) -> None: ...

    def node_id(self) -> int: ...

    def forget(self, node_id: int) -> None: ...

    def coerce(self, item: Any) -> MirrorNode: ...

    def real(self, node: MirrorNode) -> Any: ...

    def listen(self, node: MirrorNode, kind: str, rule: str | None) -> None: ...

    def unlisten(self, node: MirrorNode, kind: str) -> None: ...

    def known(self, node: MirrorNode) -> None: ...


class MirrorNode:
    """A node of the mirror: its id in the page's table, its parent, its children.

    The element reads (`parentElement`, `children`, `querySelector`...) give the nodes whose
    `nodeType` is `ELEMENT_NODE`: `MirrorElement`s (`pyclient.browser._page._mirror._element`).
    """

    nodeType = 0
    adopted = False
    """A page node the mirror adopted by its id (elements only), not one it made."""

    def __init__(self, owner: Owner, node_id: int | None = None) -> None:
        self._owner = owner
        self.node_id = owner.node_id() if node_id is None else node_id
        self.parentNode: MirrorNode | None = None
        self.childNodes: list[MirrorNode] = []
        weakref.finalize(self, owner.forget, self.node_id)

    @property
    def owner(self) -> Owner:
        """The node's document."""
        return self._owner

    # -- tree ----------------------------------------------------------------------------

    @property
    def parentElement(self) -> MirrorNode | None:
        parent = self.parentNode
        return parent if parent is not None and parent.nodeType == ELEMENT_NODE else None

    @property
    def firstChild(self) -> MirrorNode | None:
        return self.childNodes[0] if self.childNodes else None

    @property
    def lastChild(self) -> MirrorNode | None:
        return self.childNodes[-1] if self.childNodes else None

    @property
    def nextSibling(self) -> MirrorNode | None:
        return next(_beside(self, 1), None)

    @property
    def previousSibling(self) -> MirrorNode | None:
        return next(_beside(self, -1), None)

    @property
    def children(self) -> list[MirrorNode]:
        return [node for node in self.childNodes if node.nodeType == ELEMENT_NODE]

    @property
    def childElementCount(self) -> int:
        return len(self.children)

    @property
    def firstElementChild(self) -> MirrorNode | None:
        return next(iter(self.children), None)

    @property
    def lastElementChild(self) -> MirrorNode | None:
        children = self.children
        return children[-1] if children else None

    @property
    def nextElementSibling(self) -> MirrorNode | None:
        return next((node for node in _beside(self, 1) if node.nodeType == ELEMENT_NODE), None)

    @property
    def previousElementSibling(self) -> MirrorNode | None:
        return next((node for node in _beside(self, -1) if node.nodeType == ELEMENT_NODE), None)

    @property
    def isConnected(self) -> bool:
        top: MirrorNode = self
        while top.parentNode is not None:
            top = top.parentNode
        return top.adopted and bool(self._owner.real(top).isConnected)

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
        if self.nodeType not in (ELEMENT_NODE, FRAGMENT_NODE):
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

    def descendants(self) -> Iterator[MirrorNode]:
        """The elements below, in document order."""
        for node in self.childNodes:
            if node.nodeType == ELEMENT_NODE:
                yield node
                yield from node.descendants()

    def querySelectorAll(self, selector: str) -> list[MirrorNode]:
        test = matcher(selector, self)
        return [node for node in self.descendants() if node.matched_by(test)]

    def querySelector(self, selector: str) -> MirrorNode | None:
        test = matcher(selector, self)
        return next((node for node in self.descendants() if node.matched_by(test)), None)

    def matched_by(self, test: Callable[[Matchable], bool]) -> bool:
        """Whether a selector's `test` takes this node: only an element can match one."""
        return False

    def cloneNode(self, deep: bool = False) -> MirrorNode:
        """A copy (with its subtree when `deep`): the page clones its node in one operation and
        numbers the copy's nodes in document order, as here."""
        copies: list[MirrorNode] = []
        copy = self.copy_tree(bool(deep), copies)
        self._owner.op(["clone", self.node_id, bool(deep), [node.node_id for node in copies]])
        return copy

    def copy_tree(self, deep: bool, copies: list[MirrorNode]) -> MirrorNode:
        """A copy made without operations, each new node appended to `copies` in document order."""
        copy = self.blank()
        copies.append(copy)
        if deep:
            for child in self.childNodes:
                child_copy = child.copy_tree(True, copies)
                child_copy.parentNode = copy
                copy.childNodes.append(child_copy)
        return copy

    def blank(self) -> MirrorNode:
        """This node without its children, made without an operation (cloneNode sends one)."""
        raise NotImplementedError


def _index(nodes: list[MirrorNode], node: MirrorNode) -> int:
    return next((i for i, each in enumerate(nodes) if each is node), -1)


def _beside(node: MirrorNode, step: int) -> Iterator[MirrorNode]:
    """`node`'s siblings from the nearest on, after it (`step` 1) or before it (-1): one look-up
    of its place serves a walk to the next element too."""
    siblings = node.parentNode.childNodes if node.parentNode else []
    index = _index(siblings, node)
    if index >= 0:
        yield from (siblings[i] for i in range(index + step, len(siblings) if step > 0 else -1, step))


class MirrorText(MirrorNode):
    """A text node (`appendData` streams text into it; setting `data` or `textContent` replaces it)."""

    nodeType = TEXT_NODE

    def __init__(self, owner: Owner, text: str, *, emit: bool = True) -> None:
        super().__init__(owner)
        self._data = text
        if emit:
            owner.op(["t", self.node_id, text])

    def blank(self) -> MirrorText:
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

    def blank(self) -> MirrorFragment:
        return MirrorFragment(self._owner, emit=False)

