"""`storage_tools()`: tools that read and write text values in the page's Web Storage, under one prefix.

Which prefixes and keys are accepted is `pyclient.browser.toolkit._storage_rules`; the tools
apply those rules before they reach `localStorage` (or `sessionStorage`).
See https://developer.mozilla.org/en-US/docs/Web/API/Web_Storage_API

```python
import js
from pyclient.browser.toolkit import storage_tools

storage_get, storage_set, storage_remove, storage_list = storage_tools("example/", session=True)
print((await storage_set.execute({"key": "todo", "value": "water the plants"})).content)  # saved 'todo' (16 characters)
print(js.sessionStorage.getItem("example/todo"))      # water the plants
print((await storage_get.execute({"key": "../secret"})).error)   # Key '../secret' is refused: ...
print((await storage_remove.execute({"key": "todo"})).content)  # removed 'todo'
```
"""

from collections.abc import Mapping
from typing import Annotated, Any

from annotated_types import MaxLen, MinLen
from pyodide.ffi import JsException

from ..._base._errors import ToolError
from ..._tools._client_tool import ClientTool, client_tool
from .._page._page_window import page_window
from ._page import js_error, missing
from ._rules import check_limit, count_of, tool_names
from ._storage_rules import MAX_KEY_CHARS, check_storage_key, check_storage_prefix

__all__ = ["storage_tools"]


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
    segment (`pyclient.browser.toolkit._storage_rules.check_storage_key`).

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
            return page_window().sessionStorage if session else page_window().localStorage
        except JsException as exc:
            raise ToolError(f"The page cannot use {kind} ({js_error(exc)}). Tell the user.") from None

    def storage_get(key: Key) -> dict[str, Any]:
        """Args:
            key: a relative key, such as 'todo' or 'lists/groceries'
        """
        check_storage_key(key, tool=chosen["storage_get"])
        value = area().getItem(prefix + key)
        if missing(value):
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
                f"Could not save {key!r} in {kind} ({js_error(exc)}): the storage is probably full. "
                "Remove keys that are no longer needed, or save a shorter value."
            ) from None
        return f"saved {key!r} ({count_of(len(value), 'character')})"

    def storage_remove(key: Key) -> str:
        """Args:
            key: a relative key, such as 'todo' or 'lists/groceries'
        """
        check_storage_key(key, tool=chosen["storage_remove"])
        storage = area()
        if missing(storage.getItem(prefix + key)):
            return f"{key!r} was not set; nothing removed"
        storage.removeItem(prefix + key)
        return f"removed {key!r}"

    def storage_list() -> list[str]:
        storage = area()
        keys = []
        for index in range(int(storage.length)):
            full = storage.key(index)
            if missing(full) or not str(full).startswith(prefix):
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
