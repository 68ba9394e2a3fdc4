"""`background_tool()`: a tool that changes the CSS background of the page's `<body>` or of one element.

The browser says what a background value is (`CSS.supports`); which values would load a URL,
and are refused, is `pyclient.browser.toolkit._background_rules`.
See https://developer.mozilla.org/en-US/docs/Web/API/CSS/supports_static

```python
from pyscript import document
from pyclient.browser.toolkit import background_tool

change_background = background_tool("#panel")
result = await change_background.execute({"background": "teal"})
print(result.content)                                      # the background of the element '#panel' is now teal
print(document.querySelector("#panel").style.background)   # teal
error = (await change_background.execute({"background": "url(/a.png)"})).error
print("would load a URL" in error)                         # True
```
"""

from typing import Annotated, Any

from annotated_types import MaxLen, MinLen

from ..._base._errors import ToolError
from ..._tools._client_tool import ClientTool, client_tool
from .._page._page_window import page_window
from ._background_rules import background_loads_url
from ._page import Area

__all__ = ["background_tool"]


def background_tool(element: Any = None, *, name: str = "change_background") -> ClientTool:
    """A tool that changes the CSS background of the page's `<body>` or of `element`.

    The value is checked by the browser (`CSS.supports("background", value)`); one that
    would load a URL (`url()`, `image-set()`) is refused, so the model cannot make the page
    request anything. A refused value leaves the page as it was.

    Args:
        element: a JS element, a `pyscript.web` element or a CSS selector looked up at each
            call; None for `document.body`.
        name: the tool's name.

    Returns:
        The `change_background(background)` tool.

    Raises:
        ConfigurationError: `element` is not an element or a valid selector.
    """
    area = Area(element, "background_tool") if element is not None else None
    what = "the page" if area is None else f"the element {area.label}"

    def change_background(background: Annotated[str, MinLen(1), MaxLen(500)]) -> str:
        """Args:
            background: a CSS background value, such as 'teal' or a gradient
        """
        value = background.strip()
        if not page_window().CSS.supports("background", value):
            raise ToolError(
                f"{value[:80]!r} is not a CSS background value this browser accepts. Call {name} again with a "
                "colour ('teal', '#1e3a8a', 'rgb(30 58 138)') or a gradient ('linear-gradient(teal, navy)')."
            )
        probe = page_window().document.createElement("div")
        probe.style.background = value
        if background_loads_url(value) or background_loads_url(str(probe.style.cssText)):
            raise ToolError(
                f"{value[:80]!r} would load a URL; {name} takes colours and gradients only. Call it again "
                "without url() or image-set()."
            )
        target = page_window().document.body if area is None else area.resolve()
        target.style.background = value
        return f"the background of {what} is now {value}"

    return client_tool(change_background, name=name, description=(
        f"Change the background of {what}. Accepts a CSS background value such as 'teal', '#1e3a8a' or "
        "'linear-gradient(teal, navy)', checked by the browser; values that load a URL (url(), image-set()) "
        "are refused."
    ))
