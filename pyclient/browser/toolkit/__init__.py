"""Ready-made client tools for the page: selection, clipboard, storage, page text, DOM, background, toasts, canvas, files.

Each factory returns `ClientTool`s built with `client_tool()`, so schemas, validation,
approval, timeouts and `ctx.signal` work as for any tool; register them like your own. Each
tool reaches only what its factory was given (an element or a CSS selector looked up at each
call, a storage prefix, the clipboard), writes text with `textContent`/`setAttribute`, never as
HTML, and answers what the model gets wrong with an error result that says what to do.
Single-tool factories take `name=`, multi-tool ones `names=` (default name -> name to use).
One module a family; its bounds are pure functions beside it (`_storage_rules`, `_dom_rules`,
...), tested on CPython. The names are imported when first used (PEP 562), so a page loads only
the families it uses. Every tool and its bounds: docs/toolkit.md.

```python
from pyscript import document
from pyclient import Agent
from pyclient.browser.toolkit import dom_tools, notify_tool, page_text_tool, selection_tool, storage_tools

panel = document.querySelector("#panel")
note = document.createElement("p")
note.textContent = "Shopping: apples, pears"
panel.append(note)

read_text = page_text_tool("#panel", max_chars=5_000)          # reads inside #panel only
set_text, toggle_class, set_attribute = dom_tools("#panel", requires_approval=True)
agent = Agent("main", url="/agent", client_tools=[
    selection_tool(), read_text, set_text, toggle_class, set_attribute,
    *storage_tools("notes/"), notify_tool("#panel"),
])
print((await read_text.execute({"selector": "p"})).content)     # Shopping: apples, pears
print((await set_attribute.execute({"selector": "p", "name": "onclick", "value": "x()"})).error)  # Attribute 'onclick' is refused: ...
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._base._lazy import lazy_exports

if TYPE_CHECKING:
    from ._background import background_tool
    from ._canvas import canvas_tool
    from ._clipboard import clipboard_tools
    from ._dom import MAX_SET_TEXT_CHARS, dom_tools
    from ._file_request import MAX_PROMPT_CHARS, file_request_tool
    from ._notify import MAX_TOAST_CHARS, ToastKind, notify_tool
    from ._page_text import page_text_tool
    from ._python import python_tool
    from ._selection import selection_tool
    from ._storage import storage_tools

__all__ = [
    "MAX_PROMPT_CHARS",
    "MAX_SET_TEXT_CHARS",
    "MAX_TOAST_CHARS",
    "ToastKind",
    "background_tool",
    "canvas_tool",
    "clipboard_tools",
    "dom_tools",
    "file_request_tool",
    "notify_tool",
    "page_text_tool",
    "python_tool",
    "selection_tool",
    "storage_tools",
]

# Each public name and the module that defines it.
_HOMES = {
    "MAX_PROMPT_CHARS": "._file_request",
    "MAX_SET_TEXT_CHARS": "._dom",
    "MAX_TOAST_CHARS": "._notify",
    "ToastKind": "._notify",
    "background_tool": "._background",
    "canvas_tool": "._canvas",
    "clipboard_tools": "._clipboard",
    "dom_tools": "._dom",
    "file_request_tool": "._file_request",
    "notify_tool": "._notify",
    "page_text_tool": "._page_text",
    "python_tool": "._python",
    "selection_tool": "._selection",
    "storage_tools": "._storage",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
