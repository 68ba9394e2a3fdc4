"""`file_request_tool()`: a render-only tool the model calls to ask the user for a file from their device.

No handler runs: the call's card shows the model's prompt, a "Choose a file…" button (it opens
a hidden `<input type="file">`) and "Decline". The file the user picks is checked
(`_file_request_rules.refusal`: the picker's `accept` is only a hint to the browser), read in the
page (`pyclient.browser._platform._files.read_media`) and submitted as the call's result: a line naming
it, then the file, which the model gets as a content part. Decline fails the call with
`DECLINED`, which the model reads. The buttons and the picker act on trusted events only
(`event.isTrusted`): a script cannot choose or decline for the user. Once answered the card is
the chat's default one, whose result shows the file.
See https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input/file

```python
from pyclient.browser.toolkit import file_request_tool

request_file = file_request_tool(accept="image/*,.pdf", max_bytes=5_000_000)
print(request_file.name, request_file.render_only)   # request_file True
print(request_file.description)                      # Ask the user to choose a file from their device ...
```
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from annotated_types import MaxLen, MinLen
from pyodide.ffi import create_proxy

from ..._base._errors import AttachmentError, LocalProtocolError, ToolError
from ..._tools._client_tool import ClientTool, client_tool
from ..._tools._media import Attachment, format_size
from .._page._nodes import append_visible, el, later
from .._platform._files import read_media
from ._file_request_rules import (
    DECLINED,
    accept_in_words,
    describe_accept,
    parse_accept,
    refusal,
    sent_text,
)
from ._rules import check_limit

if TYPE_CHECKING:
    from ..._conversation._action_handle import Action
    from ..._conversation._parts import ToolPart

__all__ = ["MAX_PROMPT_CHARS", "file_request_tool"]

logger = logging.getLogger("pyclient")

MAX_PROMPT_CHARS = 1_000
"""The longest prompt `request_file` shows."""


def file_request_tool(*, name: str = "request_file", accept: str | Sequence[str] | None = None,
                      max_bytes: int = 10_000_000, description: str | None = None) -> ClientTool:
    """A render-only tool the model calls to ask the user for a file; the card shows the prompt
    and a file picker, and the user's file is the result.

    Args:
        name: the tool's name.
        accept: the files the request takes: "image/*,.pdf" or a list of such items (file
            extensions, MIME types, `type/*`); None for any file. The picker offers these, and
            a file picked otherwise is refused in the card.
        max_bytes: the largest file the user may send (10 MB); a larger one is refused in the card.
        description: what the tool is for, for the model; by default a sentence saying what it
            does and what it accepts.

    Returns:
        The `request_file(prompt)` tool (`render_only`, with its renderer as `render`).

    Raises:
        ConfigurationError: a bad `accept` item or `max_bytes`.
    """
    tokens = parse_accept(accept)
    check_limit(max_bytes, "max_bytes")
    # One view per waiting call, by call id and action: two threads' calls may share an id.
    views: dict[tuple[str, int], _Request] = {}

    def render(part: ToolPart) -> Any:
        action = part.action
        if action is None or action.status != "awaiting_input":
            for key in [key for key, view in views.items() if key[0] == part.tool_call_id and view.action.done]:
                views.pop(key).dispose()
            return None  # streaming or answered: the chat's default card (its result shows the file)
        key = (part.tool_call_id, id(action))  # the view holds the action: its id stays its own
        view = views.get(key)
        if view is None:
            prompt = part.input.get("prompt")
            view = views[key] = _Request(action, str(prompt or "Choose a file to share."), tokens, max_bytes)
        return view.node  # built once: a re-render keeps what the user is doing

    def request_file(prompt: Annotated[str, MinLen(1), MaxLen(MAX_PROMPT_CHARS)]) -> list[str | Attachment]:
        """Args:
            prompt: what to ask the user for, and why (shown to them beside the file picker)
        """
        raise NotImplementedError  # render-only: the user answers in the card

    return client_tool(request_file, name=name, render_only=True, render=render, description=description or (
        "Ask the user to choose a file from their device and share it with you: the page shows your prompt "
        f"with a file picker. Takes {describe_accept(tokens)}, up to {format_size(max_bytes)}. The result is "
        "the file, after a line naming it; or an error saying the user declined."
    ))


class _Request:
    """The card's view of one waiting call: the prompt, Choose a file…, Decline; its listeners
    are removed and their proxies destroyed once the call is answered (`dispose`)."""

    def __init__(self, action: Action, prompt: str, accept: tuple[str, ...], max_bytes: int) -> None:
        self.action = action
        self.accept = accept
        self.max_bytes = max_bytes
        self.node = node = el("div", "pyclient-file-request")
        question = el("p", "pyclient-file-request-prompt")
        append_visible(question, prompt)  # the model's words: text, invisible characters shown
        hint = el("p", "pyclient-file-request-hint", f"{accept_in_words(accept)}, up to {format_size(max_bytes)}.")
        self._input = el("input", "pyclient-file-request-input", type="file", tabindex="-1")
        self._input.hidden = True
        if accept:
            self._input.accept = ",".join(accept)
        # `data-file-request`, not the chat's `data-command`: these buttons answer here.
        self._pick = el("button", "pyclient-file-request-pick", "Choose a file…", type="button",
                        data_file_request="pick")
        self._decline = el("button", "pyclient-file-request-decline", "Decline", type="button",
                           data_file_request="decline")
        buttons = el("div", "pyclient-buttons")
        buttons.append(self._pick, self._decline)
        self._status = el("p", "pyclient-file-request-status", role="status")
        self._status.hidden = True
        node.append(question, hint, self._input, buttons, self._status)
        self._reading: asyncio.Future[None] | None = None  # asyncio holds tasks weakly
        self._listeners = [(node, "click", create_proxy(self._on_click)),
                           (self._input, "change", create_proxy(self._on_change))]
        for target, kind, proxy in self._listeners:
            target.addEventListener(kind, proxy)

    def dispose(self) -> None:
        """Remove the listeners and destroy their proxies (after the event being handled, if any)."""
        listeners, self._listeners = self._listeners, []

        def release() -> None:
            for target, kind, proxy in listeners:
                target.removeEventListener(kind, proxy)
                proxy.destroy()

        later(release, 0)

    def _on_click(self, event: Any) -> None:
        button = event.target.closest("[data-file-request]")
        if not button or button.disabled or not self.node.contains(button):
            return
        if not event.isTrusted:  # a script's click is not the user's choice
            logger.info("pyclient: ignored a synthetic click on %s's file request", self.action.name)
            return
        if button.dataset.fileRequest == "pick":
            self._input.click()  # opens the picker: allowed inside the user's click
            return
        try:
            self.action.fail(DECLINED)
        except LocalProtocolError:
            pass  # answered meanwhile (stopped, cancelled): nothing to decline

    def _on_change(self, event: Any) -> None:
        # The card's own input: not the chat's composer, whose listeners must not see it.
        event.stopPropagation()
        files = self._input.files
        file = files.item(0) if files is not None and files.length else None
        if not file:
            return
        if not event.isTrusted:  # a script's file is not the user's choice
            logger.info("pyclient: ignored a synthetic file pick on %s's file request", self.action.name)
            return
        self._input.value = ""  # the same file can be picked again after a refusal
        filename, mime, size = str(file.name or "") or None, str(file.type or ""), int(file.size)
        refused = refusal(filename, mime, size, accept=self.accept, max_bytes=self.max_bytes)
        if refused is not None:
            self._say(refused, error=True)
            return
        self._busy(True)
        self._say(f"Reading {filename or 'the file'}…")
        self._reading = asyncio.ensure_future(self._send(file))

    async def _send(self, file: Any) -> None:
        try:
            media = await read_media(file)
        except (ToolError, AttachmentError) as exc:
            self._busy(False)
            self._say(f"This file could not be read: {exc}. Choose another file.", error=True)
            return
        if self.action.done:
            return  # answered while the file was read (stopped, cancelled)
        try:
            self.action.submit([sent_text(media.filename, media.mime_type, media.size or 0), media])
        except (ToolError, LocalProtocolError) as exc:
            self._busy(False)
            self._say(str(exc), error=True)

    def _busy(self, busy: bool) -> None:
        self._pick.disabled = self._decline.disabled = busy

    def _say(self, text: str, *, error: bool = False) -> None:
        self._status.textContent = text
        self._status.classList.toggle("pyclient-file-request-error", error)
        self._status.hidden = False
