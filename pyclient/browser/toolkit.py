"""Ready-made client tools for the page: selection, clipboard, storage, page text, DOM, background, toasts.

Each factory returns `ClientTool`s built with `client_tool()`, so schemas, validation,
approval, timeouts and `ctx.signal` work as for any tool; register them like your own
(`Agent(client_tools=[...])`, `agent.use_client_tool`, `use_client_tool`). Each tool reaches
only what its factory was given: an element (`root`, `container`, `element`: a JS element, a
`pyscript.web` element or a CSS selector looked up at each call), a storage prefix, the
clipboard. Text is written with `textContent`/`setAttribute`, never as HTML. What the model
gets wrong (a bad selector, a refused key or attribute, a refused permission) is an error
result that says what to do. The bounds themselves are pure functions in
`pyclient._toolkit_rules`. See https://developer.mozilla.org/en-US/docs/Web/API/Clipboard_API
and https://developer.mozilla.org/en-US/docs/Web/API/Web_Storage_API

| factory | tools (default names) | bounds |
| --- | --- | --- |
| `selection_tool(*, max_chars=20_000)` | `read_selection()` | the selected text, "" when none; capped with how much was cut; never a password field |
| `clipboard_tools(*, write_requires_approval=True, max_chars=20_000, timeout_s=30)` | `read_clipboard()`, `write_clipboard(text)` | text only, capped / at most `max_chars`; writing waits for the user's approval; a refused permission or no answer within `timeout_s` is an error result saying so |
| `storage_tools(prefix, *, session=False, writable=True, max_value_chars=100_000)` | `storage_get(key)`, `storage_set(key, value)`, `storage_remove(key)`, `storage_list()` | `localStorage` (`sessionStorage` with `session=True`), keys under `prefix` only, relative, 1-200 characters, no `..`, `/`-leading, `\\` or control characters; values up to `max_value_chars`; a missing key is null; `writable=False`: get and list only |
| `page_text_tool(root, *, max_chars=20_000)` | `read_page_text(selector)` | elements matching the selector inside `root` only; rendered text, capped with how much was cut; an invalid selector is an error naming it |
| `dom_tools(root, *, requires_approval=False)` | `set_text(selector, text)`, `toggle_class(selector, class_name, on)`, `set_attribute(selector, name, value)` | inside `root` only; text as text (at most 10,000 characters); one CSS class name; attributes from an allowlist (`title alt placeholder lang dir role tabindex hidden aria-* data-*`, and `href src action xlink:href` with http(s), mailto or relative URLs; never `on*`, `style`, `class`, `id`, `srcdoc`, `formaction`, `data-pyclient-*`) |
| `background_tool(element=None)` | `change_background(background)` | the page's `<body>` or `element`; a value `CSS.supports("background", ...)` accepts that loads no URL |
| `notify_tool(container, *, duration_s=5)` | `show_toast(message, kind="info")` | a text-only toast (`role="status"`, `aria-live="polite"`, class `pyclient-toast pyclient-toast-<kind>`) in `container`, removed after `duration_s`; kind is info, success, warning or error; at most 500 characters |

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

import asyncio
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import js
from annotated_types import MaxLen, MinLen
from pyodide.ffi import JsException, jsnull

from .._errors import ConfigurationError, ToolError
from .._toolkit_rules import (
    MAX_KEY_CHARS,
    background_loads_url,
    cap_text,
    check_attribute,
    check_class_name,
    check_limit,
    check_storage_key,
    check_storage_prefix,
    tool_names,
)
from .._tools import ClientTool, client_tool

__all__ = [
    "MAX_SET_TEXT_CHARS",
    "MAX_TOAST_CHARS",
    "ToastKind",
    "background_tool",
    "clipboard_tools",
    "dom_tools",
    "notify_tool",
    "page_text_tool",
    "selection_tool",
    "storage_tools",
]

MAX_SET_TEXT_CHARS = 10_000
"""The longest text `set_text` writes."""

MAX_TOAST_CHARS = 500
"""The longest message `show_toast` shows."""

ToastKind = Literal["info", "success", "warning", "error"]
"""The kinds of toast `show_toast` shows (its class is `pyclient-toast-<kind>`)."""

# Constraints as annotated-types (pydantic reads them as it reads `Field(min_length=...)`) and
# descriptions in the handlers' `Args:`: `pydantic.Field` would import pydantic's JSON Schema
# machinery with the toolkit, which a page's boot should not pay for (see `pyclient._schema`).
Selector = Annotated[str, MinLen(1), MaxLen(1000)]


def _missing(value: Any) -> bool:
    """JS `null` (`jsnull`) or `undefined` (None)."""
    return value is None or value is jsnull


def _js_error(exc: BaseException) -> str:
    name, message = getattr(exc, "name", None), getattr(exc, "message", None)
    return f"{name}: {message}" if name and message else str(exc)


class _Area:
    """The element a root-bound tool works in, looked up at each call.

    Args:
        root: a JS element, a `pyscript.web` element, or a CSS selector (looked up with
            `document.querySelector` at each call).
        factory: the factory's name, for messages.

    Raises:
        ConfigurationError: `root` is none of these, or an invalid selector.
    """

    def __init__(self, root: Any, factory: str) -> None:
        self.selector: str | None = None
        self.element: Any = None
        if isinstance(root, str):
            try:
                js.document.createDocumentFragment().querySelector(root)
            except JsException as exc:
                raise ConfigurationError(
                    f"{factory}() got {root!r}, which is not a valid CSS selector ({_js_error(exc)}). "
                    "Pass a selector such as '#app', or the element itself."
                ) from None
            self.selector = root
            self.label = repr(root)
            return
        # pyscript.web elements wrap the DOM element in `_dom_element`.
        element = getattr(root, "_dom_element", root)
        if _missing(element) or not hasattr(element, "querySelectorAll") or not hasattr(element, "contains"):
            raise ConfigurationError(
                f"{factory}() needs a DOM element, a pyscript.web element or a CSS selector, got "
                f"{type(root).__name__}. Pass e.g. document.querySelector('#app') or '#app'."
            )
        self.element = element
        element_id = str(element.id or "") if hasattr(element, "id") else ""
        tag = str(getattr(element, "tagName", "") or "element").lower()
        self.label = f"<{tag}{'#' + element_id if element_id else ''}>"

    def resolve(self) -> Any:
        """The element, now.

        Raises:
            ToolError: the selector matches nothing, or the element is not in the document.
        """
        element = self.element
        if self.selector is not None:
            element = js.document.querySelector(self.selector)
            if _missing(element):
                raise ToolError(
                    f"The page area {self.label} this tool works in is not on the page right now. "
                    "Tell the user; do not call this tool again until the page shows it."
                )
        if not element.isConnected:
            raise ToolError(
                f"The page area {self.label} this tool works in is not in the document (the page removed it). "
                "Tell the user; do not call this tool again until the page shows it."
            )
        return element

    def matches(self, selector: str, tool: str) -> list[Any]:
        """The elements inside the area that match `selector`, in document order.

        Raises:
            ToolError: the area is gone, or `selector` is not a valid CSS selector.
        """
        root = self.resolve()
        try:
            found = root.querySelectorAll(selector)
        except JsException as exc:
            raise ToolError(
                f"{selector!r} is not a valid CSS selector ({_js_error(exc)}). Call {tool} again with a "
                "valid selector, such as 'h1', '.note' or 'ul > li'."
            ) from None
        return [node for node in found if root.contains(node) and node is not root]


def _outermost(nodes: list[Any]) -> list[Any]:
    """`nodes` (in document order) without those inside an earlier one: nested matches would
    be read twice, or written and then thrown away."""
    kept: list[Any] = []
    for node in nodes:
        if not kept or not kept[-1].contains(node):
            kept.append(node)
    return kept


def _text_of(node: Any) -> str:
    """An element's text as rendered (`innerText`), or its `textContent` where there is no
    `innerText` (SVG)."""
    text = getattr(node, "innerText", None)
    if _missing(text):
        text = node.textContent
    return "" if _missing(text) else str(text).strip()


def _require(matches: list[Any], selector: str, area: _Area, tool: str) -> list[Any]:
    if not matches:
        raise ToolError(
            f"No element inside {area.label} matches {selector!r}; nothing was changed. "
            f"Read the page first (e.g. read_page_text) and call {tool} again with a selector that matches."
        )
    return matches


def _count(n: int, noun: str = "element") -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# -- selection ------------------------------------------------------------------------------

def _selected_text() -> str:
    """The selection: inside a focused text field its selected part (never a password's),
    else the document's selection."""
    active = js.document.activeElement
    if not _missing(active):
        tag = str(getattr(active, "tagName", "") or "").lower()
        if tag == "input" and str(active.type).lower() == "password":
            return ""
        if tag in ("input", "textarea"):
            start, end = active.selectionStart, active.selectionEnd
            if not _missing(start) and not _missing(end):
                return str(active.value)[int(start):int(end)]
    selection = js.window.getSelection()
    return "" if _missing(selection) else str(selection.toString())


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


# -- clipboard ------------------------------------------------------------------------------

async def _clipboard(action: str, tool: str, timeout_s: float, text: str | None = None) -> Any:
    clipboard: Any = getattr(js.navigator, "clipboard", None)
    if _missing(clipboard):
        raise ToolError(
            "The clipboard is not available in this page (it needs https or localhost). "
            f"Tell the user {tool} cannot work here."
        )
    promise = clipboard.readText() if text is None else clipboard.writeText(text)
    try:
        # The promise never rejects (`catch(Object)` gives the error itself) and is shielded,
        # so a call cancelled mid-way (ctx.signal, timeout) leaves no stray JS rejection.
        value = await asyncio.wait_for(asyncio.shield(promise.catch(js.Object)), timeout_s)
    except TimeoutError:
        raise ToolError(
            f"The browser did not let the page {action} the clipboard within {timeout_s:g} s: it is probably "
            "waiting for the user to answer its permission prompt. Ask the user to allow clipboard access, "
            f"then call {tool} again."
        ) from None
    name = getattr(value, "name", None) if not isinstance(value, str) else None
    if name is None or getattr(value, "message", None) is None:
        return value
    message = str(value.message)
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
        return cap_text("" if _missing(text) else str(text), max_chars)

    async def write_clipboard(text: Annotated[str, MaxLen(max_chars)]) -> str:
        """Args:
            text: the text to copy
        """
        await _clipboard("write", write_name, timeout_s, text)
        return f"copied {_count(len(text), 'character')} to the clipboard"

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


# -- storage --------------------------------------------------------------------------------

def storage_tools(
    prefix: str,
    *,
    session: bool = False,
    writable: bool = True,
    max_value_chars: int = 100_000,
    names: Mapping[str, str] | None = None,
) -> tuple[ClientTool, ...]:
    """Tools that read and write text values in the page's Web Storage, under one prefix.

    The model names keys relative to `prefix` (key `"todo"` is stored as `prefix + "todo"`);
    no key outside the prefix can be read, written, removed or listed. Keys are 1 to 200
    characters, with no control characters, no backslash, no leading `/` and no `.` or `..`
    segment (`pyclient._toolkit_rules.check_storage_key`).

    Args:
        prefix: the namespace, non-empty and ending with one of `/ : . _ -` (e.g. `"notes/"`).
        session: use `sessionStorage` (this tab only) instead of `localStorage`.
        writable: also make `storage_set` and `storage_remove`; False gives get and list only.
        max_value_chars: the longest value `storage_set` accepts; `storage_get` cuts a longer
            value the page wrote itself (`"cut"` says how many characters).
        names: new names by default name (`"storage_get"`, `"storage_set"`,
            `"storage_remove"`, `"storage_list"`).

    Returns:
        `(storage_get, storage_set, storage_remove, storage_list)`, or
        `(storage_get, storage_list)` when `writable=False`.

    Raises:
        ConfigurationError: an invalid prefix or bound, or `names` renames a tool this call
            does not make.
    """
    check_storage_prefix(prefix)
    check_limit(max_value_chars, "max_value_chars")
    defaults = ("storage_get", "storage_set", "storage_remove", "storage_list") if writable else (
        "storage_get", "storage_list")
    chosen = tool_names(defaults, names, factory="storage_tools")
    kind = "sessionStorage" if session else "localStorage"
    where = ("the browser's sessionStorage (kept while this tab is open)" if session
             else "the browser's localStorage (kept across visits)")
    Key = Annotated[str, MinLen(1), MaxLen(MAX_KEY_CHARS)]

    def area() -> Any:
        try:
            return js.sessionStorage if session else js.localStorage
        except JsException as exc:
            raise ToolError(f"The page cannot use {kind} ({_js_error(exc)}). Tell the user.") from None

    def storage_get(key: Key) -> dict[str, Any]:
        """Args:
            key: a relative key, such as 'todo' or 'lists/groceries'
        """
        check_storage_key(key, tool=chosen["storage_get"])
        value = area().getItem(prefix + key)
        if _missing(value):
            return {"key": key, "value": None}
        text = str(value)
        if len(text) <= max_value_chars:
            return {"key": key, "value": text}
        return {"key": key, "value": text[:max_value_chars], "cut": len(text) - max_value_chars}

    def storage_set(key: Key, value: Annotated[str, MaxLen(max_value_chars)]) -> str:
        """Args:
            key: a relative key, such as 'todo' or 'lists/groceries'
            value: the text to save
        """
        check_storage_key(key, tool=chosen["storage_set"])
        try:
            area().setItem(prefix + key, value)
        except JsException as exc:
            raise ToolError(
                f"Could not save {key!r} in {kind} ({_js_error(exc)}): the storage is probably full. "
                "Remove keys that are no longer needed, or save a shorter value."
            ) from None
        return f"saved {key!r} ({_count(len(value), 'character')})"

    def storage_remove(key: Key) -> str:
        """Args:
            key: a relative key, such as 'todo' or 'lists/groceries'
        """
        check_storage_key(key, tool=chosen["storage_remove"])
        storage = area()
        if _missing(storage.getItem(prefix + key)):
            return f"{key!r} was not set; nothing removed"
        storage.removeItem(prefix + key)
        return f"removed {key!r}"

    def storage_list() -> list[str]:
        storage = area()
        keys = []
        for index in range(int(storage.length)):
            full = storage.key(index)
            if _missing(full) or not str(full).startswith(prefix):
                continue
            key = str(full)[len(prefix):]
            try:  # list only what storage_get can read
                check_storage_key(key, tool=chosen["storage_list"])
            except ToolError:
                continue
            keys.append(key)
        return sorted(keys)

    rules = (f"Keys are relative names (1 to {MAX_KEY_CHARS} characters, no '..', no leading '/'); only this "
             "tool's own keys are reachable.")
    made = {
        "storage_get": client_tool(storage_get, name=chosen["storage_get"], description=(
            f"Read a text value saved in {where}. Returns {{\"key\", \"value\"}}; value is null when the key "
            f"is not set. {rules}"
        )),
        "storage_list": client_tool(storage_list, name=chosen["storage_list"], description=(
            f"List the keys saved in {where} that this tool can reach (sorted relative names)."
        )),
    }
    if writable:
        made["storage_set"] = client_tool(storage_set, name=chosen["storage_set"], description=(
            f"Save a text value (at most {max_value_chars:,} characters) under a key in {where}, replacing "
            f"any value it had. {rules}"
        ))
        made["storage_remove"] = client_tool(storage_remove, name=chosen["storage_remove"], description=(
            f"Delete a key and its value from {where}. {rules}"
        ))
    return tuple(made[default] for default in defaults)


# -- page text and DOM ----------------------------------------------------------------------

def page_text_tool(root: Any, *, max_chars: int = 20_000, name: str = "read_page_text") -> ClientTool:
    """A tool that reads the text of the elements matching a CSS selector inside `root`.

    Only `root.querySelectorAll(selector)` is searched (and each match is checked with
    `root.contains`): an element outside `root` is never read, whatever the selector. The
    text is each outermost match's `innerText` (as rendered: hidden elements are left out),
    joined by blank lines, at most `max_chars` characters with a note saying how much was cut.

    Args:
        root: a JS element, a `pyscript.web` element, or a CSS selector looked up at each call.
        max_chars: the most characters of text returned.
        name: the tool's name.

    Returns:
        The `read_page_text(selector)` tool.

    Raises:
        ConfigurationError: `root` is not an element or a valid selector, or an invalid bound.
    """
    area = _Area(root, "page_text_tool")
    check_limit(max_chars, "max_chars")

    def read_page_text(selector: Selector) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
        """
        matches = _outermost(area.matches(selector, name))
        if not matches:
            return f"No element inside {area.label} matches {selector!r}."
        texts = [_text_of(node) for node in matches]
        text = "\n\n".join(t for t in texts if t)
        if not text:
            return f"The {_count(len(matches))} inside {area.label} matching {selector!r} have no text."
        return cap_text(text, max_chars, hint="Read a narrower selector to see the rest.")

    return client_tool(read_page_text, name=name, description=(
        "Read the text of the page elements that match a CSS selector (such as 'main', '.note' or "
        f"'table tr'), inside {area.label} only. The text as shown, one block per element, at most "
        f"{max_chars:,} characters in all, with a note saying how much was cut. An invalid selector is an error."
    ))


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
      removes it), for the names `pyclient._toolkit_rules.check_attribute` allows.

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
    area = _Area(root, "dom_tools")
    chosen = tool_names(("set_text", "toggle_class", "set_attribute"), names, factory="dom_tools")
    inside = f"inside {area.label} only"

    def set_text(selector: Selector, text: Annotated[str, MaxLen(MAX_SET_TEXT_CHARS)]) -> str:
        """Args:
            selector: a CSS selector, such as 'h1', '.note' or 'ul > li'
            text: the new text, shown as plain text
        """
        matches = _outermost(_require(area.matches(selector, chosen["set_text"]), selector, area, chosen["set_text"]))
        for node in matches:
            node.textContent = text
        return f"set the text of {_count(len(matches))} matching {selector!r}"

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
        return f"{verb} class {class_name!r} on {_count(len(matches))} matching {selector!r}"

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
            return f"removed {attribute!r} from {_count(len(matches))} matching {selector!r}"
        return f"set {attribute!r} on {_count(len(matches))} matching {selector!r}"

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


# -- background and toasts ------------------------------------------------------------------

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
    area = _Area(element, "background_tool") if element is not None else None
    what = "the page" if area is None else f"the element {area.label}"

    def change_background(background: Annotated[str, MinLen(1), MaxLen(500)]) -> str:
        """Args:
            background: a CSS background value, such as 'teal' or a gradient
        """
        value = background.strip()
        if not js.CSS.supports("background", value):
            raise ToolError(
                f"{value[:80]!r} is not a CSS background value this browser accepts. Call {name} again with a "
                "colour ('teal', '#1e3a8a', 'rgb(30 58 138)') or a gradient ('linear-gradient(teal, navy)')."
            )
        probe = js.document.createElement("div")
        probe.style.background = value
        if background_loads_url(value) or background_loads_url(str(probe.style.cssText)):
            raise ToolError(
                f"{value[:80]!r} would load a URL; {name} takes colours and gradients only. Call it again "
                "without url() or image-set()."
            )
        target = js.document.body if area is None else area.resolve()
        target.style.background = value
        return f"the background of {what} is now {value}"

    return client_tool(change_background, name=name, description=(
        f"Change the background of {what}. Accepts a CSS background value such as 'teal', '#1e3a8a' or "
        "'linear-gradient(teal, navy)', checked by the browser; values that load a URL (url(), image-set()) "
        "are refused."
    ))


def notify_tool(container: Any, *, duration_s: float = 5.0, name: str = "show_toast") -> ClientTool:
    """A tool that shows the user a short text notification (a toast) in `container`.

    Each toast is a `<div class="pyclient-toast pyclient-toast-<kind>" role="status"
    aria-live="polite" data-kind="<kind>">` whose text is the message (`textContent`, never
    HTML), appended to `container` and removed after `duration_s`. Style it with those classes.

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
    area = _Area(container, "notify_tool")
    check_limit(duration_s, "duration_s", minimum=0.001)

    def show_toast(message: Annotated[str, MinLen(1), MaxLen(MAX_TOAST_CHARS)], kind: ToastKind = "info") -> str:
        """Args:
            message: the text to show, plain text
            kind: how the toast looks
        """
        host = area.resolve()
        toast = js.document.createElement("div")
        toast.className = f"pyclient-toast pyclient-toast-{kind}"
        toast.setAttribute("role", "status")
        toast.setAttribute("aria-live", "polite")
        toast.setAttribute("data-kind", kind)
        toast.textContent = message
        host.append(toast)
        asyncio.get_running_loop().call_later(duration_s, toast.remove)
        return f"showed the user a notification ({kind}) for {duration_s:g} s"

    return client_tool(show_toast, name=name, description=(
        f"Show the user a short notification on the page (plain text, at most {MAX_TOAST_CHARS} characters) "
        f"that disappears after {duration_s:g} s. kind is info, success, warning or error."
    ))
