"""`clipboard_tools()`: tools that read and write the user's clipboard, text only.

Besides the two handlers, this module turns the browser's answers (a refused permission, a
page without focus, a prompt nobody answers) into error results that tell the model what to do.
See https://developer.mozilla.org/en-US/docs/Web/API/Clipboard_API

```python
from pyclient.browser.toolkit import clipboard_tools

paste, copy = clipboard_tools(names={"read_clipboard": "paste"}, timeout_s=5)
print(paste.name, copy.name, copy.requires_approval)     # paste write_clipboard True
```
"""

import asyncio
from collections.abc import Mapping
from typing import Annotated, Any

from annotated_types import MaxLen

from ..._base._errors import ToolError
from ..._tools._client_tool import ClientTool, client_tool
from .._page._page_promise import settled
from .._page._page_window import page_window
from ._page import missing
from ._rules import cap_text, check_limit, count_of, tool_names

__all__ = ["clipboard_tools"]


async def _clipboard(action: str, tool: str, timeout_s: float, text: str | None = None) -> Any:
    clipboard: Any = getattr(page_window().navigator, "clipboard", None)
    if missing(clipboard):
        raise ToolError(
            "The clipboard is not available in this page (it needs https or localhost). "
            f"Tell the user {tool} cannot work here."
        )
    call = settled(clipboard, "readText") if text is None else settled(clipboard, "writeText", text)
    try:
        # Shielded, and `settled` never raises the page's rejection, so a call cancelled
        # mid-way (ctx.signal, timeout) leaves no stray JS rejection.
        outcome = await asyncio.wait_for(asyncio.shield(call), timeout_s)
    except TimeoutError:
        raise ToolError(
            f"The browser did not let the page {action} the clipboard within {timeout_s:g} s: it is probably "
            "waiting for the user to answer its permission prompt. Ask the user to allow clipboard access, "
            f"then call {tool} again."
        ) from None
    if outcome.error is None:
        return outcome.value
    name, message = outcome.error, outcome.message
    if name == "NotAllowedError" and "focus" in message.lower():
        raise ToolError(
            f"The browser refused to {action} the clipboard because the page does not have focus "
            f"(NotAllowedError: {message}). Ask the user to click on the page, then call {tool} again."
        )
    if name == "NotAllowedError":
        raise ToolError(
            f"The user or the browser refused to let this page {action} the clipboard "
            f"(NotAllowedError: {message}). Ask the user to allow clipboard access for this site "
            f"(the site settings next to the address bar), then call {tool} again; do not retry before."
        )
    raise ToolError(f"Could not {action} the clipboard ({name}: {message}). Tell the user.")


def clipboard_tools(
    *,
    write_requires_approval: bool = True,
    max_chars: int = 20_000,
    timeout_s: float = 30.0,
    names: Mapping[str, str] | None = None,
) -> tuple[ClientTool, ClientTool]:
    """Tools that read and write the user's clipboard (text only).

    In Chromium, reading needs the "clipboard-read" permission: the browser asks the user,
    or refuses at once when it cannot ask (headless Chromium refuses with `NotAllowedError`).
    Writing needs the page to have focus. A refusal, and a prompt left unanswered for
    `timeout_s`, is an error result that tells the model to ask the user.

    Args:
        write_requires_approval: `write_clipboard` waits for the user's approval (the default).
        max_chars: the most characters `read_clipboard` returns (a longer text is cut, with a
            note) and `write_clipboard` accepts (its schema's `maxLength`).
        timeout_s: how long a call waits for the browser to answer (the user's permission
            prompt) before it fails.
        names: new names by default name (`"read_clipboard"`, `"write_clipboard"`).

    Returns:
        `(read_clipboard, write_clipboard)`.

    Raises:
        ConfigurationError: an invalid bound, or `names` renames a tool this call does not make.
    """
    check_limit(max_chars, "max_chars")
    check_limit(timeout_s, "timeout_s", minimum=0.001)
    chosen = tool_names(("read_clipboard", "write_clipboard"), names, factory="clipboard_tools")
    read_name, write_name = chosen["read_clipboard"], chosen["write_clipboard"]

    async def read_clipboard() -> str:
        text = await _clipboard("read", read_name, timeout_s)
        return cap_text("" if missing(text) else str(text), max_chars)

    async def write_clipboard(text: Annotated[str, MaxLen(max_chars)]) -> str:
        """Args:
            text: the text to copy
        """
        await _clipboard("write", write_name, timeout_s, text)
        return f"copied {count_of(len(text), 'character')} to the clipboard"

    approval = " The user approves each call first." if write_requires_approval else ""
    return (
        client_tool(read_clipboard, name=read_name, description=(
            "Read the text on the user's clipboard. The browser may ask the user for permission; a refusal is "
            f"an error saying so. Returns at most {max_chars:,} characters, with a note saying how much was cut."
        )),
        client_tool(write_clipboard, name=write_name, requires_approval=write_requires_approval, description=(
            f"Copy text (at most {max_chars:,} characters) to the user's clipboard, replacing what is there."
            + approval
        )),
    )
