"""The chat's stylesheet in the page: linked as a file, found where the page links it, or put inline with a nonce.

`chat.css` ships in the wheel (`pyclient/browser/assets/`) and is served beside `pyclient.js`.
`install_stylesheet()` gives a document the stylesheet once, first in `<head>` so the page's
own rules win, in the first of three ways that applies: the page has it already (an element
with the id `STYLE_ID`, or a `<link rel="stylesheet">` whose `href` ends in
`pyclient/chat.css`); a `<link>` to the `href` given (`Chat(stylesheet=...)`); else the CSS
inline, with the nonce given or the page's own, which a Content-Security-Policy without
`'unsafe-inline'` needs. From a PyScript worker all of this happens in the page's document
(`page_window()`). The three ways, and the policy a page needs: docs/chat.md ("Theming") and
docs/deployment.md ("Content-Security-Policy"). `styled_root()` makes a widget's root with it.

```python
from pyscript import document
from pyclient.browser._chat._stylesheet import STYLE_ID, install_stylesheet

install_stylesheet()                     # the chat's CSS, once per document
install_stylesheet()
print(len(document.querySelectorAll(f"#{STYLE_ID}")))   # 1
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._page._nodes import el
from .._page._page_window import page_window

__all__ = ["STYLESHEET", "STYLE_ID", "install_stylesheet", "page_nonce", "styled_root"]

STYLE_ID = "pyclient-chat-style"
"""The id of the element that holds the chat's stylesheet (one per document): the inline
`<style>` or the `<link>` pyclient adds; a page's own element with this id counts as the stylesheet."""

STYLESHEET = "pyclient/chat.css"
"""Where `pyclient serve` and `pyclient vendor` put the chat's stylesheet, relative to the site's
top: a `<link rel="stylesheet">` whose `href` ends with it is taken for the chat's."""

# The file beside pyclient.js in the wheel (installed unpacked, in Pyodide too), read without
# importlib.resources, whose import the page's boot would pay.
_CSS_FILE = Path(__file__).parents[1] / "assets" / "chat.css"


def _css_string(value: str) -> str:
    """`value` as a CSS string, for an attribute selector."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def _linked(document: Any, href: str | None) -> bool:
    """Whether `document` has the stylesheet already: the element with `STYLE_ID`, or a link to it."""
    if document.getElementById(STYLE_ID):
        return True
    links = [f"link[rel~=stylesheet][href$={_css_string(STYLESHEET)}]"]
    if href:
        links.append(f"link[rel~=stylesheet][href={_css_string(href)}]")
    return bool(document.querySelector(", ".join(links)))


def page_nonce(document: Any = None) -> str | None:
    """The nonce of the first element of `document` (the page's by default) that has one, else None.

    Read from the element's `nonce` property: browsers hide the attribute's value from the DOM
    once a policy sent as a header applies (`getAttribute("nonce")` is then "").
    """
    document = document or page_window().document
    element = document.querySelector("[nonce]")
    nonce = getattr(element, "nonce", None) if element else None
    return nonce if isinstance(nonce, str) and nonce else None


def install_stylesheet(document: Any = None, *, href: str | None = None, nonce: str | None = None) -> None:
    """Give `document` (the page's by default) the chat's stylesheet, once; see the module docstring.

    Args:
        document: the document (the real page's from a worker too, by default).
        href: link the stylesheet from this URL (`"/pyclient/chat.css"`) instead of putting
            it inline.
        nonce: the Content-Security-Policy nonce for the inline `<style>` (or the `<link>`);
            None reads the page's own (`page_nonce`).
    """
    document = document or page_window().document
    if _linked(document, href):
        return
    nonce = nonce or page_nonce(document)
    if href:
        node = document.createElement("link")
        node.rel = "stylesheet"
        node.href = href
    else:
        node = document.createElement("style")
        node.textContent = _CSS_FILE.read_text("utf-8")
    node.id = STYLE_ID
    if nonce:
        # Before the node is in the document: the policy checks the nonce when it applies the style.
        node.setAttribute("nonce", nonce)
    document.head.prepend(node)


def styled_root(tag: str, cls: str, theme: str | None, *, href: str | None = None, nonce: str | None = None,
                **attributes: str) -> Any:
    """The root element of a widget the chat's stylesheet styles (a `Chat`, a `ThreadList`): the
    stylesheet given to the page first (`install_stylesheet(href=href, nonce=nonce)`), then a new
    `tag` with the class `cls` and `attributes` (as `el` sets them), its `data-theme` the `theme`
    that forces one (None follows the system)."""
    install_stylesheet(href=href, nonce=nonce)
    root = el(tag, cls, **attributes)
    if theme is not None:
        root.dataset.theme = theme
    return root
