"""`canvas_tool(canvas)`: a tool the model calls to see a `<canvas>` of the page, as a PNG image.

The handler reads the canvas as it is drawn now (`canvas.toDataURL("image/png")`) and returns
a line naming it and its size, then the PNG as an `Image`: the model gets it as an image part of
the tool result, and the chat's card shows it. A canvas that is gone, empty (0 pixels wide or
high) or tainted by a cross-origin image (the browser's `SecurityError`) is an error result
that says so.
See https://developer.mozilla.org/en-US/docs/Web/API/HTMLCanvasElement/toDataURL

```python
from pyscript import document
from pyclient.browser.toolkit import canvas_tool

canvas = document.createElement("canvas")
canvas.id, canvas.width, canvas.height = "sketch", 40, 20
document.querySelector("#panel").append(canvas)
canvas.getContext("2d").fillRect(0, 0, 40, 20)
capture = canvas_tool("#sketch")
result = await capture.execute({})
print(result.content, result.media[0].filename)   # The canvas '#sketch' as drawn now: 40×20 pixels. sketch.png
canvas.remove()
print((await capture.execute({})).error)           # The canvas '#sketch' is not on the page right now. ...
```
"""

from __future__ import annotations

from typing import Any

from pyodide.ffi import JsException

from ..._base._errors import ConfigurationError, ToolError
from ..._tools._client_tool import ClientTool, client_tool
from ..._tools._media import Image, Media
from ._page import Area, js_error, missing

__all__ = ["canvas_tool"]


def canvas_tool(canvas: Any, *, name: str = "capture_canvas", description: str | None = None) -> ClientTool:
    """A tool that gives the model a PNG image of `canvas` as it is drawn when it is called.

    Args:
        canvas: a `<canvas>` element (JS or `pyscript.web`) or a CSS selector looked up at each call.
        name: the tool's name.
        description: what the tool shows, for the model (say what the canvas holds: "the
            user's drawing", "the sales chart"); by default a sentence naming the canvas.

    Returns:
        The `capture_canvas()` tool (no arguments); its result is a line naming the canvas and
        its size, then the PNG (`pyclient.Image`, named `<canvas id>.png`).

    Raises:
        ConfigurationError: `canvas` is an element that is not a `<canvas>`, or not an
            element or a valid selector.
    """
    area = Area(canvas, "canvas_tool")
    if area.element is not None and not _is_canvas(area.element):
        raise ConfigurationError(
            f"canvas_tool() needs a <canvas> element, got {area.label}. Pass the canvas itself or a "
            "selector such as '#chart'."
        )
    # A page's label for the model: '#sketch' for a selector, <canvas#sketch> for an element.
    label = area.label

    def capture_canvas() -> list[str | Media]:
        element = _resolve(area, label)
        width, height = int(element.width), int(element.height)
        if width == 0 or height == 0:
            raise ToolError(
                f"The canvas {label} is empty ({width}×{height} pixels): there is nothing to see yet. "
                "Tell the user, or call this tool again once the page has drawn it."
            )
        try:
            url = str(element.toDataURL("image/png"))
        except JsException as exc:  # SecurityError: a cross-origin image was drawn on it
            if getattr(exc, "name", None) == "SecurityError":
                raise ToolError(
                    f"The browser does not let the page read the canvas {label}: it shows an image from "
                    f"another site, which taints it ({js_error(exc)}). Tell the user you cannot see it; "
                    "calling again will not help."
                ) from None
            raise ToolError(f"The canvas {label} could not be read ({js_error(exc)}). Tell the user.") from None
        element_id = str(element.id or "")
        image = Image.from_data_url(url, f"{element_id or name}.png")
        return [f"The canvas {label} as drawn now: {width}×{height} pixels.", image]

    return client_tool(capture_canvas, name=name, description=description or (
        f"See the canvas {label} of the page as a PNG image, as it is drawn now. Takes no arguments."
    ))


def _is_canvas(element: Any) -> bool:
    return str(getattr(element, "tagName", "") or "").upper() == "CANVAS"


def _resolve(area: Area, label: str) -> Any:
    try:
        element = area.resolve()
    except ToolError:
        raise ToolError(
            f"The canvas {label} is not on the page right now. Tell the user; do not call this tool "
            "again until the page shows it."
        ) from None
    if missing(element) or not _is_canvas(element):
        raise ToolError(
            f"{label} is not a <canvas> on the page now, so there is nothing to capture. Tell the user."
        )
    return element
