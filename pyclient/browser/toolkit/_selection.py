"""`selection_tool()`: a tool that reads the text the user has selected in the page.

Inside a focused `<input>` or `<textarea>` it reads the field's selected part (never a
password field's); elsewhere the document's selection. The text is capped at `max_chars`,
with a note saying how much was cut.
See https://developer.mozilla.org/en-US/docs/Web/API/Window/getSelection

```python
from pyscript import document
from pyclient.browser.toolkit import selection_tool

read_selection = selection_tool(max_chars=5_000)
field = document.createElement("textarea")
field.value = "abcdef"
document.querySelector("#panel").append(field)
field.focus()
field.setSelectionRange(1, 4)
print((await read_selection.execute({})).content)     # bcd
```
"""


from ..._tools._client_tool import ClientTool, client_tool
from .._page._page_window import page_window
from ._page import missing
from ._rules import cap_text, check_limit

__all__ = ["selection_tool"]


def _selected_text() -> str:
    """The selection: inside a focused text field its selected part (never a password's),
    else the document's selection."""
    active = page_window().document.activeElement
    if not missing(active):
        tag = str(getattr(active, "tagName", "") or "").lower()
        if tag == "input" and str(active.type).lower() == "password":
            return ""
        if tag in ("input", "textarea"):
            start, end = active.selectionStart, active.selectionEnd
            if not missing(start) and not missing(end):
                return str(active.value)[int(start):int(end)]
    selection = page_window().getSelection()
    return "" if missing(selection) else str(selection.toString())


def selection_tool(*, name: str = "read_selection", max_chars: int = 20_000) -> ClientTool:
    """A tool that reads the text the user has selected in the page.

    Args:
        name: the tool's name.
        max_chars: the most characters returned; a longer selection is cut, with a note
            saying how much.

    Returns:
        The `read_selection()` tool.

    Raises:
        ConfigurationError: an invalid name or `max_chars`.
    """
    check_limit(max_chars, "max_chars")

    def read_selection() -> str:
        return cap_text(_selected_text(), max_chars, hint="Ask the user to select less.")

    return client_tool(read_selection, name=name, description=(
        "Read the text the user has selected on the page; an empty string when nothing is selected. "
        f"Returns at most {max_chars:,} characters, with a note saying how much was cut. "
        "Text selected in a password field is never read."
    ))
