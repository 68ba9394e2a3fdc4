"""The document the chat builds its nodes in: the page's, or its mirror in a worker.

On the main thread it is `js.document`. In a PyScript worker every DOM access through
PyScript's proxy is a blocking round trip to the page, so there it is the worker's mirror
(`pyclient.browser._page._mirror`), whose changes reach the page in one batch per task. `dom_node`
turns a node a page author handed in (a selector's match, a `pyscript.web` element) into what
that document's nodes take.

```python
from pyclient.browser._page._document import dom_node, page_document, scroll_to_end

box = page_document().createElement("div")
page_document().body.append(box)
scroll_to_end(dom_node(box))
print(box.isConnected)      # True
box.remove()
```
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from ._mirror import MirrorNode
from ._page_window import IN_PAGE, IN_WORKER, js_object

if IN_PAGE:
    import js
    from pyodide.ffi import JsProxy

__all__ = ["Document", "append_node", "console_error", "dom_node", "find_node", "focus_quietly", "hold_scroll", "know_children",
           "page_document", "read_attribute", "release_scroll", "scroll_into_view", "scroll_to_end", "use_document"]


class Document(Protocol):
    """What the chat's widgets build in: the page's `document`, or the worker's mirror of it
    (`pyclient.browser._page._mirror.MirrorDocument`). Both make nodes that answer the DOM's
    own API; what differs between them (scrolling, a page author's node, focus) goes through
    this module's functions, never through a check of the node's type in a widget."""

    def createElement(self, tag: str) -> Any: ...

    def createTextNode(self, text: str) -> Any: ...


_installed: Document | None = None


def use_document(document: Document | None) -> None:
    """Build the chat's nodes in `document` (None: the page's again). The widgets' CPython
    tests build on a mirror this way, with no page; a page never calls it."""
    global _installed
    _installed = document

if IN_WORKER:
    from ._mirror._connect import connect

    def page_document() -> Any:
        """The worker's mirror document (see the module docstring)."""
        return _installed or connect()

    def dom_node(node: Any) -> Any:
        """A page node as a mirror node (the same one each time)."""
        return connect().coerce(node)

    def find_node(node: Any, selector: str) -> Any:
        """The first element under the page node `node` that matches `selector`, as a mirror
        node (read from the page: a round trip), or None."""
        document = connect()
        found = document.real(dom_node(node)).querySelector(selector)
        return document.adopt(found) if found is not None and hasattr(found, "tagName") else None

    def know_children(parent: Any, children: list[Any]) -> None:
        """Tell the mirror that `children` (page nodes it adopted, in the page's order) are
        `parent`'s: the page is unchanged, and what is put beside them, or looked up from them
        (`closest`, `contains`), follows the page's tree."""
        parent.insert_at(len(parent.childNodes), [child for child in children if child.parentNode is None])

    def read_attribute(node: Any, name: str) -> str | None:
        """An attribute of the page node `node` as the page has it (a round trip), or None."""
        value = connect().real(dom_node(node)).getAttribute(name)
        return value if isinstance(value, str) else None

    def _append_pyscript(body: Any, shown: Any) -> None:
        # The page adopts the element's node: the mirror sends its page node's handle.
        from pyscript import web

        nodes = list(shown) if isinstance(shown, web.ElementCollection) else [shown]
        body.append(*[dom_node(element) for element in nodes])

else:

    def page_document() -> Any:
        """The page's `document` (on CPython, the one `use_document` installed)."""
        return _installed or js.document

    def dom_node(node: Any) -> Any:
        """A page node: a `pyscript.web` element's DOM node, a DOM node as it is."""
        return getattr(node, "_dom_element", node)

    def find_node(node: Any, selector: str) -> Any:
        """The first element under `node` (a page node, or a `pyscript.web` element) that
        matches `selector`, or None."""
        found = dom_node(node).querySelector(selector)
        return found if found else None  # JS null

    def know_children(parent: Any, children: list[Any]) -> None:
        """Nothing to tell: the page's nodes know their tree (a worker's mirror learns it)."""

    def read_attribute(node: Any, name: str) -> str | None:
        """An attribute of `node` (a page node, or a `pyscript.web` element), or None."""
        value = dom_node(node).getAttribute(name)
        return value if isinstance(value, str) else None

    def _append_pyscript(body: Any, shown: Any) -> None:
        # `Element.append` takes PyScript elements and hands their DOM nodes to `body`.
        from pyscript import web

        web.Element.wrap_dom_element(body).append(shown)


def append_node(body: Any, shown: Any) -> None:
    """Append to `body` (a node of this document) a DOM node or a `pyscript.web` element (or
    collection) a page author's code made, wherever it was made.

    Raises:
        TypeError: `shown` is none of those: nothing is appended.
    """
    if isinstance(shown, MirrorNode) or IN_PAGE and isinstance(shown, JsProxy):  # made with js.document; pyclient's own in a worker
        body.append(shown)
        return
    from pyscript import web

    if not isinstance(shown, (web.Element, web.ElementCollection)):
        raise TypeError(
            f"A tool renderer returned a {type(shown).__name__}; return a DOM element, a "
            "pyscript.web element, a str or None."
        )
    _append_pyscript(body, shown)


def scroll_to_end(box: Any, slack: int = 0, *, force: bool = False) -> None:
    """Scroll `box` to its end (one operation in a worker, no read of its height there).

    In a worker the page skips it when the person scrolled more than `slack` px away from the
    end since the last one (their scroll and this may cross between the threads), unless
    `force` (their own way back). On the main thread the caller's scroll handler has already
    run: it scrolls."""
    if hasattr(box, "scroll_to_end"):
        box.scroll_to_end(slack, force=force)
    else:
        box.scrollTop = box.scrollHeight


def hold_scroll(box: Any) -> float | None:
    """Note how far `box`'s content is scrolled from its end, so that `release_scroll(box, held)`
    after inserting content above keeps what the person sees in place (no jump). In a worker
    both are operations the page does in the same batch as the insertion."""
    if hasattr(box, "hold_scroll"):
        box.hold_scroll()
        return None
    return float(box.scrollHeight - box.scrollTop)


def release_scroll(box: Any, held: float | None) -> None:
    """Scroll `box` back to the distance from its end that `hold_scroll` noted (`held`)."""
    if hasattr(box, "release_scroll"):
        box.release_scroll()
    elif held is not None:
        box.scrollTop = box.scrollHeight - held


def scroll_into_view(node: Any) -> None:
    """Scroll the nearest scrolling box so that `node` is in view (nothing moves if it is)."""
    node.scrollIntoView(js_object({"block": "nearest"}))


def focus_quietly(node: Any) -> None:
    """Put the focus in `node` without scrolling the list to it."""
    node.focus(js_object({"preventScroll": True}))


def console_error(line: str) -> None:
    """Say `line` in the page's console (on CPython, in pyclient's log)."""
    if IN_PAGE:
        js.console.error(line)
    else:
        logging.getLogger("pyclient").error("%s", line)
