"""Ready-made client tools for the page: selection, clipboard, storage, page text, DOM, background, toasts, canvas, files.

Each factory returns `ClientTool`s built with `client_tool()`, so schemas, validation,
approval, timeouts and `ctx.signal` work as for any tool; register them like your own
(`Agent(client_tools=[...])`, `agent.use_client_tool`, `use_client_tool`). Each tool reaches
only what its factory was given: an element (`root`, `container`, `element`: a JS element, a
`pyscript.web` element or a CSS selector looked up at each call), a storage prefix, the
clipboard. Text is written with `textContent`/`setAttribute`, never as HTML. What the model
gets wrong (a bad selector, a refused key or attribute, a refused permission) is an error
result that says what to do. See https://developer.mozilla.org/en-US/docs/Web/API/Clipboard_API
and https://developer.mozilla.org/en-US/docs/Web/API/Web_Storage_API

One module a family (`_selection`, `_clipboard`, `_storage`, `_page_text`, `_dom`,
`_background`, `_notify`, `_canvas`, `_file_request`), what they share in the page in `_page`
(the area a tool works in). The bounds are pure functions that need no browser, beside their
family (`_storage_rules`, `_dom_rules`, `_background_rules`, `_file_request_rules`; `_rules` for
those several share), tested on CPython. The
names are imported when first used (PEP 562): a page loads only the families it uses, and
the rules modules import on CPython, where nothing can import `js`.

| factory | tools (default names) | bounds |
| --- | --- | --- |
| `selection_tool(*, max_chars=20_000)` | `read_selection()` | the selected text, "" when none; capped with how much was cut; never a password field |
| `clipboard_tools(*, write_requires_approval=True, max_chars=20_000, timeout_s=30)` | `read_clipboard()`, `write_clipboard(text)` | text only, capped / at most `max_chars`; writing waits for the user's approval; a refused permission or no answer within `timeout_s` is an error result saying so |
| `storage_tools(prefix, *, session=False, writable=True, max_value_chars=100_000)` | `storage_get(key)`, `storage_set(key, value)`, `storage_remove(key)`, `storage_list()` | `localStorage` (`sessionStorage` with `session=True`), keys under `prefix` only, relative, 1-200 characters, no `..`, `/`-leading, `\\` or control characters; values up to `max_value_chars`; a missing key is null; `writable=False`: get and list only |
| `page_text_tool(root, *, max_chars=20_000)` | `read_page_text(selector)` | elements matching the selector inside `root` only; rendered text, capped with how much was cut; an invalid selector is an error naming it |
| `dom_tools(root, *, requires_approval=False)` | `set_text(selector, text)`, `toggle_class(selector, class_name, on)`, `set_attribute(selector, name, value)` | inside `root` only; text as text (at most 10,000 characters); one CSS class name; attributes from an allowlist (`title alt placeholder lang dir role tabindex hidden aria-* data-*`, and `href src action xlink:href` with http(s), mailto or relative URLs; never `on*`, `style`, `class`, `id`, `srcdoc`, `formaction`, `data-pyclient-*`) |
| `background_tool(element=None)` | `change_background(background)` | the page's `<body>` or `element`; a value `CSS.supports("background", ...)` accepts that loads no URL |
| `notify_tool(container, *, duration_s=5)` | `show_toast(message, kind="info")` | a text-only toast (`role="status"`, `aria-live="polite"`, class `pyclient-toast pyclient-toast-<kind>`) in `container`, removed after `duration_s`; kind is info, success, warning or error; at most 500 characters |
| `canvas_tool(canvas, *, description=None)` | `capture_canvas()` | the `<canvas>` as drawn now, as a PNG `Image` after a line naming it and its size; a canvas gone, empty or tainted (`SecurityError`) is an error result saying so |
| `file_request_tool(*, accept=None, max_bytes=10_000_000)` | `request_file(prompt)` | render-only: the card shows the prompt, Choose a file… and Decline (trusted clicks only); the file picked, if `accept` takes it and it is at most `max_bytes`, is the result; Decline is an error the model reads |

Single-tool factories take `name=`; multi-tool ones take `names=`, a mapping from default
name to the name to use (`clipboard_tools(names={"read_clipboard": "paste"})`).

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
    "selection_tool": "._selection",
    "storage_tools": "._storage",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
