"""`page_text_tool(root)`: a tool that reads the text of the elements matching a CSS selector inside `root`.

What "inside" means is `pyclient.browser.toolkit._page.Area`; the text of an element is its
`innerText` (as rendered), or its `textContent` where it has none (SVG).
See https://developer.mozilla.org/en-US/docs/Web/API/HTMLElement/innerText

```python
from pyscript import document
from pyclient.browser.toolkit import page_text_tool

document.querySelector("#panel").innerHTML = "<h2>Shopping</h2><p>apples</p><p>pears</p>"
read_text = page_text_tool("#panel", max_chars=5_000)
print((await read_text.execute({"selector": "h2"})).content)     # Shopping
error = (await read_text.execute({"selector": "p["})).error
print("is not a valid CSS selector" in error)                  # True
```
"""

from typing import Any

from ..._tools._client_tool import ClientTool, client_tool
from ._page import Area, Selector, missing, outermost
from ._rules import cap_text, check_limit, count_of

__all__ = ["page_text_tool"]


def _text_of(node: Any) -> str:
    """An element's text as rendered (`innerText`), or its `textContent` where there is no
    `innerText` (SVG)."""
    text = getattr(node, "innerText", None)
    if missing(text):
        text = node.textContent
    return "" if missing(text) else str(text).strip()


def page_text_tool(root: Any, *, max_chars: int = 20_000, name: str = "read_page_text") -> ClientTool:
    """A tool that reads the text of the elements matching a CSS selector inside `root`.

    Only `root.querySelectorAll(selector)` is searched (and each match is checked with
    `root.contains`): an element outside `root` is never read, whatever the selector. The
    text is each outermost match's `innerText` (as rendered: hidden elements are left out),
    joined by blank lines, at most `max_chars` characters with a note saying how much was cut.

    Args:
        root: a JS element, a `pyscript.web` element, or a CSS selector looked up at each call.
        max_chars: the most characters of text returned.
        name: the tool's name.

    Returns:
        The `read_page_text(selector)` tool.

    Raises:
        ConfigurationError: `root` is not an element or a valid selector, or an invalid bound.
    """
    area = Area(root, "page_text_tool")
    check_limit(max_chars, "max_chars")

    def read_page_text(selector: Selector) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
        """
        matches = outermost(area.matches(selector, name))
        if not matches:
            return f"No element inside {area.label} matches {selector!r}."
        texts = [_text_of(node) for node in matches]
        text = "\n\n".join(t for t in texts if t)
        if not text:
            return f"The {count_of(len(matches))} inside {area.label} matching {selector!r} have no text."
        return cap_text(text, max_chars, hint="Read a narrower selector to see the rest.")

    return client_tool(read_page_text, name=name, description=(
        "Read the text of the page elements that match a CSS selector (such as 'main', '.note' or "
        f"'table tr'), inside {area.label} only. The text as shown, one block per element, at most "
        f"{max_chars:,} characters in all, with a note saying how much was cut. An invalid selector is an error."
    ))
