"""`notify_tool(container)`: a tool that shows the user a short text notification (a toast) in `container`.

A toast is a live region (`role="status"`) holding text only; pyclient ships no CSS for it:
style `.pyclient-toast` and `.pyclient-toast-<kind>` in the page.
See https://developer.mozilla.org/en-US/docs/Web/Accessibility/ARIA/Reference/Roles/status_role

```python
from pyscript import document
from pyclient.browser.toolkit import notify_tool

show_toast = notify_tool("#panel", duration_s=1)
result = await show_toast.execute({"message": "Saved!", "kind": "success"})
print(result.content)                                      # showed the user a notification (success) for 1 s
print(document.querySelector("#panel .pyclient-toast-success").textContent)   # Saved!
```
"""

import asyncio
from typing import Annotated, Any, Literal

from annotated_types import MaxLen, MinLen

from ..._tools._client_tool import ClientTool, client_tool
from .._page._page_window import page_window
from .._page._visible import visible
from ._page import Area
from ._rules import check_limit

__all__ = ["MAX_TOAST_CHARS", "ToastKind", "notify_tool"]

MAX_TOAST_CHARS = 500
"""The longest message `show_toast` shows."""

ToastKind = Literal["info", "success", "warning", "error"]
"""The kinds of toast `show_toast` shows (its class is `pyclient-toast-<kind>`)."""


def notify_tool(container: Any, *, duration_s: float = 5.0, name: str = "show_toast") -> ClientTool:
    """A tool that shows the user a short text notification (a toast) in `container`.

    Each toast is a `<div class="pyclient-toast pyclient-toast-<kind>" role="status"
    aria-live="polite" data-kind="<kind>">` whose text is the message (`textContent`, never
    HTML; its invisible characters written as markers, `⟨U+202E⟩`), appended to `container` and removed after `duration_s`. Style it with those classes.

    Args:
        container: a JS element, a `pyscript.web` element or a CSS selector looked up at each call.
        duration_s: seconds a toast stays.
        name: the tool's name.

    Returns:
        The `show_toast(message, kind="info")` tool.

    Raises:
        ConfigurationError: `container` is not an element or a valid selector, or an invalid
            `duration_s`.
    """
    area = Area(container, "notify_tool")
    check_limit(duration_s, "duration_s", minimum=0.001)

    def show_toast(message: Annotated[str, MinLen(1), MaxLen(MAX_TOAST_CHARS)], kind: ToastKind = "info") -> str:
        """Args:
            message: the text to show, plain text
            kind: how the toast looks
        """
        host = area.resolve()
        toast = page_window().document.createElement("div")
        toast.className = f"pyclient-toast pyclient-toast-{kind}"
        toast.setAttribute("role", "status")
        toast.setAttribute("aria-live", "polite")
        toast.setAttribute("data-kind", kind)
        toast.textContent = visible(message)  # the model's words: a bidi override shown, never obeyed
        host.append(toast)
        asyncio.get_running_loop().call_later(duration_s, toast.remove)
        return f"showed the user a notification ({kind}) for {duration_s:g} s"

    return client_tool(show_toast, name=name, description=(
        f"Show the user a short notification on the page (plain text, at most {MAX_TOAST_CHARS} characters) "
        f"that disappears after {duration_s:g} s. kind is info, success, warning or error."
    ))
