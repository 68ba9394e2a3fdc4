"""A mirror document: makes mirror nodes, batches their operations, routes the page's events.

Each change to a mirror node is an operation (a JSON array) queued here; the queue goes to the
page as one message when the worker's current task ends (`schedule`, the event loop's
`call_soon` by default), or at once before a read of the real page (`real()`), so the page
never sees a half-built card and a read never overtakes a write. The page answers with
events (`dispatch`). Sending and reading are handed in (`post`, `adopt`, `read`): in a worker
`pyclient.browser._page._mirror._connect` gives the page's; a test gives its own.

```python
from pyclient.browser._page._mirror import MirrorDocument

batches = []
document = MirrorDocument(post=batches.append, schedule=lambda flush: None)
box = document.createElement("div")
box.textContent = "hello"
document.flush()
print(len(batches), [op[0] for op in batches[0]])          # 1 ['e', 't', 'children']
```
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

from ._element import MirrorElement
from ._events import Files, MirrorEvent
from ._node import MirrorFragment, MirrorNode, MirrorText

__all__ = ["MirrorDocument"]


def _call_soon(flush: Callable[[], None]) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        # A JS callback (an animation frame, an event) runs outside any task: in Pyodide the
        # policy's loop is the page's WebLoop all the same.
        loop = asyncio.get_event_loop_policy().get_event_loop()
    loop.call_soon(flush)


class MirrorDocument:
    """Mirror nodes and their batched operations (see the module docstring).

    Args:
        post: sends one batch (a list of operations) to the page.
        adopt: the page's id for a real page node (the first time it is seen).
        read: the real page node of an id.
        schedule: runs the flush once the current task is done.
        page: the page's `document` (a proxy), for `body`, `head` and page queries.
    """

    def __init__(self, post: Callable[[list[Any]], None], *, adopt: Callable[[Any], int] | None = None,
                 read: Callable[[int], Any] | None = None,
                 schedule: Callable[[Callable[[], None]], None] = _call_soon, page: Any = None) -> None:
        self.page = page
        self.pending: list[Any] = []
        self.batches = 0
        self.reads = 0  # round trips to the page (each blocks the worker for a millisecond or more)
        self._post = post
        self._adopt = adopt
        self._read = read
        self._schedule = schedule
        self._scheduled = False
        self._next = 0
        self._nodes: weakref.WeakValueDictionary[int, MirrorNode] = weakref.WeakValueDictionary()
        self._adopted: dict[int, MirrorElement] = {}  # page nodes stay known while the page has them

    # -- what nodes need (Owner) -----------------------------------------------------------

    def node_id(self) -> int:
        self._next += 1
        return self._next

    def op(self, operation: list[Any]) -> None:
        self.pending.append(operation)
        if not self._scheduled:
            self._scheduled = True
            try:
                self._schedule(self.flush)
            except BaseException:
                self._scheduled = False  # the next operation tries again
                raise

    def forget(self, node_id: int) -> None:
        # A mirror node Python let go of: the page may drop it from its table (the DOM keeps it).
        self.op(["forget", node_id])

    def coerce(self, item: Any) -> MirrorNode:
        if isinstance(item, MirrorNode):
            return item
        if isinstance(item, str):
            return self.createTextNode(item)
        return self.adopt(getattr(item, "_dom_element", item))  # a pyscript.web element's node

    def real(self, node: MirrorNode) -> Any:
        if self._read is None:
            raise RuntimeError("this mirror document reads no page (no read= was given)")
        self.flush()  # what was written is there before it is read
        self.reads += 1
        return self._read(node.node_id)

    def listen(self, node: MirrorNode, kind: str, rule: str | None) -> None:
        self._nodes[node.node_id] = node
        self.op(["listen", node.node_id, kind, rule])

    def known(self, node: MirrorNode) -> None:
        """Events may name `node` (its id finds it, while Python holds it)."""
        self._nodes[node.node_id] = node

    def unlisten(self, node: MirrorNode, kind: str) -> None:
        self.op(["unlisten", node.node_id, kind])

    # -- the document's own ----------------------------------------------------------------

    def createElement(self, tag: str) -> MirrorElement:
        node = MirrorElement(self, tag)
        self._nodes[node.node_id] = node
        return node

    def createTextNode(self, text: str) -> MirrorText:
        return MirrorText(self, str(text))

    def createDocumentFragment(self) -> MirrorFragment:
        return MirrorFragment(self)

    def adopt(self, real: Any) -> MirrorElement:
        """The mirror of a page node (a PyScript proxy): the same one each time."""
        if self._adopt is None:
            raise RuntimeError("this mirror document adopts no page nodes (no adopt= was given)")
        self.flush()
        node_id = int(self._adopt(real))
        node = self._adopted.get(node_id)
        if node is None:
            node = self._adopted[node_id] = MirrorElement(self, None, node_id)
            self._nodes[node_id] = node
        return node

    @property
    def body(self) -> MirrorElement:
        return self.adopt(self.page.body)

    @property
    def head(self) -> MirrorElement:
        return self.adopt(self.page.head)

    def querySelector(self, selector: str) -> MirrorElement | None:
        """The page's first match, adopted (None when nothing matches)."""
        self.flush()
        found = self.page.querySelector(selector)
        return None if found is None or not hasattr(found, "tagName") else self.adopt(found)

    def getElementById(self, ident: str) -> MirrorElement | None:
        self.flush()
        found = self.page.getElementById(ident)
        return None if found is None or not hasattr(found, "tagName") else self.adopt(found)

    def flush(self) -> None:
        """Send what is queued, as one batch."""
        self._scheduled = False
        if self.pending:
            batch, self.pending = self.pending, []
            self.batches += 1
            self._post(batch)

    def dispatch(self, data: dict[str, Any]) -> None:
        """Hand an event the page forwarded to the listeners of its node."""
        current = self._nodes.get(int(data["id"]))
        if current is None or not isinstance(current, MirrorElement):
            return  # a node Python let go of since
        target_id = data.get("target")
        target = self._nodes.get(int(target_id)) if target_id is not None else None
        event = MirrorEvent(data, target, current)
        if event.type == "change" and isinstance(event.target, MirrorElement) and "files" in data:
            event.target.pick(Files(data["files"]))
        scroll = data.get("scroll")
        if scroll is None:
            current.dispatch(event)
            return
        current.scrolled_to(*scroll)
        try:
            current.dispatch(event)
        finally:
            current.scroll_settled()
