"""The options a client tool is made with, checked once: what can never work is refused at once.

`@client_tool` and `ClientTool(...)` both check them (`check_options`): a handler that is not
callable, a name the model APIs refuse (`TOOL_NAME_RE`), a timeout that is not a positive
number, a renderer that is not callable, a flag that is not a bool, and `render_only` with an
option its never-running handler cannot act on. Each `ConfigurationError` says what to pass.

```python
from pyclient import ConfigurationError
from pyclient._tools._tool_options import check_options

try:
    check_options("change background", print, None, None, False)
except ConfigurationError as exc:
    print(str(exc).split(":")[0])   # Tool name 'change background' is invalid
```
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, TypedDict

from .._base._errors import ConfigurationError

__all__ = ["TOOL_NAME_RE", "ToolOptions", "check_options"]

# What the major model APIs accept as a function name (OpenAI, Anthropic, Gemini).
TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolOptions(TypedDict, total=False):
    """`client_tool`'s keyword options, typed once for both its overloads (`**options: Unpack[ToolOptions]`);
    the function itself names them with their defaults."""

    name: str | None
    description: str | None
    requires_approval: bool
    timeout_s: float | None
    render: Callable[..., Any] | None
    render_only: bool
    idempotent: bool
    server_declared: bool


def check_options(
    name: Any, handler: Any, timeout_s: Any, render: Any, requires_approval: Any, render_only: Any = False,
    idempotent: Any = False, server_declared: Any = False,
) -> None:
    """Raise `ConfigurationError` for an option of a tool that can never work."""
    if not callable(handler):
        raise ConfigurationError(
            f"client_tool() needs a function, got {type(handler).__name__} {handler!r:.60}. "
            "Decorate a `def` or `async def` function (set the name with client_tool(name=...))."
        )
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        suggestion = re.sub(r"[^A-Za-z0-9_-]", "_", str(name))[:64].strip("_") or "my_tool"
        raise ConfigurationError(
            f"Tool name {name!r} is invalid: model APIs accept only 1 to 64 letters, digits, "
            f"'_' and '-' (^[A-Za-z0-9_-]{{1,64}}$). Pass a valid name, e.g. "
            f"client_tool(name={suggestion!r})."
        )
    if timeout_s is not None and (
        isinstance(timeout_s, bool)
        or not isinstance(timeout_s, (int, float))
        or math.isnan(timeout_s)
        or timeout_s <= 0
    ):
        raise ConfigurationError(
            f"timeout_s={timeout_s!r} for tool {name!r} is not a positive number of seconds. "
            "Pass a number greater than 0, or None for no timeout."
        )
    if render is not None and not callable(render):
        raise ConfigurationError(
            f"render for tool {name!r} must be callable, got {type(render).__name__}. "
            "Pass a function that renders the call, or None."
        )
    flags = {"requires_approval": requires_approval, "render_only": render_only, "idempotent": idempotent,
             "server_declared": server_declared}
    for option, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigurationError(
                f"{option} for tool {name!r} must be True or False, got {value!r}. Pass a bool."
            )
    if render_only and (requires_approval or timeout_s is not None):
        option = "requires_approval=True" if requires_approval else f"timeout_s={timeout_s!r}"
        raise ConfigurationError(
            f"Tool {name!r} is render_only, so its handler never runs and the user answers the call "
            f"in the page: {option} has nothing to act on. Remove {option.split('=')[0]}, or "
            "drop render_only to run the handler."
        )
