"""The page's DOM, as the element rules of `pyclient._binding._elements` need it.

Elements are JS elements (Pyodide proxies); a `pyscript.web` element is unwrapped, a CSS
selector is looked up with `document.querySelector`. JS `null` (Pyodide's `jsnull`) and
`undefined` (None) both mean "missing".
See https://developer.mozilla.org/en-US/docs/Web/API/Element/closest

```python
from pyclient.browser._platform._page_dom import BrowserDom

dom = BrowserDom()
element = dom.element("#chat", "example")
print(dom.is_connected(element), dom.closest_attribute(element, "data-pyclient-thread"))
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import js
from pyodide.ffi import jsnull

from ..._base._errors import ConfigurationError
from ._mount import MountObserver

__all__ = ["BrowserDom", "find_element", "missing"]


def missing(value: Any) -> bool:
    """JS `null` (a `jsnull` in Pyodide 314, not None) or `undefined` (None)."""
    return value is None or value is jsnull


def find_element(element_or_selector: Any, what: str) -> Any:
    """The JS element `element_or_selector` names: a CSS selector's first match, a
    `pyscript.web` element's DOM element, or a JS element itself.

    Raises:
        ConfigurationError: no element matches the selector, or it is not an element.
    """
    if isinstance(element_or_selector, str):
        element = js.document.querySelector(element_or_selector)
        if missing(element):
            raise ConfigurationError(
                f"{what}: no element matches the selector {element_or_selector!r}. "
                "Create the element first, or pass the element itself."
            )
        return element
    # pyscript.web elements wrap the DOM element in `_dom_element`.
    element = getattr(element_or_selector, "_dom_element", element_or_selector)
    if missing(element) or not hasattr(element, "closest"):
        raise ConfigurationError(
            f"{what} needs a DOM element or a CSS selector, got {type(element_or_selector).__name__}. "
            "Pass e.g. document.querySelector('#chat') or '#chat'."
        )
    return element


class BrowserDom:
    """`pyclient._binding._elements.Dom` over `js.document`, watched by one `MutationObserver`."""

    def __init__(self) -> None:
        self.observer = MountObserver()

    def element(self, element_or_selector: Any, what: str) -> Any:
        return find_element(element_or_selector, what)

    def attribute(self, element: Any, name: str) -> str | None:
        value = element.getAttribute(name)
        return None if missing(value) else str(value)

    def set_attribute(self, element: Any, name: str, value: str | None) -> None:
        if value is None:
            element.removeAttribute(name)
        else:
            element.setAttribute(name, value)

    def closest_attribute(self, element: Any, name: str) -> str | None:
        host = element.closest(f"[{name}]")
        return None if missing(host) else str(host.getAttribute(name))

    def contains(self, outer: Any, inner: Any) -> bool:
        return bool(outer.contains(inner))

    def is_connected(self, element: Any) -> bool:
        return bool(element.isConnected)

    def watch(self, element: Any, callback: Callable[[bool], None]) -> Callable[[], None]:
        return self.observer.watch(element, callback)

    def check(self) -> None:
        self.observer.check()
