"""Tool cards: one `<li>` per tool call, updated in place as the call streams, waits, runs and ends.

A card shows the tool's name and a status badge in words (`STATUS_WORDS`), the machine status
in `data-status`, the renderer state in `data-state` and, while the call waits for the person,
the action's status in `data-action`. Arguments and result are in collapsible `<details>`:
streamed arguments are appended (linear cost) and formatted once complete (up to
`FORMAT_MAX`); text over `PREVIEW_CHARS` shows its first part and a "Show all" button
(`_preview`), as laying a megabyte out again at each delta froze the page. It is all
untrusted text: text nodes, invisible characters marked. A result's files show below it
(`_media_nodes`), each thumbnail sized before it loads. A tool's renderer
(`thread.renderer(name)`) fills the body, called again only when its part changed; one that
raises gets a contained fallback. What the card shows: docs/chat.md ("What it shows").

```python
from pyclient import ToolPart
from pyclient.browser._widgets._cards import Card

card = Card("c1", "change_background")
card.update(ToolPart(tool_call_id="c1", tool_name="change_background", state="output-available",
                     arguments='{"background": "blue"}', output="background is now blue", error_text=None,
                     cancelled=False, run_status="idle", action=None, status="completed", tool=None))
print(card.node.dataset.status, card.node.querySelector(".pyclient-badge").textContent)  # completed done

from pyclient import Image
shot = Card("c2", "snapshot")
shot.update(ToolPart(tool_call_id="c2", tool_name="snapshot", state="output-available", arguments="{}",
                     output="", error_text=None, cancelled=False, run_status="idle", action=None,
                     status="completed", tool=None, media=(Image(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8), filename="s.png"),)))
print(shot.node.querySelector(".pyclient-tool-media img").src[:5], shot.node.querySelector(".pyclient-tool-result-box").hidden)  # blob: True
```
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._base._json import loads
from .._page._document import append_node
from .._page._nodes import append_visible, el, set_visible
from ._media_nodes import media_list
from ._preview import Preview
from ._widget import Click, Widget

if TYPE_CHECKING:
    from ..._conversation._parts import ToolPart
    from ..._tools._media import Media
    from ._approval import ApprovalBar

__all__ = ["FORMAT_MAX", "STATUS_WORDS", "THUMBNAIL", "Card", "files_key", "put_view", "render_error", "status_name"]

logger = logging.getLogger("pyclient")

STATUS_WORDS = {
    "streaming": "streaming",
    "unavailable": "waiting for the tool",
    "awaiting_approval": "awaiting approval",
    "awaiting_input": "awaiting input",
    "executing": "running",
    "interrupted": "interrupted",
    "completed": "done",
    "failed": "failed",
    "cancelled": "cancelled",
}
"""The badge's words for each machine status name."""

# A result or argument JSON shorter than this is shown on one line, longer ones indented.
_ONE_LINE = 72

FORMAT_MAX = 100_000
"""Complete arguments longer than this (characters) stay as they streamed, not reformatted."""

THUMBNAIL = (352, 256, 48)
"""The box of a result's image in CSS pixels: at most this wide and high, and at least this
wide (chat.css says the same in rem: 22rem, 16rem, 3rem)."""

Renderer = Callable[["ToolPart"], Any]


_TEMPLATE: list[Any] = []


def _template() -> Any:
    """The card every card is cloned from (made once per page)."""
    if not _TEMPLATE:
        node = el("li", "pyclient-tool")
        head = el("div", "pyclient-tool-head")
        head.append(el("span", "pyclient-tool-name"), el("span", "pyclient-badge"))
        body = el("div", "pyclient-tool-body")
        body.hidden = True
        args_box = el("details", "pyclient-tool-args-box")
        args_box.append(el("summary", "", "Arguments"), el("pre", "pyclient-tool-args"))
        result_box = el("details", "pyclient-tool-result-box")
        result_box.hidden = True
        result_box.append(el("summary", "", "Result"), el("pre", "pyclient-tool-result"))
        node.append(head, body, args_box, result_box)
        _TEMPLATE.append(node)
    return _TEMPLATE[0]


def status_name(part: ToolPart) -> str:
    """The call's machine status name; for a call the machine does not track (a backend
    tool's), the one its state implies. A server tool's call whose approval was cancelled,
    expired or rejected reads so (`"cancelled"`, `"failed"`, as a client tool's would), whatever
    result the server sent for it afterwards."""
    interrupt = part.interrupt
    if interrupt is not None and interrupt.is_approval and part.action is None:
        if interrupt.status in ("cancelled", "expired"):
            return "cancelled"
        payload = interrupt.payload
        if interrupt.status == "resolved" and isinstance(payload, dict) and payload.get("approved") is False:
            return "failed"
    if part.status is not None:
        return part.status
    if part.state == "input-streaming":
        return "streaming"
    if part.state == "input-available":
        return "executing"
    if part.state == "output-available":
        return "completed"
    return "cancelled" if part.cancelled else "failed"


def formatted(value: Any) -> str:
    """A JSON value as the card shows it: on one line when short, else indented; an object with
    a text of several lines (code, a letter) as `name:` then that text as written, not escaped."""
    if isinstance(value, dict) and any(isinstance(item, str) and "\n" in item for item in value.values()):
        return "\n".join(f"{key}:\n{item}" if isinstance(item, str) and "\n" in item
                         else f"{key}: {json.dumps(item, ensure_ascii=False)}" for key, item in value.items())
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= _ONE_LINE:
        return text
    return json.dumps(value, ensure_ascii=False, indent=2)


def files_key(media: tuple[Media, ...]) -> tuple[Any, ...]:
    """What the card shows of a result's files: it redraws them only when this changes (a
    reload that restores a file's bytes changes `kept`; the bytes are not compared)."""
    return tuple((m.kind, m.mime_type, m.filename, m.url, m.size, m.kept) for m in media)


def _result_files(media: tuple[Media, ...]) -> Any:
    """The result's files, each image with its box set from its header (when it can be read)."""
    return media_list(media, "pyclient-tool-media", box=THUMBNAIL)


def _formatted_arguments(arguments: str) -> str:
    try:
        return formatted(loads(arguments))
    except ValueError:  # not JSON, or past the parser's limits (JSONLimitError): as the model wrote them
        return arguments


class Card(Widget):
    """The card of one tool call (`node`), updated in place by `update(part)`.

    Args:
        call_id: the `toolCallId` (`data-tool-call-id`).
        name: the tool's name (`data-tool`).

    Attributes:
        node: the card's `<li>`.
        status: the machine status name shown now ("" before the first update).
        bar_status: the action status its button bar answers (None: no bar).
        bar: the button bar's element, once `set_bar()` put one in.
    """

    def __init__(self, call_id: str, name: str) -> None:
        # A clone of one template, then its parts by position: a dozen calls into JS, not fifty.
        super().__init__("c:" + call_id, _template().cloneNode(True))
        self.call_id = call_id
        self.name = name
        node = self.node
        self.dataset.toolCallId = call_id
        self.dataset.tool = name
        head = node.firstElementChild
        set_visible(head.firstElementChild, name)  # the template's name is empty
        self._badge = head.lastElementChild
        self._result_box = node.lastElementChild
        self._args_box = self._result_box.previousElementSibling
        self._args = self._args_box.lastElementChild
        self._result = self._result_box.lastElementChild
        # Read when first needed (a renderer's view; an error's summary): a thousand cards
        # made at once are a thousand times each read.
        self._body: Any = None
        self._result_summary: Any = None
        self._summary_words = "Result"  # the template's
        self._result_hidden = True
        self._args_view = Preview(self._args, "args")      # huge ones: the first part, the rest on request
        self._result_view = Preview(self._result, "result")
        self.status = ""
        self.bar_status: str | None = None
        self.bar: Any = None
        self.approval: ApprovalBar | None = None  # the approval bar's widget, while the call awaits one
        self._state = ""
        self._action_status: str | None = None
        self._shown_args = ""
        self._args_final = False
        self._result_key: tuple[Any, ...] | None = None
        self._files: Any = None  # the result's files (a `.pyclient-tool-media` list), once it has some
        self._render_key: tuple[Any, ...] | None = None
        self._rendered = False

    # -- the default card --------------------------------------------------------------------

    def update(self, part: ToolPart, renderer: Renderer | None = None) -> None:
        """Show `part`: status, arguments, result; and the renderer's output when it changed."""
        data = self.dataset
        status = status_name(part)
        if status != self.status:
            # Open while the user should read them; closed once the call is past that (the
            # template's is closed: a new card that should be closed is not written to).
            opened = status in ("streaming", "awaiting_approval")
            if self.status or opened:
                self._args_box.open = opened
            self.status = status
            data.status = status
            self._badge.textContent = STATUS_WORDS.get(status, status.replace("_", " "))
            self._badge.dataset.status = status
        if part.state != self._state:
            self._state = part.state
            data.state = part.state
        action_status = part.action.status if part.action is not None else None
        if action_status != self._action_status:
            self._action_status = action_status
            if action_status is None:
                self.node.removeAttribute("data-action")
            else:
                data.action = action_status
        self._show_arguments(part.arguments, streaming=part.state == "input-streaming")
        self._show_result(part)
        if renderer is not None:
            self._render(renderer, part)

    def _show_arguments(self, arguments: str, *, streaming: bool) -> None:
        view = self._args_view
        if streaming or not arguments:
            if self._args_final or not arguments.startswith(self._shown_args):
                view.set(arguments)  # replaced (a snapshot), not extended
                self._args_final = False
            elif len(arguments) > len(self._shown_args):
                # A delta: append only the new part, so a long argument costs linear time.
                view.extend(arguments)
            self._shown_args = arguments
            return
        if self._args_final and arguments == self._shown_args:
            return
        if len(arguments) > FORMAT_MAX and not self._args_final and arguments.startswith(self._shown_args):
            # Complete but long: left as it streamed (its rest appended). Formatting would parse
            # and write it again, and lay it all out afresh.
            view.extend(arguments)
            self._shown_args = arguments
            self._args_final = True
            return
        # Complete: shown once more, formatted.
        view.set(_formatted_arguments(arguments))
        self._shown_args = arguments
        self._args_final = True

    def _show_result(self, part: ToolPart) -> None:
        # A call is answered once: its result never changes after that (its files may, when a
        # snapshot or a reload brings them again).
        if part.state in ("output-available", "output-error"):
            key: tuple[Any, ...] = (part.state, part.cancelled, files_key(part.media))
        else:
            key = ("none",)
        if key == self._result_key:
            return
        self._result_key = key
        self._show_files(part.media if key != ("none",) else ())
        if key == ("none",):
            self._hide_result(True)
            return
        if part.state == "output-error":
            text = part.error_text or ""
            self._summarize("Cancelled" if part.cancelled else "Error")
        else:
            output = part.output
            text = output if isinstance(output, str) else formatted(output)
            self._summarize("Result")
        self._result_view.set(text)
        # A result that is only files (`-> Image`) has no text to open.
        self._hide_result(not text and bool(part.media))

    def _summarize(self, words: str) -> None:
        if words != self._summary_words:
            if self._result_summary is None:
                self._result_summary = self._result_box.firstElementChild
            self._result_summary.textContent = self._summary_words = words

    def _hide_result(self, hidden: bool) -> None:
        if hidden != self._result_hidden:
            self._result_box.hidden = self._result_hidden = hidden

    def _show_files(self, media: tuple[Media, ...]) -> None:
        if self._files is not None:
            self._files.remove()
            self._files = None
        if media:
            # Beside the result's text, not inside its <details>: an image is there to be seen.
            self._files = _result_files(media)
            self._result_box.after(self._files)

    def show_all(self, part: str) -> None:
        """Show the whole arguments (`part` "args") or result ("result"), not their first
        `PREVIEW_CHARS` characters only (`pyclient.browser._widgets._preview`)."""
        (self._args_view if part == "args" else self._result_view).show_all()

    # -- the button bar (approvals, interrupted calls) ------------------------------------------

    def on_command(self, click: Click) -> bool:
        """Show all (a huge argument or result shown whole, `_preview`), and the approval bar's
        Edit, which opens or closes its form (the person's clicks only)."""
        if click.command == "show-all":
            self.show_all(str(click.target.dataset.part))
            return True
        if click.command == "edit" and self.approval is not None:
            if click.trusted:
                self.approval.toggle_edit()
            return True
        return False

    def set_bar(self, status: str | None, bar: Any, approval: ApprovalBar | None = None) -> None:
        """Replace the card's button bar with `bar` (a node, or None for none), answering
        `status`; `approval` is the bar's widget when it is an approval bar (its form is read)."""
        if self.bar is not None:
            self.bar.remove()
        self.bar = bar
        self.approval = approval
        self.bar_status = status if bar is not None else None
        if bar is not None:
            self.node.append(bar)

    # -- renderers ----------------------------------------------------------------------------

    def _render(self, renderer: Renderer, part: ToolPart) -> None:
        key = part.key
        if key == self._render_key:
            return
        self._render_key = key
        try:
            self._put(renderer(part))
        except Exception as exc:
            logger.exception("pyclient: the renderer of tool %r raised on call %s", part.tool_name, part.tool_call_id)
            self._put(render_error("This tool's view could not be shown. ", exc))

    def _put(self, shown: Any) -> None:
        if self._body is None:
            self._body = self._args_box.previousElementSibling
        self._rendered = put_view(self._body, shown)
        # A renderer's view replaces the default arguments and result.
        self.node.classList.toggle("pyclient-rendered", self._rendered)


def render_error(words: str, exc: BaseException) -> Any:
    """The contained fallback of a renderer that raised: `words`, then the exception as text."""
    fallback = el("div", "pyclient-render-error", role="alert")
    fallback.append(el("strong", "", words))
    append_visible(fallback, f"{type(exc).__name__}: {exc}")
    return fallback


def put_view(body: Any, shown: Any) -> bool:
    """Put a renderer's output in `body` (emptied first): a str as text, a DOM node, a
    `pyscript.web` element; None hides `body`. Returns whether it shows anything.

    Raises:
        TypeError: `shown` is none of those (the body is left empty and hidden).
    """
    body.replaceChildren()
    body.hidden = True
    if shown is None:
        return False
    if isinstance(shown, str):
        append_visible(body, shown)
    else:
        append_node(body, shown)
    body.hidden = False
    return True
