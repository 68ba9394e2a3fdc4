"""`dom_tools(root)`: tools that change elements inside `root`: their text, their classes and safe attributes.

What "inside" means is `pyclient.browser.toolkit._page.Area`; which attributes and class names
are allowed is `pyclient.browser.toolkit._dom_rules`.
See https://developer.mozilla.org/en-US/docs/Web/API/Element/setAttribute

```python
from pyscript import document
from pyclient.browser.toolkit import dom_tools

document.querySelector("#panel").innerHTML = "<p class='note'>old</p><a href='/start'>start</a>"
set_text, toggle_class, set_attribute = dom_tools("#panel")
result = await set_text.execute({"selector": ".note", "text": "<b>new</b>"})
print(result.content)                                      # set the text of 1 element matching '.note'
print(document.querySelector("#panel .note").textContent)  # <b>new</b>
result = await set_attribute.execute({"selector": "a", "name": "href", "value": "javascript:x()"})
print(result.error)                                        # The value 'javascript:x()' of 'href' is refused: ...
```
"""

from collections.abc import Mapping
from typing import Annotated, Any

from annotated_types import MaxLen, MinLen

from ..._base._errors import ToolError
from ..._tools._client_tool import ClientTool, client_tool
from ._dom_rules import check_attribute, check_class_name
from ._page import Area, Selector, outermost
from ._rules import count_of, tool_names

__all__ = ["MAX_SET_TEXT_CHARS", "dom_tools"]

MAX_SET_TEXT_CHARS = 10_000
"""The longest text `set_text` writes."""


def _require(matches: list[Any], selector: str, area: Area, tool: str) -> list[Any]:
    if not matches:
        raise ToolError(
            f"No element inside {area.label} matches {selector!r}; nothing was changed. "
            f"Read the page first (e.g. read_page_text) and call {tool} again with a selector that matches."
        )
    return matches


def dom_tools(
    root: Any,
    *,
    requires_approval: bool = False,
    names: Mapping[str, str] | None = None,
) -> tuple[ClientTool, ClientTool, ClientTool]:
    """Tools that change elements inside `root`: their text, classes and safe attributes.

    Every change goes to `root.querySelectorAll(selector)` (each match checked with
    `root.contains`): nothing outside `root` is changed. A selector that matches nothing is
    an error result, and nothing changes.

    - `set_text(selector, text)`: the `textContent` of each outermost match (never HTML; at
      most `MAX_SET_TEXT_CHARS` characters).
    - `toggle_class(selector, class_name, on)`: `classList.toggle(class_name, on)` on each
      match; one CSS class name.
    - `set_attribute(selector, name, value)`: `setAttribute` on each match (`value` null
      removes it), for the names `pyclient.browser.toolkit._dom_rules.check_attribute` allows.

    Args:
        root: a JS element, a `pyscript.web` element, or a CSS selector looked up at each call.
        requires_approval: each call waits for the user's approval.
        names: new names by default name (`"set_text"`, `"toggle_class"`, `"set_attribute"`).

    Returns:
        `(set_text, toggle_class, set_attribute)`.

    Raises:
        ConfigurationError: `root` is not an element or a valid selector, or `names` renames
            a tool this call does not make.
    """
    area = Area(root, "dom_tools")
    chosen = tool_names(("set_text", "toggle_class", "set_attribute"), names, factory="dom_tools")
    inside = f"inside {area.label} only"

    def set_text(selector: Selector, text: Annotated[str, MaxLen(MAX_SET_TEXT_CHARS)]) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
            text: the new text, shown as plain text
        """
        matches = outermost(_require(area.matches(selector, chosen["set_text"]), selector, area, chosen["set_text"]))
        for node in matches:
            node.textContent = text
        return f"set the text of {count_of(len(matches))} matching {selector!r}"

    def toggle_class(selector: Selector, class_name: Annotated[str, MinLen(1), MaxLen(64)], on: bool) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
            class_name: one CSS class name
            on: true adds the class, false removes it
        """
        check_class_name(class_name, tool=chosen["toggle_class"])
        matches = _require(area.matches(selector, chosen["toggle_class"]), selector, area, chosen["toggle_class"])
        for node in matches:
            node.classList.toggle(class_name, on)
        verb = "added" if on else "removed"
        return f"{verb} class {class_name!r} on {count_of(len(matches))} matching {selector!r}"

    def set_attribute(
        selector: Selector,
        name: Annotated[str, MinLen(1), MaxLen(80)],
        value: Annotated[str | None, MaxLen(MAX_SET_TEXT_CHARS)],
    ) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
            name: the attribute's name
            value: the new value; null removes the attribute
        """
        attribute = check_attribute(name, value, tool=chosen["set_attribute"])
        matches = _require(area.matches(selector, chosen["set_attribute"]), selector, area, chosen["set_attribute"])
        for node in matches:
            if value is None:
                node.removeAttribute(attribute)
            else:
                node.setAttribute(attribute, value)
        if value is None:
            return f"removed {attribute!r} from {count_of(len(matches))} matching {selector!r}"
        return f"set {attribute!r} on {count_of(len(matches))} matching {selector!r}"

    approval = " The user approves each call first." if requires_approval else ""
    return (
        client_tool(set_text, name=chosen["set_text"], requires_approval=requires_approval, description=(
            f"Replace the text of every element that matches a CSS selector, {inside}. The text is shown as "
            f"plain text (never HTML), at most {MAX_SET_TEXT_CHARS:,} characters." + approval
        )),
        client_tool(toggle_class, name=chosen["toggle_class"], requires_approval=requires_approval, description=(
            f"Add (on=true) or remove (on=false) one CSS class on every element that matches a CSS selector, "
            f"{inside}." + approval
        )),
        client_tool(set_attribute, name=chosen["set_attribute"], requires_approval=requires_approval, description=(
            f"Set an attribute (or remove it, with value null) on every element that matches a CSS selector, "
            f"{inside}. Allowed: title, alt, placeholder, lang, dir, role, tabindex, hidden, aria-*, data-*, and "
            "href, src, action, xlink:href with http(s), mailto or relative URLs. Refused: event handlers "
            "(on*), style, class (use toggle_class), id, name, srcdoc, formaction." + approval
        )),
    )
