"""The page as the toolkit's families reach it: the area a tool works in, the selectors it is given, JS null and errors.

A root-bound tool (`page_text_tool`, `dom_tools`, `background_tool`, `notify_tool`) is given
its element once, as a JS element, a `pyscript.web` element or a CSS selector; `Area` checks
it at once (a bad one is a `ConfigurationError` for the page author) and finds it again at
each call (a vanished one is a `ToolError` for the model). `Area.matches` searches inside it
only: `root.querySelectorAll(selector)`, each match checked with `root.contains`.
See https://developer.mozilla.org/en-US/docs/Web/API/Element/querySelectorAll

```python
from pyscript import document
from pyclient.browser.toolkit._page import Area, outermost

panel = document.querySelector("#panel")
panel.innerHTML = "<div class='note'>outer <p class='note'>inner</p></div>"
area = Area("#panel", "example")
print(len(area.matches(".note", "read_page_text")), area.label)   # 2 '#panel'
print(len(outermost(area.matches(".note", "read_page_text"))))    # 1
print(Area(panel, "example").label)                               # <div#panel>
```
"""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import MaxLen, MinLen
from pyodide.ffi import JsException, jsnull

from ..._base._errors import ConfigurationError, ToolError
from .._page._page_window import page_window

__all__ = ["Area", "Selector", "js_error", "missing", "outermost"]

# Constraints as annotated-types (pydantic reads them as it reads `Field(min_length=...)`) and
# descriptions in the handlers' `Args:`: `pydantic.Field` would import pydantic's JSON Schema
# machinery with the toolkit, which a page's boot should not pay for (see `pyclient._tools._schema`).
Selector = Annotated[str, MinLen(1), MaxLen(1000)]
"""The CSS selector a tool's handler is given."""


def missing(value: Any) -> bool:
    """JS `null` (`jsnull`) or `undefined` (None)."""
    return value is None or value is jsnull


def js_error(exc: BaseException) -> str:
    """A JS exception as "Name: message" (`SyntaxError: ...`), or its text when it has neither."""
    name, message = getattr(exc, "name", None), getattr(exc, "message", None)
    return f"{name}: {message}" if name and message else str(exc)


class Area:
    """The element a root-bound tool works in, looked up at each call.

    Args:
        root: a JS element, a `pyscript.web` element, or a CSS selector (looked up with
            `document.querySelector` at each call).
        factory: the factory's name, for messages.

    Raises:
        ConfigurationError: `root` is none of these, or an invalid selector.
    """

    def __init__(self, root: Any, factory: str) -> None:
        self.selector: str | None = None
        self.element: Any = None
        if isinstance(root, str):
            try:
                page_window().document.createDocumentFragment().querySelector(root)
            except JsException as exc:
                raise ConfigurationError(
                    f"{factory}() got {root!r}, which is not a valid CSS selector ({js_error(exc)}). "
                    "Pass a selector such as '#app', or the element itself."
                ) from None
            self.selector = root
            self.label = repr(root)
            return
        # pyscript.web elements wrap the DOM element in `_dom_element`.
        element = getattr(root, "_dom_element", root)
        if missing(element) or not hasattr(element, "querySelectorAll") or not hasattr(element, "contains"):
            raise ConfigurationError(
                f"{factory}() needs a DOM element, a pyscript.web element or a CSS selector, got "
                f"{type(root).__name__}. Pass e.g. document.querySelector('#app') or '#app'."
            )
        self.element = element
        element_id = str(element.id or "") if hasattr(element, "id") else ""
        tag = str(getattr(element, "tagName", "") or "element").lower()
        self.label = f"<{tag}{'#' + element_id if element_id else ''}>"

    def resolve(self) -> Any:
        """The element, now.

        Raises:
            ToolError: the selector matches nothing, or the element is not in the document.
        """
        element = self.element
        if self.selector is not None:
            element = page_window().document.querySelector(self.selector)
            if missing(element):
                raise ToolError(
                    f"The page area {self.label} this tool works in is not on the page right now. "
                    "Tell the user; do not call this tool again until the page shows it."
                )
        if not element.isConnected:
            raise ToolError(
                f"The page area {self.label} this tool works in is not in the document (the page removed it). "
                "Tell the user; do not call this tool again until the page shows it."
            )
        return element

    def matches(self, selector: str, tool: str) -> list[Any]:
        """The elements inside the area that match `selector`, in document order.

        Raises:
            ToolError: the area is gone, or `selector` is not a valid CSS selector.
        """
        root = self.resolve()
        try:
            found = root.querySelectorAll(selector)
        except JsException as exc:
            raise ToolError(
                f"{selector!r} is not a valid CSS selector ({js_error(exc)}). Call {tool} again with a "
                "valid selector, such as 'h1', '.note' or 'ul > li'."
            ) from None
        return [node for node in found if root.contains(node) and node is not root]


def outermost(nodes: list[Any]) -> list[Any]:
    """`nodes` (in document order) without those inside an earlier one: nested matches would
    be read twice, or written and then thrown away."""
    kept: list[Any] = []
    for node in nodes:
        if not kept or not kept[-1].contains(node):
            kept.append(node)
    return kept
